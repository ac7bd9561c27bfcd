import { createKey } from '../api-keys/index.ts'
import { type Db, finishPage, mapRead, pageLimit, type PageRequest, type Read } from '../../platform/db/index.ts'
import { AppError, invalidField, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { Workspace } from './workspaces.model.ts'
import * as repo from './workspaces.repository.ts'
import type { WorkspaceTable } from './workspaces.table.ts'

export const toWorkspace = (row: WorkspaceTable): Workspace => ({
  id: row.id,
  name: row.name,
  maxConcurrentCalls: row.max_concurrent_calls ?? null,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

/**
 * Creates a workspace whose admin is the caller, with a first admin key (keys act inside one
 * workspace). Each workspace has quotas of its own, so making one is the operator's act: a key of
 * an admin of the operator's workspace (the first, made at first start), not of any other.
 */
export async function createWorkspace(db: Db, by: { userId: string; workspaceId: string }, name: string) {
  const userId = by.userId
  if ((await repo.operatorWorkspaceId(db)) !== by.workspaceId) {
    throw new AppError(403, 'forbidden', "creating a workspace takes an admin key of the operator's workspace (the first one, made at first start)", { permission: 'workspaces:create' })
  }
  return db.transaction().execute(async (trx) => {
    const at = nowIso()
    const row: WorkspaceTable = { id: newId('ws'), name: name.trim(), created_at: at, updated_at: at }
    await repo.insertWorkspace(trx, row)
    await repo.insertMembership(trx, { workspace_id: row.id, user_id: userId, role: 'admin', joined_at: at })
    const apiKey = await createKey(trx, row.id, userId, { name: 'first admin key' })
    return { workspace: toWorkspace(row), apiKey }
  })
}

/** The workspace, or 404: inline where the database reads inline (SQLite), else a promise. */
export function getWorkspace(db: Db, id: string): Read<Workspace> {
  return mapRead(repo.findWorkspace(db, id), (row) => {
    if (!row) throw notFound('workspace')
    return toWorkspace(row)
  })
}

export async function listWorkspaces(db: Db, userId: string, page: PageRequest) {
  const rows = await repo.listUserWorkspaces(db, userId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.created_at, r.id])
  return { workspaces: items.map((r) => ({ ...toWorkspace(r), role: r.role })), nextCursor }
}

/** Renames a workspace and sets its maxConcurrentCalls (an admin's act: workspaces:update), either or both. */
export async function updateWorkspace(db: Db, id: string, body: { name?: string; maxConcurrentCalls?: number | null }) {
  if (body.name === undefined && body.maxConcurrentCalls === undefined) throw invalidField('name', 'give name or maxConcurrentCalls')
  const row = await repo.updateWorkspace(db, id, { name: body.name?.trim(), max_concurrent_calls: body.maxConcurrentCalls }, nowIso())
  if (!row) throw notFound('workspace')
  // the contract's shape (id, name, updatedAt); GET shows the limit
  return { id: row.id, name: row.name, updatedAt: row.updated_at }
}

/** The workspace's maxConcurrentCalls (null: unlimited), or undefined for no such workspace: inline where the database reads inline. */
export function workspaceCallLimit(db: Db, id: string): Read<number | null | undefined> {
  return mapRead(repo.findWorkspace(db, id), (row) => (row ? (row.max_concurrent_calls ?? null) : undefined))
}

export interface Bootstrap {
  workspace: Workspace
  adminEmail: string
  key: string
}

/** On an empty database: workspace "Default", an admin user and its key. Returns undefined otherwise. */
export async function bootstrapIfEmpty(db: Db, adminEmail = 'admin@localhost'): Promise<Bootstrap | undefined> {
  if ((await repo.countWorkspaces(db)) > 0) return undefined
  return db.transaction().execute(async (trx) => {
    const at = nowIso()
    let user = await repo.findUserByEmail(trx, adminEmail)
    if (!user) {
      user = { id: newId('usr'), email: adminEmail, created_at: at }
      await repo.insertUser(trx, user)
    }
    const row: WorkspaceTable = { id: newId('ws'), name: 'Default', created_at: at, updated_at: at }
    await repo.insertWorkspace(trx, row)
    await repo.insertMembership(trx, { workspace_id: row.id, user_id: user.id, role: 'admin', joined_at: at })
    const apiKey = await createKey(trx, row.id, user.id, { name: 'bootstrap admin key' })
    return { workspace: toWorkspace(row), adminEmail, key: apiKey.key }
  })
}
