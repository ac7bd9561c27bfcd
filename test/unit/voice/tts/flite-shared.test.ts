// Issue 23: a call worker synthesizes on the main thread's flite threads through ports; a port
// whose thread ended (or that never answers) left the caller in silence with nothing logged.
// Such a port is now dropped with a warning and the job runs elsewhere (real flite threads).
import { afterAll, expect, test } from 'bun:test'
import { FlitePool } from '../../../../src/realtime/voice/tts/flite-pool.ts'

const pools: FlitePool[] = []
afterAll(() => {
  for (const p of pools) p.terminate()
})

test("a shared flite thread that ended: the job runs on the call worker's own flite thread, with a warning", async () => {
  const owner = new FlitePool(1, 0)
  pools.push(owner)
  const warm = await owner.run('Warm up.', 'kal16', 1)
  expect(warm.ok).toBe(true)
  const warnings: string[] = []
  const shared = new FlitePool(0, 0, { ports: owner.connect(), warn: (m) => warnings.push(m) })
  pools.push(shared)
  expect((await shared.run('Through the port.', 'kal16', 1)).ok).toBe(true)
  owner.terminate() // the owner's thread ends: the port closes
  const r = await shared.run('Hello, how can I help?', 'kal16', 1)
  expect(r.ok).toBe(true)
  if (r.ok) expect(r.samples.length).toBeGreaterThan(1000)
  expect(warnings.join('\n')).toContain('a shared flite thread was lost')
}, 60_000)

test('a shared port that never answers is dropped after the reply deadline, and the job still gets audio', async () => {
  const { port1: mute, port2 } = new MessageChannel()
  mute.onmessage = () => {} // takes jobs, answers none
  const warnings: string[] = []
  const shared = new FlitePool(0, 0, { ports: [port2], warn: (m) => warnings.push(m), replyMs: 300 })
  pools.push(shared)
  const r = await shared.run('Are you there?', 'kal16', 1)
  expect(r.ok).toBe(true)
  expect(warnings.join('\n')).toContain('no answer within 300 ms')
  mute.close()
}, 60_000)
