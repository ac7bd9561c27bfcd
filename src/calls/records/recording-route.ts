import { existsSync, statSync } from 'node:fs'
import { Elysia, t } from 'elysia'
import type { Db } from '../../db/index.ts'
import { AppError, notFound } from '../../errors.ts'
import { parseRange, verifyRecordingLink } from './recording-url.ts'

/**
 * GET /recordings/{callId}?expires=&signature=: the recording behind a signed link, for players
 * and analytics jobs that hold no API key. Outside /api on purpose: the link is the credential.
 */
export function recordingLinkRoute(db: Db, linkKey: Buffer) {
  return new Elysia({ tags: ['Calls'] }).get(
    '/recordings/:id',
    async ({ params, query, request }) => {
      const verdict = verifyRecordingLink(linkKey, params.id, query.expires, query.signature, new Date())
      if (!verdict.ok) throw new AppError(403, 'forbidden', verdict.reason === 'expired' ? 'the recording link has expired' : 'the recording link is not valid')
      const row = await db.selectFrom('calls').select('recording_path').where('id', '=', params.id).executeTakeFirst()
      const path = row?.recording_path
      if (!path || !existsSync(path)) throw notFound('recording')
      const size = statSync(path).size
      const file = Bun.file(path)
      const common = { 'content-type': 'audio/wav', 'accept-ranges': 'bytes', 'cache-control': 'private, max-age=300' }
      const range = request.headers.get('range')
      if (!range) return new Response(file, { headers: { ...common, 'content-length': String(size) } })
      const r = parseRange(range, size)
      if (!r) return new Response(null, { status: 416, headers: { ...common, 'content-range': `bytes */${size}` } })
      return new Response(file.slice(r.start, r.end + 1), {
        status: 206,
        headers: { ...common, 'content-range': `bytes ${r.start}-${r.end}/${size}`, 'content-length': String(r.end - r.start + 1) },
      })
    },
    {
      params: t.Object({ id: t.String() }),
      query: t.Object({ expires: t.Optional(t.String()), signature: t.Optional(t.String()) }),
      detail: {
        summary: 'Fetch a recording through a signed link (no API key)',
        description:
          "The export document's recordingUrl. A stereo 16 kHz WAV (caller left, agent right), audio/wav, with Range requests (206). " +
          'A link that was altered or has expired gets 403; links last RECORDING_URL_TTL_SEC.',
      },
    },
  )
}
