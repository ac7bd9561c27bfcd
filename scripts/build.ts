// `npm run build`: the appliance as one executable, dist/voice-agent. Every worker script is an
// extra entry point (see src/embedded); the Silero model, flite's wasm and onnxruntime's shared
// library are embedded as files, native addons required by static paths are embedded by Bun.
import { cpSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { SHERPA_BESIDE, WORKER_SCRIPTS } from '../src/platform/embedded/index.ts'

const root = join(import.meta.dir, '..')
const outfile = process.argv[2] ?? join(root, 'dist', 'voice-agent')
mkdirSync(join(outfile, '..'), { recursive: true })

const started = performance.now()
const result = await Bun.build({
  entrypoints: [join(root, 'src/main.ts'), ...WORKER_SCRIPTS.map((w) => join(root, 'src', w))],
  // named: with nine entry points Bun 1.4 took the checkout, not src/, as their common root, and
  // the workers were embedded under src/ where workerScript() does not look
  root: join(root, 'src'),
  compile: { outfile },
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: 'none',
  bytecode: true,
  format: 'esm',
  define: { 'process.env.VOICE_AGENT_BUILD': JSON.stringify(new Date().toISOString()) },
})
if (!result.success) {
  for (const log of result.logs) console.error(log)
  process.exit(1)
}
// sherpa-onnx's addon links its own onnxruntime by path: it goes beside the executable, as
// sherpa-onnx/node_modules/{sherpa-onnx-node, sherpa-onnx-<platform>} (the layout its loader expects)
const beside = join(outfile, '..', SHERPA_BESIDE, 'node_modules')
rmSync(join(outfile, '..', SHERPA_BESIDE), { recursive: true, force: true })
for (const pkg of ['sherpa-onnx-node', `sherpa-onnx-${process.platform}-${process.arch}`]) {
  cpSync(join(root, 'node_modules', pkg), join(beside, pkg), { recursive: true, dereference: true })
}
const mb = (statSync(outfile).size / 1_048_576).toFixed(1)
console.log(`built ${outfile} (${mb} MB) and ${SHERPA_BESIDE}/ beside it in ${Math.round(performance.now() - started)} ms`)
