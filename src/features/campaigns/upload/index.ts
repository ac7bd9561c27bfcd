// A campaign's upload (POST /api/outbound/jobs) and the preview of its contacts (POST
// /api/outbound/jobs/preview), read once the caller is known: the cheap checks first (size, agent,
// number), then the parse and the validation of the contacts in a worker thread, so the event
// loop that HTTP and SIP share is never held by one upload.
import { workerScript } from '../../../platform/embedded/index.ts'
import { AppError, type FieldIssue, validation } from '../../../platform/errors.ts'
import { isJsonType, readBytes, unsupportedType } from '../../../platform/schema/index.ts'
import type { PreparedContacts, UploadInput } from './prepare.ts'
import { type ContactsPreview, PREVIEW_ROWS_DEFAULT } from './preview.ts'
import { TopLevelStrings } from './scan.ts'
import { runTask, type TaskResult, taskBytes, type UploadReply, type UploadTask } from './task.ts'

export { MAX_ISSUES, normalise, type PreparedContacts, type Warning } from './prepare.ts'
export { type ContactsPreview, PREVIEW_ROWS_DEFAULT, PREVIEW_ROWS_MAX } from './preview.ts'

/**
 * Below this a body is prepared on the event loop (a few hundred contacts: milliseconds), which
 * spares a small job the start of a worker thread (a few hundred ms).
 */
export const INLINE_MAX_BYTES = 32 * 1024

/** Uploads parsed at once, appliance-wide; more get 429 (each holds its body and a worker thread). */
export const MAX_UPLOADS_IN_FLIGHT = 2

export interface UploadTargets {
  /** What is wrong with the agent and number given so far (each only when given). */
  issues(given: { agentId?: string; phoneNumberId?: string }): Promise<FieldIssue[]>
  /** The variables the agent uses that no call fills by itself. */
  used(agentId: string): Promise<string[]>
}

export interface CsvQuery {
  agentId?: string
  phoneNumberId?: string
  name?: string
  settings?: string
  defaultCountry?: string
  columns?: string
}

export interface PreviewQuery {
  agentId?: string
  defaultCountry?: string
  columns?: string
  limit?: number
}

/** What the route validates (the body's other fields) and the contacts, ready to store. */
export interface JobUpload {
  head: Record<string, unknown>
  contacts: PreparedContacts
}

/** The columns query parameter: a JSON array of strings, one per column of the header. */
function columnsOf(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined
  let columns: unknown
  try {
    columns = JSON.parse(raw)
  } catch {}
  if (!Array.isArray(columns) || !columns.every((c) => typeof c === 'string')) {
    throw validation([{ path: 'columns', message: 'must be a JSON array of strings, one per column: "to", a variable name, or "" to leave the column out' }])
  }
  return columns
}

/** With a text/csv body the other fields are query parameters. */
function csvHead(query: CsvQuery): Record<string, unknown> {
  let settings: unknown
  try {
    settings = query.settings ? JSON.parse(query.settings) : undefined
  } catch {
    throw validation([{ path: 'settings', message: 'must be a JSON object' }])
  }
  const missing = (['agentId', 'phoneNumberId'] as const).filter((k) => !query[k])
  if (missing.length) throw validation(missing.map((k) => ({ path: k, message: 'is required (as a query parameter with a CSV body)' })))
  return {
    agentId: query.agentId,
    phoneNumberId: query.phoneNumberId,
    ...(query.name !== undefined ? { name: query.name } : {}),
    ...(settings !== undefined ? { settings } : {}),
    ...(query.defaultCountry !== undefined ? { defaultCountry: query.defaultCountry } : {}),
  }
}

export class UploadGate {
  private active = 0
  constructor(private readonly max = MAX_UPLOADS_IN_FLIGHT) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) {
      throw new AppError(429, 'rate_limited', `${this.max} campaign uploads are being processed; retry in 1 s`, { retryAfterSec: 1 }, { 'retry-after': '1' })
    }
    this.active++
    try {
      return await work()
    } finally {
      this.active--
    }
  }
}

const FIELDS = new Set(['agentId', 'phoneNumberId'])

/**
 * Reads the upload within `limitBytes`. A CSV body's agent and number (query parameters) are
 * checked before a byte of it is read; a JSON body's as soon as its top level names them, and
 * the rest of the body is then not read when either is wrong.
 */
