import { describe, expect, test } from 'bun:test'
import { DEFAULT_BARGE_IN, SpeechHandle, TurnController, type TurnInput, type TurnOutput } from '../../../../src/realtime/voice/turn/index.ts'

/**
 * Scripted timelines: the agent starts speaking at `agentAtMs`, its audio plays in real time
 * (the playout clock is advanced before every input), and the VAD/STT inputs arrive at the
 * scripted times. No sockets, no timers.
 */
function play(
  script: [number, TurnInput][],
  agent?: { atMs: number; segments: [string, number][]; allowInterruptions?: boolean },
): { outputs: [number, TurnOutput][]; speech?: SpeechHandle } {
  const ctl = new TurnController({ maxFinalWaitMs: 800, useInterimOnTimeout: true }, { ...DEFAULT_BARGE_IN })
  let speech: SpeechHandle | undefined
  const outputs: [number, TurnOutput][] = []
  for (const [t, input] of script) {
    if (agent && !speech && t >= agent.atMs) {
      speech = new SpeechHandle({ allowInterruptions: agent.allowInterruptions ?? true })
      for (const [text, ms] of agent.segments) speech.addSegment(text, ms)
      speech.finishInput()
      ctl.agentSpeaking(speech)
    }
    if (speech) speech.setPlayedMs(t - agent!.atMs)
    for (const out of ctl.handle(input, t)) outputs.push([t, out])
  }
  return { outputs, speech }
}

/** VAD progress every 20 ms of caller speech from `fromMs` for `durMs`. */
function talk(fromMs: number, durMs: number): [number, TurnInput][] {
  const out: [number, TurnInput][] = [[fromMs, { type: 'vad_start', atMs: fromMs }]]
  for (let t = 20; t <= durMs; t += 20) out.push([fromMs + t, { type: 'vad_progress', speechMs: t }])
  return out
}

const byTime = (s: [number, TurnInput][]) => s.sort((a, b) => a[0] - b[0])
const agentLine = { atMs: 0, segments: [['Our opening hours are nine to five on weekdays.', 2000], ['On Saturdays we open at ten.', 1500]] as [string, number][] }

