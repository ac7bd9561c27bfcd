// The whole appliance on one machine, offline: it starts with a demo agent and number, baresip
// calls the number with a microphone of flite speech, and the conversation's transcript and
// latencies are printed from the call record.
// Run: npm run demo:call   (needs baresip and flite: bash scripts/setup.sh --test)
// With no LLM configured (LLM_PROVIDER, LLM_BASE_URL...) a scripted stand-in speaking the
// OpenAI protocol answers, so the demo runs with no network at all; the demo says so. The
// appliance stops at the end, so the recording is copied to ./demo-call.wav rather than linked.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { startAppliance } from '../src/app/appliance.ts'
import { loadConfig } from '../src/platform/config/index.ts'
import { createLogger } from '../src/platform/log.ts'
import { concatFrames, writeWav } from '../src/realtime/voice/audio.ts'
import { resample } from '../src/realtime/voice/resample.ts'
import { startFakeOpenAi } from '../test/fakes/openai.ts'
import { dialWithBaresip } from '../test/helpers/baresip.ts'
import { fliteSpeech, silence } from '../test/helpers/speech.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'appliance-demo-'))
const base = loadConfig()
let stand: ReturnType<typeof startFakeOpenAi> | undefined
const llmConfigured = base.LLM_PROVIDER !== 'none' && (base.LLM_API_KEY || base.LLM_ANTHROPIC_API_KEY || base.LLM_BASE_URL !== 'https://api.openai.com/v1')
if (!llmConfigured) {
  stand = startFakeOpenAi()
  stand.chat.push(
    { text: 'We are open from nine to five, Monday to Friday.' },
    { text: 'You are welcome. Goodbye!', toolCalls: [{ name: 'end_call', arguments: '{}' }] },
  )
}
const config = loadConfig(process.env, {
  DATA_DIR: dataDir,
  HTTP_HOST: '127.0.0.1',
  HTTP_PORT: 0,
  SIP_HOST: '127.0.0.1',
  SIP_PORT: 0,
  SIP_TLS_PORT: 0,
  PUBLIC_HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  ...(stand ? { LLM_PROVIDER: 'openai', LLM_BASE_URL: stand.url, LLM_API_KEY: 'demo', STT_PROVIDER: base.STT_PROVIDER === 'auto' ? 'auto' : base.STT_PROVIDER } : {}),
})
const appliance = await startAppliance(config, createLogger('error'))
const key = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim()
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(appliance.url + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
  const json = (await res.json()) as any
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`)
  return json
}

try {
  const ws = (await api('GET', '/api/workspaces')).workspaces[0].id
  await api('POST', `/api/workspaces/${ws}/payment-methods`, { provider: 'manual', reference: 'demo' })
  const { agent } = await api('POST', '/api/agents', {
    name: 'Demo receptionist',
    promptPublished: 'You are the friendly receptionist of Acme Dental. Answer in one or two short sentences.',
    welcome: { mode: 'agent_speaks_first', message: 'Hello, thank you for calling Acme Dental. How can I help?' },
  })
  const { phoneNumber } = await api('POST', '/api/phone-numbers', { e164: '+14155550123', provider: 'sip', sipTerminationUri: 'sip:127.0.0.1', sipOutboundTransport: 'udp' })
  await api('PATCH', `/api/phone-numbers/${phoneNumber.id}`, { inboundAgentId: agent.id })

  const rate = 16000
  const caller = concatFrames([silence(4500, rate), fliteSpeech('what are your opening hours'), silence(4500, rate), fliteSpeech('thank you very much'), silence(8000, rate)])
  console.log(
    stand
      ? 'No LLM is configured: the agent\'s replies come from a scripted stand-in model (two fixed answers over the OpenAI protocol), not a language model. Set LLM_BASE_URL or LLM_API_KEY to hear a real one.'
      : `The agent's replies come from the configured LLM (${config.LLM_PROVIDER}).`,
  )
  console.log('Speech: Silero VAD (or the energy VAD), the offline recogniser and flite, all on this machine.')
  console.log('baresip is calling +14155550123 ...')
  const phone = dialWithBaresip(`sip:14155550123@127.0.0.1:${appliance.sip.udp}`, writeWav({ samples: resample(caller.samples, rate, 8000), sampleRate: 8000 }), { timeoutSec: 40 })
  const established = await phone.saw('Call established')
  const closed = established && (await phone.saw('session closed'))
  await phone.stop()
  if (!closed) throw new Error(`the call did not run:\n${phone.output()}`)
  let call
  for (;;) {
    call = (await api('GET', '/api/calls')).calls[0]
    if (call?.status === 'ended') break
    await Bun.sleep(50)
  }
  console.log(`\ncall ${call.id}: ${call.outcome} (${call.endReason}) after ${call.duration} s\n`)
  for (const item of call.transcript) console.log(`[${item.timestamp.toFixed(2).padStart(6)} s] ${item.role.padEnd(5)} ${item.text}`)
  console.log('\nper turn (ms): endpointing / STT final / LLM first token / TTS first audio / voice-to-voice')
  for (const t of call.metrics.turns) console.log([t.endpointingMs, t.sttFinalMs, t.llmTtftMs, t.ttsTtfbMs, t.voiceToVoiceMs].map((v: number | null) => (v === null ? '-' : v.toFixed(0))).join(' / '))
  console.log(`voice-to-voice p50 ${call.metrics.latencyP50 ?? '-'} ms, p99 ${call.metrics.latencyP99 ?? '-'} ms; cost ${JSON.stringify(call.cost)}`)
  // the appliance and its data folder go when the demo ends: the recording is kept beside you, not linked
  const saved = join(process.cwd(), 'demo-call.wav')
  copyFileSync(join(dataDir, 'recordings', `${call.id}.wav`), saved)
  console.log(`recording (stereo: caller left, agent right): ${saved}`)
} finally {
  await appliance.stop()
  stand?.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)
