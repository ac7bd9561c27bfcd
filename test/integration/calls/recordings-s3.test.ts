// Recordings in S3-compatible object storage (RECORDINGS_STORAGE=s3) through Bun's own S3
// client against a local server speaking the S3 REST protocol: a real call's recording is
// uploaded when it ends and served from the bucket (whole and by range), an outage is retried
// and the local copy kept until the upload is confirmed, files left by an earlier run are
// uploaded at start, and delete and retention remove the object, also one no record points at.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../../src/platform/config/index.ts'
import { createLogger } from '../../../src/platform/log.ts'
import { RecordingUploader, recordingStorageFor } from '../../../src/features/recordings/index.ts'
import { sweepOrphanRecordings, sweepRetention, uploadedCalls } from '../../../src/features/calls/records/index.ts'
import { startFakeS3, type FakeS3 } from '../../fakes/s3.ts'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { setupCallTarget, waitForCall } from '../../helpers/calls.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { until, untilAsync } from '../../helpers/until.ts'

let s3: FakeS3
const s3Config = (): Partial<Config> => s3.settings()
const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString()
const locationOf = async (t: TestAppliance, id: string) =>
  (await t.appliance.database.db.selectFrom('calls').select('recording_path').where('id', '=', id).executeTakeFirst())?.recording_path ?? null

beforeAll(() => {
  s3 = startFakeS3()
})
afterAll(() => s3?.stop())

