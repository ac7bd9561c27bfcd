import { describe, expect, test } from 'bun:test'
import { isVoiced } from '../../../../src/realtime/voice/audio.ts'
import { ProviderStream } from '../../../../src/realtime/voice/base.ts'
import type { AsyncQueue } from '../../../../src/realtime/voice/queue.ts'
import type { Brain, BrainHost } from '../../../../src/realtime/voice/session/index.ts'
import type { TtsEvent } from '../../../../src/realtime/voice/tts/contract.ts'
import { ToneTts } from '../../../helpers/scripted-engines.ts'
import type { AudioFrame } from '../../../../src/realtime/voice/audio.ts'
import type { Stt, SttEvent } from '../../../../src/realtime/voice/stt/index.ts'
import { RATE, Timeline } from './timeline.ts'

/** A brain that logs what reaches it, in order, and answers each speech turn with `reply(text)`. */
function loggingBrain(reply: (text: string) => string, preview?: Brain['preview']): Brain & { log: string[] } {
  let host: BrainHost | undefined
  const log: string[] = []
  return {
    kind: 'workflow',
    busy: false,
    answersKeys: true,
    log,
    start: (h) => (host = h),
    onUserTurn: (text, source) => {
      log.push(`${source}:${text}`)
      if (source === 'speech') void host?.say(reply(text))
    },
    onDtmf: (key) => log.push(`key:${key}`),
    stop: () => {},
    preview,
  }
}

/** ToneTts with `leadMs` of digital silence before every sentence, as flite has. */
class LeadingSilenceTts extends ToneTts {
  constructor(private readonly leadMs: number) {
    super(RATE)
  }

  override synthesize(text: string): ReturnType<ToneTts['synthesize']> {
    const inner = super.synthesize(text)
    const lead = new Int16Array((RATE * this.leadMs) / 1000)
    return new (class extends ProviderStream<never, TtsEvent> {
      protected async attempt(_i: AsyncQueue<never>, emit: (e: TtsEvent) => void) {
        emit({ type: 'audio', frame: { samples: lead, sampleRate: RATE } })
        for await (const ev of inner) if (ev.type !== 'error') emit(ev)
      }
    })('lead-tts', { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 }) as never
  }
}

const voicedAfter = (t: Timeline, fromMs: number) => t.sent.filter((s) => s.atMs > fromMs && isVoiced(s.frame.samples))

