// werift's ICE sockets (node:dgram) have no 'error' listener. Bun arms IP_RECVERR on UDP sockets,
// so an ICMP "port unreachable" from a browser that went away can come back as an 'error' event,
// which without a listener is thrown as an uncaught exception: in a call worker, every call on it
// would go down. The call ends on its own (ICE consent, DTLS close), so the error is only reported.
import type { RTCPeerConnection } from './werift.ts'

interface ErrorEmitter {
  on(event: 'error', listener: (err: Error) => void): unknown
}

interface IceInternals {
  iceTransports?: { connection?: { protocols?: { transport?: { socket?: ErrorEmitter } }[] } }[]
}

/** The UDP sockets the peer gathered (werift internals, read structurally). */
export function iceSockets(pc: RTCPeerConnection): ErrorEmitter[] {
  const sockets: ErrorEmitter[] = []
  for (const ice of (pc as unknown as IceInternals).iceTransports ?? []) {
    for (const protocol of ice.connection?.protocols ?? []) {
      const socket = protocol.transport?.socket
      if (socket && typeof socket.on === 'function') sockets.push(socket)
    }
  }
  return sockets
}

/** Listens for errors on every UDP socket the peer gathered; returns how many there are. */
export function reportSocketErrors(pc: RTCPeerConnection, onError: (err: Error) => void): number {
  const sockets = iceSockets(pc)
  for (const socket of sockets) socket.on('error', onError)
  return sockets.length
}
