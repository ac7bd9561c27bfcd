import { type Config, ConfigError } from '../../platform/config/index.ts'
import { type ConnOptions } from './base.ts'
import { type BargeInParams, validateBargeIn } from './turn/barge-in.ts'
import type { EndpointingParams } from './turn/endpointing.ts'
import { type HysteresisParams, validateHysteresis } from './vad/hysteresis.ts'

/** The voice engine's tunables, read from config and checked once at start-up. */
export interface VoiceSettings {
  vad: HysteresisParams
  endpointing: EndpointingParams
  bargeIn: BargeInParams
  conn: ConnOptions
}

export function voiceSettings(cfg: Config): VoiceSettings {
  return {
    vad: guard('VAD_*', () =>
      validateHysteresis({
        startThreshold: cfg.VAD_START_THRESHOLD,
        stopThreshold: cfg.VAD_STOP_THRESHOLD,
        minSpeechMs: cfg.VAD_MIN_SPEECH_MS,
        minSilenceMs: cfg.VAD_MIN_SILENCE_MS,
      }),
    ),
    endpointing: { maxFinalWaitMs: cfg.ENDPOINTING_MAX_FINAL_WAIT_MS, useInterimOnTimeout: true },
    bargeIn: guard('BARGE_IN_*', () =>
      validateBargeIn({
        minSpeechMs: cfg.BARGE_IN_MIN_SPEECH_MS,
        maxBackchannelMs: cfg.BARGE_IN_MAX_BACKCHANNEL_MS,
        onsetDbfs: cfg.BARGE_IN_ONSET_DBFS,
        backchannels: cfg.BACKCHANNEL_WORDS.split(',')
          .map((w) => w.trim())
          .filter(Boolean),
      }),
    ),
    conn: connOptions(cfg),
  }
}

/** How every provider's requests retry and time out. */
export function connOptions(cfg: Pick<Config, 'PROVIDER_MAX_RETRIES' | 'PROVIDER_TIMEOUT_MS'>): ConnOptions {
  return { maxRetries: Math.floor(cfg.PROVIDER_MAX_RETRIES), timeoutMs: cfg.PROVIDER_TIMEOUT_MS, retryIntervalMs: 100 }
}

function guard<T>(key: string, read: () => T): T {
  try {
    return read()
  } catch (err) {
    throw new ConfigError(`${key}: ${(err as Error).message}`)
  }
}

export function oneOf<T extends string>(key: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new ConfigError(`${key} must be one of ${allowed.join(', ')}, got ${value}`)
  return value as T
}

export function required(key: string, value: string, why: string): string {
  if (!value) throw new ConfigError(`${key} is required ${why}`)
  return value
}
