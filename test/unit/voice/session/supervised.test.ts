// A supervisor's hand on the session (issue 47): a line spoken after the agent's current one and
// not cut by the caller, and a hold that pauses the agent where it was and stops the silence guard.
import { describe, expect, test } from 'bun:test'
import { Timeline } from './timeline.ts'

describe("a supervisor's line and hold", () => {
  test("a supervisor's line waits for the agent's welcome to finish, then plays whole although the caller talks over it", async () => {
    const t = new Timeline({ llm: [], stt: [], agent: { firstSpeaker: 'agent' } }).start()
    await t.runUntil(200)
    let spoken: boolean | undefined
    void t.session.announce('A supervisor has joined the call.').then((ok) => (spoken = ok))
    // the caller talks over the supervisor's line (it follows the ~1.2 s welcome)
    t.callerSays(1600, 800)
    await t.runUntil(8000)
    expect(spoken).toBe(true)
    expect(t.tts.spoken).toEqual(['Hello, Acme Dental here.', 'A supervisor has joined the call.'])
    const lines = t.session.report().transcript.filter((i) => i.role === 'agent').map((i) => i.text)
    expect(lines).toEqual(['Hello, Acme Dental here.', 'A supervisor has joined the call.'])
  })

  test("a supervisor's line asked for while the agent's answer is being spoken comes after the whole answer, not between its sentences", async () => {
    const answer = 'We open at nine. We close at five. We are closed on Sundays.'
    const t = new Timeline({ llm: [{ text: answer }], stt: ['When are you open?'] }).start()
    t.callerSays(200, 600)
    // the answer is playing: its first frames went out
    while (t.sentBetween(800, 5000) === 0 && t.now < 5000) await t.runUntil(t.now + 20)
    expect(t.sent.length).toBeGreaterThan(0)
    let spoken: boolean | undefined
    void t.session.announce('A supervisor has joined the call.').then((ok) => (spoken = ok))
    await t.runUntil(12_000)
    expect(spoken).toBe(true)
    expect(t.tts.spoken).toEqual(['We open at nine.', 'We close at five.', 'We are closed on Sundays.', 'A supervisor has joined the call.'])
    const lines = t.session.report().transcript.filter((i) => i.role === 'agent').map((i) => i.text)
    expect(lines).toEqual([answer, 'A supervisor has joined the call.'])
  })

  test('on hold the agent stops where it was and the silence guard waits; resumed, the line goes on and the guard counts from then', async () => {
    const t = new Timeline({ llm: [], stt: [], agent: { firstSpeaker: 'agent', silenceTimeoutMs: 3000 } }).start()
    await t.runUntil(600)
    const before = t.sent.length
    expect(before).toBeGreaterThan(0)
    t.held = true
    t.session.hold(true)
    await t.runUntil(20_000)
    expect(t.hangup).toBeUndefined()
    expect(t.sentBetween(620, 20_000)).toBe(0)
    t.held = false
    t.session.hold(false)
    await t.runUntil(21_500)
    // the rest of the welcome, not a new one: the line is heard whole once
    expect(t.sentBetween(20_000, 21_500)).toBeGreaterThan(0)
    expect(t.tts.spoken).toEqual(['Hello, Acme Dental here.'])
    await t.runUntil(40_000)
    expect(t.hangup?.reason).toBe('silence_timeout')
    // the welcome's end (~20.6 s), 3 s silence, the reprompt, 3 s silence: not counted from before the hold
    expect(t.hangup!.atMs).toBeGreaterThan(26_000)
    expect(t.session.report().transcript.map((i) => i.text)).toEqual(['Hello, Acme Dental here.', 'Are you still there?'])
  })
})
