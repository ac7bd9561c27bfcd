// A campaign's upload (POST /api/outbound/jobs), read once the caller is known: the cheap checks
// first (size, agent, number), then the parse and the validation of its contacts in a worker
// thread, so the event loop that HTTP and SIP share is never held by one upload.
import { workerScript } from '../../embedded/index.ts'
import { AppError, type FieldIssue, validation } from '../../errors.ts'
import { isJsonType, readBytes, unsupportedType } from '../../http/body.ts'
import { type PreparedContacts, type PreparedUpload, prepareUpload, type UploadInput } from './prepare.ts'
import { TopLevelStrings } from './scan.ts'
import type { UploadReply } from './worker.ts'

export { MAX_ISSUES, normalise, type PreparedContacts, type Warning } from './prepare.ts'

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
}

/** What the route validates (the body's other fields) and the contacts, ready to store. */
export interface JobUpload {
  head: Record<string, unknown>
  contacts: PreparedContacts
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
  const csv = /^text\/csv\b/i.test(contentType)
  if (contentType && !csv && !isJsonType(contentType)) throw unsupportedType('campaign uploads must be JSON (Content-Type: application/json) or CSV (text/csv)')
  const head = csv ? csvHead(query) : undefined
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
    const input: UploadInput = { bytes, csv, used, ...(csv && query.defaultCountry !== undefined ? { defaultCountry: query.defaultCountry } : {}) }
    const prepared = bytes.byteLength <= INLINE_MAX_BYTES ? prepareUpload(input) : await inWorker(input)
    // JSON.parse keeps the last of two equal keys, the scan the first: both must name one agent
    if (!head && agentId !== undefined && prepared.head.agentId !== agentId) throw validation([{ path: 'agentId', message: 'is given more than once' }])
    return { head: head ?? prepared.head, contacts: prepared.contacts }
  })
}

function refuse(issues: FieldIssue[]): void {
  if (issues.length) throw validation(issues)
}

function inWorker(input: UploadInput): Promise<PreparedUpload> {
  // a small Buffer may share its memory with others: only a buffer of its own is handed over
  const bytes = input.bytes.byteOffset === 0 && input.bytes.byteLength === input.bytes.buffer.byteLength ? input.bytes : new Uint8Array(input.bytes)
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScript('campaigns/upload/worker.ts', new URL('./worker.ts', import.meta.url)))
    worker.onmessage = (ev: MessageEvent<UploadReply>) => {
      const reply = ev.data
      if ('ready' in reply) return worker.postMessage({ ...input, bytes }, [bytes.buffer as ArrayBuffer])
      worker.terminate()
      if (reply.ok) resolve(reply.value)
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