export async function readJobUpload(request: Request, query: CsvQuery, limitBytes: number, gate: UploadGate, targets: UploadTargets): Promise<JobUpload> {
  const contentType = request.headers.get('content-type') ?? ''
  const csv = isCsv(contentType)
  if (contentType && !csv && !isJsonType(contentType)) throw unsupportedType('campaign uploads must be JSON (Content-Type: application/json) or CSV (text/csv)')
  const head = csv ? csvHead(query) : undefined
  const columns = csv ? columnsOf(query.columns) : undefined
  if (head) refuse(await targets.issues(head as { agentId: string; phoneNumberId: string }))
  return gate.run(async () => {
    const scan = new TopLevelStrings(FIELDS)
    let checked = 0
    const onChunk = async (chunk: Uint8Array) => {
      if (csv || scan.complete) return
      scan.push(chunk)
      if (scan.found.size > checked) {
        checked = scan.found.size
        refuse(await targets.issues(Object.fromEntries(scan.found)))
      }
    }
    const bytes = request.body ? await readBytes(request.body, limitBytes, onChunk) : new Uint8Array(0)
    const agentId = head ? (head.agentId as string) : scan.found.get('agentId')
    const used = agentId ? await targets.used(agentId) : []
    const input: UploadInput = { bytes: owned(bytes), csv, used, ...(csv && query.defaultCountry !== undefined ? { defaultCountry: query.defaultCountry } : {}), ...(columns ? { columns } : {}) }
    const prepared = await run({ upload: input })
    // JSON.parse keeps the last of two equal keys, the scan the first: both must name one agent
    if (!head && agentId !== undefined && prepared.head.agentId !== agentId) throw validation([{ path: 'agentId', message: 'is given more than once' }])
    return { head: head ?? prepared.head, contacts: prepared.contacts }
  })
}

function refuse(issues: FieldIssue[]): void {
  if (issues.length) throw validation(issues)
}

/**
 * The preview of a text/csv body within `limitBytes`: an agent named in the query is checked
 * before a byte is read, and its variables make the missing-variable warnings.
 */
export async function readContactsPreview(request: Request, query: PreviewQuery, limitBytes: number, gate: UploadGate, targets: UploadTargets): Promise<ContactsPreview> {
  if (!isCsv(request.headers.get('content-type') ?? '')) throw unsupportedType('the preview reads a CSV body (Content-Type: text/csv)')
  const columns = columnsOf(query.columns)
  if (query.agentId !== undefined) refuse(await targets.issues({ agentId: query.agentId }))
  return gate.run(async () => {
    const bytes = request.body ? await readBytes(request.body, limitBytes) : new Uint8Array(0)
    const used = query.agentId !== undefined ? await targets.used(query.agentId) : []
    const limit = query.limit ?? PREVIEW_ROWS_DEFAULT
    return run({ preview: { bytes: owned(bytes), used, limit, ...(query.defaultCountry !== undefined ? { defaultCountry: query.defaultCountry } : {}), ...(columns ? { columns } : {}) } })
  })
}

const isCsv = (contentType: string) => /^text\/csv\b/i.test(contentType)

// a small Buffer may share its memory with others: only a buffer of its own is handed to a worker
const owned = (bytes: Uint8Array): Uint8Array => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes))

async function run<T extends UploadTask>(task: T): Promise<TaskResult<T>> {
  return taskBytes(task).byteLength <= INLINE_MAX_BYTES ? runTask(task) : inWorker(task)
}

function inWorker<T extends UploadTask>(task: T): Promise<TaskResult<T>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript('features/campaigns/upload/worker.ts', new URL('./worker.ts', import.meta.url)))
    worker.onmessage = (ev: MessageEvent<UploadReply>) => {
      const reply = ev.data
      if ('ready' in reply) return worker.postMessage(task, [taskBytes(task).buffer as ArrayBuffer])
      worker.terminate()
      if (reply.ok) resolve(reply.value as TaskResult<T>)
      else reject(new AppError(reply.error.status, reply.error.code, reply.error.message, reply.error.details))
    }
    worker.onerror = (ev) => {
      worker.terminate()
      reject(new Error(`campaign upload worker failed: ${ev.message}`))
    }
    // a worker that ends without an answer (a module of its graph failed to load) must not leave the request hanging
    worker.addEventListener('close', () => reject(new Error('campaign upload worker ended without an answer')))
  })
}
