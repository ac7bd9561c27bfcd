import { describe, expect, test } from 'bun:test'
import { Timeline } from './timeline.ts'

describe('voice session on a scripted timeline', () => {
  test('agent speaks first, then answers the caller; transcript in order with timestamps, metrics per turn', async () => {
    const t = new Timeline({ llm: [{ text: 'We open at nine tomorrow.' }], stt: ['When do you open?'], agent: { firstSpeaker: 'agent' } }).start()
    t.callerSays(2000, 800)
    await t.runUntil(6000)
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text])).toEqual([
      ['agent', 'Hello, Acme Dental here.'],
      ['user', 'When do you open?'],
      ['agent', 'We open at nine tomorrow.'],
    ])
    expect(r.transcript[0]!.timestamp).toBeLessThan(0.1)
    expect(r.transcript[1]!.timestamp).toBeGreaterThanOrEqual(1.9)
    expect(r.transcript[1]!.timestamp).toBeLessThanOrEqual(2.1)
    expect(r.transcript[2]!.timestamp).toBeGreaterThan(2.8)
    // the prompt's {{variables}} are filled from the call
    expect(t.llm.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'You are the receptionist of Acme Dental. The caller is +15550100.' })
    expect(r.turns.length).toBe(1)
    const turn = r.turns[0]!
    expect(turn.endpointingMs).toBeGreaterThanOrEqual(300)
    expect(turn.endpointingMs).toBeLessThan(420)
    expect(turn.voiceToVoiceMs).toBeGreaterThanOrEqual(turn.endpointingMs!)
    expect(turn.voiceToVoiceMs! - turn.endpointingMs!).toBeLessThanOrEqual(40)
    expect(r.latency.voiceToVoiceMs.count).toBe(1)
    expect(r.usage.llm).toEqual([{ model: 'scripted', inputTokens: 100, outputTokens: 10 }])
    expect(r.usage.tts.map((u) => u.characters)).toEqual(['Hello, Acme Dental here.'.length, 'We open at nine tomorrow.'.length])
    expect(r.usage.stt.length).toBe(1)
  })

  test('barge-in: caller speech stops playback as soon as the VAD hears it and the transcript keeps only what was played', async () => {
    const long = 'Our clinic offers cleanings, fillings, crowns, implants, whitening and emergency care on weekdays and Saturdays.'
    const t = new Timeline({ llm: [{ text: long }, { text: 'Sure, Saturday it is.' }], stt: ['What are your services?', 'Saturday please.'] }).start()
    t.callerSays(200, 600)
    // the answer starts ~560 ms; the caller cuts in at 2000 ms and talks for 1.2 s
    t.callerSays(2000, 1200)
    await t.runUntil(6000)
    // held when the VAD has heard its minimum of speech (60 ms); stopped for good at the rule's
    // decision (no transcript yet: the speech outlasted the longest backchannel), 700 ms in
    const heardAt = 2000 + 60
    const stoppedAt = t.sent.filter((s) => s.atMs > 1000 && s.atMs < 3500).at(-1)!.atMs
    expect(stoppedAt).toBeGreaterThanOrEqual(heardAt - 60)
    expect(stoppedAt).toBeLessThanOrEqual(heardAt + 40)
    const r = t.session.report()
    const cut = r.transcript.find((i) => i.role === 'agent' && long.startsWith(i.text))!
    expect(cut.text.length).toBeGreaterThan(5)
    expect(cut.text.length).toBeLessThan(long.length / 2)
    expect(cut.interrupted).toBe(true)
    expect(r.transcript.filter((i) => i !== cut).map((i) => i.interrupted)).toEqual([undefined, undefined, undefined])
    expect(r.transcript.map((i) => i.role)).toEqual(['user', 'agent', 'user', 'agent'])
    // the interrupted reply is not resumed: the next answer is about the new turn only
    expect(r.transcript.at(-1)!.text).toBe('Sure, Saturday it is.')
    expect(t.llm.requests[1]!.messages.at(-2)).toEqual({ role: 'assistant', content: cut.text })
  })

  test('a greeting cut within its first word stays in the transcript as far as it was said, marked interrupted', async () => {
    // "Hello." alone is about 450 ms of the tone voice: the caller speaks over it at 200 ms
    const t = new Timeline({ llm: [{ text: 'Sure.' }], stt: ['Saturday please.'], agent: { firstSpeaker: 'agent', welcomeMessage: 'Hello. Welcome to Acme Dental, how can we help you today?' } }).start()
    t.callerSays(200, 1500)
    await t.runUntil(5000)
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text, i.interrupted])).toEqual([
      ['agent', 'Hello.', true],
      ['user', 'Saturday please.', undefined],
      ['agent', 'Sure.', undefined],
    ])
  })

  test('a line that no audio of reached the caller is not in the transcript', async () => {
    const t = new Timeline({ llm: [{ text: 'Sure.' }], stt: ['Saturday please.'], agent: { firstSpeaker: 'agent', welcomeMessage: 'Hello. Welcome to Acme Dental.' } })
    t.session.start()
    t.session.callerHungUp()
    await t.runUntil(200, false)
    expect(t.session.report().transcript).toEqual([])
  })

  test('a backchannel while the agent talks does not interrupt and gets no answer', async () => {
    const answer = 'Let me explain our opening hours for the whole week in detail.'
    const t = new Timeline({ llm: [{ text: answer }], stt: ['Opening hours?', 'uh-huh'] }).start()
    t.callerSays(200, 600)
    t.callerSays(1800, 300)
    await t.runUntil(6000)
    const r = t.session.report()
    expect(r.transcript.map((i) => [i.role, i.text])).toEqual([
      ['user', 'Opening hours?'],
      ['agent', answer],
    ])
    expect(t.llm.requests.length).toBe(1)
    // held while the caller spoke, then played on: every frame of the answer went out
    expect(t.sentBetween(800, 8000)).toBe(Math.ceil((answer.length * 50) / 20))
  })

  test('tool calls run and their results go back to the LLM before it answers', async () => {
    const calls: unknown[] = []
    const t = new Timeline({
      llm: [{ toolCalls: [{ name: 'lookup_booking', arguments: '{"name":"Ann"}' }] }, { text: 'Ann, you are booked for Friday.' }],
      stt: ['Do I have a booking? I am Ann.'],
      agent: {
        tools: [
          {
            spec: { name: 'lookup_booking', description: 'find a booking', parameters: { type: 'object' } },
            run: async (args) => {
              calls.push(args)
              return '{"day":"Friday"}'
            },
          },
        ],
      },
    }).start()
    t.callerSays(200, 700)
    await t.runUntil(5000)
    expect(calls).toEqual([{ name: 'Ann' }])
    const second = t.llm.requests[1]!.messages
    expect(second.at(-2)).toEqual({ role: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'lookup_booking', arguments: '{"name":"Ann"}' }] })
    expect(second.at(-1)).toEqual({ role: 'tool', toolCallId: 'call_0', name: 'lookup_booking', content: '{"day":"Friday"}' })
    expect(t.llm.requests[0]!.tools!.map((x) => x.name)).toEqual(['end_call', 'lookup_booking'])
    expect(t.session.report().transcript.at(-1)!.text).toBe('Ann, you are booked for Friday.')
  })

  test('end_call says goodbye in full and then hangs up', async () => {
    const t = new Timeline({ llm: [{ text: 'Glad I could help.', toolCalls: [{ name: 'end_call', arguments: '{"message":"Goodbye!"}' }] }], stt: ['That is all, thanks.'] }).start()
    t.callerSays(200, 600)
    await t.runUntil(8000)
    expect(t.hangup?.reason).toBe('agent_hangup')
    expect(t.tts.spoken).toEqual(['Glad I could help.', 'Goodbye!'])
    const audioMs = ('Glad I could help.'.length + 'Goodbye!'.length) * 50
    expect(t.sent.length * 20).toBeGreaterThanOrEqual(audioMs)
    expect(t.hangup!.atMs).toBeGreaterThanOrEqual(t.lastSentAt())
    expect(t.session.report().endReason).toBe('agent_hangup')
  })

  test('silence: one reprompt, then hang up', async () => {
    const t = new Timeline({ llm: [], stt: [], agent: { firstSpeaker: 'agent', silenceTimeoutMs: 3000 } }).start()
    await t.runUntil(20_000)
    expect(t.tts.spoken).toEqual(['Hello, Acme Dental here.', 'Are you still there?'])
    expect(t.hangup?.reason).toBe('silence_timeout')
    // welcome ~1.2 s, 3 s silence, reprompt ~1 s, 3 s silence
    expect(t.hangup!.atMs).toBeGreaterThan(8000)
    expect(t.hangup!.atMs).toBeLessThan(8600)
  })

  test('caller speech after the reprompt resets the silence guard', async () => {
    const t = new Timeline({ llm: [{ text: 'Great.' }], stt: ['Yes I am here.'], agent: { firstSpeaker: 'agent', silenceTimeoutMs: 3000 } }).start()
    t.callerSays(5400, 700)
    await t.runUntil(9000)
    expect(t.hangup).toBeUndefined()
    expect(t.session.report().transcript.map((i) => i.text)).toContain('Yes I am here.')
  })

  test('an LLM failure speaks the fallback line and hangs up instead of going silent', async () => {
    const t = new Timeline({ llm: ['fail'], stt: ['Hello?'] }).start()
    t.callerSays(200, 500)
    await t.runUntil(8000)
    expect(t.hangup?.reason).toBe('provider_error')
    expect(t.tts.spoken).toEqual(['Sorry, something went wrong.', 'Goodbye.'])
    expect(t.sent.length).toBeGreaterThan(0)
  })

  test('when TTS fails too, the call is still hung up', async () => {
    const t = new Timeline({ llm: ['fail'], stt: ['Hello?'] }).start()
    t.tts.failing = true
    t.callerSays(200, 500)
    await t.runUntil(4000)
    expect(t.hangup?.reason).toBe('provider_error')
    expect(t.sent.length).toBe(0)
  })

  test('the maximum duration ends the call with the goodbye line', async () => {
    const t = new Timeline({ llm: [], stt: [], agent: { maxDurationMs: 2000, silenceTimeoutMs: 60_000 } }).start()
    await t.runUntil(10_000)
    expect(t.hangup?.reason).toBe('max_duration')
    expect(t.tts.spoken).toEqual(['Thanks for calling, goodbye.'])
    const goodbyeMs = 'Thanks for calling, goodbye.'.length * 50
    // playout hands the media the first two frames of a reply at once (the media sends the first
    // at once and holds the next); the hang-up waits until the media has had a tick to send the
    // goodbye's last frame
    expect(t.lastSentAt()).toBeGreaterThanOrEqual(2000 + goodbyeMs - 60)
    expect(t.hangup!.atMs).toBeGreaterThanOrEqual(t.lastSentAt() + 20)
    expect(t.sent.length * 20).toBeGreaterThanOrEqual(goodbyeMs)
  })

  test('a caller hang-up ends the session at once and nothing more is sent', async () => {
    const t = new Timeline({ llm: [{ text: 'A long answer that will never be finished by anyone.' }], stt: ['Hi'] }).start()
    t.callerSays(200, 500)
    await t.runUntil(1400)
    t.session.callerHungUp()
    const sent = t.sent.length
    await t.runUntil(4000, false)
    expect(t.sent.length).toBe(sent)
    expect(t.hangup?.reason).toBe('caller_hangup')
  })
})

