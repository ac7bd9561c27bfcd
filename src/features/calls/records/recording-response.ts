import { AppError, notFound } from '../../../platform/errors.ts'
import type { RecordingStorage } from '../../recordings/index.ts'
import { parseRange } from './recording-url.ts'

/**
 * The HTTP answer for a call's recording, wherever it is stored (this node's disk or object
 * storage): the whole WAV, or one byte range (206; 416 when unsatisfiable). A Range of several
 * ranges, another unit or malformed is ignored: the whole WAV (200). 404 when gone.
 */
export async function recordingResponse(storage: RecordingStorage, location: string | null, rangeHeader: string | null, cache = 'private, max-age=300'): Promise<Response> {
  const rec = location ? await storage.open(location) : null
  if (!rec) throw notFound('recording')
  const common = { 'content-type': 'audio/wav', 'accept-ranges': 'bytes', 'cache-control': cache }
  const r = rangeHeader ? parseRange(rangeHeader, rec.size) : 'ignore'
  if (r === 'ignore') {
    // Bun's server applies a request's Range to a 200 whose body is a file by itself, and parses it
    // leniently; piped, the body is no longer a file, so an ignored Range gets the whole file
    const body = rangeHeader ? rec.stream().pipeThrough(new TransformStream<Uint8Array, Uint8Array>()) : rec.stream()
    return new Response(body, { headers: { ...common, 'content-length': String(rec.size) } })
  }
  if (r === 'unsatisfiable') throw new AppError(416, 'bad_request', `the range is not satisfiable: the recording has ${rec.size} bytes`, undefined, { 'content-range': `bytes */${rec.size}` })
  return new Response(rec.stream(r), {
    status: 206,
    headers: { ...common, 'content-range': `bytes ${r.start}-${r.end}/${rec.size}`, 'content-length': String(r.end - r.start + 1) },
  })
}
