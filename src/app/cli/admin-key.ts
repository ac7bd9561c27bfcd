// `voice-agent create-api-key`: a new key for a workspace's admin, for an operator who lost theirs.
import { createKey } from '../../features/api-keys/index.ts'
import type { Db } from '../../platform/db/index.ts'

export class AdminKeyError extends Error {}

export async function createAdminKey(db: Db, workspaceId: string, name: string, email?: string): Promise<{ key: string; userEmail: string }> {
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst()
  if (!ws) {
    const known = await db.selectFrom('workspaces').select(['id', 'name']).orderBy('created_at').limit(20).execute()
    throw new AdminKeyError(`no workspace ${workspaceId}; workspaces: ${known.map((w) => `${w.id} (${w.name})`).join(', ') || 'none'}`)
  }
  let q = db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email'])
    .where('memberships.workspace_id', '=', workspaceId)
    .where('memberships.role', '=', 'admin')
  if (email) q = q.where('users.email', '=', email)
  const admin = await q.orderBy('memberships.joined_at').executeTakeFirst()
  if (!admin) throw new AdminKeyError(email ? `${email} is not an admin of ${workspaceId}` : `workspace ${workspaceId} has no admin`)
  const created = await createKey(db, workspaceId, admin.id, { name })
  return { key: created.key, userEmail: admin.email }
}
