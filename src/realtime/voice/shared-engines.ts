// The engines that already run in their own threads (flite's pool, the pocketsphinx decoder)
// are shared with the call workers: each call worker gets ports to the main thread's engine
// threads instead of loading its own copy (about 55 MB for flite, 100 MB for pocketsphinx).
import { sharePocketsphinx, useSharedPocketsphinx } from './stt/pocketsphinx.ts'
import { shareFlite, useSharedFlite } from './tts/flite.ts'

export interface SharedEnginePorts {
  flite: MessagePort[]
  sphinx?: MessagePort
}

/** New ports to this thread's engine threads, and the list to transfer them with. */
export function shareEngines(): { ports: SharedEnginePorts; transfer: MessagePort[] } {
  const ports: SharedEnginePorts = { flite: shareFlite(), sphinx: sharePocketsphinx() }
  return { ports, transfer: [...ports.flite, ...(ports.sphinx ? [ports.sphinx] : [])] }
}

/** In a call worker, before its engines are made: use the shared engine threads (see useSharedFlite for `flite`). */
export function useSharedEngines(ports: SharedEnginePorts, flite: Parameters<typeof useSharedFlite>[1] = {}): void {
  useSharedFlite(ports.flite, flite)
  useSharedPocketsphinx(ports.sphinx)
}
