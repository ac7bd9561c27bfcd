// `npm run build`: the appliance as one executable, dist/voice-agent. Every worker script is an
// extra entry point (see src/embedded); the Silero model, flite's wasm and onnxruntime's shared
// library are embedded as files, native addons required by static paths are embedded by Bun.
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { WORKER_SCRIPTS } from '../src/embedded/index.ts'

const root = join(import.meta.dir, '..')
const outfile = process.argv[2] ?? join(root, 'dist', 'voice-agent')
mkdirSync(join(outfile, '..'), { recursive: true })

const started = performance.now()
const result = await Bun.build({
  entrypoints: [join(root, 'src/main.ts'), ...WORKER_SCRIPTS.map((w) => join(root, 'src', w))],
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
const mb = (statSync(outfile).size / 1_048_576).toFixed(1)
console.log(`built ${outfile} (${mb} MB) in ${Math.round(performance.now() - started)} ms`)
