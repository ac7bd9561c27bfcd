// Fuzzing every route of a running appliance from its own OpenAPI document: generated bad bodies,
// query strings and path parameters, each answer checked against the API's promises. Used by
// test/integration/fuzz.test.ts (fixed seed, few cases) and scripts/fuzz-api.ts (longer runs).
import fc from 'fast-check'
import { startFakeTwilio } from '../fakes/twilio.ts'
import { startTestAppliance, type TestAppliance } from './appliance.ts'
import { LagProbe, lagBudgetMs } from './lag-probe.ts'

export const MAX_RESPONSE_BYTES = 64 * 1024
/** The lag allowed on the development machine; scaled by the machine's slowdown (lag-probe.ts). */
export const MAX_LAG_MS = 50

export interface Route {
  method: string
  /** OpenAPI path, e.g. /api/agents/{id} */
  path: string
  pathParams: string[]
  queryParams: string[]
  /** Property names of the JSON body, when the route takes one. */
  bodyProps?: string[]
  bodySchema?: JsonSchema
}

interface JsonSchema {
  type?: string
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  const?: unknown
  enum?: unknown[]
}

export interface FuzzRequest {
  path: string
  query: string
  body?: string
  contentType?: string
  withKey: boolean
}

export interface Finding {
  route: string
  request: FuzzRequest
  problem: string
}

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>
}

/** Every route of the document except the document itself and its page. */
export function routesOf(doc: OpenApi): Route[] {
  const routes: Route[] = []
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.startsWith('/openapi')) continue
    for (const [method, op] of Object.entries(ops)) {
      const params = op.parameters ?? []
      const schema = op.requestBody?.content?.['application/json']?.schema
      routes.push({
        method: method.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: op.requestBody ? Object.keys(schema?.properties ?? {}) : undefined,
        bodySchema: op.requestBody ? (schema as JsonSchema | undefined) : undefined,
      })
    }
  }
  return routes
}

const nasty = fc.constantFrom(
  '', ' ', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '../../etc/passwd', '%00', '\u0000', '\r\n', '\u202egnp', '🎉',
  'null', 'true', '-1', '1e309', 'NaN', '0x10', '[]', '{}', "' OR 1=1 --", '{{x}}', 'sip:169.254.169.254', 'https://127.0.0.1/',
)
const textUpTo = (longest: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 3, arbitrary: nasty },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: longest }).map((n) => 'x'.repeat(n)) },
  )
const text = textUpTo(300_000)
// Bun answers a request line and headers over 16 KiB itself (431, no body): see docs/security.md.
const urlText = textUpTo(4_000)
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: text },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => Array.from({ length: n }, (_, i) => `v${i}`)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))) },
)

const NODE_TYPES = ['start', 'say', 'conversation', 'collect', 'condition', 'tool', 'transfer', 'end']
const nearlyValidText = fc.oneof(fc.constantFrom(...NODE_TYPES, 'a', 'b', 's', 'e'), nasty, fc.string({ maxLength: 12 }))

/**
 * Values shaped by the body's own schema, with any part replaced by a wrong value now and then:
 * these get past the first checks and reach the services (a workflow with a loop, ids of nodes
 * named like Object.prototype's members, ...).
 */
function fromSchema(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return value
  let shaped: fc.Arbitrary<unknown>
  if (schema.const !== undefined) shaped = fc.constant(schema.const)
  else if (schema.enum) shaped = fc.constantFrom(...schema.enum)
  else if (schema.anyOf?.length) shaped = fc.oneof(...schema.anyOf.map((s) => fromSchema(s, depth + 1)))
  else if (schema.type === 'object' && schema.properties) {
    const entries = Object.entries(schema.properties).map(([k, s]) => [k, BY_NAME[k] ? fc.oneof({ weight: 4, arbitrary: BY_NAME[k]! }, fromSchema(s, depth + 1)) : fromSchema(s, depth + 1)] as const)
    shaped = fc.record(Object.fromEntries(entries), { requiredKeys: [] })
  } else if (schema.type === 'object') shaped = fc.dictionary(nearlyValidText, fc.oneof(nearlyValidText, value), { maxKeys: 3 })
  else if (schema.type === 'array') shaped = fc.array(fromSchema(schema.items ?? { type: 'object' }, depth + 1), { maxLength: 6 })
  else if (schema.type === 'string') shaped = nearlyValidText
  else if (schema.type === 'integer' || schema.type === 'number') shaped = fc.oneof(fc.integer({ min: -2, max: 1200 }), fc.double())
  else if (schema.type === 'boolean') shaped = fc.boolean()
  else shaped = fc.oneof(nearlyValidText, fc.dictionary(fc.constantFrom('from', 'to', 'id', 'condition', 'type'), nearlyValidText, { maxKeys: 4 }))
  return fc.oneof({ weight: 9, arbitrary: shaped }, { weight: 1, arbitrary: value })
}

