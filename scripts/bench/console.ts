// Benchmark: the web console in headless Chromium (Debian's) against an in-process appliance.
// 1. First load of /console with an empty cache: bytes transferred and time to interactive (the
//    sign-in field on screen), against the same browser loading GET /health (a bare document).
// 2. A call page with a 30-minute stereo recording and 300 transcript lines: time to the first
//    waveform paint, against the same page for a 10-second recording.
//   bun run scripts/bench/console.ts [--runs 5]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { startAppliance } from '../../src/app/appliance.ts'
import { loadConfig } from '../../src/platform/config/index.ts'
import { newId } from '../../src/platform/ids.ts'
import { createLogger } from '../../src/platform/log.ts'

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(name)
  return i > 0 ? Number(process.argv[i + 1]) : def
}
const RUNS = arg('--runs', 5)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** A stereo 16 kHz WAV: a caller tone burst on the left, agent bursts on the right, alternating. */
function stereoWav(seconds: number): Uint8Array {
  const rate = 16000
  const frames = seconds * rate
  const out = Buffer.alloc(44 + frames * 4)
  out.write('RIFF', 0)
  out.writeUInt32LE(36 + frames * 4, 4)
  out.write('WAVEfmt ', 8)
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(1, 20)
  out.writeUInt16LE(2, 22)
  out.writeUInt32LE(rate, 24)
  out.writeUInt32LE(rate * 4, 28)
  out.writeUInt16LE(4, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36)
  out.writeUInt32LE(frames * 4, 40)
  for (let i = 0; i < frames; i++) {
    const second = Math.floor(i / rate)
    const v = Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / rate))
    out.writeInt16LE(second % 6 < 3 ? v : 0, 44 + i * 4)
    out.writeInt16LE(second % 6 >= 3 ? v : 0, 46 + i * 4)
  }
  return out
}

const dir = mkdtempSync(join(tmpdir(), 'bench-console-'))
const config = loadConfig({}, {
  HTTP_HOST: '127.0.0.1', HTTP_PORT: 0, SIP_HOST: '127.0.0.1', SIP_PORT: 0, SIP_TLS_PORT: 0, DATA_DIR: dir, LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_SEC: 0, STT_PROVIDER: 'none', LLM_PROVIDER: 'none', VAD_ENGINE: 'energy',
})
const appliance = await startAppliance(config, createLogger('silent'))
const key = readFileSync(join(dir, 'admin-api-key'), 'utf8').trim()
const sqlite = appliance.database.sqlite
const workspaceId = (sqlite.query('SELECT id FROM workspaces').get() as { id: string }).id

function seedCall(seconds: number, lines: number): string {
  const id = newId('call')
  const wav = join(dir, `${id}.wav`)
  writeFileSync(wav, stereoWav(seconds))
  const transcript = Array.from({ length: lines }, (_, i) => ({ role: i % 2 ? 'user' : 'agent', text: `Line ${i}: a sentence of ordinary length in a conversation.`, timestamp: (i * seconds) / lines }))
  const turns = Array.from({ length: Math.floor(lines / 2) }, (_, i) => ({ endpointingMs: 300 + (i % 7) * 10, sttFinalMs: 120, llmTtftMs: 400 + (i % 5) * 30, ttsTtfbMs: 90, voiceToVoiceMs: 900 + (i % 9) * 20 }))
  const metrics = { totalTokens: 0, inputTokens: 0, outputTokens: 0, model: '', ttsProvider: 'flite', sttProvider: '', ttsDuration: 0, ttsCharacters: 0, sttDuration: 0, latencyP50: 980, latencyP99: 1060, turns }
  const at = new Date().toISOString()
  sqlite.prepare(
    `INSERT INTO calls (id, workspace_id, agent_id, agent_name, phone_number_id, type, from_number, to_number, status, outcome, end_reason,
       transcript, metrics, cost, created_at, started_at, answered_at, ended_at, duration_sec, recording_path)
     VALUES (?, ?, 'agent_bench', 'Bench', 'num_bench', 'inbound', '+14155550100', '+14155550123', 'ended', 'completed', 'caller_hangup', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, workspaceId, JSON.stringify(transcript), JSON.stringify(metrics), JSON.stringify({ llm: 0, tts: 0, stt: 0, telephony: 0.01, total: 0.01 }), at, at, at, at, seconds, wav)
  return id
}

const longCall = seedCall(30 * 60, 300)
const shortCall = seedCall(10, 6)

const browser: Browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--mute-audio'] })

async function firstLoad(path: string, ready: string): Promise<{ ms: number; bytes: number }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const sizes: Promise<number>[] = []
  page.on('requestfinished', (r) => sizes.push(r.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)))
  await page.goto(`${appliance.url}${path}`)
  const ms = (await (await page.waitForFunction(ready, undefined, { polling: 'raf' })).jsonValue()) as number
  const bytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0)
  await context.close()
  return { ms, bytes }
}

async function waveformPaint(callId: string): Promise<number> {
  const context = await browser.newContext()
  await context.addInitScript(`sessionStorage.setItem('voice-agent-api-key', ${JSON.stringify(key)})`)
  const page = await context.newPage()
  await page.goto(`${appliance.url}/console#/calls/${callId}`)
  const painted = await page.waitForSelector('.wave[data-painted]', { timeout: 120_000 })
  const ms = Number(await painted.getAttribute('data-painted'))
  await context.close()
  return ms
}

const consoleLoads = []
const healthLoads = []
for (let i = 0; i < RUNS; i++) {
  consoleLoads.push(await firstLoad('/console', 'document.querySelector("input[name=apiKey]") && performance.now()'))
  healthLoads.push(await firstLoad('/health', 'document.readyState === "complete" && performance.now()'))
}
const longPaint = []
const shortPaint = []
for (let i = 0; i < RUNS; i++) {
  shortPaint.push(await waveformPaint(shortCall))
  longPaint.push(await waveformPaint(longCall))
}
await browser.close()
await appliance.stop()
rmSync(dir, { recursive: true, force: true })

const load = median(consoleLoads.map((l) => l.ms))
const base = median(healthLoads.map((l) => l.ms))
const bytes = median(consoleLoads.map((l) => l.bytes))
const long = median(longPaint)
const short = median(shortPaint)
console.log(`first load of /console (cold cache, ${RUNS} runs, median): ${(bytes / 1024).toFixed(1)} KiB transferred, interactive at ${load.toFixed(0)} ms; baseline GET /health ${base.toFixed(0)} ms; ratio ${(load / base).toFixed(1)}x`)
console.log(`call page, first waveform paint (${RUNS} runs, median): 30-minute recording + 300 lines ${long.toFixed(0)} ms; baseline 10-second recording ${short.toFixed(0)} ms; ratio ${(long / short).toFixed(1)}x`)
process.exit(0)
