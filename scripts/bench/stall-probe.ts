// How long /health and a SIP OPTIONS round trip over UDP take while something runs in the
// appliance's process: a stall of its event loop delays both probes.
import { createSocket } from 'node:dgram'

/** Probes /health at `base` and SIP OPTIONS at `sipPort` every `intervalMs` until `until` settles; round trips in ms. */
export async function probeWhile(until: Promise<unknown>, target: { base: string; sipPort: number; intervalMs: number }): Promise<{ health: number[]; sip: number[] }> {
  const { base, sipPort, intervalMs } = target
  const sock = createSocket('udp4')
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r))
  const pending = new Map<string, number>()
  const out = { health: [] as number[], sip: [] as number[] }
  sock.on('message', (m) => {
    const id = /Call-ID: (\S+)/i.exec(m.toString())?.[1]
    const sent = id && pending.get(id)
    if (sent) out.sip.push(performance.now() - sent)
    if (id) pending.delete(id)
  })
  let done = false
  void until.finally(() => (done = true))
  for (let n = 0; !done; n++) {
    const id = `probe-${n}`
    const msg = `OPTIONS sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${sock.address().port};branch=z9hG4bK${id}\r\nFrom: <sip:b@127.0.0.1>;tag=b\r\nTo: <sip:x@127.0.0.1>\r\nCall-ID: ${id}\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n`
    pending.set(id, performance.now())
    sock.send(msg, sipPort, '127.0.0.1')
    const t0 = performance.now()
    await fetch(`${base}/health`)
    out.health.push(performance.now() - t0)
    await Bun.sleep(Math.max(0, intervalMs - (performance.now() - t0))) // the probing pace
  }
  await Bun.sleep(200) // late OPTIONS answers
  sock.close()
  return out
}