describe('an appliance with RECORDINGS_STORAGE=s3', () => {
  let t: TestAppliance
  beforeAll(async () => {
    t = await startTestAppliance(s3Config())
  })
  afterAll(() => t?.stop())

  test("a real call's recording is uploaded when it ends, the local copy removed, and downloads stream it from the bucket with Range", async () => {
    const target = await setupCallTarget(t)
    const run = await sipp(['-sn', 'uac', `127.0.0.1:${t.appliance.sip.udp}`, '-s', target.e164.slice(1), '-m', '1', '-d', '1000', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    const call = await waitForCall(t, (c) => c.status === 'ended')
    const key = `recordings/${call.id}.wav`
    await untilAsync(async () => (await locationOf(t, call.id)) === `s3://${s3.bucket}/${key}`, 10_000, 'the row to point at the object')
    const stored = s3.objects.get(key)!
    expect(new TextDecoder().decode(stored.subarray(0, 4))).toBe('RIFF')
    expect(stored.length).toBeGreaterThan(16_000) // a second of 16 kHz stereo audio at least
    await until(() => !existsSync(join(t.dataDir, 'recordings', `${call.id}.wav`)), 5000, 'the local copy to be removed')

    const whole = await fetch(`${t.url}/api/calls/${call.id}/recording`, { headers: { authorization: `Bearer ${t.adminKey}` } })
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-type')).toBe('audio/wav')
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(Buffer.from(stored))

    const link = (await t.api('GET', `/api/calls/${call.id}/export`)).body.recordingUrl as string
    const part = await fetch(link, { headers: { range: 'bytes=0-43' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 0-43/${stored.length}`)
    expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from(stored.subarray(0, 44)))
    const beyond = await fetch(link, { headers: { range: `bytes=${stored.length}-` } })
    expect(beyond.status).toBe(416)
    expect(((await beyond.json()) as { error: { code: string } }).error.code).toBe('bad_request')

    expect((await t.api('DELETE', `/api/calls/${call.id}/recording`)).status).toBe(200)
    expect(s3.objects.has(key)).toBe(false)
    expect((await fetch(link)).status).toBe(404)
  })

  test('a recording whose object is missing from the bucket is a 404 with the error body, not a 500', async () => {
    const id = await seedCall(t.appliance.database.db, { workspaceId: t.workspaceId })
    await t.appliance.database.db.updateTable('calls').set({ recording_path: `s3://${s3.bucket}/recordings/${id}.wav` }).where('id', '=', id).execute()
    const res = await t.api('GET', `/api/calls/${id}/recording`)
    expect(res.status).toBe(404)
    expect(res.body.error.code).toBe('not_found')
  })

  test('retention removes the object of an old recording from the bucket', async () => {
    const db = t.appliance.database.db
    const old = await seedCall(db, { workspaceId: t.workspaceId, createdAt: daysAgo(40), recordingIn: t.dataDir })
    const storage = recordingStorageFor(t.appliance.config)
    const location = await storage.upload(join(t.dataDir, 'recordings', `${old}.wav`), old)
    await db.updateTable('calls').set({ recording_path: location }).where('id', '=', old).execute()
    expect(s3.objects.has(`recordings/${old}.wav`)).toBe(true)
    const swept = await sweepRetention(db, { recordingDays: 30, callDays: 0 }, new Date(), storage)
    expect(swept.recordings).toBeGreaterThanOrEqual(1)
    expect(s3.objects.has(`recordings/${old}.wav`)).toBe(false)
    expect(await locationOf(t, old)).toBeNull()
  })

  const uploaded = async (id: string) => {
    const storage = recordingStorageFor(t.appliance.config)
    const location = await storage.upload(join(t.dataDir, 'recordings', `${id}.wav`), id)
    await t.appliance.database.db.updateTable('calls').set({ recording_path: location }).where('id', '=', id).execute()
    await storage.remove(join(t.dataDir, 'recordings', `${id}.wav`))
    return location
  }

  test('DELETE /api/calls/{id}?deleteRecording=true removes the object with the record; without it the object stays', async () => {
    const db = t.appliance.database.db
    const gone = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const stays = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    await uploaded(gone)
    await uploaded(stays)
    expect((await t.api('DELETE', `/api/calls/${gone}?deleteRecording=true`)).status).toBe(200)
    expect((await t.api('DELETE', `/api/calls/${stays}`)).status).toBe(200)
    expect(s3.objects.has(`recordings/${gone}.wav`)).toBe(false)
    expect(s3.objects.has(`recordings/${stays}.wav`)).toBe(true)
    expect(await locationOf(t, gone)).toBeNull()
  })

  test('retention removes objects no record points at once older than the window, and recordings gc lists them; objects of records stay', async () => {
    const db = t.appliance.database.db
    const storage = recordingStorageFor(t.appliance.config)
    const orphan = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const fresh = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const kept = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    for (const id of [orphan, fresh, kept]) await uploaded(id)
    for (const id of [orphan, fresh]) expect((await t.api('DELETE', `/api/calls/${id}`)).status).toBe(200)
    for (const id of [orphan, kept]) s3.modified.set(`recordings/${id}.wav`, new Date(Date.now() - 40 * 86_400_000))
    s3.objects.set('elsewhere/report.wav', new Uint8Array(4))
    s3.modified.set('elsewhere/report.wav', new Date(0))

    // the command line sees the orphaned objects, whatever their age, and with --dry-run removes none
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: t.dataDir, ...(t.appliance.config.DATABASE_URL ? { DATABASE_URL: t.appliance.config.DATABASE_URL } : {}), ...s3.settings() }
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, '../../../src/main.ts'), 'recordings', 'gc', '--dry-run'], { env, stdout: 'pipe', stderr: 'pipe' })
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    expect(code, err).toBe(0)
    const listed = out.trim().split('\n')
    for (const id of [orphan, fresh]) expect(listed).toContain(`s3://${s3.bucket}/recordings/${id}.wav`)
    expect(listed).not.toContain(`s3://${s3.bucket}/recordings/${kept}.wav`)
    expect(s3.objects.has(`recordings/${orphan}.wav`)).toBe(true)

    const logged: unknown[] = []
    const log = { info: (o: unknown) => void logged.push(o) } as never
    const before = new Date(Date.now() - 30 * 86_400_000)
    const removed = await sweepOrphanRecordings(db, storage, { dir: join(t.dataDir, 'recordings'), objects: true, before }, log)
    expect(removed).toBe(1)
    expect(logged).toEqual([{ removed: [`s3://${s3.bucket}/recordings/${orphan}.wav`], changedBefore: before.toISOString() }])
    expect(s3.objects.has(`recordings/${orphan}.wav`)).toBe(false)
    for (const key of [`recordings/${fresh}.wav`, `recordings/${kept}.wav`, 'elsewhere/report.wav']) expect({ key, there: s3.objects.has(key) }).toEqual({ key, there: true })
  })

  test('during a storage outage the upload is retried with backoff and the local copy stays until the store confirms it', async () => {
    const db = t.appliance.database.db
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const path = join(t.dataDir, 'recordings', `${id}.wav`)
    const bytes = readFileSync(path)
    const uploader = new RecordingUploader(uploadedCalls(db), recordingStorageFor(t.appliance.config), join(t.dataDir, 'recordings'), createLogger('silent'), { firstMs: 20, maxMs: 100 })
    s3.failNext(1_000)
    uploader.finished(id, path)
    const attempts = () => s3.requests.filter((r) => r === `PUT /${s3.bucket}/recordings/${id}.wav`).length
    await until(() => attempts() >= 3, 5000, 'three failed attempts')
    expect(existsSync(path)).toBe(true)
    expect(await locationOf(t, id)).toBe(path)
    s3.failNext(0)
    await untilAsync(async () => uploader.backlog === 0, 5000, 'the upload to succeed')
    expect(attempts()).toBeGreaterThanOrEqual(4)
    expect(await locationOf(t, id)).toBe(`s3://${s3.bucket}/recordings/${id}.wav`)
    expect(Buffer.from(s3.objects.get(`recordings/${id}.wav`)!)).toEqual(bytes)
    expect(existsSync(path)).toBe(false)
    await uploader.stop()
  })
})

test('recordings left on disk by an earlier run are uploaded at the next start, also of a call a crash cut short', async () => {
  const first = await startTestAppliance()
  const db = first.appliance.database.db
  const finished = await seedCall(db, { workspaceId: first.workspaceId, recordingIn: first.dataDir })
  const cut = await seedCall(db, { workspaceId: first.workspaceId, status: 'in_progress', recordingIn: first.dataDir })
  await db.updateTable('calls').set({ recording_path: null }).where('id', '=', cut).execute() // its end was never written
  await first.stop({ keepData: true })

  const again = await startTestAppliance(s3Config(), first.dataDir)
  try {
    for (const id of [finished, cut]) {
      await untilAsync(async () => (await locationOf(again, id)) === `s3://${s3.bucket}/recordings/${id}.wav`, 10_000, `upload of ${id}`)
      expect(s3.objects.get(`recordings/${id}.wav`)?.length).toBeGreaterThan(44)
      await until(() => !existsSync(join(again.dataDir, 'recordings', `${id}.wav`)), 5000, 'the local copy to be removed')
    }
    const res = await fetch(`${again.url}/api/calls/${cut}/recording`, { headers: { authorization: `Bearer ${again.adminKey}` } })
    expect(res.status).toBe(200)
  } finally {
    await again.stop()
  }
})

test('a wrong S3 access key is refused by the store and the recording stays on disk, pointed at by its row', async () => {
  const t = await startTestAppliance({ ...s3Config(), S3_ACCESS_KEY_ID: 'AKIAWRONG' })
  try {
    const db = t.appliance.database.db
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const path = join(t.dataDir, 'recordings', `${id}.wav`)
    const uploader = new RecordingUploader(uploadedCalls(db), recordingStorageFor(t.appliance.config), join(t.dataDir, 'recordings'), createLogger('silent'), { firstMs: 20, maxMs: 50 })
    const before = s3.requests.length
    uploader.finished(id, path)
    await untilAsync(async () => s3.requests.slice(before).filter((r) => r.includes(id)).length >= 2, 5000, 'refused attempts')
    await uploader.stop()
    expect(s3.objects.has(`recordings/${id}.wav`)).toBe(false)
    expect(existsSync(path)).toBe(true)
    expect(await locationOf(t, id)).toBe(path)
    // still served from this node's disk meanwhile
    expect((await t.api('GET', `/api/calls/${id}/recording`)).status).toBe(200)
  } finally {
    await t.stop()
  }
})
