// Each per-turn part of the call record has a Prometheus histogram (issue 22): an ended call's
// turns are observed part by part, and a part a turn did not measure (null) is not observed.
import { expect, test } from 'bun:test'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Metrics } from '../../../src/platform/metrics/index.ts'

const turn = (parts: Record<string, number | null>) => ({
  vadHangoverMs: null, endpointingMs: null, sttFinalMs: null, responseMs: null, llmTtftMs: null, ttsTtfbMs: null, leadingSilenceMs: null, voiceToVoiceMs: null, ...parts,
})

test('the hangover, response and leading-silence parts of each turn are histograms beside endpointing and voice-to-voice', async () => {
  const m = new Metrics()
  m.callEnded({
    direction: 'inbound',
    outcome: 'completed',
    turns: [
      turn({ vadHangoverMs: 300, endpointingMs: 310, responseMs: 160, leadingSilenceMs: 20, voiceToVoiceMs: 490 }),
      turn({ vadHangoverMs: 500, endpointingMs: 500, responseMs: 35, leadingSilenceMs: null, voiceToVoiceMs: 535 }),
    ],
  })
  const families = parsePrometheusTextFormat(await m.text()) as { name: string; type: string; metrics: { count?: string; sum?: string }[] }[]
  const of = (name: string) => families.find((f) => f.name === name)
  const observed = (name: string) => ({ name, type: of(name)?.type, count: Number(of(name)?.metrics[0]?.count), sum: Number(of(name)?.metrics[0]?.sum) })
  expect(observed('voice_agent_vad_hangover_ms')).toEqual({ name: 'voice_agent_vad_hangover_ms', type: 'HISTOGRAM', count: 2, sum: 800 })
  expect(observed('voice_agent_response_ms')).toEqual({ name: 'voice_agent_response_ms', type: 'HISTOGRAM', count: 2, sum: 195 })
  expect(observed('voice_agent_leading_silence_ms')).toEqual({ name: 'voice_agent_leading_silence_ms', type: 'HISTOGRAM', count: 1, sum: 20 })
  expect(observed('voice_agent_endpointing_ms')).toEqual({ name: 'voice_agent_endpointing_ms', type: 'HISTOGRAM', count: 2, sum: 810 })
  expect(observed('voice_agent_voice_to_voice_ms')).toEqual({ name: 'voice_agent_voice_to_voice_ms', type: 'HISTOGRAM', count: 2, sum: 1025 })
  expect(observed('voice_agent_stt_final_ms')).toMatchObject({ count: 0 })
  m.stop()
})