// A browser's offer, as werift's loopback peer writes it: fuzzed web-call offers start from it, so
// they reach the WebRTC answer (candidates, fingerprint, ICE credentials) and not only the schema.
const OFFER_LINES = [
  'v=0', 'o=- 66746440 0 IN IP4 0.0.0.0', 's=-', 't=0 0', 'a=group:BUNDLE 0', 'm=audio 9 UDP/TLS/RTP/SAVPF 96 0', 'c=IN IP4 0.0.0.0',
  'a=candidate:626da4e5 1 udp 2116026367 127.0.0.1 54778 typ host generation 0 ufrag c5d8', 'a=end-of-candidates', 'a=ice-ufrag:c5d8',
  'a=ice-pwd:520b8afdad605575b1809c', 'a=fingerprint:sha-256 E3:EA:AA:49:57:3F:82:B7:EE:75:1D:B4:3A:83:26:FA:99:22:97:3D:5A:6D:98:EA:39:65:E3:A1:F1:57:81:64',
  'a=setup:actpass', 'a=sendrecv', 'a=mid:0', 'a=rtcp-mux', 'a=rtpmap:96 OPUS/48000/2', 'a=rtpmap:0 PCMU/8000',
]
const candidateLine = fc
  .tuple(fc.constantFrom('udp', 'tcp', 'UDP', 'sctp'), fc.constantFrom('127.0.0.1', '169.254.169.254', '224.0.0.251', 'x.local', 'printer.localdomain', '::1', '999.1.1.1', ''), fc.integer({ min: -1, max: 70_000 }), fc.constantFrom('host', 'srflx', 'relay', 'prflx', ''))
  .map(([tr, addr, port, typ]) => `candidate:1 1 ${tr} 2116026367 ${addr} ${port} typ ${typ}`)
export const offerArb = fc
  .array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('keep') }, fc.constantFrom('drop', 'twice'), candidateLine.map((c) => `a=${c}`), nasty), { minLength: OFFER_LINES.length, maxLength: OFFER_LINES.length })
  .chain((edits) => fc.array(candidateLine.map((c) => `a=${c}`), { maxLength: 40 }).map((extra) => ({ edits, extra })))
  .map(({ edits, extra }) =>
    OFFER_LINES.flatMap((line, i) => {
      const e = edits[i]!
      return e === 'keep' ? [line] : e === 'drop' ? [] : e === 'twice' ? [line, line] : [line, e]
    })
      .concat(extra)
      .join('\r\n') + '\r\n',
  )
/** Fields whose values are protocol text of their own, fuzzed as that text. */
const BY_NAME: Record<string, fc.Arbitrary<unknown>> = { sdp: offerArb, candidate: fc.oneof(candidateLine, nasty, fc.constant(null)) }

function bodyArb(props: string[], schema?: JsonSchema): fc.Arbitrary<string> {
  const key = props.length ? fc.oneof(fc.constantFrom(...props), nasty, fc.string({ maxLength: 10 })) : fc.oneof(nasty, fc.string({ maxLength: 10 }))
  return fc.oneof(
    { weight: 6, arbitrary: fromSchema(schema).map((v) => JSON.stringify(v) ?? '') },
    { weight: 4, arbitrary: fc.dictionary(key, value, { maxKeys: 6 }).map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 60_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 30_000 }).map((n) => `{"${props[0] ?? 'a'}":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`) },
  )
}

function queryArb(params: string[]): fc.Arbitrary<string> {
  const name = params.length ? fc.oneof(fc.constantFrom(...params), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 })
  const pair = fc.tuple(name, fc.oneof(urlText, fc.constantFrom('%', '%E0%A4%A', '%ZZ', '&&', '=='))).map(([k, v]) =>
    /^%|&|=/.test(v) ? `${encodeURIComponent(k)}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`,
  )
  return fc.array(pair, { maxLength: 3 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''))
}

/** Requests for one route; {workspace_id} is often `workspaceId` and other ids often `ids`, so requests reach the services. */
export function requestArb(route: Route, workspaceId: string, ids: string[] = []): fc.Arbitrary<FuzzRequest> {
  const known = fc.constantFrom('ag_00000000000000000000000000', 'pn_1', ...ids)
  const param = (name: string) => (name === 'workspace_id' ? fc.oneof(fc.constant(workspaceId), urlText) : fc.oneof(urlText, known))
  const params = fc.tuple(...route.pathParams.map(param))
  const body = route.bodyProps ? fc.option(bodyArb(route.bodyProps, route.bodySchema), { nil: undefined, freq: 8 }) : fc.constant(undefined)
  const contentType = fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', undefined)
  return fc.record({ params, query: queryArb(route.queryParams), body, contentType, withKey: fc.integer({ min: 0, max: 9 }).map((n) => n > 0) }).map((r) => {
    let path = route.path
    route.pathParams.forEach((name, i) => {
      const raw = String(r.params[i] ?? '')
      path = path.replace(`{${name}}`, raw === workspaceId ? raw : encodeURIComponent(raw) || '%20')
    })
    return { path, query: r.query, body: r.body, contentType: r.body === undefined ? undefined : r.contentType, withKey: r.withKey }
  })
}

