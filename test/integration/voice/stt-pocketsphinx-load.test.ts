// The pocketsphinx decoder thread tells the thread that started it how loaded it is, which the
// live capacity model reads: busy while callers' audio comes in, and idle again once decoded.
import { afterAll, expect, test } from 'bun:test'
import { drain } from '../../../src/realtime/voice/base.ts'
import { PocketsphinxStt, pocketsphinxLoad, type DecodeLoad } from '../../../src/realtime/voice/stt/index.ts'
import { fliteSpeech, frames20ms } from '../../helpers/speech.ts'
import { until } from '../../helpers/until.ts'

const stt = new PocketsphinxStt({ mode: 'dictation', threads: 1 })
afterAll(() => stt.close())

test('the decoder thread reports its real-time factor while it decodes, then that it is idle', async () => {
  const seen: DecodeLoad[] = []
  const watch = setInterval(() => {
    const l = pocketsphinxLoad()
    if (l && seen.at(-1) !== l) seen.push(l)
  }, 20)
  try {
    const stream = stt.stream()
    // three callers' worth of speech at once, faster than they could say it
    for (let i = 0; i < 3; i++) for (const f of frames20ms(fliteSpeech('i would like to book a table for two people tomorrow evening'))) stream.push(f)
    stream.end()
    const { errors } = await drain(stream)
    expect(errors).toEqual([])
    await until(() => seen.some((l) => l.realTimeFactor > 0), 20_000, 'a load report while decoding')
    await until(() => seen.at(-1)?.realTimeFactor === 0 && seen.at(-1)?.backlogMs === 0, 20_000, 'the report that it is idle again')
  } finally {
    clearInterval(watch)
  }
})
