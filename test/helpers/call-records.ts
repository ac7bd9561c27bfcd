// Stored calls for call-record tests, written straight into the appliance's database: rows as
// a finished call leaves them, with a real (mono) WAV file when a recording is asked for.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '../../src/platform/db/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { writeWav } from '../../src/realtime/voice/audio.ts'

export interface SeedCall {
  workspaceId: string
  agentId?: string | null
  agentName?: string
  phoneNumberId?: string | null
  type?: 'inbound' | 'outbound' | 'web' | 'stream'
  /** Default +14155550100 and +14155550123; a web call's are the member's user id and the agent id. */
  from?: string
  to?: string
  status?: 'ringing' | 'in_progress' | 'ended'
  outcome?: string
  createdAt?: string
  transcript?: { role: 'agent' | 'user'; text: string; timestamp: number }[]
  outboundJobId?: string | null
  /** Members replacing the stored metrics' (latencyP50, latencyP99, turns ...). */
  metrics?: Record<string, unknown>
  /** Writes a one-second WAV under dataDir/recordings. */
  recordingIn?: string
}

export async function seedCall(db: Db, s: SeedCall): Promise<string> {
  const id = newId('call')
  const created = s.createdAt ?? new Date().toISOString()
  let recording: string | null = null
  if (s.recordingIn) {
    mkdirSync(join(s.recordingIn, 'recordings'), { recursive: true })
    recording = join(s.recordingIn, 'recordings', `${id}.wav`)
    const samples = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin(i / 5)))
    writeFileSync(recording, writeWav({ samples, sampleRate: 16000 }))
  }
  const ended = (s.status ?? 'ended') === 'ended'
  await db
    .insertInto('calls')
    .values({
      id,
      workspace_id: s.workspaceId,
      agent_id: s.agentId === undefined ? 'agent_seed' : s.agentId,
      agent_name: s.agentName ?? 'Seed agent',
      phone_number_id: s.phoneNumberId ?? null,
      type: s.type ?? 'inbound',
      from_number: s.from ?? '+14155550100',
      to_number: s.to ?? '+14155550123',
      status: s.status ?? 'ended',
      outcome: ended ? ((s.outcome ?? 'completed') as never) : null,
      end_reason: ended ? 'caller_hangup' : null,
      sip_call_id: null,
      transcript: JSON.stringify(s.transcript ?? [{ role: 'agent', text: 'Hello, how can I help?', timestamp: 0.2 }, { role: 'user', text: 'I love your service, thanks!', timestamp: 3.1 }]),
      metrics: JSON.stringify({ totalTokens: 30, inputTokens: 20, outputTokens: 10, model: 'gpt-4o-mini', ttsProvider: 'flite', sttProvider: 'deepgram', ttsDuration: 1.5, ttsCharacters: 22, sttDuration: 2, latencyP50: 700, latencyP99: 900, turns: [], ...s.metrics }),
      cost: JSON.stringify({ llm: 0.001, tts: 0, stt: 0.0003, telephony: 0, total: 0.0013 }),
      recording_path: recording,
      created_at: created,
      started_at: created,
      answered_at: ended ? created : null,
      ended_at: ended ? new Date(Date.parse(created) + 60_000).toISOString() : null,
      duration_sec: ended ? 60 : 0,
      outbound_job_id: s.outboundJobId ?? null,
      outbound_contact_id: null,
      answered_by: null,
    })
    .execute()
  return id
}
