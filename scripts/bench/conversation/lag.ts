// The appliance's own event-loop lag while the calls run, read from its /metrics (the largest
// lateness of a 20 ms timer since the last scrape, on the main thread and in each call worker).
// A gap in the caller's audio that the phones did not make comes from here.

export interface LagSample {
  at: number
  mainMs: number
  workerMs: number
}

const gauge = (text: string, name: string): number[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)))
    .filter((v) => Number.isFinite(v))

export function sampleLag(url: string, everyMs = 500): { stop(): Promise<LagSample[]> } {
  const samples: LagSample[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      try {
        const text = await (await fetch(`${url}/metrics`)).text()
        samples.push({ at: Date.now(), mainMs: Math.max(0, ...gauge(text, 'voice_agent_event_loop_lag_ms')), workerMs: Math.max(0, ...gauge(text, 'voice_agent_call_worker_loop_lag_ms')) })
      } catch {
        // the appliance is busy or stopping: the next scrape covers this interval too
      }
      await Bun.sleep(everyMs) // a scrape interval, as a Prometheus server would have
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return samples
    },
  }
}

/** How often and how long the appliance's loops stalled: samples over `overMs`, and the worst. */
export function lagSummary(samples: readonly LagSample[], overMs = 100): string {
  const worst = (k: 'mainMs' | 'workerMs') => Math.max(0, ...samples.map((s) => s[k]))
  const over = samples.filter((s) => s.mainMs > overMs || s.workerMs > overMs).length
  return `loop lag worst: main ${worst('mainMs')} ms, call workers ${worst('workerMs')} ms; ${over} of ${samples.length} half-second scrapes over ${overMs} ms`
}
