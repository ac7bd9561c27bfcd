// Moves finished recordings from this node's disk to object storage. The local file is the
// durable marker of the work: only this node can upload it, so no lease is needed; it is
// removed only after the store confirmed the upload and the call row points at the object.
// A file left by a crash (or by a stop during an outage) is uploaded at the next start.

import { readdir } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { type Backoff, backoffDelayMs } from '../../platform/backoff.ts'
import type { Logger } from '../../platform/log.ts'
import { isObjectLocation, type RecordingStorage } from './storage.ts'

export type UploadBackoff = Backoff
export const retryDelayMs = backoffDelayMs

/** The call rows the uploader reads and repoints, given by the calls folder (its ledger writes them). */
export interface UploadedCalls {
  /** The call's status and where its record says the recording is; undefined when there is no record. */
  recordingOf(callId: string): Promise<{ status: string; recording_path: string | null } | undefined>
  /** Points the record at `to` if it still points at `from`; false when it no longer does. */
  moveRecording(callId: string, from: string | null, to: string): Promise<boolean>
}

export class RecordingUploader {
  private readonly pending = new Map<string, { path: string; failures: number; timer?: Timer }>()
  private readonly running = new Set<Promise<void>>()
  private stopped = false

  constructor(
    private readonly calls: UploadedCalls,
    private readonly storage: RecordingStorage,
    private readonly dir: string,
    private readonly log: Logger,
    private readonly backoff: UploadBackoff = { firstMs: 1000, maxMs: 60_000 },
  ) {}

  /** Queues the recordings found in the folder (left by an earlier run); returns how many. */
  async start(): Promise<number> {
    if (!this.storage.uploads) return 0
    const files = (await readdir(this.dir)).filter((f) => f.endsWith('.wav'))
    for (const f of files) this.finished(basename(f, '.wav'), join(this.dir, f))
    return files.length
  }

  /** A call's recording is complete at `path`: upload it (no-op with local storage). */
  finished(callId: string, path: string): void {
    if (!this.storage.uploads || this.stopped || this.pending.has(callId)) return
    this.pending.set(callId, { path, failures: 0 })
    this.attempt(callId)
  }

  /** Recordings waiting for their upload (being tried, or between retries). */
  get backlog(): number {
    return this.pending.size
  }

  /** Stops retrying and waits for uploads in flight; what is left stays on disk for the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const p of this.pending.values()) clearTimeout(p.timer)
    await Promise.allSettled([...this.running])
  }

  private attempt(callId: string): void {
    const job = this.upload(callId)
      .then(() => void this.pending.delete(callId))
      .catch((err) => {
        const p = this.pending.get(callId)
        if (!p || this.stopped) return
        p.failures++
        const delay = retryDelayMs(p.failures, this.backoff)
        this.log.warn({ err: String(err), callId, failures: p.failures, retryInMs: delay }, 'recording upload failed; will retry')
        p.timer = setTimeout(() => this.attempt(callId), delay)
      })
      .finally(() => this.running.delete(job))
    this.running.add(job)
  }

  private async upload(callId: string): Promise<void> {
    const path = this.pending.get(callId)!.path
    const row = await this.calls.recordingOf(callId)
    if (!row || row.status !== 'ended') return // no record to point at it, or (another node's) call still live
    if (row.recording_path && isObjectLocation(row.recording_path)) return void (await this.storage.remove(path)) // uploaded before a crash
    // null: the call was cut short by a crash before its end was written; the file is still its recording
    if (row.recording_path && row.recording_path !== path) return
    const location = await this.storage.upload(path, callId)
    const moved = await this.calls.moveRecording(callId, row.recording_path ? path : null, location)
    // the recording was deleted (or the record removed) while it was uploading: drop the copy too
    if (!moved) await this.storage.remove(location)
    await this.storage.remove(path)
    this.log.debug({ callId, location }, 'recording uploaded')
  }
}
