// The same-run baseline, near end: `streams` RTP-sized streams at 20 ms (phases spread over one
// period, as independent phones would be) to the echo process; each packet's round trip.
const PACKET_BYTES = 172

export async function measureFloor(echoPort: number, streams: number, durationMs: number): Promise<number[]> {
  const rtts: number[] = []
  const sockets: Bun.udp.Socket<'uint8array'>[] = []
  const runs: Promise<void>[] = []
  for (let s = 0; s < streams; s++) {
    const sent = new Map<number, number>()
    const socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      port: 0,
      binaryType: 'uint8array',
      socket: {
        error() {},
        data(_s, data) {
          const seq = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0)
          const at = sent.get(seq)
          if (at !== undefined) rtts.push(performance.now() - at)
        },
      },
    })
    sockets.push(socket)
    runs.push(
      new Promise<void>((resolve) => {
        const packet = new Uint8Array(PACKET_BYTES)
        const view = new DataView(packet.buffer)
        const origin = performance.now() + (s * 20) / streams
        let k = 0
        const loop = () => {
          while (origin + k * 20 <= performance.now()) {
            view.setUint32(0, k)
            sent.set(k, performance.now())
            socket.send(packet, echoPort, '127.0.0.1')
            k++
          }
          if (k * 20 >= durationMs) return void setTimeout(resolve, 100)
          setTimeout(loop, Math.max(0, origin + k * 20 - performance.now()))
        }
        setTimeout(loop, Math.max(0, origin - performance.now()))
      }),
    )
  }
  await Promise.all(runs)
  for (const s of sockets) s.close()
  return rtts
}
