// The speculative first sentence (issue 22): synthesized while the caller's endpoint is pending,
// played from what was kept when the answer is the one guessed, thrown away when it is not.
import { describe, expect, test } from 'bun:test'
import { drain } from '../../../../src/realtime/voice/base.ts'
import { type DiscardedSynthesis, PrefetchTts, type TtsEvent } from '../../../../src/realtime/voice/tts/index.ts'
import { until } from '../../../helpers/until.ts'
import { concat, gate, ScriptTts, tone } from './scripted-tts.ts'

const RATE = 8000
const parts = [tone(200, 5000), tone(200, 4000, RATE, 220), tone(200, 3000, RATE, 180)]
const audioOf = (events: TtsEvent[]) => concat(...events.flatMap((e) => (e.type === 'audio' ? [e.frame.samples] : [])))

describe('PrefetchTts', () => {
  test('a claimed prefetch replays its audio sample-exact, then continues live, and calls the engine once', async () => {
    const held = gate()
    const inner = new ScriptTts(RATE, [[parts[0]!, parts[1]!, held, parts[2]!, 'done']])
    const tts = new PrefetchTts(inner)
    tts.prefetch('Sure,  I can help.\n')
    // the engine works before anyone asks for the sentence: two parts are kept, it waits for more
    expect(inner.texts).toEqual(['Sure,  I can help.\n'])
    await until(() => held.reached === true, 5000, 'the engine to produce its first parts')
    const stream = tts.synthesize(' Sure, I can help. ')
    const events: TtsEvent[] = []
    let n = 0
    for await (const ev of stream) {
      if (ev.type === 'error') throw ev.error
      events.push(ev)
      // the two kept parts come first; the rest arrives live once the engine goes on
      if (++n === 2) held.open()
    }
    expect(inner.texts.length).toBe(1)
    expect(audioOf(events)).toEqual(concat(...parts))
    expect(events.at(-1)).toEqual({ type: 'done', characters: 'Sure,  I can help.\n'.length, audioMs: 600 })
    expect(tts.pendingText).toBeUndefined()
  })

  test('a prefetch claimed after it finished replays everything, and is gone once claimed', async () => {
    const inner = new ScriptTts(RATE, [[...parts, 'done']])
    const tts = new PrefetchTts(inner)
    tts.prefetch('One moment.')
    await drain(tts.synthesize('One moment.'))
    const again = await drain(tts.synthesize('One moment.'))
    expect(inner.texts.length).toBe(2)
    expect(audioOf(again.events)).toEqual(concat(...parts))
  })

  test('a different text discards the prefetch, closing its synthesis, and reports what it cost', async () => {
    const discarded: DiscardedSynthesis[] = []
    const inner = new ScriptTts(RATE, [[parts[0]!, 'done'], [parts[1]!, 'done']])
    const tts = new PrefetchTts(inner, (u) => discarded.push(u))
    tts.prefetch('Yes, tomorrow works.')
    await until(() => tts.pendingFinished, 5000, 'the prefetch to finish')
    const other = await drain(tts.synthesize('Sorry, could you repeat that?'))
    expect(inner.texts).toEqual(['Yes, tomorrow works.', 'Sorry, could you repeat that?'])
    expect(inner.streams[0]!.signal.aborted).toBe(true)
    expect(audioOf(other.events)).toEqual(parts[1]!)
    expect(discarded).toEqual([{ characters: 'Yes, tomorrow works.'.length, audioMs: 200 }])
  })

  test('discard() closes the pending synthesis; it returns the cost only when the synthesis had finished', async () => {
    const hang = gate()
    const inner = new ScriptTts(RATE, [[parts[0]!, hang, 'done'], [parts[1]!, 'done']])
    const tts = new PrefetchTts(inner)
    tts.prefetch('Let me check.')
    expect(tts.pendingText).toBe('Let me check.')
    expect(tts.discard()).toBeUndefined()
    expect(inner.streams[0]!.signal.aborted).toBe(true)
    expect(tts.pendingText).toBeUndefined()

    tts.prefetch('Your order shipped.')
    await until(() => tts.pendingFinished, 5000, 'the second prefetch to finish')
    expect(tts.discard()).toEqual({ characters: 'Your order shipped.'.length, audioMs: 200 })
    expect(tts.discard()).toBeUndefined()
  })

  test('a prefetch that fails is dropped, and synthesize() asks the engine again', async () => {
    const inner = new ScriptTts(RATE, [[{ fail: 'fatal' }], [parts[2]!, 'done']])
    const tts = new PrefetchTts(inner)
    tts.prefetch('Goodbye.')
    await until(() => tts.pendingText === undefined, 5000, 'the failed prefetch to be dropped')
    const { events, errors } = await drain(tts.synthesize('Goodbye.'))
    expect(errors).toEqual([])
    expect(inner.texts.length).toBe(2)
    expect(audioOf(events)).toEqual(parts[2]!)
  })

  test('closing a claimed stream closes the synthesis it replays', async () => {
    const hang = gate()
    const inner = new ScriptTts(RATE, [[parts[0]!, hang, 'done']])
    const tts = new PrefetchTts(inner)
    tts.prefetch('Hold on.')
    const stream = tts.synthesize('Hold on.')
    for await (const ev of stream) {
      expect(ev.type).toBe('audio')
      stream.close()
    }
    expect(inner.streams[0]!.signal.aborted).toBe(true)
  })
})

