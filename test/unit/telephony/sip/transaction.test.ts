import { describe, expect, test } from 'bun:test'
import { ClientTransaction, InviteServerTransaction, NonInviteServerTransaction } from '../../../../src/realtime/telephony/sip/transaction.ts'
import { parseMessage, request, response, utf8, text } from '../../../../src/realtime/telephony/sip/index.ts'

const timers = { t1: 10, t2: 40, t4: 50, timerD: 60 }
const udp = { transport: 'udp' as const, address: '127.0.0.1', port: 5070 }
const tcp = { ...udp, transport: 'tcp' as const }
const invite = request('INVITE', 'sip:a@b', [{ name: 'Via', value: 'SIP/2.0/UDP h;branch=z9hG4bK1' }, { name: 'CSeq', value: '1 INVITE' }])
const options = request('OPTIONS', 'sip:a@b', [{ name: 'Via', value: 'SIP/2.0/UDP h;branch=z9hG4bK2' }, { name: 'CSeq', value: '1 OPTIONS' }])

function recorder() {
  const sent: Array<{ at: number; what: string }> = []
  const start = performance.now()
  return { sent, send: (_: unknown, b: Uint8Array) => sent.push({ at: performance.now() - start, what: text(b).split('\r\n')[0]! }) }
}

const terminated = (tx: { onTerminated: () => void }) => new Promise<void>((r) => (tx.onTerminated = r))

describe('INVITE server transaction', () => {
  test('a final error is repeated by Timer G (doubling to T2) until Timer H gives up and reports no ACK', async () => {
    const rec = recorder()
    // a bare 10 ms timer beside the transaction: how late this machine fires timers right now
    let late = 0
    let due = performance.now() + 10
    const bare = setInterval(() => {
      late = Math.max(late, performance.now() - due)
      due = performance.now() + 10
    }, 10)
    const tx = new InviteServerTransaction('k', invite, udp, timers, rec.send)
    let noAck = false
    tx.onNoAck = () => (noAck = true)
    const done = terminated(tx)
    tx.respond(response(486, 'Busy Here', []))
    expect(tx.state).toBe('completed')
    await done
    clearInterval(bare)
    expect(noAck).toBe(true)
    const gaps = rec.sent.slice(1, 5).map((s, i) => s.at - rec.sent[i]!.at)
    expect(gaps[0]).toBeGreaterThanOrEqual(9)
    expect(gaps[1]).toBeGreaterThanOrEqual(19)
    // late timers only stretch the gaps and cut the count: the cap and the count are judged when
    // this machine fired timers on time
    if (late < 10) {
      expect(gaps[3]).toBeLessThan(80)
      expect(rec.sent.length).toBeGreaterThan(10)
    } else expect(rec.sent.length).toBeGreaterThanOrEqual(5)
  })

  test('an ACK confirms it and Timer I ends it; over TCP there is no retransmission at all', async () => {
    const rec = recorder()
    const tx = new InviteServerTransaction('k', invite, tcp, timers, rec.send)
    const done = terminated(tx)
    tx.respond(response(404, 'Not Found', []))
    tx.ack()
    await done
    expect(rec.sent).toHaveLength(1)
  })

  test('a retransmitted INVITE gets the last provisional again; after a 2xx it is absorbed until Timer L', async () => {
    const rec = recorder()
    const tx = new InviteServerTransaction('k', invite, udp, timers, rec.send)
    tx.respond(response(180, 'Ringing', []))
    tx.retransmission(udp)
    expect(rec.sent.map((s) => s.what)).toEqual(['SIP/2.0 180 Ringing', 'SIP/2.0 180 Ringing'])
    const done = terminated(tx)
    tx.respond(response(200, 'OK', []))
    expect(tx.state).toBe('accepted')
    tx.retransmission(udp)
    expect(rec.sent).toHaveLength(3)
    await done
  })
})

describe('client transactions', () => {
  test('INVITE: Timer A retransmits with doubling intervals until a provisional; a final error is ACKed', async () => {
    const rec = recorder()
    const acks: string[] = []
    const tx = new ClientTransaction('c', invite, udp, timers, rec.send, () => {
      acks.push('ack')
      return request('ACK', 'sip:a@b', [])
    })
    const results: number[] = []
    tx.onResult = (r) => 'response' in r && results.push(r.response.status)
    tx.start()
    while (rec.sent.length < 3) await Bun.sleep(5)
    tx.receive(parseMessage(utf8('SIP/2.0 100 Trying\r\nContent-Length: 0\r\n\r\n')).message as never)
    const count = rec.sent.length
    const done = terminated(tx)
    tx.receive(response(486, 'Busy Here', []))
    expect(tx.state).toBe('completed')
    tx.receive(response(486, 'Busy Here', []))
    await done
    expect(rec.sent.length).toBe(count + 2)
    expect(rec.sent.slice(count).map((s) => s.what)).toEqual(['ACK sip:a@b SIP/2.0', 'ACK sip:a@b SIP/2.0'])
    expect(results).toEqual([100, 486])
  })

  test('non-INVITE: Timer F reports a timeout when nothing answers', async () => {
    const rec = recorder()
    const tx = new ClientTransaction('c', options, udp, timers, rec.send, () => options)
    let timedOut = false
    tx.onResult = (r) => (timedOut = 'timeout' in r)
    const done = terminated(tx)
    tx.start()
    await done
    expect(timedOut).toBe(true)
    // doubling is capped at T2 (40 ms): most gaps are T2, where uncapped doubling would reach 320 ms
    // and send 7 times in Timer F's 640 ms. A stall of the machine lengthens one gap, not the median.
    const gaps = rec.sent
      .slice(1)
      .map((s, i) => s.at - rec.sent[i]!.at)
      .sort((x, y) => x - y)
    expect(gaps[Math.floor(gaps.length / 2)]!).toBeLessThan(40 + 30)
    expect(rec.sent.length).toBeGreaterThan(10)
  })
})

describe('non-INVITE server transaction', () => {
  test('repeats its final response to a retransmitted request, then Timer J ends it', async () => {
    const rec = recorder()
    const tx = new NonInviteServerTransaction('n', options, udp, timers, rec.send)
    const done = terminated(tx)
    tx.respond(response(200, 'OK', []))
    tx.retransmission(udp)
    await done
    expect(rec.sent.map((s) => s.what)).toEqual(['SIP/2.0 200 OK', 'SIP/2.0 200 OK'])
  })
})