describe('conversation timing in the voice session', () => {
  test("the record's parts add up to its voiceToVoiceMs, which runs to the first voiced frame past the TTS's leading silence", async () => {
    const t = new Timeline({ llm: [{ text: 'We open at nine tomorrow.' }], stt: ['When do you open?'], tts: new LeadingSilenceTts(200), media: true }).start()
    t.callerSays(200, 800)
    await t.runUntil(4000)
    const turn = t.session.report().turns[0]!
    expect(turn.endpointingMs! + turn.responseMs! + turn.leadingSilenceMs!).toBe(turn.voiceToVoiceMs!)
    expect(turn.vadHangoverMs!).toBeLessThanOrEqual(turn.endpointingMs!)
    // the STT's utterance was ended at the caller's pause, so its final was in before the silence
    // that ends the turn was over, and the turn waited for nothing else
    expect(turn.sttFinalMs!).toBeLessThan(turn.vadHangoverMs!)
    expect(turn.endpointingMs! - turn.vadHangoverMs!).toBeLessThanOrEqual(20)
    expect(turn.ttsTtfbMs!).toBeLessThanOrEqual(turn.responseMs!)
    // the 200 ms of silence the TTS put first is counted, to the frame
    expect(turn.leadingSilenceMs!).toBeGreaterThanOrEqual(180)
    expect(turn.leadingSilenceMs!).toBeLessThanOrEqual(220)
    // and the whole is what the caller waited, within the frame this harness's media adds (it
    // sends a frame handed over between ticks at the next tick; a real one sends it at once)
    const firstVoiced = voicedAfter(t, 1000)[0]!.atMs
    expect(Math.abs(turn.voiceToVoiceMs! - (firstVoiced - 1000))).toBeLessThanOrEqual(20)
  })

  test("each caller turn is numbered when committed, and its voice-to-voice figure reaches the turnMeasured hook as the answer is heard, the same as the report's", async () => {
    const t = new Timeline({ llm: [{ text: 'We open at nine.' }, { text: 'Until five.' }], stt: ['When do you open?', 'And close?'], media: true }).start()
    t.callerSays(200, 800)
    t.callerSays(4000, 800)
    await t.runUntil(8000)
    const report = t.session.report().turns
    expect(report.length).toBe(2)
    // committed before the answer started: no figure yet
    expect(t.turnHooks.filter((h) => h.hook === 'turn')).toEqual([{ hook: 'turn', turn: 1, voiceToVoiceMs: undefined }, { hook: 'turn', turn: 2, voiceToVoiceMs: undefined }])
    for (const n of [1, 2]) {
      const last = t.turnHooks.filter((h) => h.hook === 'turnMeasured' && h.turn === n).at(-1)
      expect(report[n - 1]!.voiceToVoiceMs).toBeGreaterThan(0)
      expect(last?.voiceToVoiceMs).toBe(report[n - 1]!.voiceToVoiceMs!)
    }
  })

  test('barge-in drops the frames queued in the media: the agent falls silent within a frame of the caller being heard', async () => {
    const long = 'Our clinic offers cleanings, fillings, crowns, implants, whitening and emergency care on weekdays and Saturdays.'
    const t = new Timeline({ llm: [{ text: long }, { text: 'Sure.' }], stt: ['What are your services?', 'Saturday please.'], media: true }).start()
    t.callerSays(200, 600)
    t.callerSays(2000, 1200)
    await t.runUntil(5000)
    // the VAD hears 60 ms of speech (its minimum) and the next window decides
    const heardAt = 2000 + 60 + 20
    const agentAudioAfter = voicedAfter(t, 1000).filter((s) => s.atMs > heardAt + 20 && s.atMs < 3300)
    expect(agentAudioAfter).toEqual([])
    expect(t.flushedFrames).toBeGreaterThan(0)
    expect(t.session.report().transcript.map((i) => i.role)).toEqual(['user', 'agent', 'user', 'agent'])
  })

  test('a backchannel does not interrupt: the agent is held while it is heard, then says every word of its line', async () => {
    const answer = 'Let me explain our opening hours for the whole week in detail.'
    const t = new Timeline({ llm: [{ text: answer }], stt: ['Opening hours?', 'uh-huh'], media: true }).start()
    t.callerSays(200, 600)
    t.callerSays(1800, 300)
    await t.runUntil(8000)
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text])).toEqual([
      ['user', 'Opening hours?'],
      ['agent', answer],
    ])
    expect(r.turns.length).toBe(1)
    // every frame of the answer went out, none lost to the hold
    const toneFrames = Math.ceil((answer.length * 50) / 20)
    expect(voicedAfter(t, 800).length).toBeGreaterThanOrEqual(toneFrames - 1)
    // and it was held while the caller spoke
    expect(voicedAfter(t, 1900).filter((s) => s.atMs <= 2100)).toEqual([])
  })

  test("a key pressed while the caller's words are still being decided reaches the brain after them", async () => {
    const brain = loggingBrain((text) => `You said ${text}.`)
    const t = new Timeline({ llm: [], stt: ['book a table'], brain }).start()
    t.callerSays(200, 800)
    // the speech ended at 1000; the turn is decided a few hundred ms later
    t.callerPresses(1100, '5')
    await t.runUntil(3000)
    expect(brain.log.slice(0, 2)).toEqual(['speech:book a table', 'key:5'])
  })

  test('a key held for a spoken turn is not lost when the caller hangs up, nor held for long under endless speech', async () => {
    const hangs = new Timeline({ llm: [], stt: ['book a table'], brain: loggingBrain((text) => text) }).start()
    hangs.callerSays(200, 800).callerPresses(1060, '5')
    await hangs.runUntil(1100)
    hangs.session.callerHungUp()
    expect(hangs.session.report().transcript.map((i) => i.text)).toContain('[DTMF] 5')

    const brain = loggingBrain((text) => text)
    const noisy = new Timeline({ llm: [], stt: [], brain }).start()
    noisy.callerSays(200, 6000).callerPresses(1000, '9')
    await noisy.runUntil(2000)
    // the timeline's endpointing waits 1000 ms for a final: no key waits longer
    expect(brain.log).toEqual(['key:9'])
  })

  test('a key pressed when no speech is pending is handled at once', async () => {
    const brain = loggingBrain((text) => `You said ${text}.`)
    const t = new Timeline({ llm: [], stt: [], brain }).start()
    t.callerPresses(300, '7')
    await t.runUntil(340)
    expect(brain.log).toEqual(['key:7'])
  })

  test('the first sentence is synthesised while the endpoint is pending, and used when the caller has finished', async () => {
    const brain = loggingBrain(() => 'A table for how many? I can book it now.', async () => ({ answers: true, reply: 'A table for how many? I can book it now.' }))
    const tts = new (class extends ToneTts {
      override synthesize(text: string) {
        brain.log.push(`tts:${text}`)
        return super.synthesize(text)
      }
    })(RATE)
    const t = new Timeline({ llm: [], stt: ['book a table'], brain, tts }).start()
    t.callerSays(200, 800)
    await t.runUntil(4000)
    // synthesised once, before the turn was decided, and that audio is what the caller heard
    expect(brain.log.slice(0, 3)).toEqual(['tts:A table for how many?', 'speech:book a table', 'tts:I can book it now.'])
    expect(t.session.report().transcript.at(-1)!.text).toBe('A table for how many? I can book it now.')
  })

  test('a speculative reply is discarded when the caller continues, and the answer is to everything said', async () => {
    const tts = new ToneTts(RATE)
    const brain = loggingBrain(
      (text) => `Got it: ${text}.`,
      async (text) => ({ answers: true, reply: `Speculated for ${text}.` }),
    )
    const t = new Timeline({ llm: [], stt: ['book a table', 'for two at eight'], brain, tts }).start()
    // a pause of 250 ms: long enough for the STT to finish the first part, short of the endpoint
    t.callerSays(200, 800)
    t.callerSays(1250, 700)
    await t.runUntil(5000)
    expect(tts.spoken).toContain('Speculated for book a table.')
    expect(brain.log).toEqual(['speech:book a table for two at eight'])
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text])).toEqual([
      ['user', 'book a table for two at eight'],
      ['agent', 'Got it: book a table for two at eight.'],
    ])
    // nothing of the discarded sentence was sent: the first agent audio is the real answer's
    const firstAgent = voicedAfter(t, 0)[0]!.atMs
    expect(firstAgent).toBeGreaterThan(1950)
  })

  test("an LLM reply is requested while the caller's endpoint is pending, and streamed from when the turn is decided", async () => {
    const t = new Timeline({ llm: [{ text: 'We open at nine. See you then.' }], stt: ['when do you open'] })
    const asked: number[] = []
    const chat = t.llm.chat.bind(t.llm)
    t.llm.chat = (request) => (asked.push(t.now), chat(request))
    t.start().callerSays(200, 800)
    await t.runUntil(4000)
    const r = t.session.report()
    expect(r.transcript.map((i) => i.text)).toEqual(['when do you open', 'We open at nine. See you then.'])
    // one request, made before the turn was decided (speech end + endpointing)
    expect(asked.length).toBe(1)
    expect(asked[0]!).toBeLessThan(1000 + r.turns[0]!.endpointingMs!)
  })

  test('a preempted LLM reply is thrown away when the caller goes on, and the answer is to the whole turn', async () => {
    const t = new Timeline({ llm: [{ text: 'Answer to the first half.' }, { text: 'Answer to all of it.' }], stt: ['book a table', 'for two at eight'] }).start()
    t.callerSays(200, 800)
    t.callerSays(1250, 700)
    await t.runUntil(5000)
    expect(t.llm.requests.map((q) => q.messages.at(-1))).toEqual([
      { role: 'user', content: 'book a table' },
      { role: 'user', content: 'book a table for two at eight' },
    ])
    expect(t.session.report().transcript.map((i) => i.text)).toEqual(['book a table for two at eight', 'Answer to all of it.'])
  })

  test('an utterance whose recogniser ends with no words does not hold the turn for a final that will not come', async () => {
    // utterance 1: words; utterance 2 (after a pause): an interim guess, then no final
    const script: { interim?: string; final?: string }[] = [{ final: 'book a table' }, { interim: 'uh for' }]
    const stt: Stt = {
      provider: 'scripted-stt',
      capabilities: { streaming: false, interimResults: true, offline: true },
      stream() {
        const next = script.shift() ?? {}
        return new (class extends ProviderStream<AudioFrame, SttEvent> {
          protected async attempt(input: AsyncQueue<AudioFrame>, emit: (e: SttEvent) => void) {
            if (next.interim) emit({ type: 'interim', text: next.interim })
            for await (const _ of input);
            if (next.final) emit({ type: 'final', text: next.final, confidence: 1, startMs: 0, endMs: 0, endOfTurn: true })
          }
        })('scripted-stt', { maxRetries: 0, timeoutMs: 0, retryIntervalMs: 0 })
      },
    }
    const t = new Timeline({ llm: [{ text: 'For how many?' }], stt }).start()
    t.callerSays(200, 800)
    t.callerSays(1250, 300)
    await t.runUntil(4000)
    const r = t.session.report()
    expect(r.transcript.map((i) => i.text)).toEqual(['book a table', 'For how many?'])
    // decided at the silence's end, not after the 1000 ms final wait of this timeline
    expect(r.turns[0]!.endpointingMs!).toBeLessThan(1000)
  })
})
