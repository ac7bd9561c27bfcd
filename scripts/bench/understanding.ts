// How well callers are understood on a phone line (the issue "Callers understood offline on a
// real phone line"). The understanding corpus (test/fixtures/understanding/utterances.json,
// audio made by understanding/generate.ts in voices that are not flite) is spoken into real calls
// to the offline appliance: SIP over 127.0.0.1 with PCMU or PCMA (the phone band, packet loss,
// noise at 10-20 dB SNR, SIPp's recording) and 16 kHz PCM over the media stream. From each
// call's record: the word error rate of the user transcript, the workflow's route against the
// one the words take when typed, whether a knowledge answer holds the phrase that answers; from
// /proc: the decoder's CPU per second of caller speech (the same calls on an appliance without
// STT are the baseline). --barge-in measures stops and false stops over a long welcome instead.
//   npm run bench:understanding [-- --voices a,b --conditions a,b --split tuning|heldout|all --limit N --concurrency N --json out.json --baseline <git-ref> --barge-in --cost-share 0.25]
import { symlinkSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { machineSlowdown } from '../../test/helpers/lag-probe.ts'
import { parseArgs } from './understanding/args.ts'
import { bargeTables, bargeTrials } from './understanding/bargein.ts'
import { Clips } from './understanding/cache.ts'
import { loadCorpus } from './understanding/corpus.ts'
import { ensureAudio } from './understanding/generate.ts'
import { HUMAN_TRANSCRIPT } from './understanding/human.ts'
import { measure, measureBargeIn, type Measurement } from './understanding/measure.ts'
import { humanUtterance, planTrials } from './understanding/plan.ts'
import { beforeAfter, figuresOf, headline, MEASURES, measureTable } from './understanding/report.ts'

const args = parseArgs(process.argv.slice(2))
const here = resolve(join(import.meta.dir, '../..'))
const log = (s: string) => console.log(s)
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ')

const slowdown = await machineSlowdown()
log(`bench:understanding ${new Date().toISOString()}: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), slowdown ${slowdown.toFixed(2)} against the development machine, load ${load()}`)
const gen = performance.now()
const audio = await ensureAudio({ log })
log(`audio: ${audio.dir} (${audio.made ? `made now in ${((performance.now() - gen) / 1000).toFixed(1)} s` : `made ${audio.manifest.generatedAt} in ${audio.manifest.seconds} s`})`)
const clips = new Clips(audio.dir)
const corpus = loadCorpus()
const human = humanUtterance(HUMAN_TRANSCRIPT)

/** A checkout of `ref` in a temporary folder, with this tree's node_modules. */
function checkout(ref: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'understanding-baseline-'))
  const add = Bun.spawnSync(['git', 'worktree', 'add', '--detach', dir, ref], { cwd: here, stderr: 'pipe' })
  if (add.exitCode !== 0) throw new Error(`git worktree add ${ref}: ${add.stderr.toString()}`)
  symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'))
  return { dir, remove: () => (Bun.spawnSync(['git', 'worktree', 'remove', '--force', dir], { cwd: here }), rmSync(dir, { recursive: true, force: true })) }
}

async function both<T>(run: (source: string) => Promise<T>): Promise<{ before?: T; after: T }> {
  if (!args.baseline) return { after: await run(here) }
  const tree = checkout(args.baseline)
  try {
    log(`\n## before: ${args.baseline} (${tree.dir})`)
    const before = await run(tree.dir)
    log(`\n## after: this tree (${here})`)
    return { before, after: await run(here) }
  } finally {
    tree.remove()
  }
}

if (args.bargeIn) {
  const trials = bargeTrials(corpus, args.voices, args.limit ?? 4, human)
  log(`barge-in: ${trials.length} calls over the welcome, ${args.concurrency} at a time`)
  const { before, after } = await both((source) => measureBargeIn(source, clips, trials, { concurrency: args.concurrency, log }))
  for (const [name, m] of Object.entries({ before, after })) {
    if (!m) continue
    const t = bargeTables(m.figures)
    log(`\n### barge-in, ${name} (${m.source}); the welcome is ${m.welcomeMs ?? '?'} ms at the wire\n\nStops (the caller talks 1.5 s into the welcome):\n\n${t.stops}\n\nFalse stops (backchannels and noise alone over the welcome):\n\n${t.falseStops}`)
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ args, load: load(), before: before && { ...before, results: undefined }, after: { ...after, results: undefined } }, null, 1))
} else {
  const trials = planTrials(corpus, { voices: args.voices, conditions: args.conditions, split: args.split, limit: args.limit }, human)
  log(`understanding: ${trials.length} calls (${args.voices.length} voices x ${args.conditions.length} conditions, split ${args.split}${args.limit ? `, at most ${args.limit} per cell` : ''}), ${args.concurrency} at a time; then ${Math.round(args.costShare * 100)} % of them again without STT for the decoding cost`)
  const { before, after } = await both((source) => measure(source, clips, trials, { concurrency: args.concurrency, costShare: args.costShare, log }))
  const print = (name: string, m: Measurement) => {
    const f = figuresOf(m.results)
    log(`\n### ${name} (${m.source}): ${f.calls} calls, ${f.failed} failed, ${m.wallSeconds} s; load ${load()} at the end`)
    if (Object.keys(m.problems).length) log(`the appliance logged: ${Object.entries(m.problems).map(([k, n]) => `${n} x ${k}`).join('; ')}`)
    for (const { key, title } of MEASURES) log(`\n${title}; each cell tuning / held-out:\n\n${measureTable(m.results, key, [...args.voices], args.conditions)}`)
    log(`\nKnowledge questions typed into the workflow test-run: ${m.typedAnswered ?? '–'} % answered (the text baseline)`)
    const c = m.cost
    log(`\nDecoding cost: ${c.decodeMsPerSpeechSecond ?? '–'} ms CPU per second of caller speech, ${c.decodeMsPerCallSecond ?? '–'} ms per call-second (appliance ${c.cpuMs} ms over ${c.callSeconds} call-seconds holding ${c.speechSeconds} s of speech; without STT ${c.baseMsPerCallSecond ?? '–'} ms per call-second)`)
    const heardHuman = m.results.filter((r) => r.voice === 'sipp-human')
    if (heardHuman.length) log(`\nSIPp's recording was heard as: ${heardHuman.map((r) => `${r.condition} "${r.heard ?? r.error}"`).join('; ')}`)
  }
  if (before) print('before', before)
  print(before ? 'after' : 'today', after)
  if (before) log(`\n### before -> after\n\n${beforeAfter(headline(before.results, before.cost, args.conditions), headline(after.results, after.cost, args.conditions))}`)
  if (args.json) writeFileSync(args.json, JSON.stringify({ args, load: load(), slowdown, before, after }, null, 1))
}
log(`\nload average at the end: ${load()}`)
process.exit(0)
