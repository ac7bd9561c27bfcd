import { csvRow } from '../../../platform/csv/index.ts'
import { encodeCursor, keysetPage } from '../../../platform/db/index.ts'
import type { CallFilterValues } from '../calls.model.ts'
import { filteredCalls } from '../calls.repository.ts'
import { CSV_COLUMNS, csvLine } from './export-document.ts'
import { documentsFor, type RecordsDeps } from './records.service.ts'

const BATCH = 200

/**
 * Every ended call matching the filters as NDJSON (one export document a line) or CSV, newest
 * first. Pulled a batch at a time as the client reads, so memory stays flat however many calls
 * match, and each batch is a short query: the event loop is never held for long.
 */
export function exportStream(deps: RecordsDeps, workspaceId: string, filters: CallFilterValues, format: 'ndjson' | 'csv'): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let cursor: string | undefined
  let started = false
  let done = false
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (done) return
        let text = ''
        if (!started && format === 'csv') text += csvRow(CSV_COLUMNS)
        started = true
        const qb = filteredCalls(deps.db, workspaceId, filters).where('calls.status', '=', 'ended')
        const rows = await keysetPage(qb, 'calls.created_at', 'calls.id', { limit: BATCH - 1, cursor }).execute()
        const docs = await documentsFor(deps, rows)
        for (const d of docs) text += format === 'csv' ? csvLine(d) : `${JSON.stringify(d)}\n`
        if (text) controller.enqueue(encoder.encode(text))
        const last = rows[rows.length - 1]
        if (rows.length < BATCH || !last) {
          done = true
          controller.close()
        } else cursor = encodeCursor([last.created_at, last.id])
      },
    },
    { highWaterMark: 0 },
  )
}
