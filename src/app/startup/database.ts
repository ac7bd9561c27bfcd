// The database a starting node works on: opened, migrated, and on the very first start given a
// workspace and an admin API key.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../../platform/config/index.ts'
import { type DbHandle, describeDatabase, migrateToLatest, openConfigured } from '../../platform/db/index.ts'
import type { Logger } from '../../platform/log.ts'
import { bootstrapIfEmpty } from '../../features/workspaces/index.ts'

export async function prepareDatabase(config: Config, log: Logger): Promise<DbHandle> {
  const database = openConfigured(config)
  try {
    log.info({ nodeId: config.NODE_ID, database: describeDatabase(config) }, 'node starting')
    const applied = await migrateToLatest(database.db)
    if (applied.length) log.info({ migrations: applied }, 'database migrated')
    const boot = await bootstrapIfEmpty(database.db)
    if (boot) {
      const file = join(config.DATA_DIR, 'admin-api-key')
      writeFileSync(file, `${boot.key}\n`, { mode: 0o600 })
      // Logs are shipped to log systems: the key itself goes only to the 0600 file the line names.
      log.warn(
        { workspaceId: boot.workspace.id, adminEmail: boot.adminEmail, adminApiKeyFile: file, adminApiKeyPrefix: boot.key.slice(0, 8) },
        `first start: created workspace "Default" and an admin API key, in ${file} (mode 0600)`,
      )
    }
    return database
  } catch (err) {
    await database.close().catch(() => {})
    throw err
  }
}
