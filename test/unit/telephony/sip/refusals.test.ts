// The refusal log's aggregation: the first refusal of a source for a reason is a line at once,
// repeats are summed in one line per interval, a quiet source is forgotten, and a flood of
// sources is capped; every refusal is counted for the metrics whatever was logged.
import { expect, test } from 'bun:test'
import { RefusalLog, refusalOfStatus, type Refusal } from '../../../../src/realtime/telephony/sip/refusals.ts'

function setup(maxTracked?: number) {
  const lines: { obj: Record<string, unknown>; msg?: string }[] = []
  const counted: string[] = []
  const log = new RefusalLog({ info: (obj, msg) => lines.push({ obj: obj as Record<string, unknown>, msg }) }, { intervalMs: 3_600_000, maxTracked, onRefused: (r) => counted.push(r) })
  return { log, lines, counted }
}

const from = (source: string, reason: Refusal['reason'] = 'unknown_number', requestUser = '4155550123'): Refusal =>
  ({ reason, status: 403, source, transport: 'udp', method: 'INVITE', requestUser, toUser: requestUser })

test('the first refusal of a source and reason is logged at once; repeats make one summary line with their count', () => {
  const { log, lines, counted } = setup()
  log.refused(from('192.0.2.1:5060'))
  log.refused(from('192.0.2.1:5070', 'unknown_number', '4155550124'))
  log.refused(from('192.0.2.1:5060', 'not_trunk'))
  log.refused(from('192.0.2.1:5060'))
  expect(lines.map((l) => [l.obj.reason, l.msg])).toEqual([
    ['unknown_number', 'sip request refused: unknown number'],
    ['not_trunk', 'sip request refused: source is not a trunk of the number'],
  ])
  log.flush()
  expect(lines[2]).toEqual({
    obj: expect.objectContaining({ event: 'sip_refused', reason: 'unknown_number', source: '192.0.2.1:5060', count: 2, intervalSec: 3600 }),
    msg: 'sip request refused: unknown number (repeated)',
  })
  expect(lines).toHaveLength(3)
  expect(counted).toEqual(['unknown_number', 'unknown_number', 'not_trunk', 'unknown_number'])
  log.stop()
})

test('a source quiet for a whole interval is forgotten, so its next refusal is logged at once again', () => {
  const { log, lines } = setup()
  log.refused(from('192.0.2.1:5060'))
  log.flush() // the interval it was first seen in
  log.refused(from('192.0.2.1:5060'))
  expect(lines).toHaveLength(1)
  log.flush() // a summary of the repeat
  log.flush() // a quiet interval: forgotten
  log.refused(from('192.0.2.1:5060'))
  expect(lines.map((l) => l.obj.count)).toEqual([undefined, 1, undefined])
  log.stop()
})

test('past the tracked sources, refusals are summed in one line instead of one line each', () => {
  const { log, lines, counted } = setup(2)
  for (let i = 1; i <= 5; i++) log.refused(from(`192.0.2.${i}:5060`))
  expect(lines).toHaveLength(2)
  log.flush()
  expect(lines[2]?.obj).toMatchObject({ count: 3 })
  expect(counted).toHaveLength(5)
  log.stop()
})

test('a number from the network is logged at most 64 characters long', () => {
  const { log, lines } = setup()
  log.refused(from('192.0.2.1:5060', 'unknown_number', '9'.repeat(500)))
  expect(String(lines[0]?.obj.requestUser)).toHaveLength(65)
  log.stop()
})

test('statuses map to refusal reasons; a 401 challenge and success are no refusal', () => {
  expect([200, 100, 401].map(refusalOfStatus)).toEqual([undefined, undefined, undefined])
  expect([400, 481, 503, 480, 405, 415, 420, 483].map(refusalOfStatus)).toEqual(['malformed', 'no_dialog', 'stopping', 'unavailable', 'unsupported', 'unsupported', 'unsupported', 'malformed'])
})
