import { describe, expect, test } from 'bun:test'
import { type CallIo, type Timers, WorkflowCallDriver } from '../../../src/features/workflows/call/index.ts'
import type { Completion, Llm } from '../../../src/realtime/voice/llm/index.ts'
import { edge, graph, intent, kw, node, otherwise, reception } from './graphs.ts'

/** Records what the call did, in order. */
function recorder() {
  const log: string[] = []
  const errors: Error[] = []
  const io: CallIo = {
    say: async (text, nodeId, last) => void log.push(`say ${nodeId}${last ? ' (last)' : ''}: ${text}`),
    transfer: async (target) => void log.push(`transfer ${target}`),
    hangup: async (reason) => void log.push(`hangup ${reason}`),
    fail: async (err) => void errors.push(err),
  }
  return { io, log, errors }
}

/** Timers the test fires by hand: the inter-digit pause happens when the test says so. */
function manualTimers() {
  const pending = new Map<number, () => void>()
  let next = 0
  const timers: Timers = {
    setTimeout: (fn) => (pending.set(++next, fn), next),
    clearTimeout: (h) => void pending.delete(h as number),
  }
  return {
    timers,
    get count() {
      return pending.size
    },
    fireAll() {
      const fns = [...pending.values()]
      pending.clear()
      for (const fn of fns) fn()
    },
  }
}

const opts = (extra = {}) => ({ maxVisits: 5, today: () => '2026-11-21', ...extra })
const keys = (d: WorkflowCallDriver, s: string) => Promise.all([...s].map((k) => d.onDtmf(k)))

describe('workflow call driver', () => {
  test('a menu key transfers the call after the transfer node has spoken', async () => {
    const { io, log } = recorder()
    const d = new WorkflowCallDriver(reception, opts(), io)
    await d.start({ name: 'Ada', company: 'Acme' })
    await d.onDtmf('1')
    expect(log).toEqual([
      'say start: Hello Ada, thanks for calling Acme.',
      'say menu: Say sales or press 1; say support or press 2.',
      'say sales (last): Connecting you to sales.',
      'transfer +14155551111',
    ])
    expect(d.finished).toBe(true)
  })

  test('keys pressed one by one make a PIN once the collect node has its four digits', async () => {
    const { io, log } = recorder()
    const t = manualTimers()
    const d = new WorkflowCallDriver(reception, opts({ timers: t.timers }), io)
    await d.start()
    await keys(d, '29321')
    expect(log.slice(-2)).toEqual(['say vip (last): Putting you through to the VIP desk.', 'transfer sip:vip@pbx.example'])
    expect(d.state?.variables.pin).toBe('9321')
    expect(t.count).toBe(0)
  })

  test('# ends an open-ended entry and a pause sends what was pressed', async () => {
    const g = graph(
      [node('start', 'start'), node('acct', 'collect', { prompt: 'Account number, then hash.', kind: 'digits', variable: 'acct' }), node('bye', 'end', { text: 'Account {{acct}}.' })],
      [edge('start', 'acct'), edge('acct', 'bye')],
    )
    const a = recorder()
    const d = new WorkflowCallDriver(g, opts(), a.io)
    await d.start()
    await keys(d, '12345#')
    expect(a.log.at(-2)).toBe('say bye (last): Account 12345.')

    const b = recorder()
    const t = manualTimers()
    const paused = new WorkflowCallDriver(g, opts({ timers: t.timers }), b.io)
    await paused.start()
    await keys(paused, '77')
    expect(b.log).toEqual(['say acct: Account number, then hash.'])
    expect(t.count).toBe(1)
    t.fireAll()
    await paused.idle()
    expect(b.log.slice(-2)).toEqual(['say bye (last): Account 77.', 'hangup end_call'])
  })

  test('keys pressed while an LLM answer is pending count towards the node it leads to', async () => {
    const answer = Promise.withResolvers<Completion>()
    const asked = Promise.withResolvers<void>()
    // the intent check is the only request: it waits until the test answers it
    const llm: Llm = {
      provider: 'held-llm',
      model: 'held',
      capabilities: { streaming: true, toolCalls: false, usage: false },
      chat: () => {
        throw new Error('a workflow asks for whole answers only')
      },
      complete: () => {
        asked.resolve()
        return answer.promise
      },
    }
    const g = graph(
      [
        node('start', 'start', { text: 'How can I help?' }),
        node('pin', 'collect', { prompt: 'PIN?', kind: 'digits', variable: 'pin', minDigits: 4, maxDigits: 4 }),
        node('bye', 'end', { text: 'PIN {{pin}}.' }),
      ],
      [edge('start', 'pin', intent('wants to give a PIN')), edge('pin', 'bye')],
    )
    const { io, log } = recorder()
    const d = new WorkflowCallDriver(g, opts({ llm }), io)
    await d.start()
    const speech = d.onSpeech('I will type my PIN')
    const typed = keys(d, '4321')
    await asked.promise
    answer.resolve({ text: '1', model: 'held', inputTokens: 0, outputTokens: 0, finishReason: 'stop' })
    await Promise.all([speech, typed])
    expect(log).toEqual(['say start: How can I help?', 'say pin: PIN?', 'say bye (last): PIN 4321.', 'hangup end_call'])
  })

  test('a run that cannot go on is reported once and later events are ignored', async () => {
    const g = graph([node('start', 'start'), node('chat', 'conversation', { instructions: 'x' }), node('e', 'end')], [edge('start', 'chat'), edge('chat', 'e')])
    const { io, log, errors } = recorder()
    const d = new WorkflowCallDriver(g, opts(), io)
    await d.start()
    await d.onSpeech('hello?')
    await d.onDtmf('1')
    expect(errors.map((e) => e.message)).toEqual(['conversation node "chat" needs an LLM, and no LLM is configured'])
    expect(log).toEqual([])
    expect(d.finished).toBe(true)
  })

  test('after the caller hangs up nothing more is said, and odd keys never reach the engine', async () => {
    const { io, log } = recorder()
    const d = new WorkflowCallDriver(reception, opts(), io)
    await d.start()
    await d.onDtmf('%')
    await d.onSpeech('   ')
    expect(d.state?.nodeId).toBe('menu')
    d.stop()
    await d.onDtmf('1')
    await d.onSpeech('sales')
    expect(log).toHaveLength(2)
  })

  test('a preview says the words answer the node only when a condition or an extraction matches them, not when they fall through to the else edge', async () => {
    const booking = graph(
      [
        node('start', 'start', { text: 'Book, or cancel?' }),
        node('book', 'collect', { prompt: 'Which day?', kind: 'digits', variable: 'day', maxAttempts: 3 }),
        node('missed', 'say', { text: 'Sorry, I missed that.' }),
        node('bye', 'end', { text: 'Booked.' }),
      ],
      [edge('start', 'book', kw('book')), edge('start', 'missed', otherwise), edge('book', 'bye'), edge('missed', 'book')],
    )
    const { io } = recorder()
    const d = new WorkflowCallDriver(booking, opts(), io)
    await d.start()
    expect(await d.preview('i want to book please')).toEqual({ answers: true, reply: 'Which day?' })
    expect(await d.preview('do it any firm')).toEqual({ answers: false, reply: 'Sorry, I missed that.' })
    await d.onSpeech('book')
    expect(await d.preview('one two')).toMatchObject({ answers: true, reply: 'Booked.' })
    expect(await d.preview('tuesday')).toMatchObject({ answers: false })
    // a preview changes nothing: the run still waits at the collect node
    await d.onSpeech('three')
    expect(d.finished).toBe(true)
  })
})
