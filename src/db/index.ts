export { openDatabase, type DbHandle } from './client.ts'
export type { Database, Db } from './database.ts'
export { lockDataDir, DataDirLockedError } from './lock.ts'
export { migrateToLatest } from './migrate.ts'
