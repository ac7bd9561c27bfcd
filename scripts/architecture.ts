// The layers of src/: each unit (a folder, or a loose file) with its rank and what it is for.
// test/unit/layers.test.ts enforces the ranks; this script writes ARCHITECTURE.md from them and
// test/unit/architecture-doc.test.ts fails when that file is stale. After changing a unit:
//   bun run scripts/architecture.ts
import { join } from 'node:path'

export interface Unit {
  /** Relative to src/: a folder or a loose file. */
  path: string
  /** A file imports only units of a lower rank, or its own unit. */
  rank: number
  purpose: string
}

export const UNITS: readonly Unit[] = [
  { path: 'platform/ids.ts', rank: 0, purpose: 'Prefixed random ids (`ws_`, `call_`, ...).' },
  { path: 'platform/errors.ts', rank: 0, purpose: "The API's stable error codes and the error every layer throws with one." },
  { path: 'platform/data-dir.ts', rank: 0, purpose: "`DATA_DIR` and its files, readable by the appliance's own user only." },
  { path: 'platform/backoff.ts', rank: 0, purpose: 'Exponential backoff, the one rule for retrying work whose failure may pass.' },
  { path: 'platform/regex', rank: 0, purpose: 'Operator regexes refused by shape when they could stall the event loop; the text they run over, bounded.' },
  { path: 'platform/template.ts', rank: 0, purpose: 'The one `{{placeholder}}` filler of prompts, messages and workflow nodes.' },
  { path: 'platform/log.ts', rank: 1, purpose: 'The pino logger and the access line, written once per event-loop turn.' },
  { path: 'platform/schema', rank: 1, purpose: 'Request and response schemas (TypeBox), their validation errors, untrusted JSON read within bounds.' },
  { path: 'platform/csv', rank: 1, purpose: 'The one CSV writer and reader (RFC 4180, spreadsheet-safe cells).' },
  { path: 'platform/rate-limit.ts', rank: 1, purpose: 'Token buckets per key, kept in memory.' },
  { path: 'platform/net', rank: 2, purpose: 'Address classes, network lists, the guarded fetch, public URLs, SIP URIs and targets.' },
  { path: 'platform/config', rank: 3, purpose: 'Every configuration key with its default, read and checked once at start.' },
  { path: 'platform/secrets', rank: 4, purpose: 'The secret key and the box that encrypts stored secrets.' },
  { path: 'platform/embedded', rank: 4, purpose: 'What the compiled executable carries inside itself, and how code finds it.' },
  { path: 'platform/db', rank: 5, purpose: 'SQLite or PostgreSQL: connection, dialect, migrations, pagination, prepared reads.' },
  { path: 'platform/jobs', rank: 6, purpose: 'Row leases, pollers and node presence for background work.' },
  { path: 'platform/metrics', rank: 6, purpose: 'Prometheus metrics and `/metrics`.' },
  { path: 'realtime/srtp', rank: 9, purpose: 'SRTP and SRTCP (RFC 3711, 7714) keyed by SDES, on libcrypto.' },
  { path: 'realtime/telephony', rank: 10, purpose: 'The SIP user agent (transports, transactions, dialogs, digest auth, registrations) and SDP offer/answer.' },
  { path: 'realtime/media', rank: 11, purpose: 'The media engine: RTP/RTCP, codecs, jitter buffer, DTMF, recording, the clock and the pacer thread.' },
  { path: 'realtime/voice', rank: 12, purpose: 'VAD, STT, LLM and TTS engines, the provider registry, the voice session (turn-taking, barge-in).' },
  { path: 'realtime/webrtc', rank: 12, purpose: "The appliance's WebRTC peer (ICE host candidates, DTLS-SRTP, Opus) as a media link." },
  { path: 'features/api-keys', rank: 20, purpose: 'API keys and the principal a bearer key resolves to.' },
  { path: 'features/billing', rank: 20, purpose: 'Payment methods (manual records, Stripe).' },
  { path: 'features/carrier', rank: 20, purpose: "The carrier (Twilio's API): a workspace's credentials, numbers to buy, its signed requests." },
  { path: 'features/recordings', rank: 20, purpose: 'Where recordings are stored (local files or S3), their upload and orphans.' },
  { path: 'features/webhooks', rank: 20, purpose: 'Signed post-call events from a durable outbox, secrets, deliveries.' },
  { path: 'features/console', rank: 20, purpose: 'The web console at `/console` and its files.' },
  { path: 'features/providers', rank: 20, purpose: "`GET /api/providers`: the provider registry's catalogue and what this appliance serves." },
  { path: 'features/knowledge', rank: 20, purpose: 'Knowledge bases: documents, passages and their full-text search.' },
  { path: 'features/workspaces', rank: 21, purpose: 'Workspaces, members and roles.' },
  { path: 'features/agents', rank: 22, purpose: 'Agents, their settings snapshot and readiness.' },
  { path: 'features/numbers', rank: 23, purpose: 'Phone numbers, their trunks and the agent that answers them.' },
  { path: 'features/workflows', rank: 23, purpose: "Agent workflows: the graph model, validation, the engine and its call driver." },
  { path: 'features/do-not-call', rank: 24, purpose: 'The do-not-call list and opt-outs.' },
  { path: 'features/calls', rank: 25, purpose: 'The call runtime, call workers, the conversation, call records (ledger, export, analysis).' },
  { path: 'features/campaigns', rank: 26, purpose: 'Outbound campaigns: jobs, schedules, calling windows, retries, the dispatcher, AMD.' },
  { path: 'features/web-calls', rank: 26, purpose: 'Calls without SIP: browser calls over WebRTC and the media-stream WebSocket.' },
  { path: 'features/agent-tests', rank: 26, purpose: "Agent test suites: cases, generated cases, the built-in test phone's real SIP calls, runs and their judging." },
  { path: 'features/wiring.ts', rank: 27, purpose: 'What features ask of each other, wired in one place so neither imports the other.' },
  { path: 'http', rank: 30, purpose: 'The API edge: the app, auth, body limits, unknown fields, errors, OpenAPI.' },
  { path: 'app/startup', rank: 40, purpose: 'What the appliance checks before and while it starts: config, database, ports, address, prices.' },
  { path: 'app/background', rank: 41, purpose: 'Background work: analysis, webhooks, retention, campaigns.' },
  { path: 'app/cluster', rank: 41, purpose: "Nodes sharing one database: presence, lost nodes' calls, change notifications." },
  { path: 'app/telephony.ts', rank: 41, purpose: 'The media engine and the SIP side as running subsystems.' },
  { path: 'app/http.ts', rank: 41, purpose: 'The HTTP API as a running subsystem.' },
  { path: 'app/cli', rank: 42, purpose: "The executable's commands besides serving (backup, restore, keys, health...)." },
  { path: 'app/appliance.ts', rank: 43, purpose: 'The composition root: starts the subsystems in order and stops them in reverse.' },
  { path: 'main.ts', rank: 50, purpose: 'The entry point, and that of the helper processes started from the executable.' },
]

