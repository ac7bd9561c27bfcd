// G.711 encode/decode throughput: ours (tables, file in -> file out) against sox doing the same
// conversion on the same file in the same run. Prints MB/s, times real time and the ratio.
//   bun run scripts/bench/media-g711.ts [minutes of audio, default 30]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeG711, encodeG711 } from '../../src/realtime/media/codec/index.ts'

const minutes = Number(process.argv[2] ?? 30)
const samples = minutes * 60 * 8000
const dir = mkdtempSync(join(tmpdir(), 'bench-g711-'))
const pcmPath = join(dir, 'in.s16')
const pcm = new Int16Array(samples)
let seed = 1
for (let i = 0; i < samples; i++) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  pcm[i] = Math.round(6000 * Math.sin(i * 0.3) + 3000 * Math.sin(i * 0.071) + ((seed / 0x7fffffff) - 0.5) * 4000)
}
writeFileSync(pcmPath, new Uint8Array(pcm.buffer))

function sox(args: string[]): number {
  const t0 = performance.now()
  const r = Bun.spawnSync(['sox', ...args])
  if (r.exitCode !== 0) throw new Error(`sox failed: ${r.stderr.toString()}`)
  return performance.now() - t0
}

function ours(fn: () => void): number {
  const t0 = performance.now()
  fn()
  return performance.now() - t0
}

const raw = ['-t', 'raw', '-r', '8000', '-c', '1']
const noDither = ['-D'] // sox dithers when it reduces bit depth; the codec comparison wants none
const results: { what: string; oursMs: number; soxMs: number }[] = []
const notes: string[] = []
for (const [law, soxEnc] of [['ulaw', 'mu-law'], ['alaw', 'a-law']] as const) {
  const outOurs = join(dir, `ours.${law}`)
  const outSox = join(dir, `sox.${law}`)
  // Best of 3 for each side, so a neighbour's burst on the shared machine counts less.
  let encOurs = Infinity
  let encSox = Infinity
  let decOurs = Infinity
  let decSox = Infinity
  for (let run = 0; run < 3; run++) {
    encOurs = Math.min(encOurs, ours(() => {
      const input = new Int16Array(readFileSync(pcmPath).buffer)
      writeFileSync(outOurs, encodeG711(law, input))
    }))
    encSox = Math.min(encSox, sox([...noDither, ...raw, '-e', 'signed', '-b', '16', pcmPath, ...raw, '-e', soxEnc, '-b', '8', outSox]))
    decOurs = Math.min(decOurs, ours(() => {
      const input = new Uint8Array(readFileSync(outOurs))
      writeFileSync(join(dir, 'back.ours'), new Uint8Array(decodeG711(law, input).buffer))
    }))
    decSox = Math.min(decSox, sox([...noDither, ...raw, '-e', soxEnc, '-b', '8', outSox, ...raw, '-e', 'signed', '-b', '16', join(dir, 'back.sox')]))
  }
  const a = readFileSync(outOurs)
  const b = readFileSync(outSox)
  let differ = 0
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++
  // Over all 65536 inputs sox differs from ITU-T G.191 on 510 (mu) / 1020 (A) values, in pairs
  // right next to decision levels: sox rounds before quantising where G.191 truncates.
  notes.push(`${law}: ${differ} of ${a.length} encoded bytes differ from sox (${((differ / a.length) * 100).toFixed(2)}%): inputs next to decision levels, where sox rounds and G.191 truncates`)
  results.push({ what: `${law} encode`, oursMs: encOurs, soxMs: encSox })
  results.push({ what: `${law} decode`, oursMs: decOurs, soxMs: decSox })
}
rmSync(dir, { recursive: true, force: true })

const audioSec = samples / 8000
console.log(`G.711 throughput on ${minutes} min of 8 kHz audio (${(samples * 2 / 1e6).toFixed(1)} MB PCM), file to file, best of 3`)
console.log('what            ours ms   sox ms   ours x realtime   sox x realtime   ours/sox speed')
for (const r of results) {
  console.log(
    `${r.what.padEnd(15)} ${r.oursMs.toFixed(0).padStart(7)} ${r.soxMs.toFixed(0).padStart(8)} ${(audioSec / (r.oursMs / 1000)).toFixed(0).padStart(17)} ${(audioSec / (r.soxMs / 1000)).toFixed(0).padStart(16)} ${(r.soxMs / r.oursMs).toFixed(2).padStart(16)}`,
  )
}
for (const n of notes) console.log(n)
