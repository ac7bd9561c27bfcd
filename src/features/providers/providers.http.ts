import { Elysia, t } from 'elysia'
import type { Config } from '../../platform/config/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { LLM_PROVIDERS, STT_PROVIDERS, VOICE_PROVIDERS } from '../../realtime/voice/registry/index.ts'
import { servingFromConfig } from '../../realtime/voice/registry/index.ts'


const Llm = t.Object({
  id: t.String(),
  name: t.String(),
  local: t.Boolean({ description: 'runs on this machine, no cloud account needed' }),
  models: t.Array(t.String()),
  modelPrefix: t.Optional(t.String({ description: 'any model written <modelPrefix><name> is accepted' })),
  available: t.Boolean({ description: 'this appliance is configured to serve it now (an agent naming it without that gets readiness problems)' }),
})
const Voice = t.Object({
  id: t.String(),
  name: t.String(),
  local: t.Boolean(),
  voices: t.Array(t.String(), { description: 'voice ids: all of them for flite, examples for cloud providers' }),
  available: t.Boolean({ description: 'this appliance can speak with it now (a cloud provider needs its API key)' }),
})
const Stt = t.Object({ id: t.String(), name: t.String(), local: t.Boolean() })
const Tool = t.Object({
  name: t.String(),
  description: t.String(),
  configRequired: t.Boolean({ description: 'the tool cannot run without its toolConfigs entry' }),
  config: t.Unknown({ description: "JSON Schema of the tool's toolConfigs entry" }),
})

/** A built-in tool as listed (the agents module defines them; the app passes them in, so neither module imports the other). */
export interface ListedTool {
  name: string
  description: string
  configRequired: boolean
  config: unknown
}

export function providersController(auth: AuthPlugin, config: Config, tools: ListedTool[] = []) {
  const serving = servingFromConfig(config)
  const llm = LLM_PROVIDERS.map(({ backend, prices, ...p }) => ({ ...p, available: backend === undefined || serving.llm.includes(backend) }))
  const voice = VOICE_PROVIDERS.map((p) => ({ ...p, available: serving.voice.includes(p.id) }))
  const listed = tools.map(({ name, description, configRequired, config }) => ({ name, description, configRequired, config }))
  return new Elysia({ prefix: '/api/providers', tags: ['Providers'] }).use(auth).get(
    '',
    () => ({ llm, voice, stt: STT_PROVIDERS, tools: listed }),
    {
      permission: 'providers:read',
      response: t.Object({ llm: t.Array(Llm), voice: t.Array(Voice), stt: t.Array(Stt), tools: t.Array(Tool) }),
      detail: { summary: "The language models and voice providers an agent's llmModel and voice.provider may name" },
    },
  )
}