export const RANKS: Readonly<Record<string, number>> = Object.fromEntries(UNITS.map((u) => [u.path, u.rank]))
export const HTTP_RANK = RANKS.http!

/** The layer a unit belongs to: its first path segment (`main.ts` is the app's). */
export const layerOf = (path: string) => (path === 'main.ts' ? 'app' : path.split('/')[0]!)

const LAYER_PURPOSE: Record<string, string> = {
  platform: 'What any appliance needs, with no product in it',
  realtime: 'The call stack: signalling, media, voice; no database, no HTTP',
  features: 'The product, a folder per capability with `index.ts` as its face; its routes in `*.http.ts`',
  http: 'The API edge; with every `*.http.ts` of the features it forms the HTTP layer',
  app: 'The composition root: builds the features and runs the subsystems',
}

/** Layers in the order of their units' ranks. */
export function layers(units: readonly Unit[] = UNITS): { name: string; units: Unit[] }[] {
  const out: { name: string; units: Unit[] }[] = []
  for (const u of [...units].sort((a, b) => a.rank - b.rank)) {
    const name = layerOf(u.path)
    if (out.at(-1)?.name !== name) out.push({ name, units: [] })
    out.at(-1)!.units.push(u)
  }
  return out
}

const CALL_FLOW = `An inbound SIP call, from the wire to its record (the unit of each step in brackets):

1. [realtime/telephony] The user agent (\`src/realtime/telephony/sip/user-agent.ts\`) reads the INVITE
   from a transport, matches or opens its transaction, and checks the dialled number against the
   directory the calls feature supplies (\`src/features/calls/directory.ts\`, over the numbers table).
   A call it refuses ends here with its SIP status; otherwise it emits the call.
2. [features/calls] The call runtime (\`src/features/calls/runtime/\`) takes the call: it reads the
   number's agent and its snapshot (features/agents), places the call's audio on this thread or a
   call worker (\`src/features/calls/workers/\`), answers the SDP offer (realtime/telephony's
   \`sdp/\`) on the placement's RTP port, and opens the call row through the ledger
   (\`src/features/calls/records/ledger.ts\`, the only writer of \`calls\`).
3. [realtime/media] Where the call is placed, its RTP port and \`CallMedia\` decode, de-jitter and
   resample the caller's audio, record both sides, and pace the agent's packets out (SRTP from
   realtime/srtp when the offer asked for it).
4. [realtime/voice] The voice session (\`src/realtime/voice/session/\`) hears the frames (VAD, STT),
   decides turns and barge-in, and asks the brain for a reply that TTS speaks into \`CallMedia\`.
5. [features/calls, features/workflows, features/knowledge] The conversation
   (\`src/features/calls/conversation/\`) supplies the brain: the agent's workflow engine or the LLM,
   with its tools (knowledge search, transfer, hang-up). Across a worker boundary its requests
   to the main thread go as messages (\`src/features/calls/workers/protocol.ts\`).
6. [features/calls] When the call ends, the live call writes its transcript, metrics and cost
   through the ledger's \`finaliseCall\`, which in the same transaction queues the post-call
   analysis and, when the agent has a webhook URL, the event in the outbox (features/webhooks);
   with S3 storage the recording goes to the uploader (features/recordings).
7. [app] \`src/app/background/\` runs those queues; \`src/http/\` with \`src/features/calls/calls.http.ts\`
   serves the call and its recording to the API and the console.

An outbound call (\`POST /api/calls\`, a campaign's dial) starts at the runtime, which dials
through the user agent; a web call (features/web-calls) joins at step 2 with a WebRTC link
(realtime/webrtc) in place of RTP.`

