// Retention: with RECORDING_RETENTION_DAYS and CALL_RETENTION_DAYS set, the background sweep
// removes old recordings (the record stays) and old records (every row of them, and their
// recording); newer ones stay. Recordings no record points at go once older than the retention.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { recordingStorageFor } from '../../../src/features/recordings/index.ts'
import { until } from '../../helpers/until.ts'

let t: TestAppliance
const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString()

beforeAll(async () => {
  // retention off in the appliance itself: these tests run the sweep by hand, and the appliance's
  // own sweep at start (late on PostgreSQL) would otherwise race them for the same rows
  t = await startTestAppliance()
})
afterAll(() => t?.stop())

test('the sweep deletes recordings older than their retention and whole records older than theirs, and nothing newer', async () => {
  const db = t.appliance.database.db
  const fresh = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(2), recordingIn: t.dataDir })
  const oldRecording = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(40), recordingIn: t.dataDir })
  const ancient = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(400), recordingIn: t.dataDir })
  await t.api('PUT', `/api/calls/${ancient}/labels`, { body: { labels: ['old'] } })
  const { sweepRetention } = await import('../../../src/features/calls/records/index.ts')
  const swept = await sweepRetention(db, { recordingDays: 30, callDays: 365 }, new Date(), recordingStorageFor(t.appliance.config))
  expect(swept).toEqual({ recordings: 2, calls: 1 })
  expect(existsSync(`${t.dataDir}/recordings/${fresh}.wav`)).toBe(true)
  expect(existsSync(`${t.dataDir}/recordings/${oldRecording}.wav`)).toBe(false)
  expect(existsSync(`${t.dataDir}/recordings/${ancient}.wav`)).toBe(false)
  expect((await t.api('GET', `/api/calls/${oldRecording}/export`)).body.recordingUrl).toBeNull()
  expect((await t.api('GET', `/api/calls/${fresh}/export`)).body.recordingUrl).toStartWith('http')
  expect((await t.api('GET', `/api/calls/${ancient}`)).status).toBe(404)
  expect((await db.selectFrom('call_labels').select('label').where('call_id', '=', ancient).execute()).length).toBe(0)
  expect(await sweepRetention(db, { recordingDays: 30, callDays: 365 }, new Date(), recordingStorageFor(t.appliance.config))).toEqual({ recordings: 0, calls: 0 })
})

test('with retention off (the default) the sweep keeps everything', async () => {
  const db = t.appliance.database.db
  const ancient = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(4000), recordingIn: t.dataDir })
  const { sweepRetention } = await import('../../../src/features/calls/records/index.ts')
  expect(await sweepRetention(db, { recordingDays: 0, callDays: 0 }, new Date(), recordingStorageFor(t.appliance.config))).toEqual({ recordings: 0, calls: 0 })
  expect(existsSync(`${t.dataDir}/recordings/${ancient}.wav`)).toBe(true)
})

test('the appliance runs the sweep by itself at start, under a lease it hands back on stop', async () => {
  // the first run keeps recordings forever: its own sweep must not race the seeding below
  const first = await startTestAppliance({ RECORDING_RETENTION_DAYS: 0 })
  const old = await seedCall(first.appliance.database.db, { workspaceId: first.workspaceId, createdAt: daysAgo(3), recordingIn: first.dataDir })
  await first.stop({ keepData: true })
  expect(existsSync(`${first.dataDir}/recordings/${old}.wav`)).toBe(true)
  const again = await startTestAppliance({ RECORDING_RETENTION_DAYS: 1 }, first.dataDir)
  try {
    const end = Date.now() + 5000
    while (existsSync(`${first.dataDir}/recordings/${old}.wav`)) {
      if (Date.now() > end) throw new Error('the sweep did not run')
      await Bun.sleep(20)
    }
    const lease = await again.appliance.database.db.selectFrom('job_leases').selectAll().where('name', '=', 'retention-sweep').executeTakeFirst()
    expect(lease?.owner).toStartWith('wrk_')
  } finally {
    await again.stop()
  }
})

test('a record deleted by CALL_RETENTION_DAYS takes its recording with it, also with recordings kept forever', async () => {
  const db = t.appliance.database.db
  const ancient = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(400), recordingIn: t.dataDir })
  const { sweepRetention } = await import('../../../src/features/calls/records/index.ts')
  const swept = await sweepRetention(db, { recordingDays: 0, callDays: 365 }, new Date(), recordingStorageFor(t.appliance.config))
  expect(swept.recordings).toBeGreaterThanOrEqual(1) // the other tests' old calls share the database
  expect((await t.api('GET', `/api/calls/${ancient}`)).status).toBe(404)
  expect(existsSync(`${t.dataDir}/recordings/${ancient}.wav`)).toBe(false)
})

test('retention removes, and logs, recordings whose record was deleted once older than the window; never one of a live or kept call', async () => {
  const first = await startTestAppliance()
  const db = first.appliance.database.db
  const dir = join(first.dataDir, 'recordings')
  const backdate = (id: string, days: number) => utimesSync(join(dir, `${id}.wav`), new Date(Date.now() - days * 86_400_000), new Date(Date.now() - days * 86_400_000))
  // DELETE /api/calls/{id} keeps the file (the API contract's default), and then nothing points at it
  const orphan = await seedCall(db, { workspaceId: first.workspaceId, createdAt: daysAgo(3), recordingIn: first.dataDir })
  expect((await first.api('DELETE', `/api/calls/${orphan}`)).status).toBe(200)
  expect((await first.api('DELETE', `/api/calls/${orphan}/recording`)).status).toBe(404)
  backdate(orphan, 40)
  const freshOrphan = await seedCall(db, { workspaceId: first.workspaceId, recordingIn: first.dataDir })
  await first.api('DELETE', `/api/calls/${freshOrphan}`)
  backdate(freshOrphan, 0) // its age from this process's clock, not the kernel's (they differ under faketime)
  const live = await seedCall(db, { workspaceId: first.workspaceId, status: 'in_progress', recordingIn: first.dataDir })
  await db.updateTable('calls').set({ recording_path: null }).where('id', '=', live).execute() // as while the call runs
  backdate(live, 40)
  const kept = await seedCall(db, { workspaceId: first.workspaceId, createdAt: daysAgo(2), recordingIn: first.dataDir })
  backdate(kept, 40)
  writeFileSync(join(dir, 'notes.txt'), 'not a recording')
  utimesSync(join(dir, 'notes.txt'), new Date(0), new Date(0))
  await first.stop({ keepData: true })

  const lines: string[] = []
  const again = await startTestAppliance({ RECORDING_RETENTION_DAYS: 30, LOG_LEVEL: 'info' }, first.dataDir, { write: (l) => void lines.push(l) })
  try {
    // the line is written once the sweep has removed every file: wait for both
    await until(
      () => !existsSync(join(dir, `${orphan}.wav`)) && lines.some((l) => l.includes('retention removed recordings that no call record points at')),
      10_000,
      'the orphaned recording to be removed and the removal logged',
    )
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'retention removed recordings that no call record points at')
    expect(logged.removed).toEqual([join(dir, `${orphan}.wav`)])
    for (const id of [freshOrphan, live, kept]) expect({ id, there: existsSync(join(dir, `${id}.wav`)) }).toEqual({ id, there: true })
    expect(existsSync(join(dir, 'notes.txt'))).toBe(true)
  } finally {
    await again.stop()
  }
})
