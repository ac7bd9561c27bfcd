// A UDP socket on 127.0.0.1 standing where a SIP request might be sent: it keeps the first line
// of each datagram, so a test can show that nothing (or exactly what) arrived.
import dgram from 'node:dgram'

export interface UdpSink {
  port: number
  /** First lines (e.g. `INVITE sip:... SIP/2.0`) of the datagrams received, in order. */
  received: string[]
  close(): void
}

export async function startUdpSink(): Promise<UdpSink> {
  const socket = dgram.createSocket('udp4')
  const received: string[] = []
  socket.on('message', (m) => received.push(m.toString('utf8').split('\r\n')[0] as string))
  await new Promise<void>((res) => socket.bind(0, '127.0.0.1', res))
  return { port: socket.address().port, received, close: () => socket.close() }
}
