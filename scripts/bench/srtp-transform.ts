// SRTP on the per-packet hot path: protect + unprotect of one 172-byte RTP packet (12-byte
// header + 160 bytes of PCMU, 20 ms) for each suite, against copying the packet into a new
// buffer on each side, all in one run. As in RtpSession, protect seals into a send buffer kept
// across packets and unprotect opens the received datagram in place; each datagram is a new
// buffer, as from the socket, so receive copies the wire packet first, as the copy path does.
// Rounds alternate between the paths and the median is reported, so a burst of load on the
// machine does not land on one path only.
// Each suite runs on both cipher engines (OpenSSL's libcrypto through FFI, the default where it
// loads, and the runtime's crypto), and on libsrtp 2 through FFI when libsrtp2-1 is installed.
// werift-rtp (not a dependency) is measured too when it can be imported; to include it, run
//   npm install --prefix /tmp/werift werift-rtp@0.8.9
//   WERIFT_RTP=/tmp/werift/node_modules/werift-rtp bun run scripts/bench/srtp-transform.ts
import { serializeRtp } from '../../src/realtime/media/rtp/index.ts'
import { defaultSrtpCrypto, generateInlineKey, SrtpInbound, SrtpOutbound, type SrtpCrypto, type SrtpSuite } from '../../src/realtime/srtp/index.ts'
import { libsrtp, LibsrtpInbound, LibsrtpOutbound } from './libsrtp.ts'
import { median } from './stats.ts'

const PACKETS = Number(process.env.PACKETS ?? 100_000)
const ROUNDS = Number(process.env.ROUNDS ?? 5)
/** Contexts used in turn, so that their state is no longer in the CPU cache, as in a busy appliance. */
const CALLS = Number(process.env.CALLS ?? 1)
const PACKETS_PER_SECOND = 50 // one direction of a 20 ms call

const plain = serializeRtp({ marker: false, payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0x5eed, csrcs: [], payload: new Uint8Array(160).fill(0xd5) })

/** A path: `send` turns the packet of sequence number `seq` into what goes on the wire, `receive` back. */
interface Path {
  name: string
  send(seq: number): Uint8Array
  receive(wire: Uint8Array): unknown
}

type Engine = SrtpCrypto | 'libsrtp'

function contexts(suite: SrtpSuite, engine: Engine, key: string) {
  const lib = engine === 'libsrtp' ? libsrtp() : null
  if (lib) return { out: new LibsrtpOutbound(lib, suite, key), inb: new LibsrtpInbound(lib, suite, key) }
  const crypto = engine as SrtpCrypto
  return { out: new SrtpOutbound(suite, key, { crypto }), inb: new SrtpInbound(suite, key, { crypto }) }
}

function ours(suite: SrtpSuite, engine: Engine): Path {
  const calls = Array.from({ length: CALLS }, () => {
    const key = generateInlineKey(suite)
    const sendBuf = new Uint8Array(1500)
    return { ...contexts(suite, engine, key), sendBuf, sendView: sendBuf.subarray(0, plain.length) }
  })
  let call = calls[0]!
  return {
    name: `${suite} (${engine})`,
    send: (seq) => {
      // with CALLS > 1, packet seq goes to call seq % CALLS as that call's packet seq / CALLS
      call = calls[seq % CALLS]!
      const own = Math.floor(seq / CALLS) & 0xffff
      // RtpSession builds each packet in its send buffer and seals it there
      call.sendBuf.set(plain)
      call.sendBuf[2] = (own >>> 8) & 0xff
      call.sendBuf[3] = own & 0xff
      return call.out.protectRtp(call.sendView, call.sendBuf) as Uint8Array
    },
    receive: (wire) => {
      const datagram = wire.slice()
      if (!(call.inb.unprotectRtp(datagram, datagram) instanceof Uint8Array)) throw new Error(`${suite} refused its own packet`)
    },
  }
}

