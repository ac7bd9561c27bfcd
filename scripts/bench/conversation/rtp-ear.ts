// The phone's receiving side: a UDP socket on 127.0.0.1 that gives the level of each 20 ms of
// G.711 audio the agent sends, with the moment it arrived.
import { decodeG711 } from '../../../src/realtime/media/codec/index.ts'
import { absNow } from './caller.ts'
import { frameDbfs } from './audio.ts'

/** The level of a G.711 RTP packet (PCMU or PCMA); undefined for RTCP, DTMF and other payloads. */
export function levelOf(data: Uint8Array): number | undefined {
  if (data.length < 12 || data[0]! >> 6 !== 2) return undefined
  const pt = data[1]! & 0x7f
  if (pt !== 0 && pt !== 8) return undefined
  let at = 12 + 4 * (data[0]! & 0x0f)
  if (data[0]! & 0x10) at += 4 + 4 * ((data[at + 2]! << 8) | data[at + 3]!)
  const payload = data.subarray(at, data[0]! & 0x20 ? data.length - data[data.length - 1]! : data.length)
  return payload.length ? frameDbfs(decodeG711(pt === 0 ? 'ulaw' : 'alaw', payload)) : undefined
}

/** A socket whose received audio is reported as `heard(at, dBFS)`. */
export function rtpEar(heard: (at: number, db: number) => void) {
  return Bun.udpSocket({
    hostname: '127.0.0.1',
    port: 0,
    binaryType: 'uint8array',
    socket: {
      error() {},
      data(_s, data) {
        const at = absNow()
        const db = levelOf(data)
        if (db !== undefined) heard(at, db)
      },
    },
  })
}
