import { describe, expect, test } from 'bun:test'
import { MAX_DATAGRAM, SendRing } from '../../../../src/realtime/media/pacer/ring.ts'
import { sockaddrOf } from '../../../../src/realtime/media/pacer/sockaddr.ts'

const address = sockaddrOf('127.0.0.1', 4000, 'IPv4')!

/** What the consumer side reads of slot `n`. */
function read(ring: SendRing, n: number) {
  const at = ring.dataAt(n)
  return { fd: ring.fdOf(n), due: ring.dueOf(n), data: [...ring.bytes.subarray(at, at + ring.lengthOf(n))], address: [...ring.bytes.subarray(ring.addressAt(n), ring.addressAt(n) + ring.addressLengthOf(n))] }
}

describe('pacer send ring', () => {
  test('a queued datagram reaches the consumer with its descriptor, destination, bytes and due instant, in order', () => {
    const ring = SendRing.create(4)
    expect(ring.push(7, address, new Uint8Array([1, 2, 3]), 100.5)).toBe(true)
    expect(ring.push(8, address, new Uint8Array([4]), 120.5)).toBe(true)
    expect(ring.pending).toBe(2)
    const h = ring.head
    expect(read(ring, h)).toEqual({ fd: 7, due: 100.5, data: [1, 2, 3], address: [...address] })
    expect(read(ring, h + 1)).toEqual({ fd: 8, due: 120.5, data: [4], address: [...address] })
  })

  test('the consumer reports when each went out and any errno back to the producer', () => {
    const ring = SendRing.create(4)
    ring.push(7, address, new Uint8Array(10), 100)
    ring.push(7, address, new Uint8Array(10), 120)
    const h = ring.head
    ring.done(h, 100.25, 0)
    ring.done(h + 1, 121, 111)
    expect(ring.pending).toBe(0)
    expect([ring.sentAt(h) - ring.dueOf(h), ring.errorOf(h)]).toEqual([0.25, 0])
    expect([ring.sentAt(h + 1) - ring.dueOf(h + 1), ring.errorOf(h + 1)]).toEqual([1, 111])
  })

  test('a full ring and a datagram larger than a slot are refused, and nothing queued changes', () => {
    const ring = SendRing.create(2)
    expect(ring.push(1, address, new Uint8Array(MAX_DATAGRAM + 1), 1)).toBe(false)
    expect(ring.push(1, address, new Uint8Array(5), 1)).toBe(true)
    expect(ring.push(2, address, new Uint8Array(6), 2)).toBe(true)
    expect(ring.push(3, address, new Uint8Array(7), 3)).toBe(false)
    expect(ring.pending).toBe(2)
    expect(read(ring, ring.head).fd).toBe(1)
    ring.done(ring.head, 1, 0)
    expect(ring.push(3, address, new Uint8Array(7), 3)).toBe(true)
  })

  test('counters that wrap past 2^31 keep the order and the count', () => {
    const ring = SendRing.create(4)
    // as after about 30 hours of 20,000 packets a second
    Atomics.store(ring.control, 0, 0x7ffffffe)
    Atomics.store(ring.control, 1, 0x7ffffffe)
    for (let fd = 1; fd <= 4; fd++) expect(ring.push(fd, address, new Uint8Array([fd]), fd)).toBe(true)
    expect(ring.pending).toBe(4)
    expect(ring.push(5, address, new Uint8Array([5]), 5)).toBe(false)
    const fds: number[] = []
    for (let n = ring.head, k = 0; k < 4; k++, n = (n + 1) | 0) {
      fds.push(ring.fdOf(n))
      ring.done(n, 0, 0)
    }
    expect(fds).toEqual([1, 2, 3, 4])
    expect(ring.pending).toBe(0)
    expect(ring.tail).toBeLessThan(0)
  })

  test('only a power of two of slots is accepted', () => {
    expect(() => SendRing.create(3)).toThrow(RangeError)
  })
})

describe('pacer destinations', () => {
  test('IPv4 on an IPv4 socket is a sockaddr_in: family 2, port big-endian, the address', () => {
    expect([...sockaddrOf('10.1.2.3', 0x1234, 'IPv4')!]).toEqual([2, 0, 0x12, 0x34, 10, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0])
  })

  test('IPv6 with :: is expanded into a sockaddr_in6: family 10, port, no flow, 16 bytes', () => {
    const a = sockaddrOf('2001:db8::1', 5004, 'IPv6')!
    expect(a.length).toBe(28)
    expect([...a.subarray(0, 8)]).toEqual([10, 0, 0x13, 0x8c, 0, 0, 0, 0])
    expect([...a.subarray(8, 24)]).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
  })

  test('IPv4 peers of an IPv6 socket are v4-mapped, and dotted tails are read', () => {
    const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7]
    expect([...sockaddrOf('192.0.2.7', 9, 'IPv6')!.subarray(8, 24)]).toEqual(mapped)
    expect([...sockaddrOf('::ffff:192.0.2.7', 9, 'IPv6')!.subarray(8, 24)]).toEqual(mapped)
  })

  test('what the pacer cannot address is left to the media thread: zones, the wrong family, bad ports, names', () => {
    expect(sockaddrOf('fe80::1%eth0', 5004, 'IPv6')).toBeUndefined()
    expect(sockaddrOf('2001:db8::1', 5004, 'IPv4')).toBeUndefined()
    expect(sockaddrOf('127.0.0.1', 0, 'IPv4')).toBeUndefined()
    expect(sockaddrOf('127.0.0.1', 70000, 'IPv4')).toBeUndefined()
    expect(sockaddrOf('pbx.example', 5004, 'IPv4')).toBeUndefined()
  })
})
