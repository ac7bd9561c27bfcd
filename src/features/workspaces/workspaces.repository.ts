import { cacheLifetimeMs, type Db, mapRead, notifyChange, preparedRead, type Read } from '../../platform/db/index.ts'
import { type PageRequest, keysetPage } from '../../platform/db/index.ts'
import type { MembershipTable, Role, UserTable, WorkspaceTable } from './workspaces.table.ts'

export const insertWorkspace = (db: Db, row: WorkspaceTable) => db.insertInto('workspaces').values(row).execute()

/** The operator's workspace: the first one, made at first start (workspaces are never deleted). */
export async function operatorWorkspaceId(db: Db): Promise<string | undefined> {
  const row = await db.selectFrom('workspaces').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst()
  return row?.id
}

const readWorkspace = preparedRead((db: Db, id: string) => db.selectFrom('workspaces').selectAll().where('id', '=', id))

// Workspace rows change only through updateWorkspace below, so rows are kept in memory and
// dropped on every change. With SQLite one process owns DATA_DIR (the lock): no reader sees a
// stale row. With PostgreSQL the change is announced to the other nodes (notifyChange, which
// drops theirs through forgetWorkspace) and their rows live at most SHARED_TTL_MS in case a
// notification is missed.
const rows = new WeakMap<Db, Map<string, { row: WorkspaceTable; untilMs: number }>>()
const MAX_CACHED = 10_000
const SHARED_TTL_MS = 5_000

function cacheOf(db: Db) {
  let cache = rows.get(db)
  if (!cache) rows.set(db, (cache = new Map()))
  return cache
}

function remember(db: Db, row: WorkspaceTable | undefined): WorkspaceTable | undefined {
  if (!row) return row
  const cache = cacheOf(db)
  if (cache.size >= MAX_CACHED) cache.clear()
  cache.set(row.id, { row, untilMs: Date.now() + cacheLifetimeMs(db, SHARED_TTL_MS) })
  return row
}

/** The committed row (GET /api/workspaces/{id} is the benchmarked hot path): inline on SQLite, a promise on PostgreSQL. */
export function findWorkspace(db: Db, id: string): Read<WorkspaceTable | undefined> {
  const hit = cacheOf(db).get(id)
  if (hit && hit.untilMs > Date.now()) return hit.row
  return mapRead(readWorkspace(db, id), (row) => remember(db, row))
}

/** Drops cached rows: one workspace's, or all (undefined) when notifications may have been missed. */
export function forgetWorkspace(db: Db, id: string | undefined): void {
  if (id === undefined) rows.get(db)?.clear()
  else rows.get(db)?.delete(id)
}

export const countWorkspaces = async (db: Db) =>
  Number((await db.selectFrom('workspaces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)

export async function updateWorkspace(db: Db, id: string, patch: { name?: string; max_concurrent_calls?: number | null }, at: string) {
  rows.get(db)?.delete(id)
  try {
    const row = await db.updateTable('workspaces').set({ ...patch, updated_at: at }).where('id', '=', id).returningAll().executeTakeFirst()
    if (row) await notifyChange(db, 'workspace', id)
    return row
  } finally {
    rows.get(db)?.delete(id)
  }
}

export function listUserWorkspaces(db: Db, userId: string, page: PageRequest) {
  const q = db
    .selectFrom('workspaces')
    .innerJoin('memberships', 'memberships.workspace_id', 'workspaces.id')
    .selectAll('workspaces')
    .select('memberships.role')
    .where('memberships.user_id', '=', userId)
  return keysetPage(q, 'workspaces.created_at', 'workspaces.id', page).execute()
}

export const findUserByEmail = (db: Db, email: string) =>
  db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst()

export const insertUser = (db: Db, row: UserTable) => db.insertInto('users').values(row).execute()

export const insertMembership = (db: Db, row: MembershipTable) => db.insertInto('memberships').values(row).execute()

const memberSelect = (db: Db, workspaceId: string) =>
  db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.user_id', 'users.email', 'memberships.role', 'memberships.grants', 'memberships.joined_at'])
    .where('memberships.workspace_id', '=', workspaceId)

export type MemberRow = { user_id: string; email: string; role: Role; grants?: string; joined_at: string }

export const findMember = (db: Db, workspaceId: string, userId: string): Promise<MemberRow | undefined> =>
  memberSelect(db, workspaceId).where('memberships.user_id', '=', userId).executeTakeFirst()

export const listMembers = (db: Db, workspaceId: string, page: PageRequest): Promise<MemberRow[]> =>
  keysetPage(memberSelect(db, workspaceId), 'memberships.joined_at', 'memberships.user_id', page).execute()

export async function countAdmins(db: Db, workspaceId: string): Promise<number> {
  const r = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'admin')
    .executeTakeFirstOrThrow()
  return Number(r.n)
}

export const setMemberGrants = (db: Db, workspaceId: string, userId: string, grants: readonly string[]) =>
  db.updateTable('memberships').set({ grants: JSON.stringify(grants) }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute()

export const setMemberRole = (db: Db, workspaceId: string, userId: string, role: Role) =>
  db.updateTable('memberships').set({ role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute()

export const deleteMembership = (db: Db, workspaceId: string, userId: string) =>
  db.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute()
