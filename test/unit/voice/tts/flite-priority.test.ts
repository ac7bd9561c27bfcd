// Issue 24, finding 6: voice previews crowded out live calls on flite's two workers. Previews
// are background syntheses: the pool runs one at a time and a live call's synthesis, posted
// while previews wait, is served before them (real flite workers, no fakes).
import { afterAll, expect, test } from 'bun:test'
import { FliteTts, synthesizeAll, type TtsPriority } from '../../../../src/realtime/voice/tts/index.ts'

afterAll(() => FliteTts.shutdown())

// a preview as long as the cap allows: about a quarter of a second of flite
const PREVIEW = 'Hello, thank you for calling the front desk. '.repeat(6).slice(0, 300)

test("a live call's synthesis is served before the previews queued ahead of it", async () => {
  const tts = new FliteTts({ voice: 'kal16', sampleRate: 8000, workers: 1 })
  await synthesizeAll(tts, 'Warm up.') // the worker has loaded and compiled its module
  const done: string[] = []
  const run = (name: string, text: string, priority: TtsPriority) => synthesizeAll(tts, text, priority).then(() => done.push(name))
  const jobs = [1, 2, 3, 4].map((i) => run(`preview ${i}`, PREVIEW, 'background'))
  jobs.push(run('live', 'One moment please.', 'live'))
  await Promise.all(jobs)
  // the first preview was already on the worker; the live sentence comes right after it
  expect(done).toEqual(['preview 1', 'live', 'preview 2', 'preview 3', 'preview 4'])
}, 60_000)
