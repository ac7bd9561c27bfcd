import { describe, expect, test } from 'bun:test'
import { CONFIG_KEYS } from '../../../../src/platform/config/index.ts'
import { type BargeInDecision, bargeInDecision, DEFAULT_BACKCHANNELS, DEFAULT_BARGE_IN, isBackchannel } from '../../../../src/realtime/voice/turn/index.ts'
import { validateBargeIn } from '../../../../src/realtime/voice/turn/barge-in.ts'

describe('backchannel detection', () => {
  const cases: [string, boolean][] = [
    ['uh-huh', true],
    ['Uh huh.', true],
    ['Yeah, okay.', true],
    ['mm hmm yeah', true],
    ['Mm.', true],
    // an offline recogniser often hears a short "uh-huh" as "oh"
    ['Oh.', true],
    ['oh no that is wrong', false],
    ['yeah but wait', false],
    ['stop', false],
    ['okay so I need a refund', false],
    ['', false],
  ]
  for (const [text, expected] of cases) test(`"${text}" is ${expected ? '' : 'not '}a backchannel`, () => expect(isBackchannel(text, DEFAULT_BACKCHANNELS)).toBe(expected))

  test('the BACKCHANNEL_WORDS default is the built-in list', () => expect(String(CONFIG_KEYS.BACKCHANNEL_WORDS.default).split(',')).toEqual(DEFAULT_BACKCHANNELS))

  test('uses the configured list, not a built-in one', () => expect(isBackchannel('d accord', ['d accord', 'oui'])).toBe(true))
})

describe('barge-in decision', () => {
  const P = DEFAULT_BARGE_IN // minSpeechMs 300, maxBackchannelMs 700
  const cases: [string, number, string, BargeInDecision][] = [
    ['real words past the minimum speech interrupt', 320, 'wait a second', 'interrupt'],
    ['real words under the minimum speech wait', 200, 'wait', 'wait'],
    ['a backchannel never interrupts', 900, 'uh-huh', 'ignore'],
    ['speech without a transcript waits while it could still be a backchannel', 500, '', 'wait'],
    ['speech without a transcript interrupts once longer than any backchannel', 700, '', 'interrupt'],
  ]
  for (const [name, speechMs, transcript, expected] of cases) test(name, () => expect(bargeInDecision(P, { speechMs, transcript })).toBe(expected))
})

test('the onset level (BARGE_IN_ONSET_DBFS) is checked: -90 to 0 dBFS', () => {
  expect(validateBargeIn({ ...DEFAULT_BARGE_IN, onsetDbfs: -40 }).onsetDbfs).toBe(-40)
  expect(() => validateBargeIn({ ...DEFAULT_BARGE_IN, onsetDbfs: 6 })).toThrow('from -90 to 0 dBFS')
  expect(() => validateBargeIn({ ...DEFAULT_BARGE_IN, onsetDbfs: Number.NaN })).toThrow('from -90 to 0 dBFS')
})
