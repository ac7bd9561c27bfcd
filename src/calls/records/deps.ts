import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import { recordingStorageFor, type StorageSettings } from '../../recordings/index.ts'
import { loadOrCreateSecretKey } from '../../secrets/index.ts'
import type { RecordsDeps } from './records.service.ts'
import { recordingUrlKey } from './recording-url.ts'

const keys = new Map<string, Buffer>()

/** The recording-link key of a DATA_DIR, derived once per process. */
export function linkKeyFor(dataDir: string): Buffer {
  let key = keys.get(dataDir)
  if (!key) {
    key = recordingUrlKey(loadOrCreateSecretKey(dataDir))
    keys.set(dataDir, key)
  }
  return key
}

/** Links point at PUBLIC_HTTP_URL when set, else at `fallbackBase` (the request's origin, or the appliance's URL). */
export function recordsDeps(db: Db, config: Pick<Config, 'DATA_DIR' | 'PUBLIC_HTTP_URL' | 'RECORDING_URL_TTL_SEC'> & StorageSettings, fallbackBase: string): RecordsDeps {
  return {
    db,
    linkKey: linkKeyFor(config.DATA_DIR),
    baseUrl: (config.PUBLIC_HTTP_URL || fallbackBase).replace(/\/+$/, ''),
    recordingUrlTtlSec: config.RECORDING_URL_TTL_SEC,
    storage: recordingStorageFor(config),
  }
}
