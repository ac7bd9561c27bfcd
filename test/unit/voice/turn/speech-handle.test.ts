import { describe, expect, test } from 'bun:test'
import { SpeechHandle } from '../../../../src/realtime/voice/turn/index.ts'

describe('speech handle', () => {
  test('completes once every queued segment has played and input is finished', async () => {
    const h = new SpeechHandle()
    h.addSegment('Hello there.', 1000)
    h.setPlayedMs(1000)
    expect(h.state).toBe('speaking')
    h.addSegment('How can I help?', 1500)
    h.finishInput()
    h.setPlayedMs(2500)
    expect(await h.done).toBe('completed')
    expect(h.playedText).toBe('Hello there. How can I help?')
  })

  const cut: [number, string][] = [
    [0, ''],
    [500, 'One two'],
    [1000, 'One two three four.'],
    [1999, 'One two three four. Five six seven'],
    [3000, 'One two three four. Five six seven eight.'],
  ]
  for (const [ms, heard] of cut) {
    test(`interrupted after ${ms} ms keeps only "${heard}" in the transcript`, async () => {
      const h = new SpeechHandle()
      h.addSegment('One two three four.', 1000)
      h.addSegment('Five six seven eight.', 1000)
      h.setPlayedMs(ms)
      expect(h.interrupt()).toBe(true)
      expect(await h.done).toBe('interrupted')
      expect(h.playedText).toBe(heard)
      h.setPlayedMs(ms + 500)
      expect(h.played).toBe(Math.min(ms, 2000))
    })
  }

  test('a speech that may not be interrupted refuses and keeps playing', () => {
    const h = new SpeechHandle({ allowInterruptions: false })
    h.addSegment('Goodbye.', 800)
    expect(h.interrupt()).toBe(false)
    expect(h.state).toBe('speaking')
  })

  test('the playout clock never runs backwards or past the queued audio', () => {
    const h = new SpeechHandle()
    h.addSegment('a b', 100)
    h.setPlayedMs(80)
    h.setPlayedMs(20)
    expect(h.played).toBe(80)
    h.setPlayedMs(5000)
    expect(h.played).toBe(100)
    expect(() => h.addSegment('x', -1)).toThrow(RangeError)
  })
})

describe('speech handle with audio still streaming in', () => {
  test('estimates the words heard from the speaking rate until the sentence audio is complete', () => {
    const h = new SpeechHandle()
    // 40 characters: about 2600 ms of speech at the estimated rate
    h.addSegment('one two three four five six seven eight', 0, false)
    h.addAudio(1300)
    h.setPlayedMs(1300)
    expect(h.playedText).toBe('one two three four')
    h.addAudio(700)
    h.completeSegment()
    // now the real length (2000 ms) is known
    expect(h.playedText).toBe('one two three four five')
  })
})
