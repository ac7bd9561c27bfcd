// POST /api/agents/{id}/voice-preview: the route of voice-preview.ts.
import { Elysia, t } from 'elysia'
import type { Db } from '../../platform/db/index.ts'
import { AppError, notFound } from '../../platform/errors.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams } from '../../platform/schema/index.ts'
import type { VoiceEngines } from '../../realtime/voice/engines.ts'
import type { Voice } from './agents.model.ts'
import { VoiceInput } from './agents.model.ts'
import { findAgent } from './agents.service.ts'
import { PreviewQuota, type PreviewQuotaOptions } from './preview-quota.ts'
import { DEFAULT_TEXT, PREVIEW_MAX_CHARS, speakPreview } from './voice-preview.ts'

const PreviewBody = t.Object(
  {
    text: t.Optional(t.String({ minLength: 1, maxLength: PREVIEW_MAX_CHARS, description: `what to say, at most ${PREVIEW_MAX_CHARS} characters (more is 422); default "${DEFAULT_TEXT}"` })),
    voice: t.Optional(VoiceInput),
  },
  { additionalProperties: false },
)

export function voicePreviewController(db: Db, auth: AuthPlugin, engines: () => VoiceEngines | undefined, limits: PreviewQuotaOptions = { concurrency: 1, perMin: 20 }) {
  const quota = new PreviewQuota(limits)
  return new Elysia({ prefix: '/api/agents', tags: ['Agents'] }).use(auth).post(
    '/:id/voice-preview',
    async ({ params, body, principal }) => {
      const agent = await findAgent(db, principal.workspaceId, params.id)
      if (!agent) throw notFound('agent')
      const ready = engines()
      if (!ready) throw new AppError(503, 'not_ready', 'the appliance is loading its speech engines; try again shortly')
      const voice: Voice = { ...agent.voice, ...body.voice }
      const release = quota.acquire(principal.workspaceId)
      let spoken: { wav: Uint8Array; fallback?: string }
      try {
        spoken = await speakPreview(ready, voice, agent.language, body.text ?? DEFAULT_TEXT)
      } catch (err) {
        throw new AppError(502, 'internal', `the voice could not speak: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300))
      } finally {
        release()
      }
      const headers: Record<string, string> = { 'content-type': 'audio/wav', 'cache-control': 'no-store' }
      if (spoken.fallback) headers['x-voice-fallback'] = spoken.fallback
      return new Response(spoken.wav as Uint8Array<ArrayBuffer>, { headers })
    },
    {
      permission: 'agents:write',
      params: IdParams,
      body: PreviewBody,
      detail: {
        summary: "Hear a voice: a sample spoken by the appliance's TTS, as audio/wav (mono, 16 kHz)",
        description:
          "Speaks `text` in the agent's voice; `voice` members replace the agent's (to try a voice before saving it). A voice that " +
          'cannot speak on this appliance is replaced by the default voice, and the header x-voice-fallback says so. 503 while the ' +
          'speech engines load; 502 when the TTS provider fails. Cloud voices are billed by their provider. ' +
          `\`text\` is at most ${PREVIEW_MAX_CHARS} characters (422 beyond). Per workspace and node, VOICE_PREVIEW_CONCURRENCY (1) previews run at once ` +
          'and VOICE_PREVIEW_PER_MIN (20) may be asked for per minute; more get 429 rate_limited with Retry-After. Previews yield to live calls on the TTS workers.',
        responses: { 200: { description: 'audio/wav', content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } } } },
      } as never,
    },
  )
}
