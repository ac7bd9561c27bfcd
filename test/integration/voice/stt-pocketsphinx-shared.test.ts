// Call workers decode on the main thread's pocketsphinx worker through a port: their utterances
// and the main thread's share its decoder pool without mixing, and a call worker that stops gives
// back the decoders its open utterances held.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { drain } from '../../../src/realtime/voice/base.ts'
import { PocketsphinxStt } from '../../../src/realtime/voice/stt/index.ts'
import { sharePocketsphinx } from '../../../src/realtime/voice/stt/pocketsphinx.ts'
import { fliteSpeech, frames20ms } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'

const SRC = resolve(import.meta.dir, '../../../src')

/** A stand-in for a call worker: one utterance on the shared pocketsphinx worker. */
const CALL_WORKER = `
import { drain } from '${SRC}/realtime/voice/base.ts'
import { PocketsphinxStt, useSharedPocketsphinx } from '${SRC}/realtime/voice/stt/pocketsphinx.ts'
declare const self: Worker
self.onmessage = async (ev) => {
  const { port, frames, end, maxDecoders } = ev.data
  useSharedPocketsphinx(port)
  const stream = new PocketsphinxStt({ mode: 'dictation', maxDecoders }).stream()
  for (const f of frames) stream.push(f)
  if (!end) {
    const check = setInterval(() => {
      if (stream.decodedMs === 0) return
      clearInterval(check)
      self.postMessage({ holding: true })
    }, 10)
    return
  }
  stream.end()
  const { events, errors } = await drain(stream)
  self.postMessage({ events, errors: errors.map((e) => e.message) })
}
self.postMessage({ listening: true })
`

let dir: string
let stt: PocketsphinxStt
const workers: Worker[] = []

beforeAll(() => {
  // made first, so its worker is this thread's own, the one shared with call workers
  stt = new PocketsphinxStt({ mode: 'dictation', maxDecoders: 2 })
  dir = mkdtempSync(join(tmpdir(), 'sphinx-call-worker-'))
  writeFileSync(join(dir, 'call-worker.ts'), CALL_WORKER)
})

afterAll(() => {
  for (const w of workers) w.terminate()
  stt.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Starts a call worker on a port to this thread's pocketsphinx worker; `reply` is its answer to the job. */
async function callWorker(job: { text: string; end: boolean; maxDecoders: number }): Promise<{ worker: Worker; reply: Promise<any> }> {
  const worker = new Worker(join(dir, 'call-worker.ts'))
  workers.push(worker)
  const replies: any[] = []
  worker.onmessage = (ev) => replies.push(ev.data)
  // a worker still loading its modules may miss a message: wait until it listens
  await until(() => replies.length > 0, 20_000, 'the call worker to start')
  const port = sharePocketsphinx()
  expect(port).toBeDefined()
  worker.postMessage({ port, frames: [...frames20ms(fliteSpeech(job.text))], end: job.end, maxDecoders: job.maxDecoders }, [port!])
  const reply = (async () => {
    await until(() => replies.length > 1, 25_000, 'the call worker to answer')
    return replies[1]
  })()
  return { worker, reply }
}

const finalText = (events: any[]) => events.flatMap((e) => (e.type === 'final' ? [e.text] : [])).join(' ')

test('a call worker and the main thread decode at the same time on one worker, each its own words', async () => {
  // the main thread's first stream and the call worker's first stream have the same number
  const here = stt.stream()
  const audio = fliteSpeech('my account number is not working')
  for (const f of frames20ms(audio)) here.push(f)
  const pushedMs = (audio.samples.length * 1000) / audio.sampleRate
  await until(() => here.decodedMs >= pushedMs - 0.5, 20_000, 'the main thread utterance to be decoded up to date')
  const { reply } = await callWorker({ text: 'please call me back tomorrow morning', end: true, maxDecoders: 2 })
  const remote = await reply
  here.end()
  const { events, errors } = await drain(here)
  expect(remote.errors).toEqual([])
  expect(finalText(remote.events)).toBe('please call me back tomorrow morning')
  expect(errors).toEqual([])
  expect(finalText(events)).toBe('my account number is not working')
})

test('a call worker that stops mid-utterance gives its decoder back to the next caller waiting for it', async () => {
  const holder = await callWorker({ text: 'i would like to book a table for two people', end: false, maxDecoders: 1 })
  expect(await holder.reply).toEqual({ holding: true })
  // with one decoder in the pool, this caller waits for the holder's
  const next = await callWorker({ text: 'the weather is nice today', end: true, maxDecoders: 1 })
  holder.worker.terminate()
  const { events, errors } = await next.reply
  expect(errors).toEqual([])
  expect(finalText(events)).toBe('the weather is nice today')
})
