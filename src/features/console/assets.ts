// The console's files, read once into memory with their content type, a content-hash version
// and a gzip copy: the whole console is a few hundred kilobytes.
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { ASSET_FILES, IMPORTS, INDEX_HTML } from './files.ts'

export interface Asset {
  body: Uint8Array
  gzip: Uint8Array
  type: string
}

export interface ConsoleAssets {
  version: string
  /** index.html with the version and import map filled in. */
  index: Asset
  /** The `sha256-...` source of the inline import map, for the Content-Security-Policy. */
  importMapHash: string
  files: Map<string, Asset>
}

const TYPES: Record<string, string> = {
  mjs: 'text/javascript; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
}

export function contentType(name: string): string {
  return TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream'
}

const gzipped = promisify(gzip)

// compressed on libuv's thread pool: the first request for the console does not hold the event loop
async function asset(body: Uint8Array, type: string): Promise<Asset> {
  return { body, gzip: new Uint8Array(await gzipped(body)), type }
}

/** Pure: the shell page and its import map for one version. */
export function renderIndex(template: string, version: string): { html: string; importMap: string } {
  const base = `/console/assets/${version}/`
  const imports = Object.fromEntries(Object.entries(IMPORTS).map(([name, file]) => [name, base + file]))
  const importMap = JSON.stringify({ imports })
  const html = template.replaceAll('{{base}}', base).replace('{{importMap}}', importMap)
  return { html, importMap }
}

export async function loadAssets(): Promise<ConsoleAssets> {
  const hash = createHash('sha256')
  const raw = new Map<string, Uint8Array>()
  for (const [name, path] of Object.entries(ASSET_FILES)) {
    const bytes = await Bun.file(path).bytes()
    raw.set(name, bytes)
    hash.update(name).update(bytes)
  }
  const template = await Bun.file(INDEX_HTML).text()
  hash.update(template)
  const version = hash.digest('hex').slice(0, 12)
  const { html, importMap } = renderIndex(template, version)
  const files = new Map<string, Asset>()
  for (const [name, bytes] of raw) files.set(name, await asset(bytes, contentType(name)))
  return {
    version,
    index: await asset(new TextEncoder().encode(html), TYPES.html!),
    importMapHash: `sha256-${createHash('sha256').update(importMap).digest('base64')}`,
    files,
  }
}
