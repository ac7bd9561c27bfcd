import { existsSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { ConfigError } from './errors.ts'
import { configFilesProblem } from './files.ts'
import { rememberRenamedKeys, RENAMED_KEYS, withRenamedKeys } from './renamed.ts'
import { configProblem } from './validate.ts'

export { ConfigError } from './errors.ts'
export { copyRenamedKeys, RENAMED_KEYS, renamedKeyNotes } from './renamed.ts'
export { MEDIA_CODEC_NAMES, MEDIA_ENCRYPTIONS, mediaPacerProblem, type MediaCodecName, parseMediaCodecs, parseSrtpSuiteList, type MediaEncryptionSetting } from './media.ts'
export { type DigestAlgorithmName, parseCarrierSources, parseDigestAlgorithms } from './sip.ts'
export { LOG_LEVELS } from './validate.ts'
export { parseHostAddresses, parseIceServers, type IceServer } from './webrtc.ts'
export { callWorkerCount } from './workers.ts'
export { outboundUrlPolicy } from './outbound.ts'

/**
 * Every configuration key, its default and its meaning. docs/configuration.md's table is
 * generated from this list by hand; keep them in step.
 */
export const CONFIG_KEYS = {
  HTTP_HOST: { default: '0.0.0.0', doc: 'address the HTTP API listens on' },
  HTTP_PORT: { default: 3000, doc: 'HTTP API port (0 picks a free port)' },
  SIP_PORT: { default: 5060, doc: 'SIP port for UDP and TCP' },
  SIP_TLS_PORT: { default: 5061, doc: 'SIP over TLS port' },
  SIP_HOST: { default: '0.0.0.0', doc: 'address the SIP listeners bind to' },
  SIP_TLS_CERT_FILE: { default: '', doc: 'PEM certificate for SIP over TLS; TLS is off while empty' },
  SIP_TLS_KEY_FILE: { default: '', doc: 'PEM private key for SIP over TLS; set with SIP_TLS_CERT_FILE (both or neither)' },
  SIP_TLS_CA_FILE: { default: '', doc: 'PEM CA certificates trusted, besides the public roots, for TLS connections we open to trunks and PBXs (a PBX with a private or self-signed certificate)' },
  SIP_T1_MS: { default: 500, doc: 'SIP timer T1 (RFC 3261 round-trip estimate); timers A to K derive from it' },
  SIP_RING_TIMEOUT_MS: { default: 60_000, doc: 'an inbound call not answered within this time gets 480' },
  SIP_RETRY_AFTER_SEC: { default: 30, doc: 'Retry-After of the 503 sent to new calls while stopping' },
  CALLS_MAX: { default: 0, doc: 'calls of every kind this node carries at once, as `voice-agent capacity` measured it; more are refused (SIP 503, HTTP 503) before they are answered (0: no fixed ceiling)' },
  CAPACITY_LAG_MS: { default: 400, doc: 'while the event loop lags more than this (p99 over the last second) and a call is up, new calls are refused: the calls in progress keep their timing (0: off)' },
  CAPACITY_LATENESS_MS: { default: 0, doc: "while a call worker's media timers ran later than this in the last second and a call is up, new calls are refused (0: off)" },
  CAPACITY_STT_RTF_PERCENT: { default: 0, doc: 'while the offline STT (pocketsphinx) needs more than this percent of a second of decoding per second for the audio coming in, on its busiest decoder thread, and a call is up, new calls are refused; 100 or more means it falls behind (0: off; 80 keeps a margin)' },
  CAPACITY_STT_BACKLOG_MS: { default: 0, doc: "while one caller's audio waits longer than this for the offline STT decoder and a call is up, new calls are refused (0: off)" },
  CAPACITY_CPU_PERCENT: { default: 0, doc: "while this process uses more than this percent of the machine's cores and a call is up, new calls are refused (0: off)" },
  SIP_REFUSALS_PER_SEC: { default: 10, doc: 'refused SIP requests per second a source may cause before it is ignored (0: no limit)' },
  SIP_DIGEST_ALGORITHMS: { default: 'SHA-256,MD5', doc: 'digest algorithms offered to callers of numbers with credentials, strongest first (SHA-256, MD5)' },
  SIP_REFUSAL_BURST: { default: 50, doc: 'refused SIP requests a source may cause at once before the per-second limit applies' },
  SIP_MAX_CONNECTIONS: { default: 1024, doc: 'inbound SIP TCP and TLS connections open at once, all sources together (TLS handshakes in progress count)' },
  SIP_MAX_CONNECTIONS_PER_SOURCE: { default: 32, doc: 'inbound SIP TCP and TLS connections one source address (an IPv6 /64) may hold; more are refused (0: only SIP_MAX_CONNECTIONS applies)' },
  SIP_IDLE_TIMEOUT_MS: { default: 300_000, doc: 'a SIP TCP or TLS connection without a whole message (or CRLF keep-alive) either way for this long is closed; trickled bytes do not keep it open' },
  SIP_MESSAGE_TIMEOUT_MS: { default: 10_000, doc: 'a SIP message on TCP or TLS must be complete (headers and body) this long after its first byte, or the connection is closed' },
  SIP_TLS_HANDSHAKE_TIMEOUT_MS: { default: 10_000, doc: 'a SIP TLS connection that has not finished its handshake after this long is closed' },
  SIP_REGISTER_SYNC_MS: { default: 30_000, doc: 'how often the numbers table is checked for registrations to add, change or remove (numbers with sipRegister)' },
  SIP_REGISTER_EXPIRES_SEC: { default: 3600, doc: 'Expires asked for in REGISTER; the binding is refreshed at half the granted time' },
  RTP_PORT_MIN: { default: 10000, doc: 'lowest RTP port' },
  RTP_PORT_MAX: { default: 20000, doc: 'highest RTP port' },
  MEDIA_CODECS: { default: 'PCMU,PCMA,opus', doc: 'audio codecs we accept and offer, most preferred first (PCMU, PCMA, opus)' },
  MEDIA_ENCRYPTION: { default: 'none', doc: 'mediaEncryption a number gets when created without one: none (RTP), optional (SRTP offered with SDES keys, plain RTP accepted) or required (SRTP only; needs TLS signalling): docs/sip.md' },
  SRTP_SUITES: { default: 'AES_CM_128_HMAC_SHA1_80,AES_CM_128_HMAC_SHA1_32,AEAD_AES_128_GCM', doc: 'SRTP crypto suites we offer and accept with SDES, most preferred first (AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32, AEAD_AES_128_GCM)' },
  MEDIA_PTIME_MS: { default: 20, doc: 'packet time we offer and fall back to, in ms (10-60)' },
  MEDIA_PACER: { default: 'realtime', doc: 'who sends a SIP call\'s RTP at its instant: realtime (a pacer thread at SCHED_FIFO priority 10; an ordinary thread where the process may not ask, e.g. without CAP_SYS_NICE), thread (an ordinary pacer thread) or off (the media thread itself): docs/media.md' },
  MEDIA_PACER_LEAD_MS: { default: 6, doc: 'with a pacer, how far ahead of its instant a packet is prepared, in ms (1-40): what the media thread may be late by without the packet being late' },
  RTP_TIMEOUT_MS: { default: 30_000, doc: 'a call not on hold that receives no RTP for this long is ended with a BYE, outcome media_timeout (the issue\'s RTP_TIMEOUT_S, in ms like the other timers; 0: never)' },
  JITTER_MAX_MS: { default: 200, doc: 'upper bound of the adaptive jitter buffer delay, in ms' },
  CALL_WORKERS: { default: 'auto', doc: 'call worker threads carrying whole calls (media, voice session, recording): auto is one per core, 0 keeps every call on the main thread' },
  CALL_WORKER_IDLE_MS: { default: 60_000, doc: 'a call worker without calls for this long stops (and starts again with the next call, 0.2-0.4 s), at the latest with the engines\' idle release (ENGINE_IDLE_RELEASE_MS); logged. 0 keeps workers running, and the offline engines they share loaded' },
  RECORD_CALLS: { default: true, doc: 'write a stereo WAV per call to DATA_DIR/recordings' },
  CALL_MAX_DURATION_MS: { default: 1_800_000, doc: 'a call is ended (with the goodbye line) after this long' },
  CALL_SILENCE_TIMEOUT_MS: { default: 20_000, doc: 'silence from both sides before the agent reprompts once; the next such silence hangs up' },
  CALL_REPROMPT_MESSAGE: { default: 'Are you still there?', doc: 'said once after CALL_SILENCE_TIMEOUT_MS of silence' },
  CALL_GOODBYE_MESSAGE: { default: 'Thank you for calling. Goodbye.', doc: 'said at the maximum duration, and by end_call when the agent gave no line of its own' },
  CALL_FALLBACK_MESSAGE: { default: 'Sorry, I am having technical difficulties. Please call again later. Goodbye.', doc: 'said before hanging up when a provider fails for good' },
  CALL_DRAIN_MS: { default: 10_000, doc: 'on stop, how long calls in progress may go on while new calls get 503' },
  CARRIER_SIP_SOURCES: { default: '', doc: 'comma-separated addresses the carrier delivers calls for bought numbers from (none: bought numbers take no inbound SIP)' },
  TOOLS_ALLOW_PRIVATE: { default: false, doc: 'let the http_request tool reach loopback, private and link-local addresses' },
  DATA_DIR: { default: './data', doc: 'folder for the database, keys and recordings' },
  LOG_LEVEL: { default: 'info', doc: 'trace, debug, info, warn, error, fatal or silent' },
  LOG_CALL_DETAIL: { default: false, doc: 'add a log line per caller turn (its text and latencies) to the call start, answer, transfer and end lines' },
  PUBLIC_HOST: { default: '', doc: 'host name or address SIP peers reach this appliance at (Contact, Via, SDP); empty means the address of the interface of the default route, logged at start (behind NAT set the public address: docs/pbx.md)' },
  PUBLIC_HTTP_URL: { default: '', doc: 'URL the carrier and the readers of call exports reach this appliance\'s HTTP API at (voice routing of bought numbers, signed recording links); empty means http://PUBLIC_HOST:HTTP_PORT, with the port HTTP really listens on (HTTP_PORT=0 picks one) and an IPv6 address in brackets (127.0.0.1 while PUBLIC_HOST is unresolved and HTTP_HOST is a wildcard)' },
  RECORDING_URL_TTL_SEC: { default: 604_800, doc: 'how long a signed recording link of a call export works (default 7 days)' },
  RECORDING_RETENTION_DAYS: { default: 0, doc: 'recordings of calls that ended longer ago are deleted by a background sweep (0: kept forever)' },
  RECORDINGS_STORAGE: { default: 'local', doc: 'where finished recordings are kept: local (DATA_DIR/recordings) or s3 (uploaded when the call ends, then served from the bucket by any node)' },
  S3_ENDPOINT: { default: '', doc: 'S3-compatible endpoint URL (MinIO, Ceph, R2, ...); empty means AWS S3 of S3_REGION' },
  S3_BUCKET: { default: '', doc: 'bucket recordings are uploaded to (keys recordings/<callId>.wav)' },
  S3_REGION: { default: 'us-east-1', doc: 'region the S3 requests are signed for' },
  S3_ACCESS_KEY_ID: { default: '', doc: 'S3 access key id' },
  S3_SECRET_ACCESS_KEY: { default: '', doc: 'S3 secret access key' },
  CALL_RETENTION_DAYS: { default: 0, doc: 'call records (transcript, analysis, evaluations, labels) that ended longer ago are deleted by a background sweep (0: kept forever)' },
  WEBHOOK_RETRY_SCHEDULE: { default: '5s,5m,30m,2h,5h,10h,10h', doc: 'delays between webhook attempts (ms, s, m, h; ±20 % jitter); after the last one a delivery is failed' },
  WEBHOOK_CONCURRENCY: { default: 8, doc: 'webhook deliveries sent at once' },
  BACKGROUND_POLL_MS: { default: 1000, doc: 'how often the webhook sender and the call analysis look for due work' },
  METRICS_TOKEN: { default: '', doc: 'Bearer token GET /metrics requires; empty serves metrics to loopback clients only' },
  MAX_BODY_BYTES: { default: 1_048_576, doc: 'largest accepted JSON request body; larger gets 413' },
  RATE_LIMIT_PER_SEC: { default: 50, doc: 'sustained requests per second per API key (0 turns the limit off)' },
  AUTH_CACHE_MS: { default: 1000, doc: 'how long a resolved API key is reused; changes made on this node apply at once, on other nodes within this time (0 = off)' },
  RATE_LIMIT_BURST: { default: 100, doc: 'requests an API key may send at once before the sustained rate applies' },
  AUTH_FAILURE_BURST: { default: 20, doc: 'requests with a missing or bad API key a source address may send before it gets 429 (0: no limit)' },
  AUTH_FAILURES_PER_MIN: { default: 30, doc: 'sustained failed authentications per minute per source address once its burst is spent' },
  BILLING_ALLOW_MANUAL: { default: true, doc: 'allow `manual` payment methods (operator-approved records)' },
  WEBHOOK_ALLOW_HTTP: { default: false, doc: 'allow plain http:// agent webhook URLs' },
  WEBHOOK_ALLOW_PRIVATE: { default: false, doc: 'allow webhook URLs that resolve to loopback, private, link-local, documentation or reserved addresses, or to this host\'s own' },
  WEBHOOK_ALLOW_NETWORKS: { default: '', doc: 'comma-separated networks (10.20.0.0/16, 192.0.2.7, fd00:1::/64) webhook URLs may resolve to although the address rules refuse them; narrower than WEBHOOK_ALLOW_PRIVATE (unspecified and multicast stay refused)' },
  STRIPE_API_BASE: { default: 'https://api.stripe.com', doc: 'Stripe REST base URL' },
  STRIPE_SECRET_KEY: { default: '', doc: 'Stripe secret key; empty means Stripe payment methods are unavailable' },
  CARRIER_API_BASE: { default: 'https://api.twilio.com', doc: 'carrier (Twilio-compatible REST) base URL' },
  CARRIER_ACCOUNT_SID: { default: '', doc: 'carrier account SID (a workspace may set its own)' },
  CARRIER_AUTH_TOKEN: { default: '', doc: 'carrier auth token (a workspace may set its own)' },
  WORKFLOW_MAX_VISITS: { default: 10, doc: 'visits of one workflow node before a run ends with finalAction loop_limit (a workflow may set its own)' },
  VAD_ENGINE: { default: 'silero', doc: 'voice activity detection: silero (Silero v5, falls back to energy if the model is missing) or energy' },
  VAD_MODEL_FILE: { default: '', doc: 'Silero VAD v5 ONNX file to use instead of the one shipped inside the appliance (empty: the shipped one)' },
  VAD_START_THRESHOLD: { default: 0.5, doc: 'speech probability at or above which the caller starts speaking (0..1)' },
  VAD_STOP_THRESHOLD: { default: 0.35, doc: 'speech probability below which ongoing speech counts as silence (0..VAD_START_THRESHOLD)' },
  VAD_MIN_SPEECH_MS: { default: 100, doc: 'voiced audio needed before the caller counts as speaking' },
  VAD_MIN_SILENCE_MS: { default: 400, doc: 'silence that ends speech for a VAD outside a call; a call\'s turns end by its agent\'s endpointing' },
  ENDPOINTING_MAX_FINAL_WAIT_MS: { default: 1500, doc: 'after the silence, how long to wait for the STT final before using the interim transcript' },
  BARGE_IN_MIN_SPEECH_MS: { default: 300, doc: 'caller speech with real words needed before it interrupts the agent' },
  BARGE_IN_MAX_BACKCHANNEL_MS: { default: 700, doc: 'caller speech this long interrupts even before any transcript (backchannels are shorter)' },
  BARGE_IN_ONSET_DBFS: { default: -40, doc: 'a caller sound this loud (and 10 dB over the line\'s floor) for 40 ms holds the agent before the VAD calls it speech; let go if it proves a noise (0: only the VAD holds it)' },
  BACKCHANNEL_WORDS: { default: 'uh-huh,uh huh,oh,ah,aha,mhm,mm-hmm,mm hmm,mm,hmm,yeah,yep,yes,okay,ok,right,sure,i see,got it,alright', doc: 'comma-separated words and phrases that never interrupt the agent' },
  PROVIDER_TIMEOUT_MS: { default: 5000, doc: 'a cloud STT/LLM/TTS attempt fails when the provider sends nothing for this long' },
  PROVIDER_MAX_RETRIES: { default: 2, doc: 'retries of a failed cloud STT/LLM/TTS attempt (only before any output was used)' },
  PROVIDER_PROBE_MS: { default: 60_000, doc: 'how often the configured LLM, STT and TTS endpoints are probed (a TCP connect, no request) for /ready and agent readiness; also at start (0: at start only)' },
  STT_PROVIDER: { default: 'auto', doc: 'auto (deepgram if DEEPGRAM_API_KEY, else sherpa-onnx if STT_SHERPA_MODEL_DIR holds a usable model, else pocketsphinx if installed, else openai if OPENAI_API_KEY), deepgram, openai, sherpa-onnx, pocketsphinx or none' },
  STT_SHERPA_MODEL_DIR: { default: 'models/stt', doc: 'sherpa-onnx model folder (tokens.txt + encoder/decoder/joiner .onnx, or model.onnx), or a folder of such folders (the first usable one by name is the default; with several, up to 4 are loaded and a call gets the one whose folder name carries the agent language, e.g. -de-); see docs/voice.md for the model families that work' },
  STT_LANGUAGE: { default: 'en-US', doc: 'language of the callers (BCP 47)' },
  DEEPGRAM_BASE_URL: { default: 'wss://api.deepgram.com', doc: 'Deepgram live transcription base URL' },
  DEEPGRAM_API_KEY: { default: '', doc: 'Deepgram API key' },
  DEEPGRAM_MODEL: { default: 'nova-3', doc: 'Deepgram model' },
  LLM_PROVIDER: { default: 'auto', doc: 'the language model of calls, workflows and call analysis: auto (anthropic if LLM_ANTHROPIC_API_KEY, else openai if LLM_API_KEY or a non-OpenAI LLM_BASE_URL), openai (any OpenAI-compatible server), anthropic or none (workflow agents only)' },
  LLM_BASE_URL: { default: 'https://api.openai.com/v1', doc: 'OpenAI-compatible chat-completions base URL (OpenAI, Groq, vLLM, llama.cpp server, Ollama at http://127.0.0.1:11434/v1)' },
  LLM_API_KEY: { default: '', doc: 'key for LLM_BASE_URL (empty for local servers that need none)' },
  LLM_MODEL: { default: 'gpt-4o-mini', doc: 'model name sent to LLM_BASE_URL' },
  LLM_ANTHROPIC_BASE_URL: { default: 'https://api.anthropic.com', doc: 'Anthropic Messages API base URL (formerly ANTHROPIC_BASE_URL, still read)' },
  LLM_ANTHROPIC_API_KEY: { default: '', doc: 'Anthropic API key (formerly ANTHROPIC_API_KEY, still read)' },
  LLM_ANTHROPIC_MODEL: { default: 'claude-3-5-haiku-latest', doc: 'Anthropic model (formerly ANTHROPIC_MODEL, still read)' },
  LLM_WORKFLOW_MODEL: { default: '', doc: 'model name workflow intent edges and LLM nodes send, when it differs from the one calls use; empty: LLM_MODEL or LLM_ANTHROPIC_MODEL (formerly WORKFLOW_LLM_MODEL, still read)' },
  LLM_WORKFLOW_BASE_URL: { default: '', doc: 'an OpenAI-compatible server of workflows\' own; empty: workflows use the LLM of LLM_PROVIDER (formerly WORKFLOW_LLM_BASE_URL, still read)' },
  LLM_WORKFLOW_API_KEY: { default: '', doc: 'key for LLM_WORKFLOW_BASE_URL (formerly WORKFLOW_LLM_API_KEY, still read)' },
  LLM_WORKFLOW_TIMEOUT_MS: { default: 10_000, doc: 'how long a workflow LLM request may take, retries included (formerly WORKFLOW_LLM_TIMEOUT_MS, still read)' },
  TTS_PROVIDER: { default: 'flite', doc: 'flite (offline), elevenlabs or openai' },
  FLITE_VOICE: { default: 'kal16', doc: 'flite voice: kal16, slt, rms, awb (16 kHz) or kal (8 kHz)' },
  FLITE_WORKERS: { default: 2, doc: 'worker threads running flite syntheses in parallel (each about 70 MB while loaded; 2 keeps the reply tail under 20 ms at 100 talking calls on 2 cores)' },
  VOICE_PREVIEW_CONCURRENCY: { default: 1, doc: 'voice previews (POST /api/agents/{id}/voice-preview) one workspace may have in progress at once on this node; more get 429 (0: no limit)' },
  VOICE_PREVIEW_PER_MIN: { default: 20, doc: 'voice previews one workspace may ask for per minute on this node; more get 429 with Retry-After (0: no limit)' },
  ENGINE_IDLE_RELEASE_MS: {
    default: 60_000,
    doc: 'with no call for this long, the offline engines (flite workers, the pocketsphinx model, the Silero host processes) are unloaded to give their memory back, and logged; a new call loads them again while it rings (0.2-0.3 s). At start they are loaded once, to show they work, and unloaded until the first call. 0 keeps them loaded from the start',
  },
  ELEVENLABS_BASE_URL: { default: 'https://api.elevenlabs.io', doc: 'ElevenLabs API base URL' },
  ELEVENLABS_API_KEY: { default: '', doc: 'ElevenLabs API key' },
  ELEVENLABS_VOICE_ID: { default: '21m00Tcm4TlvDq8ikWAM', doc: 'ElevenLabs voice id' },
  ELEVENLABS_MODEL: { default: 'eleven_flash_v2_5', doc: 'ElevenLabs model id' },
  OPENAI_BASE_URL: { default: 'https://api.openai.com/v1', doc: 'OpenAI base URL for speech (TTS) and transcription (STT)' },
  OPENAI_API_KEY: { default: '', doc: 'OpenAI API key for speech and transcription' },
  OPENAI_TTS_MODEL: { default: 'gpt-4o-mini-tts', doc: 'OpenAI speech model' },
  OPENAI_TTS_VOICE: { default: 'alloy', doc: 'OpenAI speech voice' },
  OPENAI_STT_MODEL: { default: 'gpt-4o-transcribe', doc: 'OpenAI transcription model' },
  VOICE_PRICE_TABLE: { default: '', doc: 'JSON price table (USD) merged over the built-in list prices of the provider catalogue: {"llm":{"model":{"inputPerMTok":n,"outputPerMTok":n,"cachedInputPerMTok"?:n}},"tts":{"<provider id>":{"perMChars":n}|{"perMinute":n}},"stt":{"<provider id>":perMinute},"telephony":{"inbound":perMinute,"outbound":perMinute}}; speech is keyed by provider id (elevenlabs, deepgram, openai); a model with no price is named in a call\'s cost.unpriced and warned of at start' },
  OUTBOUND_MAX_CALLS: { default: 20, doc: 'live campaign calls this node places at once, across all outbound jobs (each job also keeps to its settings.maxConcurrent)' },
  OUTBOUND_JOB_MAX_BODY_BYTES: { default: 16_777_216, doc: 'largest request body of POST /api/outbound/jobs (up to 100,000 contacts, JSON or CSV) and of its CSV preview (POST /api/outbound/jobs/preview); larger gets 413' },
  KNOWLEDGE_MAX_DOCUMENT_BYTES: { default: 2_097_152, doc: 'largest knowledge-base document (UTF-8 bytes of its text; a larger upload gets 413)' },
  KNOWLEDGE_MAX_DOCUMENT_PASSAGES: { default: 150_000, doc: 'passages one knowledge-base document may make (an FAQ row is one; a section\'s paragraphs up to about 1,500 characters are one); more gets 422. Bounds the rows an upload writes whatever its bytes' },
  KNOWLEDGE_MAX_DOCUMENTS: { default: 1000, doc: 'knowledge-base documents a workspace may hold, over all its bases' },
  KNOWLEDGE_MAX_WORKSPACE_BYTES: { default: 104_857_600, doc: 'knowledge-base text a workspace may hold, over all its documents (UTF-8 bytes)' },
  KNOWLEDGE_MAX_BASES: { default: 100, doc: 'knowledge bases a workspace may have' },
  WEBRTC_HOST_ADDRESSES: { default: '', doc: 'comma-separated addresses offered to browsers as ICE host candidates for web calls; empty means every IPv4 interface address (the LAN, never loopback). Only host candidates unless WEBRTC_ICE_SERVERS is set, so nothing is asked of the internet (docs/webrtc.md)' },
  WEBRTC_ICE_SERVERS: { default: '', doc: 'JSON array of STUN/TURN servers for web calls behind NAT, as RTCConfiguration takes them: [{"urls":"turn:turn.example.com:3478","username":"u","credential":"p"}]; empty means none' },
  WEBRTC_ALLOW_NETWORKS: { default: '', doc: 'comma-separated networks (192.0.2.0/24, fd00:1::/64) whose addresses a browser\'s ICE candidates may have although the address rules refuse them (link-local, documentation, reserved, cloud metadata); public, private and loopback candidates need nothing, multicast and unspecified stay refused (docs/webrtc.md)' },
  WEBRTC_MAX_REMOTE_CANDIDATES: { default: 20, doc: 'ICE candidates one web call takes from the browser at most, offered and trickled together; the rest are ignored (each candidate costs connectivity checks sent to its address)' },
  WEBRTC_PORT_MIN: { default: 0, doc: 'lowest UDP port of web-call media (with WEBRTC_PORT_MAX); 0 means any free port' },
  WEBRTC_PORT_MAX: { default: 0, doc: 'highest UDP port of web-call media; 0 means any free port' },
  AGENT_TEST_CONCURRENCY: { default: 20, doc: 'agent test calls (POST /api/agents/{id}/tests/run) one run places at once (a suite of 20 runs in one wave); each is a real call and counts against capacity like any other' },
  WEB_CALLS_MAX: { default: 50, doc: 'web and media-stream calls this node carries at once; more get 503' },
  WEB_CALLS_SHARE: { default: 50, doc: 'percent of WEB_CALLS_MAX one workspace may hold at once (at least one place), so one workspace cannot take every place; more get 503' },
  WEB_CALL_CONNECT_MS: { default: 15_000, doc: 'a web call whose ICE and DTLS have not connected by then fails' },
  NODE_ID: { default: '', doc: 'name of this appliance node on its leases and calls; empty means the host name (SQLite) or the host name and a random suffix (PostgreSQL); nodes sharing one database each need their own' },
  DATABASE_URL: { default: '', doc: 'postgres://user:password@host:port/database to keep state in PostgreSQL (several nodes may share it); empty means SQLite in DATA_DIR' },
  NODE_LEASE_MS: { default: 15_000, doc: 'with DATABASE_URL: a node that has not renewed its presence for this long is lost; other nodes close its calls and take over its trunk registrations' },
  WEBHOOK_LEASE_MS: { default: 60_000, doc: 'a webhook send claimed by a node that died is retried (by any node) after this long; keep it above the 10 s send timeout' },
  CAMPAIGN_LEASE_MS: { default: 60_000, doc: 'a campaign contact being dialled by a node that died is closed and retried (by any node) after this long; live nodes renew it every third' },
  DATABASE_POOL_SIZE: { default: 10, doc: 'PostgreSQL connections this node keeps open at most (with DATABASE_URL)' },
} as const

type Keys = typeof CONFIG_KEYS
type Widen<T> = T extends number ? number : T extends boolean ? boolean : string
export type Config = { -readonly [K in keyof Keys]: Widen<Keys[K]['default']> }

/**
 * Reads an optional JSON config file, then environment variables; env wins. Then checks every
 * key (validate.ts) and the files the keys name (files.ts): a ConfigError names the first
 * problem's key. Reads files, writes none.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const file = env.CONFIG_FILE ?? (existsSync('appliance.config.json') ? 'appliance.config.json' : undefined)
  let fromFile: Record<string, unknown> = {}
  if (file) {
    try {
      fromFile = JSON.parse(readFileSync(file, 'utf8'))
    } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`)
    }
    for (const key of Object.keys(fromFile)) {
      if (!(key in CONFIG_KEYS) && !(key in RENAMED_KEYS)) throw new ConfigError(`unknown key ${key} in config file ${file}`)
    }
  }
  const renamedEnv = withRenamedKeys(env)
  const renamedFile = withRenamedKeys(fromFile)
  env = renamedEnv.values
  fromFile = renamedFile.values
  const out: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const raw = key in overrides ? (overrides as Record<string, unknown>)[key] : env[key] ?? fromFile[key]
    out[key] = raw === undefined ? spec.default : coerce(key, raw, spec.default)
  }
  const cfg = out as Config
  rememberRenamedKeys(cfg, [...renamedEnv.used, ...renamedFile.used])
  cfg.DATA_DIR = resolve(cfg.DATA_DIR)
  const problem = configProblem(cfg, availableParallelism()) ?? configFilesProblem(cfg)
  if (problem) throw new ConfigError(problem)
  return cfg
}

function coerce(key: string, raw: unknown, def: unknown): unknown {
  if (typeof def === 'number') {
    const n = typeof raw === 'number' ? raw : Number(String(raw).trim())
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`${key} must be a non-negative number, got ${String(raw)}`)
    return n
  }
  if (typeof def === 'boolean') {
    if (typeof raw === 'boolean') return raw
    const s = String(raw).trim().toLowerCase()
    if (['1', 'true', 'yes', 'on'].includes(s)) return true
    if (['0', 'false', 'no', 'off'].includes(s)) return false
    throw new ConfigError(`${key} must be true or false, got ${String(raw)}`)
  }
  return String(raw)
}
