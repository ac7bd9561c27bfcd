// The call record's metrics (issue 22): the spec's latencyP50/latencyP99 are numbers, so a call
// with no measured turn gives 0 with turns: [] (also for rows stored when it gave null), and each
// turn carries the parts the engine measures, which add up to its voiceToVoiceMs.
import { describe, expect, test } from 'bun:test'
import type { CallRow } from '../../../src/features/calls/index.ts'
import { csvLine, CSV_COLUMNS, exportDocument } from '../../../src/features/calls/records/export-document.ts'
import { toCall } from '../../../src/features/calls/calls.service.ts'
import { callMetrics } from '../../../src/features/calls/runtime/record.ts'
import type { SessionReport } from '../../../src/realtime/voice/session/index.ts'
import { summarizeTurns, type TurnLatency } from '../../../src/realtime/voice/turn/metrics.ts'

const engines = { model: '', ttsProvider: 'flite', sttProvider: 'pocketsphinx' }
// the names toCall gets from the database; these tests read metrics only
const NAMES = { memberEmails: new Map<string, string>(), numberLabels: new Map<string, string>(), agents: new Set<string>() }

function report(turns: TurnLatency[]): SessionReport {
  return {
    transcript: [],
    turns,
    latency: summarizeTurns(turns),
    usage: { llm: [], tts: [{ provider: 'flite', characters: 12, audioMs: 900 }], stt: [{ provider: 'pocketsphinx', audioMs: 2000 }] },
    endReason: 'caller_hangup',
    durationMs: 5000,
    agentAudioMs: 900,
  }
}

const row = (metrics: string): CallRow => ({
  id: 'call_1', workspace_id: 'ws_1', agent_id: 'ag_1', agent_name: 'Desk', phone_number_id: null, type: 'inbound',
  from_number: '+14155550100', to_number: '+14155550123', status: 'ended', outcome: 'completed', end_reason: 'caller_hangup', sip_call_id: null,
  variables: '{}', transcript: '[]', tool_calls: '[]', metrics, cost: '{"total":0}', recording_path: null, created_at: '2026-11-25T10:00:00.000Z',
  started_at: '2026-11-25T10:00:00.000Z', answered_at: '2026-11-25T10:00:01.000Z', ended_at: '2026-11-25T10:00:06.000Z', duration_sec: 5,
  outbound_job_id: null, outbound_contact_id: null, answered_by: null, node_id: null,
    test_draft: 'false', media: null,
})

const exported = (metrics: string) => exportDocument(row(metrics), { analysis: undefined, evaluations: [], labels: [], recordingUrl: null })
const csvCell = (line: string, column: (typeof CSV_COLUMNS)[number]) => line.trimEnd().split(',')[CSV_COLUMNS.indexOf(column)]

describe('call record metrics', () => {
  test('a call with no measured turn records and exports latencyP50 and latencyP99 as 0 with turns [], in JSON and CSV', () => {
    const m = callMetrics(report([]), engines)
    expect(m).toMatchObject({ latencyP50: 0, latencyP99: 0, turns: [] })
    const d = exported(JSON.stringify(m))
    expect(d.metrics).toMatchObject({ latencyP50: 0, latencyP99: 0, turns: [] })
    const line = csvLine(d)
    expect([csvCell(line, 'latencyP50'), csvCell(line, 'latencyP99')]).toEqual(['0', '0'])
    expect(toCall(row(JSON.stringify(m)), 'http://x', NAMES).metrics).toMatchObject({ latencyP50: 0, latencyP99: 0, turns: [] })
  })

  test('a record stored when such a call gave null reads back 0 in the API and the export; its old turns get null for the parts added since', () => {
    const old = JSON.stringify({
      totalTokens: 0, inputTokens: 0, outputTokens: 0, model: '', ttsProvider: 'flite', sttProvider: '', ttsDuration: 0, ttsCharacters: 0, sttDuration: 0,
      latencyP50: null, latencyP99: null, turns: [{ endpointingMs: 420, sttFinalMs: null, llmTtftMs: null, ttsTtfbMs: 30, voiceToVoiceMs: null }],
    })
    for (const metrics of [exported(old).metrics, toCall(row(old), 'http://x', NAMES).metrics!]) {
      expect(metrics.latencyP50).toBe(0)
      expect(metrics.latencyP99).toBe(0)
      expect(metrics.turns).toEqual([
        { vadHangoverMs: null, endpointingMs: 420, sttFinalMs: null, responseMs: null, llmTtftMs: null, ttsTtfbMs: 30, leadingSilenceMs: null, voiceToVoiceMs: null },
      ])
    }
    expect(csvCell(csvLine(exported(old)), 'latencyP50')).toBe('0')
  })

  test('a record with turns carries each part the engine measured, null where a stage did not run, and the parts add up to voiceToVoiceMs', () => {
    const turns: TurnLatency[] = [
      { vadHangoverMs: 300, endpointingMs: 310.04, sttFinalMs: 305, responseMs: 160, llmTtftMs: 90, ttsTtfbMs: 40, leadingSilenceMs: 20, voiceToVoiceMs: 490.04 },
      { vadHangoverMs: 500, endpointingMs: 500, responseMs: 35, ttsTtfbMs: 25, leadingSilenceMs: 0, voiceToVoiceMs: 535 },
    ]
    const m = callMetrics(report(turns), engines)
    expect(m.turns).toEqual([
      { vadHangoverMs: 300, endpointingMs: 310, sttFinalMs: 305, responseMs: 160, llmTtftMs: 90, ttsTtfbMs: 40, leadingSilenceMs: 20, voiceToVoiceMs: 490 },
      { vadHangoverMs: 500, endpointingMs: 500, sttFinalMs: null, responseMs: 35, llmTtftMs: null, ttsTtfbMs: 25, leadingSilenceMs: 0, voiceToVoiceMs: 535 },
    ])
    for (const t of m.turns) expect(t.endpointingMs! + t.responseMs! + t.leadingSilenceMs!).toBeCloseTo(t.voiceToVoiceMs!, 0)
    expect(m).toMatchObject({ latencyP50: 490, latencyP99: 535 })
    const d = exported(JSON.stringify(m))
    expect(d.metrics.turns).toEqual(m.turns)
    expect(toCall(row(JSON.stringify(m)), 'http://x', NAMES).metrics!.turns).toEqual(m.turns)
  })
})
