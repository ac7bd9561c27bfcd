// No code of src/ recognises a speech or language provider by its class (issue 26): what differs
// between providers is said by their registry entry (src/realtime/voice/registry/), so a provider added
// there is served everywhere without a branch to find and extend.
import { expect, test } from 'bun:test'
import { srcFiles } from '../helpers/src-files.ts'

/** The contracts of voice/{vad,stt,tts,llm}/contract.ts that a provider implements. */
const CONTRACTS = ['VadModel', 'Stt', 'Tts', 'Llm']

/** Classes implementing a provider contract, and the classes extending those. */
export function providerClasses(files: Map<string, string>): Set<string> {
  const found = new Set<string>()
  const declarations = [...files.values()].flatMap((text) => [...text.matchAll(/\bclass\s+(\w+)(?:<[^{]*?>)?(?:\s+extends\s+([\w.]+))?(?:\s+implements\s+([^{]+))?\s*\{/g)])
  for (const [, name, , implemented] of declarations) {
    if (implemented?.split(',').some((i) => CONTRACTS.includes(i.trim().replace(/<.*$/, '')))) found.add(name!)
  }
  for (let grew = true; grew; ) {
    grew = false
    for (const [, name, parent] of declarations) {
      if (parent && found.has(parent.split('.').pop()!) && !found.has(name!)) {
        found.add(name!)
        grew = true
      }
    }
  }
  return found
}

/** Each `x instanceof <provider class>` in the files, as `file: expression`. */
export function providerInstanceofs(files: Map<string, string>, classes: Set<string>): string[] {
  const hits: string[] = []
  for (const [file, text] of files) {
    for (const m of text.matchAll(/instanceof\s+(?:[\w$]+\.)*([\w$]+)/g)) if (classes.has(m[1]!)) hits.push(`${file}: ${m[0]}`)
  }
  return hits
}

test('no src file recognises a provider by instanceof', () => {
  const files = srcFiles()
  const classes = providerClasses(files)
  // the check knows the providers it guards
  expect([...classes]).toEqual(expect.arrayContaining(['SileroVad', 'EnergyVad', 'PocketsphinxStt', 'SherpaOnnxStt', 'FliteTts', 'OpenAiLlm']))
  expect(providerInstanceofs(files, classes)).toEqual([])
})

test('the check finds instanceof on a provider class, through a namespace or a subclass, and nothing else', () => {
  const files = new Map([
    ['voice/tts/kitten.ts', 'export class KittenTts implements Tts, Disposable {\n  readonly provider = "kitten"\n}\nexport class LoudKitten extends KittenTts {}'],
    ['voice/vad/webrtc.ts', 'export class WebRtcVad implements VadModel {}\nexport class VadError extends Error {}'],
    ['voice/engines.ts', 'const p = tts instanceof KittenTts ? 1 : 0\nif (v instanceof vad.WebRtcVad) {}\nif (x instanceof LoudKitten) {}\nif (e instanceof VadError) {}'],
  ])
  const classes = providerClasses(files)
  expect([...classes].sort()).toEqual(['KittenTts', 'LoudKitten', 'WebRtcVad'])
  expect(providerInstanceofs(files, classes)).toEqual([
    'voice/engines.ts: instanceof KittenTts',
    'voice/engines.ts: instanceof vad.WebRtcVad',
    'voice/engines.ts: instanceof LoudKitten',
  ])
})
