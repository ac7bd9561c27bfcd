// Where a recording lives. calls.recording_path holds a location: a local file path (the
// recorder's file, and where RECORDINGS_STORAGE=local keeps it), or s3://<bucket>/<key> once
// uploaded. Every node reads every location, whatever its own RECORDINGS_STORAGE says.

import { existsSync, statSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { S3Client } from 'bun'
import type { StorageSettings } from '../../platform/config/storage.ts'

/** A stored recording: its size, and its bytes (all, or the inclusive range start..end). */
export interface StoredRecording {
  size: number
  stream(range?: { start: number; end: number }): ReadableStream<Uint8Array>
}

const S3_SCHEME = 's3://'

export const isObjectLocation = (location: string) => location.startsWith(S3_SCHEME)

/** `s3://bucket/key` -> { bucket, key }; null for a local path. */
export function parseObjectLocation(location: string): { bucket: string; key: string } | null {
  if (!isObjectLocation(location)) return null
  const rest = location.slice(S3_SCHEME.length)
  const slash = rest.indexOf('/')
  return slash > 0 ? { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) } : null
}

const OBJECT_PREFIX = 'recordings/'

export const objectKeyOf = (callId: string) => `${OBJECT_PREFIX}${callId}.wav`

export class RecordingStorage {
  private readonly s3: S3Client | undefined

  constructor(private readonly settings: StorageSettings) {
    this.s3 = settings.RECORDINGS_STORAGE === 's3' || settings.S3_BUCKET ? this.client() : undefined
  }

  /** True when finished recordings are moved to object storage (RECORDINGS_STORAGE=s3). */
  get uploads(): boolean {
    return this.settings.RECORDINGS_STORAGE === 's3'
  }

  /** Uploads a finished local recording; resolves with its location once the store confirmed it. */
  async upload(localPath: string, callId: string): Promise<string> {
    const s3 = this.need()
    const key = objectKeyOf(callId)
    await s3.write(key, Bun.file(localPath), { type: 'audio/wav' })
    return `${S3_SCHEME}${this.settings.S3_BUCKET}/${key}`
  }

  /** The recording at `location`, or null when it is not there (any more). */
  async open(location: string): Promise<StoredRecording | null> {
    const obj = parseObjectLocation(location)
    if (!obj) {
      if (!existsSync(location)) return null
      const file = Bun.file(location)
      const size = statSync(location).size
      return { size, stream: (r) => (r ? file.slice(r.start, r.end + 1) : file).stream() }
    }
    const file = this.need(obj.bucket).file(obj.key)
    let size: number
    try {
      size = (await file.stat()).size
    } catch (err) {
      if (isMissing(err)) return null
      throw err
    }
    return { size, stream: (r) => (r ? file.slice(r.start, r.end + 1) : file).stream() }
  }

  /** True when this node can reach a bucket (S3_BUCKET set): its recordings/ objects can be listed. */
  get hasBucket(): boolean {
    return this.s3 !== undefined
  }

  /** The objects under recordings/ in this node's bucket with their last change, a page at a time. */
  async *objects(): AsyncGenerator<{ location: string; modifiedMs: number }> {
    const s3 = this.need()
    let continuationToken: string | undefined
    do {
      const page = await s3.list({ prefix: OBJECT_PREFIX, maxKeys: 1000, ...(continuationToken ? { continuationToken } : {}) })
      for (const o of page.contents ?? []) {
        yield { location: `${S3_SCHEME}${this.settings.S3_BUCKET}/${o.key}`, modifiedMs: o.lastModified ? Date.parse(o.lastModified) : Number.NaN }
      }
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined
    } while (continuationToken)
  }

  /** Deletes the recording at `location`; a recording already gone is not an error. */
  async remove(location: string): Promise<void> {
    const obj = parseObjectLocation(location)
    if (obj) return void (await this.need(obj.bucket).delete(obj.key))
    try {
      await unlink(location)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }

  private client(): S3Client {
    const s = this.settings
    return new S3Client({
      bucket: s.S3_BUCKET,
      region: s.S3_REGION,
      accessKeyId: s.S3_ACCESS_KEY_ID,
      secretAccessKey: s.S3_SECRET_ACCESS_KEY,
      ...(s.S3_ENDPOINT ? { endpoint: s.S3_ENDPOINT } : {}),
    })
  }

  private need(bucket = this.settings.S3_BUCKET): S3Client {
    if (!this.s3) throw new Error('this recording is in object storage, but this node has no S3_BUCKET configured')
    if (bucket !== this.settings.S3_BUCKET) throw new Error(`this recording is in bucket ${bucket}, this node is configured for ${this.settings.S3_BUCKET}`)
    return this.s3
  }
}

const isMissing = (err: unknown) => {
  const code = (err as { code?: string }).code
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'ERR_S3_FILE_NOT_FOUND'
}

const stores = new Map<string, RecordingStorage>()

/** The RecordingStorage of a configuration, made once per process. */
export function recordingStorageFor(settings: StorageSettings): RecordingStorage {
  const id = [settings.RECORDINGS_STORAGE, settings.S3_ENDPOINT, settings.S3_BUCKET, settings.S3_REGION, settings.S3_ACCESS_KEY_ID].join('|')
  let store = stores.get(id)
  if (!store) {
    store = new RecordingStorage(settings)
    stores.set(id, store)
  }
  return store
}