describe('turn-taking on scripted timelines', () => {
  test('barge-in: caller words over the agent stop playback at the decision and cut the transcript to what was heard', () => {
    const script = byTime([
      ...talk(1000, 600),
      [1250, { type: 'stt_final', text: 'wait, are you open on Sunday?' }],
      [1700, { type: 'vad_end', atMs: 1600 }],
    ])
    const { outputs, speech } = play(script, agentLine)
    const interrupt = outputs.find(([, o]) => o.type === 'interrupt')!
    // speech passed the 300 ms minimum at 1300 with real words already heard
    expect(interrupt[0]).toBe(1300)
    expect(speech!.state).toBe('interrupted')
    expect(speech!.played).toBe(1300)
    expect(interrupt[1]).toMatchObject({ playedText: 'Our opening hours are nine' })
    expect(outputs.filter(([, o]) => o.type === 'user_turn').map(([t, o]) => [t, o.type === 'user_turn' && o.turn.text])).toEqual([
      [1700, 'wait, are you open on Sunday?'],
    ])
  })

  test('an interim guess that is no backchannel decides only speech longer than any backchannel', () => {
    const script = byTime([...talk(1000, 900), [1250, { type: 'stt_interim', text: 'wait' }]])
    const { outputs } = play(script, agentLine)
    // held at once; 300 ms of "wait" as a guess is not enough, 700 ms is
    expect(outputs.map(([t, o]) => [t, o.type])).toEqual([
      [1000, 'pause'],
      [1700, 'interrupt'],
    ])
  })

  test('a short utterance over the agent whose guess is no backchannel waits for its final, the agent held', () => {
    // an offline recogniser guesses "so" while the caller says "uh-huh", then settles on "oh"
    const guessedSo = (final: string) =>
      byTime([...talk(800, 320), [1000, { type: 'stt_interim', text: 'so' }], [1400, { type: 'vad_end', atMs: 1120 }], [1450, { type: 'stt_final', text: final }]])
    const a = play(guessedSo('oh'), agentLine)
    expect(a.outputs.map(([t, o]) => [t, o.type])).toEqual([
      [800, 'pause'],
      [1450, 'backchannel'],
      [1450, 'resume'],
    ])
    expect(a.speech!.state).toBe('speaking')
    // the same guess settling on real words interrupts at the final and is the caller's turn
    const b = play(guessedSo('stop'), agentLine)
    expect(b.outputs.map(([t, o]) => [t, o.type])).toEqual([
      [800, 'pause'],
      [1450, 'interrupt'],
      [1450, 'user_turn'],
    ])
    expect(b.speech!.state).toBe('interrupted')
  })

  test('backchannels while the agent talks do not interrupt and are not answered', () => {
    const script = byTime([...talk(800, 400), [1000, { type: 'stt_interim', text: 'uh-huh' }], [1300, { type: 'vad_end', atMs: 1200 }], [1350, { type: 'stt_final', text: 'Uh-huh.' }]])
    const { outputs, speech } = play(script, agentLine)
    // held while it could be a barge-in (an interim is a guess), played on once the speech ended as only a backchannel
    expect(outputs.map(([t, o]) => [t, o.type])).toEqual([
      [800, 'pause'],
      [1300, 'backchannel'],
      [1300, 'resume'],
    ])
    expect(speech!.state).toBe('speaking')
    speech!.setPlayedMs(3500)
    expect(speech!.state).toBe('completed')
  })

  test('a first syllable guessed as a backchannel ("oh" for "open") keeps the agent held until the words interrupt it: no blip', () => {
    const script = byTime([...talk(800, 900), [950, { type: 'stt_interim', text: 'oh' }], [1250, { type: 'stt_interim', text: 'open on saturday' }]])
    const { outputs } = play(script, agentLine)
    expect(outputs.map(([t, o]) => [t, o.type])).toEqual([
      [800, 'pause'],
      [1500, 'interrupt'],
    ])
  })

  test('short caller speech with no words yet does not interrupt; the same speech drawn out does', () => {
    const short = play(byTime([...talk(500, 500), [1100, { type: 'vad_end', atMs: 1000 }]]), agentLine)
    expect(short.outputs.map(([, o]) => o.type)).toEqual(['pause', 'backchannel', 'resume'])
    expect(short.speech!.state).toBe('speaking')
    const long = play(byTime([...talk(500, 900)]), agentLine)
    expect(long.outputs.map(([t, o]) => [t, o.type])).toEqual([
      [500, 'pause'],
      [1200, 'interrupt'],
    ])
  })

  test('a goodbye that may not be interrupted plays on through caller speech', () => {
    const script = byTime([...talk(200, 1000), [400, { type: 'stt_interim', text: 'no wait' }]])
    const { outputs, speech } = play(script, { atMs: 0, segments: [['Thanks for calling, goodbye.', 1500]], allowInterruptions: false })
    expect(outputs.some(([, o]) => o.type === 'interrupt')).toBe(false)
    expect(speech!.state).toBe('speaking')
  })

  test('endpointing: the turn is committed when both the VAD silence and the STT final are in', () => {
    const script = byTime([
      ...talk(0, 1400),
      [600, { type: 'stt_final', text: 'I would like' }],
      [1300, { type: 'stt_interim', text: 'a table' }],
      [1800, { type: 'vad_end', atMs: 1400 }],
      [1900, { type: 'tick' }],
      [1950, { type: 'stt_final', text: 'a table for two' }],
    ])
    const { outputs } = play(script)
    expect(outputs).toEqual([[1950, { type: 'user_turn', turn: { text: 'I would like a table for two', speechEndMs: 1400, silenceOverMs: 1800, decidedAtMs: 1950, hadFinal: true } }]])
  })

  test('endpointing: a lost STT final does not hang the call; the interim is used after the wait', () => {
    const script = byTime([...talk(0, 800), [500, { type: 'stt_interim', text: 'operator please' }], [1200, { type: 'vad_end', atMs: 800 }], [1500, { type: 'tick' }], [1600, { type: 'tick' }]])
    const { outputs } = play(script)
    expect(outputs.map(([t, o]) => [t, o.type === 'user_turn' && o.turn.text])).toEqual([[1600, 'operator please']])
  })

  test('after the agent finishes, caller speech is an ordinary turn, not a barge-in', () => {
    const script = byTime([...talk(4000, 600), [4500, { type: 'stt_final', text: 'thanks' }], [5000, { type: 'vad_end', atMs: 4600 }]])
    const { outputs, speech } = play(script, agentLine)
    expect(speech!.state).toBe('completed')
    expect(outputs.map(([, o]) => o.type)).toEqual(['user_turn'])
  })

  test('caller speech over the agent holds playback at the VAD start, before any rule has decided', () => {
    const { outputs } = play(byTime([...talk(1000, 200)]), agentLine)
    expect(outputs).toEqual([[1000, { type: 'pause', speech: expect.any(SpeechHandle), atMs: 1000 }]])
  })

  test("words after a backchannel are the caller's next turn, even those the VAD missed, once the backchannel's own final is in", () => {
    const script = byTime([
      ...talk(800, 300),
      [1000, { type: 'stt_interim', text: 'uh-huh' }],
      [1250, { type: 'stt_final', text: 'uh-huh' }],
      [1500, { type: 'vad_end', atMs: 1100 }],
      // a short "The," too quiet for the VAD, then the rest
      [2300, { type: 'stt_final', text: 'The,' }],
      ...talk(2600, 800),
      [3500, { type: 'stt_final', text: 'nine thirty, please.' }],
      [3800, { type: 'vad_end', atMs: 3400 }],
    ])
    const { outputs } = play(script, { atMs: 0, segments: [['A long line about the week.', 2500]] })
    expect(outputs.filter(([, o]) => o.type === 'user_turn').map(([, o]) => o.type === 'user_turn' && o.turn.text)).toEqual(['The, nine thirty, please.'])
  })

  test("a backchannel's final that comes after its end is dropped, not joined to the next turn", () => {
    const script = byTime([...talk(800, 300), [1000, { type: 'stt_interim', text: 'uh-huh' }], [1500, { type: 'vad_end', atMs: 1100 }], [1600, { type: 'stt_final', text: 'uh-huh' }], ...talk(2600, 800), [3500, { type: 'stt_final', text: 'nine thirty' }], [3800, { type: 'vad_end', atMs: 3400 }]])
    const { outputs } = play(script, { atMs: 0, segments: [['A long line about the week.', 2500]] })
    expect(outputs.filter(([, o]) => o.type === 'user_turn').map(([, o]) => o.type === 'user_turn' && o.turn.text)).toEqual(['nine thirty'])
  })

  test('a voice onset holds the agent before the VAD has declared speech, and a blip that fades lets it go on', () => {
    const { outputs, speech } = play([[1000, { type: 'vad_onset' }], [1064, { type: 'vad_quiet' }], [1100, { type: 'tick' }]], agentLine)
    expect(outputs.map(([t, o]) => [t, o.type])).toEqual([
      [1000, 'pause'],
      [1064, 'resume'],
    ])
    expect(speech!.state).toBe('speaking')
  })
})
