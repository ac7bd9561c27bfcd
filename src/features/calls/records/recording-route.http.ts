import { Elysia, t } from 'elysia'
import type { Db } from '../../../platform/db/index.ts'
import { AppError } from '../../../platform/errors.ts'
import type { RecordingStorage } from '../../recordings/index.ts'
import { recordingResponse } from './recording-response.ts'
import { verifyRecordingLink } from './recording-url.ts'

/**
 * GET /recordings/{callId}?expires=&signature=: the recording behind a signed link, for players
 * and analytics jobs that hold no API key. Outside /api on purpose: the link is the credential.
 */
export function recordingLinkRoute(db: Db, linkKey: Buffer, storage: RecordingStorage) {
  return new Elysia({ tags: ['Calls'] }).get(
    '/recordings/:id',
    async ({ params, query, request }) => {
      const verdict = verifyRecordingLink(linkKey, params.id, query.expires, query.signature, new Date())
      if (!verdict.ok) throw new AppError(403, 'forbidden', verdict.reason === 'expired' ? 'the recording link has expired' : 'the recording link is not valid')
      const row = await db.selectFrom('calls').select('recording_path').where('id', '=', params.id).executeTakeFirst()
      return recordingResponse(storage, row?.recording_path ?? null, request.headers.get('range'))
    },
    {
      params: t.Object({ id: t.String() }),
      query: t.Object({ expires: t.Optional(t.String()), signature: t.Optional(t.String()) }),
      detail: {
        summary: 'Fetch a recording through a signed link (no API key)',
        description:
          "The export document's recordingUrl. A stereo 16 kHz WAV (caller left, agent right), audio/wav, with Range requests (206 for one " +
          'byte range, 416 when it is past the end; several ranges or a malformed Range get the whole file, 200). ' +
          'A link that was altered or has expired gets 403; links last RECORDING_URL_TTL_SEC. Served by any node: from its disk, or ' +
          'streamed from object storage (RECORDINGS_STORAGE=s3).',
      },
    },
  )
}
