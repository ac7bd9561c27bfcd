// check-config says valid exactly when serve would start: both read the configuration the one
// way (loadCheckedConfig), end with the same line naming the key and exit code 2, and serve
// creates nothing in DATA_DIR first (it used to open the database and write the admin key, then
// crash in the subsystem that read the key, printing source).
import { expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../helpers/tmp.ts'

const MAIN = join(import.meta.dir, '../../src/main.ts')

async function run(args: string[], env: Record<string, string>) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

// serve on free ports of loopback, so that only the configuration can stop it
const LOCAL = { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', SIP_HOST: '127.0.0.1', SIP_PORT: '0', SIP_TLS_PORT: '0', PUBLIC_HOST: '127.0.0.1', VAD_ENGINE: 'energy', STT_PROVIDER: 'none', LLM_PROVIDER: 'none' }

test.each([
  ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }, 'configuration error: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got verbose'],
  ['MEDIA_CODECS', { MEDIA_CODECS: 'G729' }, 'configuration error: MEDIA_CODECS: unknown codec "G729" (known: PCMU, PCMA, opus)'],
  ['SIP_TLS_CERT_FILE', { SIP_TLS_CERT_FILE: '/nonexistent.pem', SIP_TLS_KEY_FILE: '/nonexistent-key.pem' }, 'configuration error: SIP_TLS_CERT_FILE: cannot read /nonexistent.pem (ENOENT)'],
  ['ELEVENLABS_API_KEY', { TTS_PROVIDER: 'elevenlabs' }, 'configuration error: ELEVENLABS_API_KEY is required for TTS_PROVIDER=elevenlabs'],
  ['VOICE_PRICE_TABLE', { VOICE_PRICE_TABLE: '{"tts":{"elevenlabs-tts":{"perMChars":1}}}' }, 'configuration error: VOICE_PRICE_TABLE: tts.elevenlabs-tts: no TTS provider has that id; use one of flite, elevenlabs, openai'],
])('%s: check-config and serve both refuse %j with one line and exit code 2, and nothing is created', async (_, bad, line) => {
  const dataDir = join(tempDir('cli-config-'), 'data')
  const checked = await run(['check-config'], { ...LOCAL, ...bad, DATA_DIR: dataDir })
  expect(checked).toEqual({ code: 2, out: '', err: `${line}\n` })
  const served = await run([], { ...LOCAL, ...bad, DATA_DIR: dataDir })
  expect(served).toEqual({ code: 2, out: '', err: `${line}\n` })
  expect(existsSync(dataDir)).toBe(false)
})

test('an existing DATA_DIR is left as it was by a refused start: no database, lock, secret key or admin key', async () => {
  const dataDir = tempDir('cli-config-existing-')
  const served = await run([], { ...LOCAL, MEDIA_CODECS: 'PCMU,G729', DATA_DIR: dataDir })
  expect(served.code).toBe(2)
  expect(readdirSync(dataDir)).toEqual([])
})
