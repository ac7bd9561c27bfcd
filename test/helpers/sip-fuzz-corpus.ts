// Seeds of the SIP fuzz suite: the valid messages of RFC 4475 (section 3.1.1, from the shared
// corpus sip-testdata.ts finds) and the messages of SIPp's built-in scenarios (uac, the
// registrar and DTMF fixtures of test/fixtures/sip), rendered for one target. Each seed is a
// well-formed message; the mutator (sip-fuzz-mutate.ts) breaks it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sipTestdataDir } from './sip-testdata.ts'

export interface Seed {
  name: string
  bytes: Buffer
  /** Two messages in one (dblreq): what follows the first is answered on its own (stream) or ignored (UDP). */
  multi?: boolean
}

/** RFC 4475 3.1.1: valid messages (unreason and noreason are responses). */
export const RFC4475_VALID = ['wsinv', 'intmeth', 'esc01', 'escnull', 'esc02', 'lwsdisp', 'longreq', 'dblreq', 'semiuri', 'transports', 'mpart01', 'unreason', 'noreason']

export interface Target {
  /** The number called: a number of the appliance, so INVITEs reach its directory. */
  number: string
  host: string
  port: number
}

const SIPP_SDP = 'v=0\r\no=user1 53655765 2353687637 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'
// SDES keys (RFC 4568) in an SRTP offer, as a PBX over TLS sends them: the crypto lines get mutated too
const SRTP_SDP =
  'v=0\r\no=pbx 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6002 RTP/SAVP 0 8\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r\n' +
  'a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:32\r\na=crypto:2 AEAD_AES_128_GCM inline:6wcUfy3ikSZ81yjVCFu2V7mN3/n5NYzu5kBx2A==\r\n'

/** A request as SIPp's scenarios write it ([service], [call_id], [len] filled in). */
function sippRequest(method: string, t: Target, n: number, opts: { body?: string; type?: string; toTag?: boolean; extra?: string[] } = {}): Buffer {
  const body = opts.body ?? ''
  const uri = method === 'REGISTER' ? `sip:${t.host}:${t.port}` : `sip:${t.number}@${t.host}:${t.port}`
  return Buffer.from([
    `${method} ${uri} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:5061;branch=z9hG4bK-sipp-${n}-${method}`,
    `From: sipp <sip:sipp@127.0.0.1:5061>;tag=${n}SIPpTag00${n}`,
    `To: ${method === 'REGISTER' ? '<sip:sipp@127.0.0.1>' : `<sip:${t.number}@${t.host}:${t.port}>`}${opts.toTag ? ';tag=remote1' : ''}`,
    `Call-ID: ${n}-sipp@127.0.0.1`,
    `CSeq: 1 ${method}`,
    'Contact: sip:sipp@127.0.0.1:5061',
    'Max-Forwards: 70',
    'Subject: Performance Test',
    ...(opts.extra ?? []),
    ...(body ? [`Content-Type: ${opts.type ?? 'application/sdp'}`] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n'))
}

/** Messages of SIPp's uac scenario and of the checked-in registrar and DTMF scenarios. */
export function sippSeeds(t: Target): Seed[] {
  return [
    { name: 'sipp-invite', bytes: sippRequest('INVITE', t, 1, { body: SIPP_SDP }) },
    { name: 'invite-srtp', bytes: sippRequest('INVITE', t, 8, { body: SRTP_SDP }) },
    // RFC 4028 session timers, with Min-SE and a refresher the far end asks for
    { name: 'invite-session-timer', bytes: sippRequest('INVITE', t, 9, { body: SIPP_SDP, extra: ['Supported: timer', 'Session-Expires: 1800;refresher=uac', 'Min-SE: 90'] }) },
    { name: 'sipp-ack', bytes: sippRequest('ACK', t, 2, { toTag: true }) },
    { name: 'sipp-bye', bytes: sippRequest('BYE', t, 3, { toTag: true }) },
    { name: 'sipp-cancel', bytes: sippRequest('CANCEL', t, 4) },
    { name: 'sipp-options', bytes: sippRequest('OPTIONS', t, 5, { extra: ['Accept: application/sdp'] }) },
    { name: 'sipp-register', bytes: sippRequest('REGISTER', t, 6, { extra: ['Expires: 3600'] }) },
    { name: 'sipp-info-dtmf', bytes: sippRequest('INFO', t, 7, { toTag: true, body: 'Signal=5\r\nDuration=160\r\n', type: 'application/dtmf-relay' }) },
    { name: 'sipp-response', bytes: Buffer.from(`SIP/2.0 180 Ringing\r\nVia: SIP/2.0/UDP 127.0.0.1:5061;branch=z9hG4bK-none\r\nFrom: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:b@127.0.0.1>;tag=2\r\nCall-ID: nobody@127.0.0.1\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n`) },
  ]
}

/** The RFC 4475 valid messages, as the RFC writes them (their users are not numbers of ours). */
export function rfc4475Seeds(): Seed[] {
  const dir = join(sipTestdataDir(), 'rfc4475')
  return RFC4475_VALID.map((name) => ({ name: `rfc4475-${name}`, bytes: readFileSync(join(dir, `${name}.dat`)), multi: name === 'dblreq' }))
}

export const seedsFor = (t: Target): Seed[] => [...rfc4475Seeds(), ...sippSeeds(t)]

/** A valid OPTIONS, to show the appliance still answers. */
export function optionsProbe(t: Target, transport: 'UDP' | 'TCP' | 'TLS', id: string): Buffer {
  return Buffer.from(
    `OPTIONS sip:${t.number}@${t.host}:${t.port} SIP/2.0\r\nVia: SIP/2.0/${transport} 127.0.0.1:9;branch=z9hG4bK-${id};rport\r\n` +
      `From: <sip:probe@127.0.0.1>;tag=p\r\nTo: <sip:${t.number}@${t.host}>\r\nCall-ID: ${id}\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`,
  )
}
