import type { Compilable } from 'kysely'
import { type Db, preparedRead } from '../../platform/db/index.ts'
import { type PageRequest, keysetPage } from '../../platform/db/index.ts'
import type { Role } from '../workspaces/workspaces.table.ts'
import type { ApiKeyTable } from './api-keys.table.ts'

export async function insertKey(db: Db, row: ApiKeyTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute()
}

export type KeyWithRole = ApiKeyTable & { role: Role | null; grants: string | null }

const keyByHashQuery = (db: Db, hash: string) =>
  db
    .selectFrom('api_keys')
    .leftJoin('memberships', (j) =>
      j.onRef('memberships.workspace_id', '=', 'api_keys.workspace_id').onRef('memberships.user_id', '=', 'api_keys.user_id'),
    )
    .selectAll('api_keys')
    .select(['memberships.role', 'memberships.grants'])
    .where('api_keys.key_hash', '=', hash)

/**
 * The key by hash with the role its user holds now in the key's workspace (none when removed),
 * as committed. Every API request that misses the principal cache runs this lookup.
 */
export const findKeyByHash = preparedRead((db: Db, hash: string) => keyByHashQuery(db, hash) as Compilable<KeyWithRole>)

export async function listActiveKeys(db: Db, workspaceId: string, page: PageRequest): Promise<ApiKeyTable[]> {
  const q = db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).where('revoked_at', 'is', null)
  return keysetPage(q, 'created_at', 'id', page).execute()
}

export async function revokeKey(db: Db, workspaceId: string, keyId: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}

export async function revokeUserKeys(db: Db, workspaceId: string, userId: string, at: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute()
}

export async function isMember(db: Db, workspaceId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row !== undefined
}
