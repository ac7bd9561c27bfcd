// Answering-machine detection on greetings made at test time with different voices, lengths,
// with and without a beep. The accuracy is printed; docs/campaigns.md quotes it.
import { describe, expect, test } from 'bun:test'
import { AmdClassifier, classify } from '../../src/features/campaigns/amd/classifier.ts'
import { greeting, HUMAN_GREETINGS, MACHINE_GREETINGS } from '../helpers/greetings.ts'

describe('answering-machine detection', () => {
  test('tells people from machines on the greeting set with at least 90% accuracy', () => {
    const rows: string[] = []
    let right = 0
    const all = [...HUMAN_GREETINGS.map((g) => ({ g, want: 'human' })), ...MACHINE_GREETINGS.map((g) => ({ g, want: 'machine' }))]
    for (const { g, want } of all) {
      const d = classify(greeting(g))
      // unknown lets the agent talk: right for a person, wrong for a machine
      const ok = d.answeredBy === want || (want === 'human' && d.answeredBy === 'unknown')
      if (ok) right++
      rows.push(`${ok ? 'ok  ' : 'MISS'} ${want.padEnd(7)} -> ${d.answeredBy.padEnd(7)} ${d.reason.padEnd(14)} ${String(d.atMs).padStart(5)} ms  ${g.voice.padEnd(22)} ${g.beepHz ? `beep ${g.beepHz}` : '       '} "${g.text.slice(0, 50)}"`)
    }
    const accuracy = right / all.length
    console.log(`${rows.join('\n')}\nAMD accuracy: ${right}/${all.length} = ${(accuracy * 100).toFixed(1)}%`)
    expect(HUMAN_GREETINGS.length).toBeGreaterThanOrEqual(10)
    expect(MACHINE_GREETINGS.length).toBeGreaterThanOrEqual(10)
    expect(accuracy).toBeGreaterThanOrEqual(0.9)
  }, 30_000)

  test('a pure tone is a beep; speech is not', () => {
    const tone = new Int16Array(16000).map((_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)))
    expect(classify(tone).reason).toBe('beep')
    const c = new AmdClassifier()
    c.push(greeting({ text: 'Hello?', voice: 'flite:kal16', tailMs: 0 }))
    expect(c.decision).toBeUndefined()
  })

  test('silence alone is unknown after the initial-silence limit', () => {
    expect(classify(new Int16Array(16000 * 3))).toMatchObject({ answeredBy: 'unknown', reason: 'initial_silence', atMs: 2520 })
  })
})
