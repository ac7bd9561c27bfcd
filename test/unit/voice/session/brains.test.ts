// The session is the same host for every brain: a brain that acts on each key (a workflow) and
// one that answers finished caller turns (the LLM) get their per-turn latencies from one path.
import { describe, expect, test } from 'bun:test'
import type { Brain, BrainHost } from '../../../../src/realtime/voice/session/index.ts'
import { Timeline } from './timeline.ts'

/** Like the workflow brain: greets, then answers every key at once. */
function keyBrain(): Brain & { said: string[] } {
  let host: BrainHost
  const said: string[] = []
  return {
    kind: 'workflow',
    busy: false,
    answersKeys: true,
    said,
    start(h) {
      host = h
      void host.say('Press a key.')
    },
    onUserTurn(text, source) {
      if (source === 'speech') void host.say(`You said ${text}.`)
    },
    onDtmf(key) {
      said.push(key)
      if (key === '#') void host.say('Thank you.')
    },
    stop() {},
  }
}

describe('brains share the per-turn metrics path', () => {
  test("a key-answering brain's reply to '#' is heard (not dropped as an unheard answer) and its turn has a voice-to-voice latency", async () => {
    const brain = keyBrain()
    const t = new Timeline({ llm: [], stt: [], brain }).start()
    await t.runUntil(2000)
    t.session.pushDtmf('4')
    t.session.pushDtmf('2')
    t.session.pushDtmf('#')
    await t.runUntil(5000)
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text])).toEqual([
      ['agent', 'Press a key.'],
      ['user', '[DTMF] 42'],
      ['agent', 'Thank you.'],
    ])
    expect(r.turns).toHaveLength(1)
    expect(r.turns[0]!.voiceToVoiceMs).toBeGreaterThanOrEqual(0)
    expect(r.turns[0]!.voiceToVoiceMs).toBeLessThan(200)
    expect(r.turns[0]!.ttsTtfbMs).toBeGreaterThanOrEqual(0)
  })

  test("a key-answering brain's speech turns are measured like the LLM's", async () => {
    const t = new Timeline({ llm: [], stt: ['sales please'], brain: keyBrain() }).callerSays(2500, 800).start()
    await t.runUntil(7000)
    const r = t.session.report()
    expect(r.transcript.map((i) => i.text)).toContain('You said sales please.')
    expect(r.turns).toHaveLength(1)
    expect(r.turns[0]).toMatchObject({ endpointingMs: expect.any(Number), voiceToVoiceMs: expect.any(Number) })
    expect(r.turns[0]!.llmTtftMs).toBeUndefined()
  })

  test('the LLM brain gets a DTMF entry as a caller turn and answers it, measured the same way', async () => {
    const t = new Timeline({ llm: [{ text: 'Option two, noted.' }], stt: [] }).start()
    await t.runUntil(1000)
    t.session.pushDtmf('2')
    await t.runUntil(4000)
    const r = t.session.report()
    expect(t.llm.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: '[DTMF] 2' })
    expect(r.turns).toHaveLength(1)
    expect(r.turns[0]).toMatchObject({ llmTtftMs: expect.any(Number), voiceToVoiceMs: expect.any(Number) })
  })
})
