// Media encryption against a plain peer (SIPp, which speaks no SRTP): a number set to "optional"
// offers SDES keys on RTP/AVP and falls back to RTP when the answer carries none, and answers a
// plain offer with plain RTP; a number set to "required" refuses a call whose signalling is not
// TLS with 488 and logs why. The plain calls' capture is also the check that the capture test of
// the SRTP calls (srtp-baresip.test.ts) would see plain audio if there were any.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { startLoggedAppliance } from '../../helpers/logged-appliance.ts'
import { captureLoopback, rtpPayloadReport } from '../../helpers/loopback-capture.ts'
import { readStereoWav } from '../../helpers/media-call.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { loudWindows } from '../../helpers/speech.ts'

let t: TestAppliance & { logs: string[] }

beforeAll(async () => {
  // SIPp's -rtp_echo sends our voice back: barge-in limits this high keep the agent from interrupting itself
  t = await startLoggedAppliance({ BARGE_IN_MAX_BACKCHANNEL_MS: 60_000, BARGE_IN_MIN_SPEECH_MS: 60_000 })
})

afterAll(async () => {
  await t?.stop()
})

const greeting = {
  nodes: [
    { id: 'start', type: 'start', config: { text: 'Hello, this is Acme calling about your appointment on Monday morning.' } },
    { id: 'bye', type: 'end', config: { text: 'Goodbye.' } },
  ],
  edges: [{ from: 'start', to: 'bye' }],
}

async function setEncryption(numberId: string, mediaEncryption: string): Promise<void> {
  const r = await t.api('PATCH', `/api/phone-numbers/${numberId}`, { body: { mediaEncryption } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
}

/** The SIP message bodies seen on the loopback whose first line matches `start`. */
const sipMessages = (packets: { payload: Uint8Array }[], start: RegExp) =>
  packets.map((p) => new TextDecoder().decode(p.payload)).filter((text) => start.test(text.split('\r\n', 1)[0]!))

describe('optional media encryption with a plain peer', () => {
  test('an outbound call offers SDES keys on RTP/AVP, SIPp answers plain, and the call goes on over RTP', async () => {
    const port = await freePort()
    const mediaPort = await freePort()
    const callee = sipp(['-sn', 'uas', '-rtp_echo', '-i', '127.0.0.1', '-p', String(port), '-mp', String(mediaPort), '-m', '1'], 30)
    const target = await setupCallTarget(t, { trunkUri: `sip:127.0.0.1:${port}`, direction: 'outbound' })
    await setEncryption(target.numberId, 'optional')
    expect((await t.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: greeting })).status).toBe(200)

    const capture = await captureLoopback('udp')
    try {
      const placed = await t.api('POST', '/api/calls', { body: { phoneNumberId: target.numberId, to: '+14155550199' } })
      expect(placed.status, JSON.stringify(placed.body)).toBe(200)
      const run = await callee.exited
      expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
      const call = await waitForCall(t, (c) => c.id === placed.body.call.id && c.status === 'ended')
      const packets = await capture.stop()
      expect(call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })

      // the offer: best-effort SDES, one a=crypto line per enabled suite on RTP/AVP
      const [invite] = sipMessages(packets, /^INVITE sip:\+14155550199@/)
      expect(invite).toMatch(/m=audio \d+ RTP\/AVP /)
      expect(invite!.match(/^a=crypto:\d+ [A-Z0-9_]+ inline:/gm)?.length).toBe(3)
      // SIPp's echo of our plain RTP is in the recording: the agent was heard over plain RTP
      const { left } = readStereoWav(`${t.dataDir}/recordings/${call.id}.wav`)
      expect(loudWindows(left, 1600, -35)).toBeGreaterThan(10)
      // and the capture shows it for what it is: G.711 audio with its silences
      const plain = rtpPayloadReport(packets, (p) => p !== mediaPort, (p) => p === mediaPort)
      expect(plain.packets).toBeGreaterThan(100)
      expect(plain.silentPayloads).toBeGreaterThan(10)
      expect(plain.entropy).toBeLessThan(7.5)
    } finally {
      await capture.stop().catch(() => [])
    }
  }, 40_000)

  test('a plain inbound offer is answered with plain RTP/AVP and no keys', async () => {
    const target = await setupCallTarget(t, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })
    await setEncryption(target.numberId, 'optional')
    const capture = await captureLoopback('udp')
    try {
      const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-d', '1500', '-i', '127.0.0.1', '-p', String(await freePort()), '-mp', String(await freePort())], 20).exited
      expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
      const call = await waitForCall(t, (c) => c.to === target.e164 && c.status === 'ended')
      expect(call).toMatchObject({ outcome: 'completed', endReason: 'caller_hangup' })
      const [ok] = sipMessages(await capture.stop(), /^SIP\/2\.0 200 OK/).filter((m) => m.includes('CSeq: 1 INVITE'))
      expect(ok).toMatch(/m=audio \d+ RTP\/AVP /)
      expect(ok).not.toContain('a=crypto')
    } finally {
      await capture.stop().catch(() => [])
    }
  }, 30_000)
})

test('a number set to required refuses a call over UDP with 488 and logs that SDES keys need TLS', async () => {
  const target = await setupCallTarget(t, { trunkUri: 'sip:127.0.0.1:5999;transport=tls', transport: 'tls' })
  await setEncryption(target.numberId, 'required')
  const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-i', '127.0.0.1', '-p', String(await freePort())], 20).exited
  expect(run.code).not.toBe(0)
  expect(run.stderr).toMatch(/received 'SIP\/2\.0 488/)
  const line = t.logs.find((l) => l.includes('inbound call refused with 488: media encryption') && l.includes(target.e164))
  expect(JSON.parse(line!).reason).toContain('signalling is udp, not tls: SDES keys travel only over TLS')
  const calls = (await t.api('GET', '/api/calls?limit=100')).body.calls as any[]
  expect(calls.filter((c) => c.to === target.e164)).toEqual([])
})
