import { Elysia, t } from 'elysia'
import type { AuthPlugin } from '../http/auth.ts'
import { LLM_PROVIDERS, STT_PROVIDERS, VOICE_PROVIDERS } from './catalog.ts'

export { knownLlmModelsHint, LLM_PROVIDERS, llmProviderOf, VOICE_PROVIDERS, voiceProviderOf } from './catalog.ts'

const Llm = t.Object({
  id: t.String(),
  name: t.String(),
  local: t.Boolean({ description: 'runs on this machine, no cloud account needed' }),
  models: t.Array(t.String()),
  modelPrefix: t.Optional(t.String({ description: 'any model written <modelPrefix><name> is accepted' })),
})
const Voice = t.Object({ id: t.String(), name: t.String(), local: t.Boolean(), voices: t.Array(t.String(), { description: 'example voice ids' }) })
const Stt = t.Object({ id: t.String(), name: t.String(), local: t.Boolean() })

export function providersController(auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/providers', tags: ['Providers'] }).use(auth).get(
    '',
    () => ({ llm: LLM_PROVIDERS, voice: VOICE_PROVIDERS, stt: STT_PROVIDERS }),
    {
      permission: 'providers:read',
      response: t.Object({ llm: t.Array(Llm), voice: t.Array(Voice), stt: t.Array(Stt) }),
      detail: { summary: "The language models and voice providers an agent's llmModel and voice.provider may name" },
    },
  )
}
