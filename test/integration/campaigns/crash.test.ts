// The short form of scripts/campaign-crash.ts: an appliance process SIGKILLed at random moments
// during a job against SIPp; SIPp's log and the database must agree afterwards.
import { expect, test } from 'bun:test'
import { runCrashDrill } from '../../../scripts/campaign-crash.ts'

test('after SIGKILLs at random moments no contact was dialled beyond its attempts and every contact is accounted for', async () => {
  const report = await runCrashDrill({ contacts: 40, kills: 4, maxConcurrent: 5, minRunMs: 300, maxRunMs: 1500 })
  expect(report.kills).toBe(4)
  expect(report.contacts).toBe(40)
  expect(report.overDialled).toEqual([])
  expect(report.unaccounted).toEqual([])
  expect(report.countersMatch).toBe(true)
  expect(report.jobStatus).toBe('completed')
  // SIPp never saw more INVITEs than the database recorded attempts (lost claims may add attempts, never calls)
  expect(report.invites).toBeLessThanOrEqual(report.attempts)
  expect(report.invites).toBeGreaterThanOrEqual(40)
}, 100_000)