/** Sends one request and returns what is wrong with the answer, if anything. */
export async function check(baseUrl: string, key: string, route: Route, req: FuzzRequest, probe: LagProbe, statuses?: Map<number, number>): Promise<string | undefined> {
  const headers: Record<string, string> = {}
  if (req.withKey) headers.authorization = `Bearer ${key}`
  if (req.contentType) headers['content-type'] = req.contentType
  const send = async () => {
    probe.reset()
    const res = await fetch(baseUrl + req.path + req.query, { method: route.method, headers, body: req.body })
    const bytes = new Uint8Array(await res.arrayBuffer())
    return { res, bytes, lag: probe.worstMs }
  }
  let budget = await lagBudgetMs(MAX_LAG_MS)
  let { res, bytes, lag } = await send()
  // A request that holds the loop does so every time; a timer late once because the machine was
  // busy elsewhere is not the request's doing, so a late answer is tried once more, against the
  // machine's slowdown measured again.
  if (lag >= budget) {
    budget = await lagBudgetMs(MAX_LAG_MS, true)
    ;({ res, bytes, lag } = await send())
  }
  statuses?.set(res.status, (statuses.get(res.status) ?? 0) + 1)
  if (res.status >= 500) return `status ${res.status}`
  if (bytes.length > MAX_RESPONSE_BYTES) return `response of ${bytes.length} bytes`
  if (lag >= budget) return `event loop held for ${Math.round(lag)} ms (budget ${Math.round(budget)} ms on this machine now)`
  if (res.status >= 400) {
    let body: { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | undefined
    try {
      body = JSON.parse(new TextDecoder().decode(bytes))
    } catch {
      return `status ${res.status} without a JSON body`
    }
    const e = body?.error
    if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || e.requestId !== res.headers.get('x-request-id')) {
      return `status ${res.status} without the error body`
    }
  }
  return undefined
}

/** Runs `cases` generated requests against every route; returns the first finding of each route. */
export async function fuzzApi(opts: { baseUrl: string; key: string; workspaceId: string; ids?: string[]; seed: number; cases: number }): Promise<{ findings: Finding[]; requests: number; routes: number; statuses: Map<number, number> }> {
  const doc = (await (await fetch(`${opts.baseUrl}/openapi/json`)).json()) as OpenApi
  const routes = routesOf(doc)
  const probe = new LagProbe(2).start()
  const findings: Finding[] = []
  let requests = 0
  const statuses = new Map<number, number>()
  try {
    for (const [i, route] of routes.entries()) {
      const name = `${route.method} ${route.path}`
      const out = await fc.check(
        fc.asyncProperty(requestArb(route, opts.workspaceId, opts.ids), async (req) => {
          requests++
          const problem = await check(opts.baseUrl, opts.key, route, req, probe, statuses)
          if (problem) throw new Error(problem)
        }),
        { seed: opts.seed + i, numRuns: opts.cases, endOnFailure: true },
      )
      if (out.failed && out.counterexample) {
        const [request] = out.counterexample
        findings.push({ route: name, request: { ...request, body: request.body && request.body.length > 300 ? `${request.body.slice(0, 300)}… (${request.body.length} chars)` : request.body }, problem: String((out.errorInstance as Error)?.message ?? out.errorInstance) })
      }
    }
  } finally {
    probe.stop()
  }
  return { findings, requests, routes: routes.length, statuses }
}

/**
 * An appliance for fuzzing: no per-key rate limit and no limit on failed keys (both would turn
 * generated requests into 429s), a local fake of the carrier so its routes answer, and an agent
 * and a number whose ids the generated requests use.
 */
export async function startFuzzAppliance(): Promise<{ t: TestAppliance; ids: string[]; stop(): Promise<void> }> {
  const twilio = startFakeTwilio()
  const t = await startTestAppliance({
    RATE_LIMIT_PER_SEC: 0,
    WEBRTC_HOST_ADDRESSES: '127.0.0.1',
    WEB_CALL_CONNECT_MS: 2000,
    AUTH_FAILURE_BURST: 0,
    CARRIER_API_BASE: twilio.url,
    CARRIER_ACCOUNT_SID: twilio.accountSid,
    CARRIER_AUTH_TOKEN: twilio.authToken,
  })
  await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'fuzz' } })
  const agent = (await t.api('POST', '/api/agents', { body: { name: 'Fuzzed' } })).body.agent.id as string
  const number = (await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550190', sipTerminationUri: 'sip:127.0.0.1:5999' } })).body.phoneNumber.id as string
  // a knowledge base with a document, and a web call in progress, so their routes reach the services
  const base = (await t.api('POST', '/api/knowledge-bases', { body: { name: 'Fuzzed FAQ' } })).body.knowledgeBase.id as string
  const doc = (await t.api('POST', `/api/knowledge-bases/${base}/documents`, { body: { name: 'hours.md', content: '# Hours\n\nWe open at nine on weekdays.\n' } })).body.document.id as string
  const call = await t.api('POST', `/api/agents/${agent}/web-calls`, { body: { sdp: `${OFFER_LINES.join('\r\n')}\r\n` } })
  return {
    t,
    ids: [agent, number, base, doc, ...(call.status === 201 ? [call.body.callId as string] : [])],
    async stop() {
      await t.stop()
      await twilio.stop()
    },
  }
}
