import { describe, expect, test } from 'bun:test'
import { analysisMessages, analysisSchema, DEFAULT_ANALYSIS_PROMPT, readAnalysis, weightedScore } from '../../../src/features/calls/analysis/index.ts'
import { withAnalysisCost } from '../../../src/features/calls/analysis/index.ts'

const rubric = [
  { name: 'greeting', description: 'polite greeting', weight: 1 },
  { name: 'resolution', description: 'solved it', weight: 3 },
]

describe('LLM analysis request and answer', () => {
  test('the request carries the prompt, the rubric and the transcript; the schema asks for every field strictly', () => {
    const m = analysisMessages('', [{ role: 'user', text: 'book me in', timestamp: 1.25 }], rubric, 'human')
    expect(m[0]!.content).toStartWith(DEFAULT_ANALYSIS_PROMPT)
    expect(m[0]!.content).toContain('1. greeting: polite greeting')
    expect(m[1]!.content).toContain('[1.3 s] Caller: book me in')
    expect(m[1]!.content).toContain('Answering-machine detection said: human.')
    expect(analysisMessages('Custom.', [], [], null)[0]!.content).toStartWith('Custom.')
    const s = analysisSchema(rubric) as any
    expect(s.required).toEqual(['summary', 'sentiment', 'isVoicemail', 'scores'])
    expect(s.additionalProperties).toBe(false)
    expect(s.properties.sentiment.enum).toEqual(['positive', 'neutral', 'negative'])
  })

  test('a good answer is read with scores matched by name and clamped to 0-100', () => {
    const a = readAnalysis(
      { summary: ' Booked. ', sentiment: 'neutral', isVoicemail: false, scores: [{ name: 'resolution', score: 140, comment: 'x' }, { name: 'greeting', score: 50 }] },
      rubric,
    )
    expect(a).toEqual({ summary: 'Booked.', sentiment: 'neutral', isVoicemail: false, scores: [{ name: 'greeting', score: 50, comment: '' }, { name: 'resolution', score: 100, comment: 'x' }] })
  })

  test.each([
    [null, 'not an object'],
    [{ summary: '', sentiment: 'neutral', isVoicemail: false, scores: [] }, 'summary'],
    [{ summary: 's', sentiment: 'happy', isVoicemail: false, scores: [] }, 'sentiment'],
    [{ summary: 's', sentiment: 'neutral', isVoicemail: 'no', scores: [] }, 'isVoicemail'],
    [{ summary: 's', sentiment: 'neutral', isVoicemail: false, scores: [] }, 'greeting'],
  ])('a bad answer is refused (%#)', (value, why) => {
    expect(() => readAnalysis(value, rubric)).toThrow(why)
  })

  test('the overall score is the weighted mean of the criteria', () => {
    expect(weightedScore(rubric, [{ score: 90 }, { score: 70 }])).toBe(75)
    expect(weightedScore([], [])).toBe(0)
  })

  test("the analysis cost joins the call's cost and the total", () => {
    expect(withAnalysisCost(JSON.stringify({ llm: 0.01, tts: 0.002, stt: 0.003, telephony: 0.004, total: 0.019 }), 0.0005)).toEqual({
      llm: 0.01, tts: 0.002, stt: 0.003, telephony: 0.004, analysis: 0.0005, total: 0.0195,
    })
    expect(withAnalysisCost('{}', 0)).toEqual({ llm: 0, tts: 0, stt: 0, telephony: 0, analysis: 0, total: 0 })
  })
})
