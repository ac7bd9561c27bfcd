import type { Db } from '../../platform/db/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import { newWebhookSecret } from './signer.ts'

/** After a rotation the old secret keeps signing (second signature) for this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000

export interface WebhookSecrets {
  secret: string
  previousSecret: string | null
  previousValidUntil: string | null
  rotatedAt: string | null
}

const context = (workspaceId: string, column: string) => `webhook_secrets.${column}:${workspaceId}`

/** The workspace's secrets, created on first use. */
export async function workspaceSecrets(db: Db, box: SecretBox, workspaceId: string, now = new Date()): Promise<WebhookSecrets> {
  let row = await db.selectFrom('webhook_secrets').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst()
  if (!row) {
    await db
      .insertInto('webhook_secrets')
      .values({ workspace_id: workspaceId, secret: box.encrypt(newWebhookSecret(), context(workspaceId, 'secret')), created_at: now.toISOString() })
      .onConflict((oc) => oc.column('workspace_id').doNothing())
      .execute()
    row = await db.selectFrom('webhook_secrets').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow()
  }
  const previousLive = row.previous_secret && row.previous_valid_until && row.previous_valid_until > now.toISOString()
  return {
    secret: box.decrypt(row.secret, context(workspaceId, 'secret')),
    previousSecret: previousLive ? box.decrypt(row.previous_secret!, context(workspaceId, 'previous_secret')) : null,
    previousValidUntil: previousLive ? row.previous_valid_until : null,
    rotatedAt: row.rotated_at,
  }
}

/** A new secret; the current one stays valid (and signs too) for PREVIOUS_SECRET_GRACE_MS. */
export async function rotateSecret(db: Db, box: SecretBox, workspaceId: string, now = new Date()): Promise<WebhookSecrets> {
  const current = await workspaceSecrets(db, box, workspaceId, now)
  await db
    .updateTable('webhook_secrets')
    .set({
      secret: box.encrypt(newWebhookSecret(), context(workspaceId, 'secret')),
      previous_secret: box.encrypt(current.secret, context(workspaceId, 'previous_secret')),
      previous_valid_until: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString(),
      rotated_at: now.toISOString(),
    })
    .where('workspace_id', '=', workspaceId)
    .execute()
  return workspaceSecrets(db, box, workspaceId, now)
}

/** Every secret that signs now: the current one first. */
export async function signingSecrets(db: Db, box: SecretBox, workspaceId: string, now = new Date()): Promise<string[]> {
  const s = await workspaceSecrets(db, box, workspaceId, now)
  return s.previousSecret ? [s.secret, s.previousSecret] : [s.secret]
}
