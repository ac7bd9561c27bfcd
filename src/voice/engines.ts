import { resolve } from 'node:path'
import { type Config, CONFIG_KEYS, ConfigError } from '../config.ts'
import type { Serving } from '../providers/serving.ts'
import { type AgentVoice, type CallEngines, callEnginesFactory } from './call-engines.ts'
import { sherpaByLanguage } from './stt-languages.ts'
import { AnthropicLlm, type Llm, OpenAiLlm } from './llm/index.ts'
import { oneOf, required, type VoiceSettings, voiceSettings } from './settings.ts'
import { DeepgramStt, findSherpaModel, OpenAiStt, PocketsphinxStt, SherpaOnnxStt, sherpaRuntime, STT_FINAL_SILENCE_MS, type Stt } from './stt/index.ts'
import { ElevenLabsTts, FLITE_VOICES, type FliteVoice, FliteTts, OpenAiTts, trimmedTts, type Tts } from './tts/index.ts'
import { EnergyVad, SileroVad, type VadModel } from './vad/index.ts'
import { IdleRelease } from './idle.ts'
import { trimHeap } from './stt/pocketsphinx-ffi.ts'

export interface VoiceEngines {
  vad: VadModel
  /** Undefined when no STT is configured or installed: calls then only understand DTMF. */
  stt: Stt | undefined
  /** Undefined when no LLM is configured: agents run their workflow. */
  llm: Llm | undefined
  /** A TTS producing audio at the call's rate. */
  tts(sampleRate: number): Tts
  settings: VoiceSettings
  /** What was chosen and why, for the start-up log. */
  notes: string[]
  /** Engines that fell back from what was configured or stopped working, each with the reason; empty when all is as asked. */
  problems(): string[]
  /** What the configuration can serve (LLM backends, voice providers). */
  serving: Serving
  /** The engines of one call, from its agent's model, voice and language. */
  forAgent(agent: AgentVoice, sampleRate: number): CallEngines
  /**
   * Keeps the offline engines loaded for a call (loading those released while idle) until the
   * returned function is called; ENGINE_IDLE_RELEASE_MS after the last call they are unloaded.
   * `threads` holds the engine threads that call workers share (flite, pocketsphinx), `vad` this
   * thread's Silero host (each thread that runs calls has its own).
   */
  hold(scope?: 'all' | 'threads' | 'vad'): () => void
  /** Ends what runs outside this process's threads (the Silero host) now; resolves once it has exited. */
  close(): Promise<void>
  /** The offline engines that unload while idle, and whether each is in memory now. */
  loaded(): Record<string, boolean>
}