describe('DTMF input', () => {
  test("the caller's keys reach the agent as one turn at '#'", async () => {
    const t = new Timeline({ llm: [{ text: 'Thanks, account found.' }], stt: [] }).start()
    await t.runUntil(200)
    for (const k of ['4', '2', '1', '#']) t.session.pushDtmf(k)
    await t.runUntil(3000)
    expect(t.llm.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: '[DTMF] 421' })
    expect(t.session.report().transcript.map((i) => i.text)).toEqual(['[DTMF] 421', 'Thanks, account found.'])
  })

  test('digits without # are sent after a pause; anything that is not a key is ignored', async () => {
    const t = new Timeline({ llm: [{ text: 'Option two.' }], stt: [] }).start()
    await t.runUntil(200)
    t.session.pushDtmf('2')
    t.session.pushDtmf('x')
    t.session.pushDtmf('12')
    await t.runUntil(1600)
    expect(t.llm.requests.length).toBe(0)
    await t.runUntil(1800)
    expect(t.llm.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: '[DTMF] 2' })
  })
})

describe('STT failure', () => {
  test('a failed transcription speaks the fallback line and hangs up', async () => {
    const t = new Timeline({ llm: [{ text: 'never used' }], stt: [null] }).start()
    t.callerSays(200, 600)
    await t.runUntil(6000)
    expect(t.hangup?.reason).toBe('provider_error')
    expect(t.tts.spoken).toEqual(['Sorry, something went wrong.', 'Goodbye.'])
    expect(t.llm.requests.length).toBe(0)
  })
})

