// The energy VAD: loudness as the probability of speech, at any rate, almost free. Every loud
// sound is speech to it (a tone, music, a noisy line).
import { EnergyVad } from '../vad/energy.ts'
import type { VadEntry } from './entry.ts'

export const energyVad: VadEntry = {
  id: 'energy',
  kind: 'vad',
  name: 'Energy (loudness, on-device)',
  runs: 'resident',
  fromConfig: () => ({ engine: new EnergyVad(), state: () => ({}) }),
}
