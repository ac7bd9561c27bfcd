import { rmsDbfs } from '../audio.ts'
import type { VadModel, VadScorer } from './contract.ts'

export interface EnergyVadOptions {
  /** Level at or below which the probability is 0. */
  floorDbfs: number
  /** Level at or above which the probability is 1. */
  ceilingDbfs: number
  windowMs: number
}

export const DEFAULT_ENERGY: EnergyVadOptions = { floorDbfs: -50, ceilingDbfs: -30, windowMs: 20 }

/** Loudness mapped linearly (in dB) to a probability: the fallback when no model can run. */
export function energyProbability(window: Float32Array, opts: EnergyVadOptions = DEFAULT_ENERGY): number {
  const db = rmsDbfs(window)
  if (db <= opts.floorDbfs) return 0
  if (db >= opts.ceilingDbfs) return 1
  return (db - opts.floorDbfs) / (opts.ceilingDbfs - opts.floorDbfs)
}

export class EnergyVad implements VadModel {
  readonly name = 'energy'
  readonly capabilities = { sampleRates: [] as number[], learned: false }

  constructor(private readonly opts: EnergyVadOptions = DEFAULT_ENERGY) {
    if (!(opts.ceilingDbfs > opts.floorDbfs)) throw new RangeError('energy VAD ceiling must be above its floor')
    if (!(opts.windowMs > 0)) throw new RangeError('energy VAD window must be positive')
  }

  windowSamples(sampleRate: number): number {
    return Math.round((sampleRate * this.opts.windowMs) / 1000)
  }

  scorer(): VadScorer {
    return { score: (w) => energyProbability(w, this.opts) }
  }
}
