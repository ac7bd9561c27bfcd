import { describe, expect, test } from 'bun:test'
import { SentenceSplitter, splitSentences } from '../../../../src/realtime/voice/turn/index.ts'

describe('sentence splitting of streamed LLM text', () => {
  const whole: [string, string, string[]][] = [
    ['splits on full stops, questions and exclamations', 'Hello there. How are you? Great!', ['Hello there.', 'How are you?', 'Great!']],
    ['keeps titles and initials inside the sentence', 'Dr. Smith will see you. J. R. Tolkien wrote it.', ['Dr. Smith will see you.', 'J. R. Tolkien wrote it.']],
    ['does not split decimals, times or prices', 'It costs $3.50 at 10.30 today. Thanks again.', ['It costs $3.50 at 10.30 today.', 'Thanks again.']],
    ['joins very short sentences to the next', 'Yes. We are open until six.', ['Yes. We are open until six.']],
    ['keeps closing quotes with their sentence', 'He said "stop." Then he left.', ['He said "stop."', 'Then he left.']],
    ['treats an ellipsis as an end', 'Well, well... let me think about that.', ['Well, well...', 'let me think about that.']],
    ['returns nothing for whitespace', '   ', []],
  ]
  for (const [name, text, expected] of whole) test(name, () => expect(splitSentences(text)).toEqual(expected))

  test('emits the first sentence as soon as its end is certain, before the reply is complete', () => {
    const s = new SentenceSplitter()
    const got: string[][] = []
    for (const delta of ['Sure', ', I can', ' help.', ' What', ' time', ' works?']) got.push(s.push(delta))
    expect(got).toEqual([[], [], [], ['Sure, I can help.'], [], []])
    expect(s.flush()).toEqual(['What time works?'])
  })

  test('sends the first clause of a reply on its own while its sentence is still being written', () => {
    const s = new SentenceSplitter()
    const got: string[][] = []
    for (const delta of ['I am sorry to hear that,', ' let me', ' check.', ' Anything else?']) got.push(s.push(delta))
    expect(got).toEqual([[], ['I am sorry to hear that,'], [], ['let me check.']])
    expect(s.flush()).toEqual(['Anything else?'])
  })

  test('cuts only the first sentence at a clause, and never after a short opener', () => {
    const s = new SentenceSplitter()
    const out = [...s.push('Right, I see what you mean now, so'), ...s.push(' we will move it, as you asked, to Friday. Then'), ...s.flush()]
    expect(out).toEqual(['Right, I see what you mean now,', 'so we will move it, as you asked, to Friday.', 'Then'])
    expect(new SentenceSplitter().push('Of course, let me')).toEqual([])
    expect(new SentenceSplitter({ minChars: 8, maxChars: 220, firstClauseMinChars: 0 }).push('I am sorry to hear that, let me')).toEqual([])
  })

  test('cuts a run-on clause at a comma once it passes the maximum length', () => {
    const s = new SentenceSplitter({ minChars: 8, maxChars: 40 })
    const out = s.push('we have rooms on the first floor, the second floor and the third floor and')
    expect(out).toEqual(['we have rooms on the first floor,'])
  })

  test('rejects options where the minimum is not below the maximum', () => {
    expect(() => new SentenceSplitter({ minChars: 50, maxChars: 10 })).toThrow(RangeError)
  })
})
