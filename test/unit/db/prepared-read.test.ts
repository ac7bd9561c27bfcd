import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DbHandle, mapRead, migrateToLatest, openDatabase, preparedRead } from '../../../src/platform/db/index.ts'
import type { Db } from '../../../src/platform/db/index.ts'

const read = preparedRead((db: Db, id: string) => db.selectFrom('workspaces').select(['id', 'name']).where('id', '=', id))
// on SQLite the read is synchronous
const byId = (db: Db, id: string) => read(db, id) as { id: string; name: string } | undefined
let dir: string
let handle: DbHandle

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prepared-read-'))
  handle = openDatabase(join(dir, 'test.db'))
  await migrateToLatest(handle.db)
})
afterAll(async () => {
  await handle.close()
  rmSync(dir, { recursive: true, force: true })
})

const insert = (db: Db, id: string, name: string) =>
  db.insertInto('workspaces').values({ id, name, created_at: 'x', updated_at: 'x' }).execute()

test('a prepared read returns the first row, or undefined when there is none', async () => {
  await insert(handle.db, 'ws_a', 'A')
  expect(byId(handle.db, 'ws_a')).toEqual({ id: 'ws_a', name: 'A' })
  expect(byId(handle.db, 'ws_missing')).toBeUndefined()
})

test('a prepared read sees a write as soon as it commits', async () => {
  await handle.db.updateTable('workspaces').set({ name: 'A2' }).where('id', '=', 'ws_a').execute()
  expect(byId(handle.db, 'ws_a')?.name).toBe('A2')
})

test('a prepared read never sees the uncommitted writes of an open transaction, nor a rolled-back one', async () => {
  let inside: unknown = 'not run'
  const failed = handle.db
    .transaction()
    .execute(async (trx) => {
      await insert(trx, 'ws_b', 'B')
      await trx.updateTable('workspaces').set({ name: 'dirty' }).where('id', '=', 'ws_a').execute()
      inside = [byId(handle.db, 'ws_b'), byId(handle.db, 'ws_a')?.name]
      throw new Error('roll back')
    })
  await expect(failed).rejects.toThrow('roll back')
  expect(inside).toEqual([undefined, 'A2'])
  expect(byId(handle.db, 'ws_b')).toBeUndefined()
})

test('a prepared read refuses a transaction, which has no read-only connection', async () => {
  await expect(handle.db.transaction().execute(async (trx) => byId(trx, 'ws_a'))).rejects.toThrow('no read-only connection')
})

test('the parameters must be the arguments in order, checked on first use', () => {
  const wrong = preparedRead((db: Db, id: string) => db.selectFrom('workspaces').selectAll().where('id', '=', `${id}x`))
  expect(() => wrong(handle.db, 'ws_a')).toThrow('not its arguments in order')
})

test('on SQLite a prepared read gives the row itself, no promise', () => {
  expect(read(handle.db, 'ws_a')).not.toBeInstanceOf(Promise)
})

test('mapRead maps an inline value at once, and a promised one when it settles', async () => {
  expect(mapRead(2, (n) => n * 10)).toBe(20)
  const later = mapRead(Promise.resolve(2), (n) => n * 10)
  expect(later).toBeInstanceOf(Promise)
  expect(await later).toBe(20)
})