describe('call cost from the session report', () => {
  test('prices the tokens, TTS characters, STT seconds and minutes of the call', async () => {
    const { sessionCost } = await import('../../../../src/realtime/voice/session/index.ts')
    const t = new Timeline({ llm: [{ text: 'Ten characters.' }], stt: ['hi'] }).start()
    t.callerSays(200, 600)
    await t.runUntil(3000)
    t.session.callerHungUp()
    const report = t.session.report()
    // the scripted engines name no provider of the registry: their own names price them
    const prices = {
      llm: { scripted: { inputPerMTok: 1000, outputPerMTok: 2000 } },
      tts: { 'tone-tts': { model: 'tone', price: { perMChars: 1e6 } } },
      stt: { 'scripted-stt': { model: 'scripted', price: 60 } },
      telephony: { inbound: 0.6, outbound: 0 },
    }
    const sttMs = report.usage.stt.reduce((n, u) => n + u.audioMs, 0)
    expect(sessionCost(report, prices, 'inbound')).toEqual({
      llm: 0.12, // 100 tokens in at $1000/M + 10 out at $2000/M
      tts: 15, // 15 characters at $1 each
      stt: Math.round(sttMs) / 1000, // $60 a minute = $0.001 a ms
      telephony: 0.03, // 3 s at $0.60 a minute
      total: Math.round((0.12 + 15 + Math.round(sttMs) / 1000 + 0.03) * 1e6) / 1e6,
    })
  })

  test('input tokens the prompt cache served reach the report and are priced at the cached price', async () => {
    const { sessionCost } = await import('../../../../src/realtime/voice/session/index.ts')
    const t = new Timeline({ llm: [{ text: 'Ten characters.', cachedInputTokens: 80 }], stt: ['hi'] }).start()
    t.callerSays(200, 600)
    await t.runUntil(3000)
    t.session.callerHungUp()
    const report = t.session.report()
    expect(report.usage.llm).toEqual([{ model: 'scripted', inputTokens: 100, outputTokens: 10, cachedInputTokens: 80 }])
    const prices = { llm: { scripted: { inputPerMTok: 1000, cachedInputPerMTok: 100, outputPerMTok: 2000 } }, tts: {}, stt: {}, telephony: { inbound: 0, outbound: 0 } }
    // 20 tokens at $1000/M, 80 cached at $100/M, 10 out at $2000/M
    expect(sessionCost(report, prices, 'web').llm).toBe(0.048)
  })

  test("the registry's engines are priced by their provider's id, and one without a price is named", async () => {
    const { sessionCost } = await import('../../../../src/realtime/voice/session/index.ts')
    const t = new Timeline({ llm: [], stt: [] }).start()
    t.session.callerHungUp()
    const usage = {
      llm: [{ model: 'llama3.2', inputTokens: 50, outputTokens: 5 }],
      tts: [{ provider: 'elevenlabs-tts', characters: 1000, audioMs: 60_000 }],
      stt: [{ provider: 'deepgram-stt', audioMs: 120_000 }],
    }
    const prices = {
      llm: {},
      tts: { elevenlabs: { model: 'eleven_flash_v2_5', price: { perMChars: 50 } } },
      stt: { deepgram: { model: 'nova-3', price: 0.01 } },
      telephony: { inbound: 0, outbound: 0 },
    }
    expect(sessionCost({ ...t.session.report(), usage }, prices, 'web')).toEqual({ llm: 0, tts: 0.05, stt: 0.02, telephony: 0, total: 0.07, unpriced: ['llama3.2'] })
  })
})

