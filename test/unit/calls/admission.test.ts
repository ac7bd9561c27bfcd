// Call admission over a real SQLite file: a workspace's maxConcurrentCalls bounds its calls of
// every kind together and no other workspace's, the node's capacity bounds them all, each refusal
// is told once with its reason and kind, and a ticket gives its place back once.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Admission, CallRefused, fixedCapacity } from '../../../src/features/calls/index.ts'
import { type DbHandle, migrateToLatest, openDatabase } from '../../../src/platform/db/index.ts'
import { DEFAULT_POLICY } from '../../../src/realtime/telephony/refusal/index.ts'

let dir: string
let handle: DbHandle

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'admission-'))
  handle = openDatabase(join(dir, 'test.db'))
  await migrateToLatest(handle.db)
  await handle.db.insertInto('workspaces').values([
    { id: 'ws_capped', name: 'Capped', max_concurrent_calls: 2, created_at: 'x', updated_at: 'x' },
    { id: 'ws_free', name: 'Free', created_at: 'x', updated_at: 'x' },
  ]).execute()
})
afterAll(async () => {
  await handle.close()
  rmSync(dir, { recursive: true, force: true })
})

const refusalOf = (p: Promise<unknown>) => p.then(() => undefined, (err) => (err instanceof CallRefused ? { reason: err.reason, status: err.status, retryAfterSec: err.retryAfterSec } : err))

test("a workspace's limit counts every kind together and refuses only that workspace", async () => {
  const told: string[] = []
  const admission = new Admission({ db: handle.db, policy: DEFAULT_POLICY, onRefused: (reason, kind, ws) => told.push(`${ws} ${kind} ${reason}`) })
  const inbound = await admission.admit('ws_capped', 'inbound')
  await admission.admit('ws_capped', 'web')
  expect(await refusalOf(admission.admit('ws_capped', 'stream'))).toEqual({ reason: 'workspace_limit', status: 503, retryAfterSec: 10 })
  for (let i = 0; i < 5; i++) await admission.admit('ws_free', 'outbound')
  expect(admission.callsUp('ws_capped')).toBe(2)
  expect(admission.callsUp('ws_free')).toBe(5)
  expect(told).toEqual(['ws_capped stream workspace_limit'])
  // a place given back twice is one place
  inbound.release()
  inbound.release()
  expect(admission.callsUp('ws_capped')).toBe(1)
  await admission.admit('ws_capped', 'stream')
  expect(await refusalOf(admission.admit('ws_capped', 'inbound'))).toMatchObject({ reason: 'workspace_limit' })
})

test("the node's capacity bounds every workspace's calls, and /ready's figures follow the calls up", async () => {
  const admission = new Admission({ db: handle.db, policy: DEFAULT_POLICY, capacity: fixedCapacity(2) })
  expect(admission.figures()).toEqual({ capacity: 2, callsUp: 0, headroom: 2, limitedBy: undefined })
  const a = await admission.admit('ws_free', 'web')
  await admission.admit('ws_capped', 'inbound')
  expect(await refusalOf(admission.admit('ws_free', 'inbound'))).toEqual({ reason: 'no_headroom', status: 503, retryAfterSec: 5 })
  expect(admission.figures()).toMatchObject({ callsUp: 2, headroom: 0, limitedBy: 'CALLS_MAX' })
  a.release()
  expect(admission.figures()).toMatchObject({ callsUp: 1, headroom: 1 })
  await admission.admit('ws_free', 'inbound')
})