/** ARCHITECTURE.md as the ranks and purposes above describe it. */
export function architectureMarkdown(units: readonly Unit[] = UNITS): string {
  const parts = [
    '# Architecture',
    '',
    '<!-- Generated by `bun run scripts/architecture.ts` from the ranks test/unit/layers.test.ts enforces; edit scripts/architecture.ts, not this file. -->',
    '',
    '`src/` is five layers. A file imports only units of a lower rank, or its own unit; nothing imports',
    'a layer above it (`test/unit/layers.test.ts`). The HTTP layer is `src/http/` and every feature\'s',
    '`*.http.ts`: only the HTTP layer and the composition root import routes, and one feature\'s routes',
    "never import another's. A `*.table.ts` is a database schema: its types may be read from any layer.",
    'Within features, the ranks order the capabilities: a feature uses only those ranked below it.',
    '',
    '## The layers, lowest first',
    '',
  ]
  for (const layer of layers(units)) {
    const ranks = layer.units.map((u) => u.rank)
    const span = Math.min(...ranks) === Math.max(...ranks) ? `rank ${ranks[0]}` : `ranks ${Math.min(...ranks)}-${Math.max(...ranks)}`
    parts.push(`### ${layer.name} (${span})`, '', `${LAYER_PURPOSE[layer.name] ?? ''}.`, '', '| rank | unit | purpose |', '|---:|---|---|')
    for (const u of layer.units) parts.push(`| ${u.rank} | \`src/${u.path}\` | ${u.purpose} |`)
    parts.push('')
  }
  parts.push('## How a call flows through them', '', CALL_FLOW, '')
  return parts.join('\n')
}

export const ARCHITECTURE_FILE = join(import.meta.dir, '..', 'ARCHITECTURE.md')

if (import.meta.main) {
  await Bun.write(ARCHITECTURE_FILE, architectureMarkdown())
  console.log(`wrote ARCHITECTURE.md: ${UNITS.length} units in ${layers().length} layers`)
}
