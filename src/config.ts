import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * Every configuration key, its default and its meaning. The README's configuration table is
 * generated from this list by hand; keep them in step.
 */
export const CONFIG_KEYS = {
  HTTP_HOST: { default: '0.0.0.0', doc: 'address the HTTP API listens on' },
  HTTP_PORT: { default: 3000, doc: 'HTTP API port (0 picks a free port)' },
  SIP_PORT: { default: 5060, doc: 'SIP port for UDP and TCP' },
  SIP_TLS_PORT: { default: 5061, doc: 'SIP over TLS port' },
  SIP_HOST: { default: '0.0.0.0', doc: 'address the SIP listeners bind to' },
  SIP_TLS_CERT_FILE: { default: '', doc: 'PEM certificate for SIP over TLS; TLS is off while empty' },
  SIP_TLS_KEY_FILE: { default: '', doc: 'PEM private key for SIP over TLS' },
  SIP_T1_MS: { default: 500, doc: 'SIP timer T1 (RFC 3261 round-trip estimate); timers A to K derive from it' },
  SIP_RING_TIMEOUT_MS: { default: 60_000, doc: 'an inbound call not answered within this time gets 480' },
  SIP_RETRY_AFTER_SEC: { default: 30, doc: 'Retry-After of the 503 sent to new calls while stopping' },
  SIP_REFUSALS_PER_SEC: { default: 10, doc: 'refused SIP requests per second a source may cause before it is ignored (0: no limit)' },
  SIP_DIGEST_ALGORITHMS: { default: 'SHA-256,MD5', doc: 'digest algorithms offered to callers of numbers with credentials, strongest first (SHA-256, MD5)' },
  SIP_REFUSAL_BURST: { default: 50, doc: 'refused SIP requests a source may cause at once before the per-second limit applies' },
  RTP_PORT_MIN: { default: 10000, doc: 'lowest RTP port' },
  RTP_PORT_MAX: { default: 20000, doc: 'highest RTP port' },
  DATA_DIR: { default: './data', doc: 'folder for the database, keys and recordings' },
  LOG_LEVEL: { default: 'info', doc: 'trace, debug, info, warn, error, fatal or silent' },
  PUBLIC_HOST: { default: '127.0.0.1', doc: 'host name or address SIP peers reach this appliance at' },
  MAX_BODY_BYTES: { default: 1_048_576, doc: 'largest accepted JSON request body; larger gets 413' },
  RATE_LIMIT_PER_SEC: { default: 50, doc: 'sustained requests per second per API key (0 turns the limit off)' },
  RATE_LIMIT_BURST: { default: 100, doc: 'requests an API key may send at once before the sustained rate applies' },
  BILLING_ALLOW_MANUAL: { default: true, doc: 'allow `manual` payment methods (operator-approved records)' },
  WEBHOOK_ALLOW_HTTP: { default: false, doc: 'allow plain http:// agent webhook URLs' },
  WEBHOOK_ALLOW_PRIVATE: { default: false, doc: 'allow webhook URLs that resolve to loopback, private or link-local addresses' },
  STRIPE_API_BASE: { default: 'https://api.stripe.com', doc: 'Stripe REST base URL' },
  STRIPE_SECRET_KEY: { default: '', doc: 'Stripe secret key; empty means Stripe payment methods are unavailable' },
  CARRIER_API_BASE: { default: 'https://api.twilio.com', doc: 'carrier (Twilio-compatible REST) base URL' },
  CARRIER_ACCOUNT_SID: { default: '', doc: 'carrier account SID (a workspace may set its own)' },
  CARRIER_AUTH_TOKEN: { default: '', doc: 'carrier auth token (a workspace may set its own)' },
} as const

type Keys = typeof CONFIG_KEYS
type Widen<T> = T extends number ? number : T extends boolean ? boolean : string
export type Config = { -readonly [K in keyof Keys]: Widen<Keys[K]['default']> }

export class ConfigError extends Error {}

/** Reads an optional JSON config file, then environment variables; env wins. Pure given its inputs. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const file = env.CONFIG_FILE ?? (existsSync('appliance.config.json') ? 'appliance.config.json' : undefined)
  let fromFile: Record<string, unknown> = {}
  if (file) {
    try {
      fromFile = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`)
    }
    for (const key of Object.keys(fromFile)) {
      if (!(key in CONFIG_KEYS)) throw new ConfigError(`unknown key ${key} in config file ${file}`)
    }
  }
  const out: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const raw = key in overrides ? (overrides as Record<string, unknown>)[key] : env[key] ?? fromFile[key]
    out[key] = raw === undefined ? spec.default : coerce(key, raw, spec.default)
  }
  const cfg = out as Config
  if (cfg.RTP_PORT_MIN > cfg.RTP_PORT_MAX) throw new ConfigError('RTP_PORT_MIN must not exceed RTP_PORT_MAX')
  cfg.DATA_DIR = resolve(cfg.DATA_DIR)
  return cfg
}

function coerce(key: string, raw: unknown, def: unknown): unknown {
  if (typeof def === 'number') {
    const n = typeof raw === 'number' ? raw : Number(String(raw).trim())
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${key} must be a non-negative number, got ${String(raw)}`)
    return n
  }
  if (typeof def === 'boolean') {
    if (typeof raw === 'boolean') return raw
    const s = String(raw).trim().toLowerCase()
    if (['1', 'true', 'yes', 'on'].includes(s)) return true
    if (['0', 'false', 'no', 'off'].includes(s)) return false
    throw new ConfigError(`${key} must be true or false, got ${String(raw)}`)
  }
  return String(raw)
}
