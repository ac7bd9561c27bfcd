import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { authenticate, PrincipalCache } from './api-keys/index.ts'
import type { Config } from './config.ts'
import { type DbHandle, lockDataDir, migrateToLatest, openDatabase } from './db/index.ts'
import { buildApp, type App } from './http/app.ts'
import { createLogger, type Logger } from './log.ts'
import { bootstrapIfEmpty } from './workspaces/index.ts'

export interface Appliance {
  config: Config
  log: Logger
  database: DbHandle
  app: App
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:3000 */
  url: string
  stop(): Promise<void>
}

/**
 * The composition root: lock DATA_DIR, open and migrate the database, bootstrap an empty
 * install, build the HTTP app and listen. Later capabilities (SIP, media, voice, dispatcher)
 * start here in that order and stop in reverse.
 */
export async function startAppliance(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<Appliance> {
  mkdirSync(config.DATA_DIR, { recursive: true })
  const lock = lockDataDir(config.DATA_DIR)
  let database: DbHandle | undefined
  try {
    database = openDatabase(join(config.DATA_DIR, 'appliance.db'))
    const applied = await migrateToLatest(database.db)
    if (applied.length) log.info({ migrations: applied }, 'database migrated')
    const boot = await bootstrapIfEmpty(database.db)
    if (boot) {
      const file = join(config.DATA_DIR, 'admin-api-key')
      writeFileSync(file, `${boot.key}\n`, { mode: 0o600 })
      // Logged once, on the very first start, so the operator can find it; never again.
      log.warn(
        { workspaceId: boot.workspace.id, adminEmail: boot.adminEmail, adminApiKey: boot.key, file },
        'first start: created workspace "Default" and an admin API key',
      )
    }
    const db = database.db
    const principals = new PrincipalCache(config.AUTH_CACHE_MS)
    const app = buildApp({ db, config, log, authenticate: (token, now) => authenticate(db, token, now, principals) })
    app.listen({ hostname: config.HTTP_HOST, port: config.HTTP_PORT })
    const server = app.server
    if (!server) throw new Error('HTTP server did not start')
    const host = config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST
    const url = `http://${host}:${server.port}`
    log.info({ url, dataDir: config.DATA_DIR }, 'appliance started')
    const handle = database
    return {
      config,
      log,
      database: handle,
      app,
      url,
      async stop() {
        await app.stop()
        await handle.close()
        lock.release()
        log.info('appliance stopped')
      },
    }
  } catch (err) {
    await database?.close().catch(() => {})
    lock.release()
    throw err
  }
}
