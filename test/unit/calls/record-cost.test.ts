// The call record's cost: models the call or its analysis used that have no price are named in
// cost.unpriced (the API, the export document, the CSV's costUnpriced), never counted as 0 silently.
import { expect, test } from 'bun:test'
import type { CallRow } from '../../../src/features/calls/index.ts'
import { withAnalysisCost } from '../../../src/features/calls/analysis/index.ts'
import { toCall } from '../../../src/features/calls/calls.service.ts'
import { csvLine, CSV_COLUMNS, exportDocument } from '../../../src/features/calls/records/export-document.ts'

const row = (cost: string): CallRow => ({
  id: 'call_1', workspace_id: 'ws_1', agent_id: 'ag_1', agent_name: 'Desk', phone_number_id: null, type: 'inbound',
  from_number: '+14155550100', to_number: '+14155550123', status: 'ended', outcome: 'completed', end_reason: 'caller_hangup', sip_call_id: null,
  variables: '{}', transcript: '[]', tool_calls: '[]', metrics: '{}', cost, recording_path: null, created_at: '2026-11-25T10:00:00.000Z',
  started_at: '2026-11-25T10:00:00.000Z', answered_at: '2026-11-25T10:00:01.000Z', ended_at: '2026-11-25T10:00:06.000Z', duration_sec: 5,
  outbound_job_id: null, outbound_contact_id: null, answered_by: null, node_id: null, test_draft: 'false', media: null,
})
// the names toCall gets from the database; these tests read the cost only
const NAMES = { memberEmails: new Map<string, string>(), numberLabels: new Map<string, string>(), agents: new Set<string>() }
const exported = (cost: string) => exportDocument(row(cost), { analysis: undefined, evaluations: [], labels: [], recordingUrl: null })
const csvCell = (line: string, column: (typeof CSV_COLUMNS)[number]) => line.trimEnd().split(',')[CSV_COLUMNS.indexOf(column)]

test('unpriced models are in the API record, the export document and the CSV; a fully priced call has none', () => {
  const unpriced = JSON.stringify({ total: 0.01, llm: 0, tts: 0, stt: 0.01, telephony: 0, unpriced: ['llama3.2', 'nova-2'] })
  expect(toCall(row(unpriced), 'http://x', NAMES).cost).toMatchObject({ total: 0.01, unpriced: ['llama3.2', 'nova-2'] })
  expect(exported(unpriced).cost).toEqual({ total: 0.01, llm: 0, tts: 0, stt: 0.01, telephony: 0, analysis: 0, unpriced: ['llama3.2', 'nova-2'] })
  expect(csvCell(csvLine(exported(unpriced)), 'costUnpriced')).toBe('"llama3.2;nova-2"')
  const priced = JSON.stringify({ total: 0.02, llm: 0.01, tts: 0, stt: 0.01, telephony: 0 })
  expect(exported(priced).cost).not.toHaveProperty('unpriced')
  expect(csvCell(csvLine(exported(priced)), 'costUnpriced')).toBe('""')
})

test("an analysis by a model with no price adds 0 and joins its name to the call's unpriced ones", () => {
  const call = JSON.stringify({ total: 0.01, llm: 0, tts: 0, stt: 0.01, telephony: 0, unpriced: ['nova-2'] })
  expect(withAnalysisCost(call, 0, ['llama3.2'])).toEqual({ total: 0.01, llm: 0, tts: 0, stt: 0.01, telephony: 0, analysis: 0, unpriced: ['llama3.2', 'nova-2'] })
  expect(withAnalysisCost(call, 0.002)).toEqual({ total: 0.012, llm: 0, tts: 0, stt: 0.01, telephony: 0, analysis: 0.002, unpriced: ['nova-2'] })
  expect(withAnalysisCost(JSON.stringify({ total: 0, llm: 0, tts: 0, stt: 0, telephony: 0 }), 0.002)).not.toHaveProperty('unpriced')
})
