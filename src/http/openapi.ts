import { toOpenAPISchema } from '@elysiajs/openapi'
import { type AnyElysia, Elysia } from 'elysia'
import { ErrorResponse } from '../platform/schema/index.ts'
import { openapiPage } from './openapi-page.ts'

const info = {
  title: 'Voice agent appliance API',
  version: '0.1.0',
  description:
    'Every /api route needs `Authorization: Bearer <api key>`. Errors always have the body ' +
    '`{error: {code, message, details?, requestId}}`. Lists take `limit` (1-100, default 50) and ' +
    '`cursor`, and return `nextCursor` (null on the last page), newest first. A field a route does not declare is refused, never ' +
    'ignored: in a JSON body, at any depth, 422 validation_failed; in the query string of an /api route, 400 validation_failed; ' +
    'details.fields names each as {path, location, message: "unknown field"}. Only the documented free-form maps (dynamicVariables, ' +
    'a test run\'s variables and toolResults, an http_request tool\'s headers and parameters, a tool node\'s arguments and assign) take any key.',
}

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } }

/** The error responses every authenticated route can give. */
export const errorResponses: Record<string, unknown> = {
  400: { description: 'bad_request or validation_failed (query and path; a query parameter the route does not declare: "unknown field")', content: errorContent },
  401: { description: 'unauthorized: missing, malformed, unknown, revoked or expired key', content: errorContent },
  403: { description: 'forbidden: the role of the key lacks the permission', content: errorContent },
  404: { description: 'not_found (also for objects of other workspaces; an id of another workspace in a body answers like an id that exists nowhere)', content: errorContent },
  413: { description: 'payload_too_large', content: errorContent },
  415: { description: 'unsupported_media_type: bodies must be JSON', content: errorContent },
  422: {
    description:
      'validation_failed: details.fields names each offending field path (at most 10, details.moreFields counts the rest; values are never echoed), ' +
      'a field the body schema does not declare, at any depth, with the message "unknown field". ' +
      'Also a body that is not a JSON object, nests deeper than 32 levels, has more than 5,000 members in one array or object or 50,000 values ' +
      'in all, or uses __proto__, toString or valueOf as a key (path "body"). Names and labels refuse control characters and bidi overrides.',
    content: errorContent,
  },
  429: { description: 'rate_limited: the key spent its burst, or this address failed authentication too often; see the Retry-After header', content: errorContent },
}

type Operation = {
  security?: unknown[]
  responses?: Record<string, unknown>
  requestBody?: { content?: Record<string, unknown> }
}

const plain = (schema: unknown) => JSON.parse(JSON.stringify(schema))

type JsonSchema = { [key: string]: unknown; properties?: Record<string, unknown>; patternProperties?: Record<string, unknown> }
const mapValues = (o: Record<string, unknown>, f: (v: unknown) => unknown) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]))

/** A request body as the API reads it: an object that names its fields takes no others (http/fields.ts). */
function closed(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const s = { ...(schema as JsonSchema) }
  if (s.properties) s.properties = mapValues(s.properties, closed)
  if (s.patternProperties) s.patternProperties = mapValues(s.patternProperties, closed)
  for (const key of ['items', 'additionalProperties'] as const) if (s[key] && typeof s[key] === 'object') s[key] = closed(s[key])
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map(closed)
  if (s.properties && s.patternProperties === undefined && s.additionalProperties === undefined) s.additionalProperties = false
  return s
}

/**
 * Builds the document from the routes, then adds what the generator cannot see: request bodies
 * (our JSON parser is a function, which the generator skips) and the shared error responses.
 */
export function buildOpenApiDocument(app: AnyElysia) {
  const generated = toOpenAPISchema(app, undefined, undefined, undefined, '3.1.0') as {
    paths: Record<string, Record<string, Operation>>
    components: { schemas: Record<string, unknown> }
  }
  for (const route of app.routes) {
    const path = route.path.replace(/:([^/]+)/g, '{$1}')
    const op = generated.paths[path]?.[route.method.toLowerCase()]
    if (!op) continue
    const body = (route.hooks as { body?: unknown }).body
    if (body && op.requestBody && !Object.keys(op.requestBody.content ?? {}).length) {
      op.requestBody.content = { 'application/json': { schema: closed(plain(body)) } }
    }
    if (op.security) op.responses = { ...errorResponses, ...op.responses }
  }
  return {
    openapi: '3.1.0',
    info,
    paths: generated.paths,
    components: {
      schemas: { ...generated.components.schemas, Error: plain(ErrorResponse) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A workspace API key (vak_...)' } },
    },
  }
}

/** GET /openapi/json and a browsable, self-contained GET /openapi (no CDN: the appliance may be offline). */
export function openapiRoutes(getApp: () => AnyElysia) {
  let cached: { routes: number; doc: unknown } | undefined
  return new Elysia({ name: 'openapi' })
    .get(
      '/openapi/json',
      () => {
        const app = getApp()
        if (!cached || cached.routes !== app.routes.length) cached = { routes: app.routes.length, doc: buildOpenApiDocument(app) }
        return cached.doc
      },
      { detail: { hide: true } },
    )
    .get('/openapi', () => new Response(openapiPage(info.title), { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: { hide: true },
    })
}
