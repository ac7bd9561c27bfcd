// The live capacity model's edge: samples event-loop delay and CPU once a second (and the
// pacer's lateness and STT real-time factor when the voice side reports them) and asks the pure
// headroomOf for the figures. Cheap to ask on every INVITE: it reads the last sample.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { availableParallelism } from 'node:os'
import { headroomOf, type CapacityFigures, type CapacityLimits, type CapacityModel, type LiveFigures } from './capacity.ts'

export interface LiveCapacityOptions {
  limits: CapacityLimits
  /** Extra figures from the media and voice sides, read at each sample. */
  extra?: () => Pick<LiveFigures, 'sendLatenessMs' | 'sttRealTimeFactor' | 'sttBacklogMs'>
  sampleMs?: number
}

export class LiveCapacity implements CapacityModel {
  private readonly delay = monitorEventLoopDelay({ resolution: 10 })
  private readonly timer: ReturnType<typeof setInterval>
  private last: LiveFigures = { eventLoopLagMs: 0, cpu: 0 }
  private cpuAt = process.cpuUsage()
  private wallAt = performance.now()

  constructor(private readonly o: LiveCapacityOptions) {
    this.delay.enable()
    this.timer = setInterval(() => this.sample(), o.sampleMs ?? 1000)
    this.timer.unref?.()
  }

  private sample(): void {
    const cpu = process.cpuUsage(this.cpuAt)
    const wall = performance.now() - this.wallAt
    this.cpuAt = process.cpuUsage()
    this.wallAt = performance.now()
    const cores = availableParallelism()
    this.last = {
      eventLoopLagMs: this.delay.percentile(99) / 1e6,
      cpu: wall > 0 ? (cpu.user + cpu.system) / 1000 / wall / cores : 0,
      ...this.o.extra?.(),
    }
    this.delay.reset()
  }

  /** The last sample, for /ready and /metrics. */
  get figuresNow(): LiveFigures {
    return this.last
  }

  figures(callsUp: number): CapacityFigures {
    return headroomOf(callsUp, this.last, this.o.limits)
  }

  stop(): void {
    clearInterval(this.timer)
    this.delay.disable()
  }
}
