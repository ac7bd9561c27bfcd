import { guardedFetch, OutboundRefusedError } from '../../../platform/net/index.ts'
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
  /** Allow plain http:// (default true: the saved URL was already checked against WEBHOOK_ALLOW_HTTP). */
  allowHttp?: boolean
  /** Bytes of the response read at most (default 64 KiB). */
  maxResponseBytes?: number
  /** Characters of the response body fed back to the model. */
  maxResponseChars?: number
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
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return JSON.stringify({ error: `only http and https URLs are allowed, not ${url.protocol}` })
      const rest = Object.fromEntries(Object.entries(values).filter(([k]) => !used.has(k)))
      const withBody = def.method !== 'GET' && def.method !== 'DELETE'
      if (!withBody) for (const [k, v] of Object.entries(rest)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v))
      let res
      try {
        res = await guardedFetch(
          url,
          { method: def.method, headers: { ...(withBody ? { 'content-type': 'application/json' } : {}), ...def.headers }, body: withBody ? JSON.stringify(rest) : undefined },
          {
            policy: { allowHttp: opts.allowHttp ?? true, allowPrivate: opts.allowPrivate },
            timeoutMs: def.timeoutMs ?? 5000,
            maxResponseBytes: opts.maxResponseBytes ?? 64 * 1024,
            signal,
          },
        )
      } catch (err) {
        if (err instanceof OutboundRefusedError) return JSON.stringify({ error: err.message })
        throw err
      }
      const text = res.body
      return JSON.stringify({ status: res.status, body: text.length > maxChars ? `${text.slice(0, maxChars)}…` : text })
    },
  }
}
