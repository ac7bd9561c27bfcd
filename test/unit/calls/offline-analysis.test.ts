import { describe, expect, test } from 'bun:test'
import { callerSentiment, extractiveSummary, isVoicemail, offlineAnalysis, type AnalysisInput } from '../../../src/features/calls/analysis/index.ts'

const call = (transcript: AnalysisInput['transcript'], o: Partial<AnalysisInput> = {}): AnalysisInput => ({
  type: 'inbound', outcome: 'completed', durationSec: 42, transcript, answeredBy: null, ...o,
})
const said = (role: 'agent' | 'user', text: string, timestamp = 0) => ({ role, text, timestamp })

describe('offline call analysis', () => {
  test("the caller's sentiment follows the AFINN lexicon over what the caller said, not the agent", () => {
    expect(callerSentiment([said('user', 'This is great, thank you so much, wonderful service!')])).toBe('positive')
    expect(callerSentiment([said('user', 'This is terrible, I am angry and disappointed.')])).toBe('negative')
    expect(callerSentiment([said('user', 'My appointment is on Tuesday at ten.')])).toBe('neutral')
    expect(callerSentiment([said('agent', 'Wonderful, fantastic, amazing!'), said('user', 'What time is it')])).toBe('neutral')
    expect(callerSentiment([])).toBe('neutral')
  })

  test('the summary names the call and keeps the sentences carrying the conversation, in the order said', () => {
    const s = extractiveSummary(
      call([
        said('agent', 'Hello, thanks for calling Acme Dental. How can I help?'),
        said('user', 'I need to move my dental appointment to Friday.'),
        said('agent', 'Sure. Your dental appointment is now on Friday at ten.'),
        said('user', 'Thanks, bye.'),
      ]),
    )
    expect(s.startsWith('Inbound call, completed, 42 s.')).toBe(true)
    expect(s).toContain('Caller: I need to move my dental appointment to Friday.')
    expect(s.indexOf('Caller: I need')).toBeLessThan(s.indexOf('Agent: Sure') >= 0 ? s.indexOf('Agent: Sure') : Infinity)
    expect(s.length).toBeLessThanOrEqual(500)
  })

  test('a call where nothing was said still gets a summary that says so', () => {
    expect(extractiveSummary(call([], { outcome: 'no_answer', durationSec: 0, type: 'outbound' }))).toBe('Outbound call, no_answer, 0 s. Nothing was said.')
  })

  test('the summary names each kind of call as it was: a browser call is a web call, a program\'s stream a media-stream call', () => {
    const kinds = (['inbound', 'outbound', 'web', 'stream'] as const).map((type) => extractiveSummary(call([], { type, durationSec: 5 })).split(',')[0])
    expect(kinds).toEqual(['Inbound call', 'Outbound call', 'Web call', 'Media-stream call'])
  })

  test('voicemail comes from answering-machine detection when it ran, else from the greeting heard', () => {
    expect(isVoicemail(call([], { answeredBy: 'machine' }))).toBe(true)
    expect(isVoicemail(call([said('user', 'please leave a message after the tone')], { answeredBy: 'human' }))).toBe(false)
    expect(isVoicemail(call([said('user', 'please leave a message after the tone')]))).toBe(true)
    expect(isVoicemail(call([said('user', 'hello who is this')]))).toBe(false)
  })

  test('the whole analysis is deterministic for the same call', () => {
    const c = call([said('user', 'I love it, thanks'), said('agent', 'Glad to hear it.')])
    expect(offlineAnalysis(c)).toEqual(offlineAnalysis(c))
    expect(offlineAnalysis(c).sentiment).toBe('positive')
  })
})
