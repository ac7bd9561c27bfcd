// Reads the JUnit XML that `bun test --reporter=junit` writes. The console output cannot say which
// file a failure belongs to: bun repeats every failure in a recap after the last file, so a
// reader of the console attributes the recap to whichever file ran last.

export interface JunitCase {
  file: string
  name: string
  failed: boolean
  skipped: boolean
}

export interface JunitReport {
  cases: JunitCase[]
  /** Wall time of each test file, in ms. */
  files: { file: string; ms: number }[]
}

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" }

function decode(text: string): string {
  return text.replace(/&(#x?[0-9a-fA-F]+|\w+);/g, (whole, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16))
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)))
    return ENTITIES[e] ?? whole
  })
}

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of text.matchAll(/([\w:-]+)="([^"]*)"/g)) out[m[1]!] = decode(m[2]!)
  return out
}

export function parseJunit(xml: string): JunitReport {
  const cases: JunitCase[] = []
  // a describe block is a testsuite nested in its file's, with the same file: the file's is the longest
  const fileMs = new Map<string, number>()
  for (const m of xml.matchAll(/<testsuite\s([^>]*)>/g)) {
    const a = attributes(m[1]!)
    const ms = Math.round(Number(a.time ?? 0) * 1000)
    if (a.file) fileMs.set(a.file, Math.max(ms, fileMs.get(a.file) ?? 0))
  }
  const files = [...fileMs].map(([file, ms]) => ({ file, ms }))
  for (const m of xml.matchAll(/<testcase\s([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const a = attributes(m[1]!)
    const body = m[3] ?? ''
    cases.push({
      file: a.file ?? '',
      name: a.name ?? '',
      failed: /<(failure|error)\b/.test(body),
      skipped: /<skipped\b/.test(body),
    })
  }
  return { cases, files }
}
