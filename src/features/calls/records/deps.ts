import type { Config } from '../../../platform/config/index.ts'
import type { Db } from '../../../platform/db/index.ts'
import { recordingStorageFor, type StorageSettings, type UploadedCalls } from '../../recordings/index.ts'
import { loadOrCreateSecretKey } from '../../../platform/secrets/index.ts'
import type { RecordsDeps } from './records.service.ts'
import { moveRecording } from './ledger.ts'
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

/** Links point at `base` (net/public-url.ts). */
export function recordsDeps(db: Db, config: Pick<Config, 'DATA_DIR' | 'RECORDING_URL_TTL_SEC'> & StorageSettings, base: string): RecordsDeps {
  return {
    db,
    linkKey: linkKeyFor(config.DATA_DIR),
    baseUrl: base.replace(/\/+$/, ''),
    recordingUrlTtlSec: config.RECORDING_URL_TTL_SEC,
    storage: recordingStorageFor(config),
  }
}

/** The recording uploader's view of the call rows: read here, moved through the ledger. */
export const uploadedCalls = (db: Db): UploadedCalls => ({
  recordingOf: (callId) => db.selectFrom('calls').select(['status', 'recording_path']).where('id', '=', callId).executeTakeFirst(),
  moveRecording: (callId, from, to) => moveRecording(db, callId, from, to),
})
