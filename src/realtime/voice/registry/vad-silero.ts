// Silero VAD v5 in a host process of this thread's own, which exits while idle. When it cannot be
// loaded at start, calls get the energy VAD and /ready says so for as long as the appliance runs.
import { EnergyVad } from '../vad/energy.ts'
import { SileroVad } from '../vad/silero.ts'
import type { VadModel } from '../vad/contract.ts'
import { type Provided, unloadsWhileIdle, type VadEntry } from './entry.ts'

export const sileroVad: VadEntry = {
  id: 'silero',
  kind: 'vad',
  name: 'Silero VAD v5 (on-device)',
  runs: 'resident',
  async fromConfig(cfg): Promise<Provided<VadModel>> {
    let vad: SileroVad
    try {
      vad = await SileroVad.load(cfg.VAD_MODEL_FILE || undefined, { idleReleaseMs: cfg.ENGINE_IDLE_RELEASE_MS })
    } catch (err) {
      const why = `VAD: Silero could not be loaded, using the energy VAD, which takes any loud sound for speech (${(err as Error).message})`
      return { engine: new EnergyVad(), notes: [why, 'VAD: energy'], state: () => ({ problem: why }) }
    }
    return {
      engine: vad,
      notes: [`VAD: ${vad.name}`],
      state: () => ({ loaded: vad.loaded, problem: vad.problem() }),
      idle: unloadsWhileIdle(vad, false),
      close: () => vad.close(),
    }
  },
}
