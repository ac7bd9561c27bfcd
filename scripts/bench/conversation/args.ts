// The bench's command line: which shapes and transports, how many calls at once, pinned or not,
// which source tree.
import { ADMISSION_MODES, type AdmissionMode } from './admission.ts'
import { SHAPES, type ShapeName } from './shapes.ts'

/** How the far end calls: a SIP phone (RTP, PCMU) or a web caller (WebRTC, Opus). */
export type Transport = 'sip' | 'web'
export const TRANSPORTS: Transport[] = ['sip', 'web']

export interface BenchArgs {
  shapes: ShapeName[]
  /** Each concurrency runs over each of these in turn, against the same appliance process. */
  transports: Transport[]
  calls: number[]
  /** Run the appliance under `taskset -c 0`. */
  pin: boolean
  /** Every caller starts within a few seconds of the others, so all of them talk at the same moments. */
  lockstep: boolean
  /** The tree whose src/main.ts runs (default: this checkout). */
  source?: string
  /** Where the raw figures go (default: a new file in the temporary folder). */
  out?: string
  /** Each shape runs against an appliance per mode, in turn (admission.ts). */
  admission: AdmissionMode[]
  /** CALLS_MAX of `--admission on` (default: none, the live figures alone). */
  callsMax?: number
}

export const USAGE = 'usage: bench:conversation [--calls 1,20,50] [--shape offline|cloud] [--transport sip,web] [--pin] [--lockstep] [--source <checkout>] [--out <file.json>] [--admission on,off] [--calls-max N]'

export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { shapes: [...SHAPES], transports: [...TRANSPORTS], calls: [1, 20, 50], pin: false, lockstep: false, admission: ['default'] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const value = () => {
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value; ${USAGE}`)
      return v
    }
    if (a === '--pin') args.pin = true
    else if (a === '--lockstep') args.lockstep = true
    else if (a === '--calls') {
      args.calls = value().split(',').map(Number)
      if (!args.calls.length || args.calls.some((n) => !Number.isInteger(n) || n < 1 || n > 200)) throw new Error(`--calls takes counts from 1 to 200, e.g. 1,20; ${USAGE}`)
    } else if (a === '--shape') {
      const v = value()
      if (!SHAPES.includes(v as ShapeName)) throw new Error(`--shape is one of ${SHAPES.join(', ')}; ${USAGE}`)
      args.shapes = [v as ShapeName]
    } else if (a === '--transport') {
      args.transports = value().split(',') as Transport[]
      if (!args.transports.length || args.transports.some((t) => !TRANSPORTS.includes(t))) throw new Error(`--transport takes ${TRANSPORTS.join(', ')} or both, e.g. sip,web; ${USAGE}`)
    } else if (a === '--admission') {
      args.admission = value().split(',') as AdmissionMode[]
      if (!args.admission.length || args.admission.some((m) => !ADMISSION_MODES.includes(m))) throw new Error(`--admission takes ${ADMISSION_MODES.join(', ')} or several, e.g. on,off; ${USAGE}`)
    } else if (a === '--calls-max') {
      args.callsMax = Number(value())
      if (!Number.isInteger(args.callsMax) || args.callsMax < 1) throw new Error(`--calls-max takes a count of 1 or more; ${USAGE}`)
    } else if (a === '--source') args.source = value()
    else if (a === '--out') args.out = value()
    else throw new Error(`unknown argument ${a}; ${USAGE}`)
  }
  return args
}
