// The wire's floor, far end: a bare Bun UDP socket that sends every datagram straight back. What
// an RTP round trip costs on this machine with nothing but the network and the scheduler between.
const socket = await Bun.udpSocket({
  hostname: '127.0.0.1',
  port: 0,
  binaryType: 'uint8array',
  socket: {
    error() {},
    data(s, data, port, address) {
      s.send(data, port, address)
    },
  },
})
console.log(JSON.stringify({ port: socket.port }))
// ends with its parent: stdin closes
for await (const _ of Bun.stdin.stream());
socket.close()
process.exit(0)

export {}
