import type { Principal } from './principal.ts'
import { type Db, finishPage, mapRead, pageLimit, type PageRequest, type Read } from '../../platform/db/index.ts'
import { AppError, invalidField, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { ApiKey, CreateApiKeyBody } from './api-keys.model.ts'
import * as repo from './api-keys.repository.ts'
import type { ApiKeyTable } from './api-keys.table.ts'
import { generateKey, hashKey, keyHints } from './keys.ts'
import { invalidatePrincipals, type PrincipalCache } from './principal-cache.ts'

const unauthorized = (message: string) => new AppError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' })

export function toApiKey(row: ApiKeyTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    userId: row.user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }
}

/** Creates a key acting as `userId` in `workspaceId`; the caller checks that the user is a member. */
export async function createKey(
  db: Db,
  workspaceId: string,
  userId: string,
  input: { name: string; expiresAt?: string },
  now = new Date(),
): Promise<ApiKey & { key: string }> {
  let expiresAt: string | null = null
  if (input.expiresAt !== undefined) {
    const at = new Date(input.expiresAt)
    if (Number.isNaN(at.getTime())) throw invalidField('expiresAt', 'must be an ISO 8601 date-time')
    if (at <= now) throw invalidField('expiresAt', 'must be in the future')
    expiresAt = at.toISOString()
  }
  const key = generateKey()
  const row: ApiKeyTable = {
    id: newId('key'),
    workspace_id: workspaceId,
    user_id: userId,
    name: input.name,
    ...keyHints(key),
    key_hash: hashKey(key),
    created_at: now.toISOString(),
    expires_at: expiresAt,
    revoked_at: null,
  }
  if (!(await repo.isMember(db, workspaceId, userId))) throw invalidField('userId', 'is not a member of this workspace')
  await repo.insertKey(db, row)
  return { ...toApiKey(row), key }
}

export async function listKeys(db: Db, workspaceId: string, page: PageRequest) {
  const rows = await repo.listActiveKeys(db, workspaceId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.created_at, r.id])
  return { apiKeys: items.map(toApiKey), nextCursor }
}

export async function revoke(db: Db, workspaceId: string, keyId: string): Promise<void> {
  const revoked = await repo.revokeKey(db, workspaceId, keyId, nowIso())
  await invalidatePrincipals(db)
  if (!revoked) throw notFound('API key')
}

export async function revokeUserKeys(db: Db, workspaceId: string, userId: string): Promise<void> {
  await repo.revokeUserKeys(db, workspaceId, userId, nowIso())
  await invalidatePrincipals(db)
}

/**
 * Resolves a bearer token to who is calling; every failure is a 401. A cache hit, or the key read
 * inline (SQLite), gives the principal itself; PostgreSQL's read gives a promise of it.
 */
export function authenticate(db: Db, token: string, now: Date, cache?: PrincipalCache): Read<Principal> {
  const hit = cache?.get(token, now.getTime())
  if (hit) return hit
  const started = cache?.begin() ?? 0
  return mapRead(repo.findKeyByHash(db, hashKey(token)), (row) => admitKey(row, token, now, cache, started))
}

const KEY_NOT_VALID = 'API key is not valid'

function admitKey(row: repo.KeyWithRole | undefined, token: string, now: Date, cache: PrincipalCache | undefined, started: number): Principal {
  const nowMs = now.getTime()
  // One message for every refused key: telling revoked or expired from unknown would confirm to
  // whoever holds a leaked string that it was once a key (and of whom).
  if (!row) throw unauthorized(KEY_NOT_VALID)
  if (row.revoked_at !== null) throw unauthorized(KEY_NOT_VALID)
  const expiresAtMs = row.expires_at === null ? null : new Date(row.expires_at).getTime()
  if (expiresAtMs !== null && expiresAtMs <= nowMs) throw unauthorized(KEY_NOT_VALID)
  if (row.role === null) throw unauthorized(KEY_NOT_VALID)
  const grants: string[] = row.grants && row.grants !== '[]' ? JSON.parse(row.grants) : []
  const principal: Principal = { keyId: row.id, userId: row.user_id, workspaceId: row.workspace_id, role: row.role, ...(grants.length && { grants }) }
  cache?.set(token, principal, expiresAtMs, started, nowMs)
  return principal
}

export type { CreateApiKeyBody }
