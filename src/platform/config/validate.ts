// Every check of the configuration that needs nothing but its values: loadConfig runs it (then
// the file checks of files.ts), so check-config, every command and serve refuse the same
// configuration with the same message, before anything is created. Pure: the first problem
// found, naming its key, or undefined. The voice keys, whose provider list is the voice
// registry's, are checked beside it by the start-up (app/startup/config.ts).
import { parseSchedule } from './durations.ts'
import { allowedNetworks } from './outbound.ts'
import { MEDIA_ENCRYPTIONS, mediaPacerProblem, parseMediaCodecs, srtpSuitesProblem } from './media.ts'
import { numberSettingsProblem } from './numbers.ts'
import { type SipSettings, sipSettingsProblem } from './sip.ts'
import { type StorageSettings, storageSettingsProblem } from './storage.ts'
import { webrtcSettingsProblem } from './webrtc.ts'
import { callWorkersProblem } from './workers.ts'

/** pino's levels, which LOG_LEVEL names (an unknown one made the logger throw at start). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

const HTTP = ['http:', 'https:']
/** The base URLs requests go to, and the schemes each takes; `optional` ones may be empty. */
const URL_KEYS: { key: string; schemes: string[]; optional?: boolean }[] = [
  { key: 'LLM_BASE_URL', schemes: HTTP },
  { key: 'LLM_ANTHROPIC_BASE_URL', schemes: HTTP },
  { key: 'LLM_WORKFLOW_BASE_URL', schemes: HTTP, optional: true },
  { key: 'OPENAI_BASE_URL', schemes: HTTP },
  { key: 'ELEVENLABS_BASE_URL', schemes: HTTP },
  // the Deepgram client turns http(s) into ws(s)
  { key: 'DEEPGRAM_BASE_URL', schemes: ['ws:', 'wss:', ...HTTP] },
  { key: 'STRIPE_API_BASE', schemes: HTTP },
  { key: 'CARRIER_API_BASE', schemes: HTTP },
  { key: 'PUBLIC_HTTP_URL', schemes: HTTP, optional: true },
]

/** The configuration as loadConfig read it (Config, which this file may not import: index.ts imports it). */
export type CheckedValues = Record<string, unknown> & SipSettings & StorageSettings & Parameters<typeof webrtcSettingsProblem>[0] & Parameters<typeof callWorkersProblem>[0] & {
  LOG_LEVEL: string
  WEBHOOK_ALLOW_NETWORKS: string
  WEBHOOK_RETRY_SCHEDULE: string
  MEDIA_CODECS: string
  MEDIA_ENCRYPTION: string
  MEDIA_PACER: string
  MEDIA_PACER_LEAD_MS: number
  SRTP_SUITES: string
  DATABASE_URL: string
  DATABASE_POOL_SIZE: number
}

/** What is wrong with `cfg`, or undefined; `cores` is what CALL_WORKERS=auto means. */
export function configProblem(cfg: CheckedValues, cores: number): string | undefined {
  const checks: (() => string | undefined)[] = [
    () => numberSettingsProblem(cfg),
    () => ((LOG_LEVELS as readonly string[]).includes(cfg.LOG_LEVEL) ? undefined : `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${cfg.LOG_LEVEL}`),
    () => thrown('WEBHOOK_ALLOW_NETWORKS', () => allowedNetworks(cfg.WEBHOOK_ALLOW_NETWORKS)),
    () => thrown('WEBHOOK_RETRY_SCHEDULE', () => parseSchedule(cfg.WEBHOOK_RETRY_SCHEDULE)),
    () => thrown('MEDIA_CODECS', () => parseMediaCodecs(cfg.MEDIA_CODECS)),
    () => ((MEDIA_ENCRYPTIONS as readonly string[]).includes(cfg.MEDIA_ENCRYPTION) ? undefined : `MEDIA_ENCRYPTION must be none, optional or required, got ${cfg.MEDIA_ENCRYPTION}`),
    () => mediaPacerProblem(cfg.MEDIA_PACER),
    () => (cfg.MEDIA_PACER_LEAD_MS >= 1 && cfg.MEDIA_PACER_LEAD_MS <= 40 ? undefined : `MEDIA_PACER_LEAD_MS must be 1-40 ms, got ${cfg.MEDIA_PACER_LEAD_MS}`),
    () => prefixed('SRTP_SUITES', srtpSuitesProblem(cfg.SRTP_SUITES)),
    () => sipSettingsProblem(cfg),
    () => callWorkersProblem(cfg, cores),
    () => webrtcSettingsProblem(cfg),
    () => storageSettingsProblem(cfg) ?? undefined,
    () => databaseProblem(cfg.DATABASE_URL, cfg.DATABASE_POOL_SIZE),
    ...URL_KEYS.map((u) => () => urlProblem(u.key, cfg[u.key] as string, u.schemes, u.optional)),
  ]
  for (const check of checks) {
    const problem = check()
    if (problem) return problem
  }
  return undefined
}

function databaseProblem(url: string, poolSize: number): string | undefined {
  if (url && !/^postgres(ql)?:\/\/[^/]/.test(url)) return 'DATABASE_URL must be a postgres:// (or postgresql://) URL, or empty for SQLite'
  if (url && !URL.canParse(url)) return 'DATABASE_URL is not a valid URL'
  if (poolSize < 1) return 'DATABASE_POOL_SIZE must be at least 1'
  return undefined
}

function urlProblem(key: string, value: string, schemes: string[], optional = false): string | undefined {
  if (value === '' && optional) return undefined
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (!url || !schemes.includes(url.protocol) || url.hostname === '') {
    return `${key} must be a URL (${schemes.map((s) => s.slice(0, -1)).join(', ')}) with a host, got ${JSON.stringify(value)}`
  }
  return undefined
}

function thrown(key: string, parse: () => unknown): string | undefined {
  try {
    parse()
    return undefined
  } catch (err) {
    return `${key}: ${(err as Error).message}`
  }
}

const prefixed = (key: string, problem: string | undefined) => problem && `${key}: ${problem}`
