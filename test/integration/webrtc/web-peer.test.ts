import { afterEach, expect, test } from 'bun:test'
import { RTCPeerConnection, RtpHeader, RtpPacket } from 'werift'
import { WebRtcOfferError } from '../../../src/realtime/webrtc/index.ts'
import { WebPeer } from '../../../src/realtime/webrtc/peer.ts'
import { iceSockets } from '../../../src/realtime/webrtc/sockets.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'

const loopback = { hostAddresses: ['127.0.0.1'], iceServers: [], allowNetworks: [], maxRemoteCandidates: 20 }
const open: { close(): unknown }[] = []
afterEach(() => {
  for (const o of open.splice(0)) o.close()
})

/** A browser stand-in: a werift peer that offers one Opus track, as Chrome does. */
async function browserOffer() {
  const { pc, track, transceiver } = loopbackPeer()
  open.push(pc)
  return { pc, track, transceiver, offer: await gatheredOffer(pc) }
}

test('a browser offer is answered with loopback host candidates only and audio flows both ways', async () => {
  const browser = await browserOffer()
  const peer = await WebPeer.answer(browser.offer, loopback)
  open.push({ close: () => peer.close() })
  const candidates = peer.answerSdp.split(/\r?\n/).filter((l) => l.startsWith('a=candidate'))
  expect(candidates.length).toBeGreaterThan(0)
  for (const c of candidates) expect(c.split(' ')[4]).toBe('127.0.0.1')
  expect(peer.media.codec.name).toBe('opus')

  const heard: number[] = []
  const link = peer.link({ onPacket: (p) => heard.push(p.sequenceNumber) })
  const browserHeard: number[] = []
  browser.transceiver.onTrack.subscribe((t) => t.onReceiveRtp.subscribe((rtp) => browserHeard.push(rtp.header.payloadType)))
  await browser.pc.setRemoteDescription({ type: 'answer', sdp: peer.answerSdp })
  await new Promise<void>((r) => peer.onConnected(r))
  const pt = peer.media.codec.payloadType
  for (let i = 0; heard.length < 5 || browserHeard.length < 5; i++) {
    browser.track.writeRtp(new RtpPacket(new RtpHeader({ payloadType: pt, sequenceNumber: i, timestamp: i * 960 }), Buffer.alloc(60, 7)))
    link.send(pt, new Uint8Array(60), i * 960, i === 0)
    await Bun.sleep(20) // the packet clock of a 20 ms stream, not a synchronisation
  }
  expect(heard.slice(0, 3)).toEqual([0, 1, 2])
  expect(browserHeard.every((p) => p === pt)).toBe(true)
  expect(link.stats().packetsReceived).toBeGreaterThanOrEqual(5)
  link.close()
})

test('an offer without audio is refused with a clear error', async () => {
  const pc = new RTCPeerConnection({ iceUseIpv4: false, iceUseIpv6: false, iceAdditionalHostAddresses: ['127.0.0.1'] })
  open.push(pc)
  pc.createDataChannel('x')
  await pc.setLocalDescription(await pc.createOffer())
  await expect(WebPeer.answer(pc.localDescription!.sdp, loopback)).rejects.toBeInstanceOf(WebRtcOfferError)
  await expect(WebPeer.answer('v=0\r\nnot sdp', loopback)).rejects.toBeInstanceOf(WebRtcOfferError)
})

test('closing our end reports the end once, with its reason', async () => {
  const browser = await browserOffer()
  const peer = await WebPeer.answer(browser.offer, loopback)
  await browser.pc.setRemoteDescription({ type: 'answer', sdp: peer.answerSdp })
  await new Promise<void>((r) => peer.onConnected(r))
  const reasons: string[] = []
  peer.onEnded((r) => reasons.push(r))
  peer.close('agent_hangup')
  peer.close('again')
  expect(reasons).toEqual(['agent_hangup'])
  expect(peer.connectionState).toBe('ended')
})

test('mDNS (.local) candidates are ignored, so the appliance never multicasts to resolve them', async () => {
  const browser = await browserOffer()
  const mdns = 'candidate:1 1 udp 2122260223 3f1a9c2e-5d1b-4b7e-9a43-2c6f0d1e8b77.local 54400 typ host'
  const offer = browser.offer.replace(/(a=candidate[^\r\n]*\r?\n)/, `$1a=${mdns}\r\n`)
  const peer = await WebPeer.answer(offer, loopback)
  open.push({ close: () => peer.close() })
  await peer.addCandidate({ candidate: mdns, sdpMid: '0', sdpMLineIndex: 0 })
  await browser.pc.setRemoteDescription({ type: 'answer', sdp: peer.answerSdp })
  await new Promise<void>((r) => peer.onConnected(r))
  expect(peer.connectionState).toBe('connected')
})

test("an error on the peer's UDP socket (ICMP from a browser that went away) is counted, not thrown out of the worker", async () => {
  const browser = await browserOffer()
  const peer = await WebPeer.answer(browser.offer, loopback)
  open.push({ close: () => peer.close() })
  const sockets = iceSockets((peer as unknown as { pc: RTCPeerConnection }).pc) as unknown as { emit(e: string, err: Error): boolean }[]
  expect(sockets.length).toBeGreaterThan(0)
  expect(peer.guardedSockets).toBe(sockets.length)
  // what Bun emits when IP_RECVERR queues an ICMP port unreachable
  const refused = Object.assign(new Error('recvmsg ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'recvmsg' })
  for (const s of sockets) expect(() => s.emit('error', refused)).not.toThrow()
  expect(peer.socketErrors).toBe(sockets.length)
  expect(peer.connectionState).not.toBe('ended')
})