const copy: Path = { name: 'plain copy (baseline)', send: () => plain.slice(), receive: (wire) => wire.slice() }

interface WeriftRtp {
  SrtpSession: new (c: object) => { encrypt(payload: Buffer, header: object): Buffer; decrypt(b: Buffer): Buffer }
  RtpPacket: { deSerialize(b: Buffer): { header: { sequenceNumber: number }; payload: Buffer } }
  ProtectionProfileAes128CmHmacSha1_80: number
  ProtectionProfileAeadAes128Gcm: number
}

async function werift(): Promise<(() => Path)[]> {
  try {
    const w = (await import(process.env.WERIFT_RTP ?? 'werift-rtp')) as WeriftRtp
    const packet = w.RtpPacket.deSerialize(Buffer.from(plain))
    const profiles: [string, number, number][] = [['AES_CM_128_HMAC_SHA1_80', w.ProtectionProfileAes128CmHmacSha1_80, 14], ['AEAD_AES_128_GCM', w.ProtectionProfileAeadAes128Gcm, 12]]
    return profiles.map(([name, profile, saltBytes]) => () => {
      const key = Buffer.alloc(16, 7)
      const salt = Buffer.alloc(saltBytes, 9)
      const session = new w.SrtpSession({ profile, keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt } })
      return {
        name: `werift-rtp ${name}`,
        send: (seq) => {
          packet.header.sequenceNumber = seq & 0xffff
          return session.encrypt(packet.payload, packet.header)
        },
        receive: (wire) => session.decrypt(wire as Buffer),
      }
    })
  } catch {
    console.log('(werift-rtp not importable: see the header of this file to include it)\n')
    return []
  }
}

/** Microseconds per packet for send only and for send + receive, each on new contexts. */
function round(make: () => Path): { send: number; both: number } {
  const sender = make()
  let t0 = performance.now()
  for (let i = 0; i < PACKETS; i++) sender.send(i)
  const send = ((performance.now() - t0) * 1000) / PACKETS
  const both = make()
  t0 = performance.now()
  for (let i = 0; i < PACKETS; i++) both.receive(both.send(i))
  return { send, both: ((performance.now() - t0) * 1000) / PACKETS }
}


const engines: Engine[] = [...(defaultSrtpCrypto() === 'openssl' ? ['openssl' as const] : []), 'builtin', ...(libsrtp() ? ['libsrtp' as const] : [])]
const suites = ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32', 'AEAD_AES_128_GCM'] as const
const makers: (() => Path)[] = [() => copy, ...suites.flatMap((s) => engines.map((e) => () => ours(s, e))), ...(await werift())]
const names = makers.map((make) => make().name)
for (const make of makers) {
  const p = make()
  for (let i = 0; i < 20_000; i++) p.receive(p.send(i))
}
const samples = makers.map(() => ({ send: [] as number[], both: [] as number[] }))
for (let r = 0; r < ROUNDS; r++) {
  makers.forEach((make, i) => {
    const s = round(make)
    samples[i]!.send.push(s.send)
    samples[i]!.both.push(s.both)
  })
}

const base = median(samples[0]!.both)
console.log(`${PACKETS} packets x ${ROUNDS} rounds over ${CALLS} call(s), 172-byte RTP (PCMU 20 ms), Bun ${Bun.version}, median of rounds\n`)
console.log('| path | protect us | unprotect us | protect+unprotect us | ratio to copy | CPU per call (50 pps each way) |')
console.log('|---|---:|---:|---:|---:|---:|')
names.forEach((name, i) => {
  const send = median(samples[i]!.send)
  const both = median(samples[i]!.both)
  const perCall = (both * PACKETS_PER_SECOND) / 1e6
  console.log(`| ${name} | ${send.toFixed(2)} | ${(both - send).toFixed(2)} | ${both.toFixed(2)} | ${(both / base).toFixed(1)} | ${(perCall * 100).toFixed(4)} % |`)
})
