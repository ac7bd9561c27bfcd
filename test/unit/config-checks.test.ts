// The settings a subsystem used to check only when it started (pino, the media engine, the SIP
// listener, the call workers, the voice engines) are refused when the configuration is read, by
// the same path check-config and serve take, each with a message that begins with its key.
import { describe, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../src/platform/config/index.ts'
import { callWorkersProblem } from '../../src/platform/config/workers.ts'
import { loadCheckedConfig } from '../../src/app/startup/index.ts'
import { tempDir } from '../helpers/tmp.ts'

function refusal(load: () => unknown): ConfigError {
  try {
    load()
  } catch (err) {
    if (err instanceof ConfigError) return err
    throw err
  }
  throw new Error('the configuration was accepted')
}

describe('every key is checked when the configuration loads', () => {
  test.each([
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose'],
    ['MEDIA_CODECS', { MEDIA_CODECS: 'G729' }, 'MEDIA_CODECS: unknown codec "G729" (known: PCMU, PCMA, opus)'],
    ['MEDIA_CODECS', { MEDIA_CODECS: ' , ' }, 'MEDIA_CODECS: the codec list is empty'],
    ['SIP_DIGEST_ALGORITHMS', { SIP_DIGEST_ALGORITHMS: 'SHA-256,SHA-512' }, 'SIP_DIGEST_ALGORITHMS: unknown algorithm SHA-512'],
    ['SIP_DIGEST_ALGORITHMS', { SIP_DIGEST_ALGORITHMS: ',' }, 'SIP_DIGEST_ALGORITHMS must name at least one algorithm'],
    ['SIP_T1_MS', { SIP_T1_MS: '0' }, 'SIP_T1_MS must be at least 1, got 0'],
    ['SIP_MAX_CONNECTIONS', { SIP_MAX_CONNECTIONS: '0' }, 'SIP_MAX_CONNECTIONS must be at least 1'],
    ['SIP_IDLE_TIMEOUT_MS', { SIP_IDLE_TIMEOUT_MS: '0' }, 'SIP_IDLE_TIMEOUT_MS must be at least 1'],
    ['SIP_MESSAGE_TIMEOUT_MS', { SIP_MESSAGE_TIMEOUT_MS: '0' }, 'SIP_MESSAGE_TIMEOUT_MS must be at least 1'],
    ['SIP_TLS_HANDSHAKE_TIMEOUT_MS', { SIP_TLS_HANDSHAKE_TIMEOUT_MS: '0' }, 'SIP_TLS_HANDSHAKE_TIMEOUT_MS must be at least 1'],
    ['SIP_TLS_KEY_FILE', { SIP_TLS_CERT_FILE: '/nonexistent.pem' }, 'SIP_TLS_KEY_FILE is empty while SIP_TLS_CERT_FILE is set'],
    ['SIP_TLS_CERT_FILE', { SIP_TLS_KEY_FILE: '/nonexistent.pem' }, 'SIP_TLS_CERT_FILE is empty while SIP_TLS_KEY_FILE is set'],
    ['CARRIER_SIP_SOURCES', { CARRIER_SIP_SOURCES: '192.0.2.1, sip.carrier.example' }, 'CARRIER_SIP_SOURCES: "sip.carrier.example" is not an IP address'],
    ['CALL_WORKERS', { CALL_WORKERS: 'two' }, 'CALL_WORKERS must be auto or a whole number 0..256, got two'],
    ['RTP_PORT_MIN-RTP_PORT_MAX', { RTP_PORT_MIN: '10000', RTP_PORT_MAX: '10003', CALL_WORKERS: '3' }, 'holds 2 RTP port pairs, fewer than the 3 call workers of CALL_WORKERS=3'],
    ['LLM_BASE_URL', { LLM_BASE_URL: 'localhost:11434/v1' }, 'LLM_BASE_URL must be a URL (http, https) with a host, got "localhost:11434/v1"'],
    ['DEEPGRAM_BASE_URL', { DEEPGRAM_BASE_URL: 'ftp://deepgram.example' }, 'DEEPGRAM_BASE_URL must be a URL (ws, wss, http, https)'],
    ['PUBLIC_HTTP_URL', { PUBLIC_HTTP_URL: 'voice.example.com' }, 'PUBLIC_HTTP_URL must be a URL (http, https)'],
    ['LLM_WORKFLOW_BASE_URL', { LLM_WORKFLOW_BASE_URL: 'http://' }, 'LLM_WORKFLOW_BASE_URL must be a URL'],
  ])('%s: %j is refused', (key, env, message) => {
    const err = refusal(() => loadConfig(env))
    expect(err.message).toContain(message)
    expect(err.message.startsWith(key)).toBe(true)
  })

  test('the values those keys take are accepted: a named codec list, both TLS files, carrier addresses, http and ws URLs', () => {
    const cfg = loadConfig({
      LOG_LEVEL: 'debug', MEDIA_CODECS: 'opus, pcmu', SIP_DIGEST_ALGORITHMS: 'md5', CARRIER_SIP_SOURCES: '192.0.2.1,2001:db8::7', CALL_WORKERS: '0',
      DEEPGRAM_BASE_URL: 'http://127.0.0.1:9/', PUBLIC_HTTP_URL: 'https://voice.example.com', LLM_WORKFLOW_BASE_URL: '',
    })
    expect(cfg.MEDIA_CODECS).toBe('opus, pcmu')
  })

  test('CALL_WORKERS=auto needs a port pair for each core', () => {
    const range = { RTP_PORT_MIN: 10000, RTP_PORT_MAX: 10007 }
    expect(callWorkersProblem({ CALL_WORKERS: 'auto', ...range }, 4)).toBeUndefined()
    expect(callWorkersProblem({ CALL_WORKERS: 'auto', ...range }, 5)).toStartWith('RTP_PORT_MIN-RTP_PORT_MAX (10000-10007) holds 4 RTP port pairs, fewer than the 5 call workers of CALL_WORKERS=auto')
    expect(callWorkersProblem({ CALL_WORKERS: '0', RTP_PORT_MIN: 10000, RTP_PORT_MAX: 10001 }, 64)).toBeUndefined()
  })
})

describe('the files the configuration names are read when it loads', () => {
  const dir = tempDir('config-files-')
  const pair = (name: string) => {
    const cert = join(dir, `${name}-cert.pem`)
    const key = join(dir, `${name}-key.pem`)
    const gen = Bun.spawnSync(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-keyout', key, '-out', cert])
    if (gen.exitCode !== 0) throw new Error(gen.stderr.toString())
    return { cert, key }
  }
  const a = pair('a')
  const b = pair('b')
  const garbage = join(dir, 'garbage.pem')
  writeFileSync(garbage, 'not a PEM file\n')
  const tls = (cert: string, key: string, ca = '') => () => loadConfig({ SIP_TLS_CERT_FILE: cert, SIP_TLS_KEY_FILE: key, SIP_TLS_CA_FILE: ca })

  test('a certificate and its key, and a CA file, are accepted', () => {
    expect(tls(a.cert, a.key, b.cert)).not.toThrow()
  })

  test.each([
    ['a missing certificate', () => tls('/nonexistent.pem', a.key), 'SIP_TLS_CERT_FILE: cannot read /nonexistent.pem (ENOENT)'],
    ['a missing key', () => tls(a.cert, join(dir, 'none.pem')), `SIP_TLS_KEY_FILE: cannot read ${join(dir, 'none.pem')} (ENOENT)`],
    ['a certificate file without a certificate', () => tls(a.key, a.key), `SIP_TLS_CERT_FILE: ${a.key} holds no PEM certificate`],
    ['a key file without a key', () => tls(a.cert, garbage), `SIP_TLS_KEY_FILE: ${garbage} holds no PEM private key`],
    ['the key of another certificate', () => tls(a.cert, b.key), `SIP_TLS_KEY_FILE: the key in ${b.key} is not the key of the certificate in SIP_TLS_CERT_FILE ${a.cert}`],
    ['a CA file without a certificate', () => tls('', '', garbage), `SIP_TLS_CA_FILE: ${garbage} holds no PEM CA certificate`],
    ['a missing CA file', () => tls('', '', '/nonexistent-ca.pem'), 'SIP_TLS_CA_FILE: cannot read /nonexistent-ca.pem (ENOENT)'],
  ])('%s is refused naming the key', (_, load, message) => {
    expect(refusal(load()).message).toBe(message)
  })

  test('DATA_DIR must be a folder, or creatable below the folders that exist', () => {
    expect(refusal(() => loadConfig({ DATA_DIR: garbage })).message).toBe(`DATA_DIR: ${garbage} is not a folder`)
    expect(refusal(() => loadConfig({ DATA_DIR: join(garbage, 'data') })).message).toBe(`DATA_DIR: ${garbage} is not a folder`)
    expect(loadConfig({ DATA_DIR: join(dir, 'not-yet', 'data') }).DATA_DIR).toBe(join(dir, 'not-yet', 'data'))
  })

  test('a DATA_DIR below a folder this user may not write to is refused (as root every folder is writable)', () => {
    const locked = join(dir, 'locked')
    mkdirSync(locked)
    chmodSync(locked, 0o500)
    const load = () => loadConfig({ DATA_DIR: join(locked, 'data') })
    if (process.getuid?.() === 0) expect(load).not.toThrow()
    else expect(refusal(load).message).toBe(`DATA_DIR: ${join(locked, 'data')} does not exist and cannot be created: ${locked} is not writable by this user`)
  })
})

describe('the voice keys are checked with the rest, before any engine loads', () => {
  const offline = { VAD_ENGINE: 'energy', STT_PROVIDER: 'none', LLM_PROVIDER: 'none' }
  test.each([
    ['TTS_PROVIDER', { TTS_PROVIDER: 'say' }, 'TTS_PROVIDER must be one of flite, elevenlabs, openai, got say'],
    ['STT_PROVIDER', { STT_PROVIDER: 'whisper' }, 'STT_PROVIDER must be one of auto,'],
    ['ELEVENLABS_API_KEY', { TTS_PROVIDER: 'elevenlabs' }, 'ELEVENLABS_API_KEY is required for TTS_PROVIDER=elevenlabs'],
    ['LLM_ANTHROPIC_API_KEY', { LLM_PROVIDER: 'anthropic' }, 'LLM_ANTHROPIC_API_KEY is required for LLM_PROVIDER=anthropic'],
    ['DEEPGRAM_API_KEY', { STT_PROVIDER: 'deepgram' }, 'DEEPGRAM_API_KEY is required for STT_PROVIDER=deepgram'],
    ['FLITE_VOICE', { FLITE_VOICE: 'bob' }, 'FLITE_VOICE must be one of kal16, slt, rms, awb, kal, got bob'],
    ['STT_SHERPA_MODEL_DIR', { STT_PROVIDER: 'sherpa-onnx', STT_SHERPA_MODEL_DIR: '/nonexistent/models' }, 'STT_SHERPA_MODEL_DIR: no usable sherpa-onnx model in /nonexistent/models'],
    ['VOICE_PRICE_TABLE', { VOICE_PRICE_TABLE: '{' }, 'VOICE_PRICE_TABLE: price table is not JSON'],
  ])('%s: %j is refused', async (key, env, message) => {
    const err = await loadCheckedConfig({ ...offline, ...env }).then(
      () => new Error('the configuration was accepted'),
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(ConfigError)
    expect(err.message).toContain(message)
    expect(err.message.startsWith(key)).toBe(true)
  })

  test('the offline default and a cloud provider with its key pass', async () => {
    expect((await loadCheckedConfig(offline)).TTS_PROVIDER).toBe('flite')
    expect((await loadCheckedConfig({ ...offline, TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'k', STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k' })).TTS_PROVIDER).toBe('elevenlabs')
  })
})