describe('unexpected failures', () => {
  test('caller audio the VAD cannot take ends the call with the fallback line, not silence', async () => {
    const t = new Timeline({ llm: [], stt: [] }).start()
    t.session.pushAudio({ samples: new Int16Array(441), sampleRate: 22050 }) // energy VAD takes any rate: make the second frame differ
    t.session.pushAudio({ samples: new Int16Array(160), sampleRate: 8000 })
    await t.runUntil(4000)
    expect(t.hangup?.reason).toBe('provider_error')
    expect(t.tts.spoken).toEqual(['Sorry, something went wrong.', 'Goodbye.'])
  })

  test('a tool that throws synchronously is reported to the model and the call goes on', async () => {
    const t = new Timeline({
      llm: [{ toolCalls: [{ name: 'bad', arguments: '{}' }] }, { text: 'That did not work, sorry.' }],
      stt: ['try it'],
      agent: {
        tools: [
          {
            spec: { name: 'bad', description: 'd', parameters: { type: 'object' } },
            run: () => {
              throw new Error('sync failure')
            },
          },
        ],
      },
    }).start()
    t.callerSays(200, 600)
    await t.runUntil(5000)
    expect(t.llm.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: '{"error":"sync failure"}' })
    expect(t.hangup).toBeUndefined()
  })
})
