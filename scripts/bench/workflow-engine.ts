// Cost of one workflow engine turn during a call, against a baseline measured in the same run:
// copying the run state once (the engine copies it on every turn so callers keep theirs).
// Run: node_modules/.bin/bun scripts/bench/workflow-engine.ts
import { WorkflowEngine } from '../../src/features/workflows/engine/index.ts'
import { validateWorkflow } from '../../src/features/workflows/validate.ts'
import { reception } from '../../test/unit/workflows/graphs.ts'

const graph = validateWorkflow(reception as never)
if (!graph.ok) throw new Error('reference graph is not valid')
const engine = new WorkflowEngine(graph.graph, { maxVisits: 1_000_000, today: () => '2026-11-21' })
const first = await engine.start({ name: 'Ada', company: 'Acme' })

// A caller who answers the menu wrongly keeps the run on the menu: a keyword scan, a DTMF
// check, a repeat of the menu text and its template fill, every turn.
const N = 20_000
let state = first.state
for (let i = 0; i < 1000; i++) state = (await engine.receive(state, { kind: 'speech', text: 'I am not sure what I want today' })).state
state = first.state
let t0 = performance.now()
for (let i = 0; i < N; i++) {
  const step = await engine.receive(state, { kind: 'speech', text: 'I am not sure what I want today' })
  state = i % 50 === 0 ? first.state : step.state
}
const turnUs = ((performance.now() - t0) * 1000) / N

t0 = performance.now()
let sink = 0
for (let i = 0; i < N; i++) sink += structuredClone(first.state).attempts
const cloneUs = ((performance.now() - t0) * 1000) / N

const v0 = performance.now()
for (let i = 0; i < 2000; i++) validateWorkflow(reception as never)
const validateUs = ((performance.now() - v0) * 1000) / 2000

console.log(`engine turn (keyword miss, menu repeated): ${turnUs.toFixed(1)} us`)
console.log(`baseline structuredClone of the run state: ${cloneUs.toFixed(1)} us`)
console.log(`ratio turn / baseline: ${(turnUs / cloneUs).toFixed(1)}x`)
console.log(`validate the 8-node reference graph: ${validateUs.toFixed(1)} us`)
if (sink < 0) console.log(sink)
