import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { ToolSpec } from '../llm/contract.ts'
import { type Schema, validateArgs } from './json-schema.ts'
import type { SessionTool } from './types.ts'

/** An agent's HTTP tool: the model fills the arguments, the appliance makes the request. */
export interface HttpToolDefinition {
  name: string
  description: string
  /** JSON Schema of the arguments the model must supply. */
  parameters: Schema
  /** `{{name}}` placeholders are filled from the arguments (URL-encoded). */
  url: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  headers?: Record<string, string>
  timeoutMs?: number
}

export interface HttpToolOptions {
  /** Allow targets on loopback, private, link-local and other non-public addresses. */
  allowPrivate: boolean
  /** Characters of the response body fed back to the model. */
  maxResponseChars?: number
}

/** True for addresses a server-side request must not reach unless the operator allows it. */
export function isNonPublicAddress(address: string): boolean {
  const v = isIP(address)
  if (v === 4) {
    const [a, b] = address.split('.').map(Number) as [number, number]
    return (
      a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224
    )
  }
  if (v === 6) {
    const x = address.toLowerCase()
    if (x === '::' || x === '::1') return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x)
    if (mapped) return isNonPublicAddress(mapped[1]!)
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(x)
  }
  return true
}

export class ToolRequestError extends Error {}

/** Checks scheme and every address the host resolves to; throws ToolRequestError when refused. */
export async function checkTarget(url: URL, allowPrivate: boolean): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolRequestError(`only http and https URLs are allowed, not ${url.protocol}`)
  if (allowPrivate) return
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  const blocked = addresses.find(isNonPublicAddress)
  if (blocked) throw new ToolRequestError(`${url.hostname} resolves to ${blocked}, a non-public address`)
}

export function httpToolSpec(def: HttpToolDefinition): ToolSpec {
  return { name: def.name, description: def.description, parameters: def.parameters as Record<string, unknown> }
}

/** Builds the SessionTool: validates arguments, applies SSRF rules and the timeout, returns status and body. */
export function httpTool(def: HttpToolDefinition, opts: HttpToolOptions): SessionTool {
  const maxChars = opts.maxResponseChars ?? 4000
  return {
    spec: httpToolSpec(def),
    timeoutMs: def.timeoutMs ?? 5000,
    async run(args, { signal }) {
      const problems = validateArgs(def.parameters, args)
      if (problems.length) return JSON.stringify({ error: 'invalid arguments', problems })
      const values = (args ?? {}) as Record<string, unknown>
      const used = new Set<string>()
      const filled = def.url.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => {
        used.add(k)
        return encodeURIComponent(String((Object.hasOwn(values, k) ? values[k] : undefined) ?? ''))
      })
      let url: URL
      try {
        url = new URL(filled)
      } catch {
        return JSON.stringify({ error: `not a valid URL: ${filled}` })
      }
      try {
        await checkTarget(url, opts.allowPrivate)
      } catch (err) {
        return JSON.stringify({ error: (err as Error).message })
      }
      const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !used.has(k)))
      const withBody = def.method !== 'GET' && def.method !== 'DELETE'
      if (!withBody) for (const [k, v] of Object.entries(rest)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v))
      // redirects could lead to a private address after the check: they are not followed
      const res = await fetch(url, {
        method: def.method,
        headers: { ...(withBody ? { 'content-type': 'application/json' } : {}), ...def.headers },
        body: withBody ? JSON.stringify(rest) : undefined,
        redirect: 'manual',
        signal,
      })
      const text = await res.text()
      return JSON.stringify({ status: res.status, body: text.length > maxChars ? `${text.slice(0, maxChars)}…` : text })
    },
  }
}
