// How the test phone knows the agent's turn is over, from the frames it hears; and the caller's
// noise, which is the same for the same line.
import { expect, test } from 'bun:test'
import { withNoise } from '../../../src/features/agent-tests/caller-voice.ts'
import { AgentSpeech } from '../../../src/features/agent-tests/listen.ts'

const loud = () => new Int16Array(320).fill(3000)
const quiet = () => new Int16Array(320)

test('the agent has finished once it spoke since the last turn and then stayed quiet for the hold; a new turn waits for new speech', async () => {
  const s = new AgentSpeech(100) // 5 frames of 20 ms
  let finished = false
  const done = s.finished(60_000).then(() => (finished = true))
  for (let i = 0; i < 10; i++) s.frame(quiet()) // silence before the agent spoke does not count
  await Promise.resolve()
  expect(finished).toBe(false)
  s.frame(loud())
  for (let i = 0; i < 4; i++) s.frame(quiet())
  await Promise.resolve()
  expect(finished).toBe(false)
  s.frame(quiet())
  await done
  expect(finished).toBe(true)
  // already quiet after speaking: at once; after the caller's turn: not until the agent speaks again
  await s.finished(60_000)
  s.next()
  let again = false
  void s.finished(60_000).then(() => (again = true))
  for (let i = 0; i < 10; i++) s.frame(quiet())
  await Promise.resolve()
  expect(again).toBe(false)
  let started = false
  const start = s.started(60_000).then(() => (started = true))
  s.frame(loud())
  await start
  expect(started).toBe(true)
  s.stop()
})

test('waiting ends at the limit when the agent never speaks, and at once when the call is over', async () => {
  const s = new AgentSpeech(100)
  await s.finished(1)
  s.stop()
  await s.started(60_000)
  await s.finished(60_000)
})

test('noise is mixed at the asked SNR and is the same for the same line', () => {
  const speech = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin(i / 5)))
  const a = withNoise(speech, 20, 42)
  expect(withNoise(speech, 20, 42)).toEqual(a)
  let signal = 0
  let noise = 0
  for (let i = 0; i < speech.length; i++) {
    signal += speech[i]! ** 2
    noise += (a[i]! - speech[i]!) ** 2
  }
  const snr = 10 * Math.log10(signal / noise)
  expect(snr).toBeGreaterThan(19)
  expect(snr).toBeLessThan(21)
})