/** Picks and builds the engines named by config; fails with a ConfigError on a bad choice. */
export async function createVoiceEngines(cfg: Config): Promise<VoiceEngines> {
  const settings = voiceSettings(cfg)
  const notes: string[] = []
  const degraded: string[] = []
  const conn = settings.conn

  let vad: VadModel
  if (oneOf('VAD_ENGINE', cfg.VAD_ENGINE, ['silero', 'energy']) === 'silero') {
    try {
      vad = await SileroVad.load(cfg.VAD_MODEL_FILE || undefined, { idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
    } catch (err) {
      vad = new EnergyVad()
      const why = `VAD: Silero could not be loaded, using the energy VAD, which takes any loud sound for speech (${(err as Error).message})`
      notes.push(why)
      degraded.push(why)
    }
  } else vad = new EnergyVad()
  notes.push(`VAD: ${vad.name}`)

  const stt = await chooseStt(cfg, conn, notes, degraded)
  const llm = chooseLlm(cfg, conn, notes)

  const ttsName = oneOf('TTS_PROVIDER', cfg.TTS_PROVIDER, ['flite', 'elevenlabs', 'openai'])
  const voice = oneOf('FLITE_VOICE', cfg.FLITE_VOICE, FLITE_VOICES) as FliteVoice
  if (ttsName === 'elevenlabs') required('ELEVENLABS_API_KEY', cfg.ELEVENLABS_API_KEY, 'for TTS_PROVIDER=elevenlabs')
  if (ttsName === 'openai') required('OPENAI_API_KEY', cfg.OPENAI_API_KEY, 'for TTS_PROVIDER=openai')
  const ttsByRate = new Map<number, Tts>()
  const tts = (sampleRate: number): Tts => {
    let t = ttsByRate.get(sampleRate)
    if (t) return t
    if (ttsName === 'elevenlabs') {
      t = new ElevenLabsTts({ baseUrl: cfg.ELEVENLABS_BASE_URL, apiKey: cfg.ELEVENLABS_API_KEY, voiceId: cfg.ELEVENLABS_VOICE_ID, modelId: cfg.ELEVENLABS_MODEL, sampleRate, conn })
    } else if (ttsName === 'openai') {
      t = new OpenAiTts({ baseUrl: cfg.OPENAI_BASE_URL, apiKey: cfg.OPENAI_API_KEY, model: cfg.OPENAI_TTS_MODEL, voice: cfg.OPENAI_TTS_VOICE, sampleRate, conn })
    } else t = new FliteTts({ voice, sampleRate, workers: Math.max(1, Math.floor(cfg.FLITE_WORKERS)), idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
    ttsByRate.set(sampleRate, t)
    return t
  }
  // what calls hear: the engine without its leading and trailing silence (the engine itself stays
  // in ttsByRate for its workers' hold, load state and problems)
  const trimmedByRate = new Map<number, Tts>()
  const callTts = (sampleRate: number): Tts => {
    let t = trimmedByRate.get(sampleRate)
    if (!t) trimmedByRate.set(sampleRate, (t = trimmedTts(tts(sampleRate))))
    return t
  }
  notes.push(`TTS: ${ttsName}`)
  // flite's workers load now, so a broken install shows at start and not on the first caller
  if (ttsName === 'flite') tts(8000)
  const problems = () => {
    const out = [...degraded]
    const vadProblem = vad instanceof SileroVad ? vad.problem() : undefined
    if (vadProblem) out.push(vadProblem)
    for (const t of new Set(ttsByRate.values())) {
      const p = t instanceof FliteTts ? t.problem() : undefined
      if (p && !out.includes(`TTS: ${p}`)) out.push(`TTS: ${p}`)
    }
    return out
  }
  const sttFor = stt instanceof SherpaOnnxStt ? await sherpaByLanguage(stt, resolve(cfg.STT_SHERPA_MODEL_DIR), STT_FINAL_SILENCE_MS, notes) : undefined
  const { serving, forAgent } = callEnginesFactory(cfg, conn, { tts: callTts, stt, sttFor })
  // after the engines unload, the process gives back what the calls left: a full collection,
  // then glibc's free pages (Bun's own allocator returns its pages on collection)
  const idleProcess = new IdleRelease(cfg.ENGINE_IDLE_RELEASE_MS > 0 ? cfg.ENGINE_IDLE_RELEASE_MS + 1000 : 0, () => {
    Bun.gc(true)
    trimHeap()
  })
  const hold = (scope: 'all' | 'threads' | 'vad' = 'all') => {
    const releases: (() => void)[] = [idleProcess.hold()]
    if (scope !== 'threads' && vad instanceof SileroVad) releases.push(vad.hold())
    if (scope !== 'vad' && ttsName === 'flite') releases.push((tts(8000) as FliteTts).hold())
    if (scope !== 'vad' && stt instanceof PocketsphinxStt) releases.push(stt.hold())
    return () => {
      for (const r of releases.splice(0)) r()
    }
  }
  const loaded = () => {
    const out: Record<string, boolean> = {}
    if (vad instanceof SileroVad) out.silero = vad.loaded
    if (ttsName === 'flite') out.flite = (tts(8000) as FliteTts).loaded
    if (stt instanceof PocketsphinxStt) out.pocketsphinx = stt.loaded
    return out
  }
  const close = async () => {
    if (vad instanceof SileroVad) await vad.close()
  }
  return { vad, stt, llm, tts: callTts, settings, notes, problems, serving, forAgent, hold, loaded, close }
}

async function chooseStt(cfg: Config, conn: VoiceSettings['conn'], notes: string[], degraded: string[]): Promise<Stt | undefined> {
  let name = oneOf('STT_PROVIDER', cfg.STT_PROVIDER, ['auto', 'deepgram', 'openai', 'sherpa-onnx', 'pocketsphinx', 'none'])
  const sherpaDir = resolve(cfg.STT_SHERPA_MODEL_DIR)
  const endpointingMs = STT_FINAL_SILENCE_MS
  if (name === 'auto') {
    if (cfg.DEEPGRAM_API_KEY) name = 'deepgram'
    else {
      const found = sherpaRuntime().ok ? findSherpaModel(sherpaDir).model : undefined
      if (found) {
        try {
          const stt = await SherpaOnnxStt.load({ modelDir: found.dir, endpointingMs })
          notes.push(`STT: sherpa-onnx, ${found.description} from ${found.dir}`)
          return stt
        } catch (err) {
          notes.push(`STT: sherpa-onnx model skipped (${(err as Error).message})`)
          degraded.push(`STT: the sherpa-onnx model in ${found.dir} could not be loaded (${(err as Error).message})`)
        }
      }
      name = PocketsphinxStt.available() ? 'pocketsphinx' : cfg.OPENAI_API_KEY ? 'openai' : 'none'
    }
  }
  if (name === 'sherpa-onnx') {
    const { model, problems } = findSherpaModel(sherpaDir)
    if (!model) throw new ConfigError(`STT_SHERPA_MODEL_DIR: no usable sherpa-onnx model in ${sherpaDir}${problems.length ? ` (${problems.join('; ')})` : ''}`)
    try {
      const stt = await SherpaOnnxStt.load({ modelDir: model.dir, endpointingMs })
      notes.push(`STT: sherpa-onnx, ${model.description} from ${model.dir}`)
      return stt
    } catch (err) {
      throw new ConfigError(`STT_PROVIDER=sherpa-onnx: ${(err as Error).message}`)
    }
  }
  notes.push(`STT: ${name}`)
  switch (name) {
    case 'deepgram':
      return new DeepgramStt({
        baseUrl: cfg.DEEPGRAM_BASE_URL,
        apiKey: required('DEEPGRAM_API_KEY', cfg.DEEPGRAM_API_KEY, 'for STT_PROVIDER=deepgram'),
        model: cfg.DEEPGRAM_MODEL,
        language: cfg.STT_LANGUAGE,
        endpointingMs: STT_FINAL_SILENCE_MS,
        utteranceEndMs: 1000,
        conn,
      })
    case 'openai':
      return new OpenAiStt({
        baseUrl: cfg.OPENAI_BASE_URL,
        apiKey: required('OPENAI_API_KEY', cfg.OPENAI_API_KEY, 'for STT_PROVIDER=openai'),
        model: cfg.OPENAI_STT_MODEL,
        language: cfg.STT_LANGUAGE.split('-')[0],
        conn,
      })
    case 'pocketsphinx':
      return new PocketsphinxStt({ mode: 'dictation', idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
    default:
      return undefined
  }
}

function chooseLlm(cfg: Config, conn: VoiceSettings['conn'], notes: string[]): Llm | undefined {
  let name = oneOf('LLM_PROVIDER', cfg.LLM_PROVIDER, ['auto', 'openai', 'anthropic', 'none'])
  if (name === 'auto') {
    name = cfg.ANTHROPIC_API_KEY
      ? 'anthropic'
      : cfg.LLM_API_KEY || cfg.LLM_BASE_URL !== CONFIG_KEYS.LLM_BASE_URL.default
        ? 'openai'
        : 'none'
  }
  notes.push(`LLM: ${name}`)
  if (name === 'openai') return new OpenAiLlm({ baseUrl: cfg.LLM_BASE_URL, apiKey: cfg.LLM_API_KEY, model: cfg.LLM_MODEL, conn })
  if (name === 'anthropic') {
    return new AnthropicLlm({
      baseUrl: cfg.ANTHROPIC_BASE_URL,
      apiKey: required('ANTHROPIC_API_KEY', cfg.ANTHROPIC_API_KEY, 'for LLM_PROVIDER=anthropic'),
      model: cfg.ANTHROPIC_MODEL,
      conn,
    })
  }
  return undefined
}
