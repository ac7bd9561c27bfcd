// The bench's admission switch: what each mode sets on the appliance, which failures are
// refusals for load, and the table that sets admitted beside refused.
import { expect, test } from 'bun:test'
import { admissionEnv, admissionTable, isRefusal } from './admission.ts'
import { parseArgs } from './args.ts'
import type { RunSummary } from './report.ts'

test('--admission on,off runs an appliance per mode, off taking every call and on refusing at CALLS_MAX and the live figures', () => {
  const args = parseArgs(['--admission', 'on,off', '--calls-max', '12'])
  expect(args.admission).toEqual(['on', 'off'])
  expect(admissionEnv('on', args.callsMax)).toMatchObject({ CALLS_MAX: '12', CAPACITY_STT_RTF_PERCENT: '80' })
  expect(admissionEnv('off', args.callsMax)).toMatchObject({ CALLS_MAX: '0', CAPACITY_LAG_MS: '0', CAPACITY_STT_BACKLOG_MS: '0' })
  expect(admissionEnv('default', 12)).toEqual({})
  expect(parseArgs([]).admission).toEqual(['default'])
  expect(() => parseArgs(['--admission', 'maybe'])).toThrow(/--admission takes/)
})

test('a 503 to the INVITE or to the web call is a refusal; other failures are not', () => {
  expect(isRefusal('INVITE answered SIP/2.0 503 Service Unavailable')).toBe(true)
  expect(isRefusal('c7 POST web-calls answered 503 {"error":{}}')).toBe(true)
  expect(isRefusal('INVITE answered SIP/2.0 486 Busy Here')).toBe(false)
  expect(isRefusal('no final response to the INVITE')).toBe(false)
  expect(isRefusal(undefined)).toBe(false)
})

test('the admission table counts the refused apart from the calls that failed otherwise', () => {
  const run = { shape: 'offline', calls: 4, completed: 2, load: { calls: 8, failed: 3 }, refused: 4, admission: 'on', transport: 'sip', gap: { n: 9, p50: 700, p95: 1200 } } as unknown as RunSummary
  const [, , row] = admissionTable([run]).split('\n')
  expect(row!.split('|').map((c) => c.trim()).filter(Boolean)).toEqual(['offline', '4', 'sip', 'on', '12', '8', '4', '1', '700 / 1200'])
})
