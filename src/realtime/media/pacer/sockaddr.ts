// A destination as the kernel takes it in sendto(2) (Linux, little-endian): sockaddr_in for an
// IPv4 socket, sockaddr_in6 for an IPv6 one, where an IPv4 peer is ::ffff:a.b.c.d.
import { isIPv4, isIPv6 } from 'node:net'

const AF_INET = 2
const AF_INET6 = 10

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number)
}

/** The 16 bytes of an IPv6 address (with :: and a dotted IPv4 tail), or undefined with a zone. */
function ipv6Bytes(address: string): number[] | undefined {
  if (address.includes('%')) return undefined
  let text = address
  let tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.slice(lastColon + 1).includes('.')) {
    tail = ipv4Bytes(text.slice(lastColon + 1))
    text = `${text.slice(0, lastColon + 1)}0:0`
  }
  const [left, right] = text.includes('::') ? text.split('::') : [text, undefined]
  const words = (s: string | undefined) => (s ? s.split(':').filter((w) => w !== '').map((w) => parseInt(w, 16)) : [])
  const head = words(left)
  const rest = words(right)
  const groups = right === undefined ? head : [...head, ...Array(8 - head.length - rest.length).fill(0), ...rest]
  if (groups.length !== 8) return undefined
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff])
  if (tail.length) bytes.splice(12, 4, ...tail)
  return bytes
}

/** The sockaddr for sending to `address`:`port` from a socket of `family`, or undefined when it has none. */
export function sockaddrOf(address: string, port: number, family: 'IPv4' | 'IPv6'): Uint8Array | undefined {
  if (!(Number.isInteger(port) && port > 0 && port < 65536)) return undefined
  if (family === 'IPv4') {
    if (!isIPv4(address)) return undefined
    const a = new Uint8Array(16)
    a[0] = AF_INET
    a[2] = port >> 8
    a[3] = port & 0xff
    a.set(ipv4Bytes(address), 4)
    return a
  }
  const bytes = isIPv4(address) ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...ipv4Bytes(address)] : isIPv6(address) ? ipv6Bytes(address) : undefined
  if (!bytes) return undefined
  const a = new Uint8Array(28)
  a[0] = AF_INET6
  a[2] = port >> 8
  a[3] = port & 0xff
  a.set(bytes, 8)
  return a
}
