import { describe, expect, test } from 'bun:test'
import { Endpointer, isEndpointingMode, silenceTargets } from '../../../../src/realtime/voice/turn/index.ts'

describe('endpointing', () => {
  const params = { maxFinalWaitMs: 1000, useInterimOnTimeout: true }

  test('commits when the VAD has ended and the STT final is in, whichever comes last', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    expect(e.sttFinal('book a table', 1200)).toBeUndefined()
    expect(e.vadSpeechEnd(1300, 1700)).toEqual({ text: 'book a table', speechEndMs: 1300, silenceOverMs: 1700, decidedAtMs: 1700, hadFinal: true })

    e.vadSpeechStart()
    expect(e.vadSpeechEnd(3000, 3400)).toBeUndefined()
    expect(e.sttFinal('for two', 3550)).toEqual({ text: 'for two', speechEndMs: 3000, silenceOverMs: 3400, decidedAtMs: 3550, hadFinal: true })
  })

  test('a pause shorter than the VAD silence joins finals into one turn', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.sttFinal('I want', 500)
    e.sttFinal('to cancel', 900)
    expect(e.vadSpeechEnd(1000, 1400)?.text).toBe('I want to cancel')
  })

  test('an interim after the last final holds the turn until its final arrives', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.sttFinal('my number is', 500)
    e.sttInterim('five five')
    expect(e.vadSpeechEnd(900, 1300)).toBeUndefined()
    expect(e.sttFinal('five five five', 1400)?.text).toBe('my number is five five five')
  })

  test('an utterance reopened after a pause holds the turn until its final, even before any interim', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.sttOpened()
    e.sttFinal('tuesday um', 600)
    // the caller goes on after the pause: the next utterance is still decoding at the VAD end
    e.sttOpened()
    expect(e.settledText).toBeUndefined()
    expect(e.vadSpeechEnd(1900, 2400)).toBeUndefined()
    expect(e.sttFinal('in the morning', 2450)).toEqual({ text: 'tuesday um in the morning', speechEndMs: 1900, silenceOverMs: 2400, decidedAtMs: 2450, hadFinal: true })
  })

  test('an utterance whose final never comes holds the turn only until the wait, and not the next turn', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.sttOpened()
    e.sttFinal('my name is', 500)
    e.sttOpened()
    e.vadSpeechEnd(800, 1200)
    expect(e.tick(1800)?.text).toBe('my name is')
    e.vadSpeechStart()
    e.sttOpened()
    e.sttFinal('thanks', 2500)
    expect(e.vadSpeechEnd(2600, 3000)?.text).toBe('thanks')
  })

  test('a final that never comes is replaced by the interim after the wait', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.sttInterim('hello anyone')
    e.vadSpeechEnd(800, 1200)
    expect(e.tick(1700)).toBeUndefined()
    expect(e.tick(1800)).toEqual({ text: 'hello anyone', speechEndMs: 800, silenceOverMs: 1200, decidedAtMs: 1800, hadFinal: false })
  })

  test('speech with no words at all (a cough) is not a turn', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.vadSpeechEnd(400, 800)
    expect(e.sttFinal('', 900)).toBeUndefined()
    expect(e.tick(5000)).toBeUndefined()
  })

  test('a final that arrives after the wait still commits the turn (a slow STT)', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.vadSpeechEnd(400, 800)
    expect(e.tick(3000)).toBeUndefined()
    expect(e.sttFinal('sorry I was slow', 3500)).toEqual({ text: 'sorry I was slow', speechEndMs: 400, silenceOverMs: 800, decidedAtMs: 3500, hadFinal: true })
  })

  test('speaking again before the final resumes the same turn', () => {
    const e = new Endpointer(params)
    e.vadSpeechStart()
    e.vadSpeechEnd(500, 900)
    e.vadSpeechStart()
    expect(e.sttFinal('first part', 1000)).toBeUndefined()
    expect(e.tick(3000)).toBeUndefined()
    expect(e.vadSpeechEnd(1500, 1900)?.text).toBe('first part')
  })

  test('the silence that ends a turn adapts to the words: shorter after a complete answer, longer after a hesitation', () => {
    const e = new Endpointer(params, silenceTargets('normal'))
    e.vadSpeechStart()
    const silent = e.silenceTargetMs()
    e.sttInterim('I would like a table for two')
    const complete = e.silenceTargetMs()
    e.sttInterim('I would like a table for two and um')
    const hesitant = e.silenceTargetMs()
    expect(complete).toBeLessThan(silent)
    expect(hesitant).toBeGreaterThan(silent)
    // a brain that says the words do not answer it keeps the base silence; a trailing hesitation still wins over a match
    e.sttInterim('purple')
    expect(e.silenceTargetMs(false)).toBe(silent)
    expect(e.silenceTargetMs(true)).toBe(complete)
    e.sttInterim('yes and')
    expect(e.silenceTargetMs(true)).toBe(hesitant)
  })

  test('presets order fast < normal < patient, and a number is the base silence', () => {
    const [fast, normal, patient] = (['fast', 'normal', 'patient'] as const).map((m) => silenceTargets(m))
    for (const k of ['unknownMs', 'completeMs', 'hesitantMs'] as const) {
      expect(fast![k]).toBeLessThan(normal![k])
      expect(normal![k]).toBeLessThan(patient![k])
    }
    expect(silenceTargets(700).unknownMs).toBe(700)
    expect(silenceTargets(700).completeMs).toBeLessThan(700)
    expect(silenceTargets(700).hesitantMs).toBeGreaterThan(700)
    expect(isEndpointingMode('fast')).toBe(true)
    expect(isEndpointingMode(99)).toBe(false)
    expect(isEndpointingMode(250.5)).toBe(false)
    expect(isEndpointingMode('slow')).toBe(false)
  })
})
