// The lists that shape `npm test`'s passes, in one place.

/**
 * The repository and service tests that run a second time against PostgreSQL (DATABASE_URL):
 * the HTTP API over every repository, the workers' and campaigns' API tests, calls placed and
 * taken over SIP. Tests that read the SQLite file itself, or test SQLite-only features (the
 * DATA_DIR lock, backup), are not here. The cluster tests (test/integration/cluster) run
 * PostgreSQL on their own in the first pass.
 */
export const POSTGRES_PASS = [
  'test/unit/db/dialects.test.ts',
  'test/integration/access.test.ts',
  'test/integration/agent-tests/cases-http.test.ts',
  'test/integration/agent-tests/run-restart.test.ts',
  'test/integration/agent-readiness.test.ts',
  'test/integration/agent-snapshot.test.ts',
  'test/integration/agents.test.ts',
  'test/integration/api-keys.test.ts',
  'test/integration/billing.test.ts',
  'test/integration/carrier.test.ts',
  'test/integration/errors.test.ts',
  'test/integration/fuzz.test.ts',
  'test/integration/sip-fuzz.test.ts',
  'test/integration/health.test.ts',
  'test/integration/hostile-input.test.ts',
  'test/integration/metrics.test.ts',
  'test/integration/pagination.test.ts',
  'test/integration/phone-numbers.test.ts',
  'test/integration/spec-shapes.test.ts',
  'test/integration/voice-preview.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/workspaces.test.ts',
  'test/integration/calls/workspace-limit.test.ts',
  'test/integration/calls/inbound-sip.test.ts',
  'test/integration/calls/number-ownership.test.ts',
  'test/integration/calls/outbound-sip.test.ts',
  'test/integration/calls/records-api.test.ts',
  'test/integration/calls/retention.test.ts',
  'test/integration/campaigns/campaign-webhooks.test.ts',
  'test/integration/campaigns/contacts-preview.test.ts',
  'test/integration/campaigns/jobs-api.test.ts',
  'test/integration/campaigns/tenant-boundary.test.ts',
  'test/integration/campaigns/time-zones.test.ts',
  'test/integration/knowledge/knowledge-api.test.ts',
  'test/integration/knowledge/retrieval-eval.test.ts',
  'test/integration/knowledge/trusted-answers.test.ts',
  'test/integration/knowledge/tenant-ranking.test.ts',
  'test/integration/webrtc/web-call.test.ts',
  'test/integration/webrtc/media-stream.test.ts',
]

/**
 * Tests that measure real-time pacing (the media clock, RTP timelines). They run in a `bun test`
 * process of their own: in the one process of the whole suite, the heap and threads that the
 * earlier files leave behind bring collector pauses that shift a 20 ms timeline.
 */
export const REAL_TIME_PASS = 'test/integration/media'

/**
 * Tests whose outcome could depend on the machine's speed: lag probes, barge-in, cold starts,
 * real-time calls, timeouts. They run a second time with a busy loop on every core (the busy
 * pass), so a test that measures the machine instead of the behaviour fails in every CI run,
 * not only on a slow laptop. A test that bounds time belongs here.
 */
export const BUSY_PASS = [
  'test/integration/webrtc/web-peer.test.ts',
  'test/integration/webrtc/web-call.test.ts',
  'test/integration/webrtc/media-stream.test.ts',
  'test/integration/knowledge/answer-call.test.ts',
  'test/integration/knowledge/llm-knowledge-call.test.ts',
  'test/integration/knowledge/indexing-stall.test.ts',
  'test/unit/knowledge/text.test.ts',
  'test/integration/hostile-input.test.ts',
  'test/integration/fuzz.test.ts',
  'test/integration/sip-fuzz.test.ts',
  'test/integration/voice/engine-idle-release.test.ts',
  'test/integration/voice/engine-idle-on-time.test.ts',
  'test/integration/voice/engines-at-start.test.ts',
  'test/integration/voice/session-cloud.test.ts',
  'test/integration/voice/silero-host.test.ts',
  'test/unit/voice/engines.test.ts',
  'test/unit/telephony/sip/transaction.test.ts',
  'test/integration/campaigns/window-sip.test.ts',
  'test/integration/calls/conversation-offline.test.ts',
  'test/integration/calls/workflow-call.test.ts',
  'test/integration/calls/srtp-baresip.test.ts',
  'test/integration/calls/srtp-rekey.test.ts',
  'test/integration/voice/stt-pocketsphinx-streaming.test.ts',
  'test/integration/voice/stt-pocketsphinx-shared.test.ts',
  'test/unit/voice/session/turn-timing.test.ts',
  // watchdogs: media silence, hold and session timers measured against real timers
  'test/integration/calls/media-watchdog.test.ts',
  'test/integration/calls/max-duration.test.ts',
  'test/integration/webrtc/web-call-failure.test.ts',
  'test/integration/sip/uas-calls.test.ts',
  'test/integration/agent-tests/run-sip.test.ts',
  'test/integration/agent-tests/templates-sip.test.ts',
  'test/integration/voice/barge-in-human.test.ts',
]
