/**
 * A local stand-in for the Stripe REST API, speaking its wire format: form-encoded requests
 * (nested keys as a[b]), bearer secret keys, JSON objects with `object` fields, Stripe's error
 * body `{error: {type, code, message, param, doc_url}}` and Idempotency-Key replay.
 */
import type { Server } from 'bun'

export interface FakeCard {
  brand: string
  last4: string
  exp_month: number
  exp_year: number
}

interface PaymentMethodObj {
  id: string
  object: 'payment_method'
  type: 'card'
  customer: string | null
  card: FakeCard
  livemode: false
  created: number
}

export interface RecordedStripeRequest {
  method: string
  path: string
  contentType: string | null
  idempotencyKey: string | null
  form: Record<string, string>
}

export interface FakeStripe {
  url: string
  secretKey: string
  requests: RecordedStripeRequest[]
  customers: Map<string, { id: string; name: string; metadata: Record<string, string> }>
  paymentMethods: Map<string, PaymentMethodObj>
  addPaymentMethod(id: string, card?: Partial<FakeCard>): void
  /** Makes the next attach of `id` fail as a declined card. */
  declineOnAttach(id: string): void
  /** Makes every request answer 500 until called with false. */
  failAll(on: boolean): void
  stop(): Promise<void>
}

const stripeError = (status: number, type: string, message: string, code?: string, param?: string) =>
  Response.json({ error: { type, code, message, param, doc_url: code ? `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}` : undefined } }, { status })

/** Turns `metadata[workspace_id]=x` into {metadata: {workspace_id: x}}. */
function nested(form: Record<string, string>): Record<string, string | Record<string, string>> {
  const out: Record<string, string | Record<string, string>> = {}
  for (const [k, v] of Object.entries(form)) {
    const m = /^([^[]+)\[([^\]]+)\]$/.exec(k)
    if (m) ((out[m[1] as string] ??= {}) as Record<string, string>)[m[2] as string] = v
    else out[k] = v
  }
  return out
}

export function startFakeStripe(secretKey = 'sk_test_fake_appliance'): FakeStripe {
  const requests: RecordedStripeRequest[] = []
  const customers: FakeStripe['customers'] = new Map()
  const paymentMethods = new Map<string, PaymentMethodObj>()
  const idempotent = new Map<string, { status: number; body: unknown }>()
  const declines = new Set<string>()
  let failing = false
  let seq = 0

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const text = req.method === 'POST' ? await req.text() : ''
      const contentType = req.headers.get('content-type')
      const form = Object.fromEntries(new URLSearchParams(text))
      requests.push({ method: req.method, path: url.pathname, contentType, idempotencyKey: req.headers.get('idempotency-key'), form })
      if (failing) return stripeError(500, 'api_error', 'An unknown error occurred')
      if (req.headers.get('authorization') !== `Bearer ${secretKey}`) {
        return stripeError(401, 'invalid_request_error', 'Invalid API Key provided: sk_test_****')
      }
      if (req.method === 'POST' && text && contentType !== 'application/x-www-form-urlencoded') {
        return stripeError(400, 'invalid_request_error', 'Invalid request: Stripe expects application/x-www-form-urlencoded bodies')
      }
      const key = req.headers.get('idempotency-key')
      if (key && idempotent.has(key)) {
        const prior = idempotent.get(key) as { status: number; body: unknown }
        return Response.json(prior.body, { status: prior.status, headers: { 'idempotent-replayed': 'true' } })
      }
      const res = route(req.method, url.pathname, nested(form))
      if (key && req.method === 'POST') idempotent.set(key, { status: res.status, body: await res.clone().json() })
      return res
    },
  })

  function route(method: string, path: string, body: Record<string, string | Record<string, string>>): Response {
    if (method === 'POST' && path === '/v1/customers') {
      const id = `cus_fake${++seq}`
      const customer = { id, name: String(body.name ?? ''), metadata: (body.metadata as Record<string, string>) ?? {} }
      customers.set(id, customer)
      return Response.json({ object: 'customer', livemode: false, ...customer })
    }
    const m = /^\/v1\/payment_methods\/([^/]+)(?:\/(attach|detach))?$/.exec(path)
    if (!m) return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`)
    const id = decodeURIComponent(m[1] as string)
    const pm = paymentMethods.get(id)
    if (!pm) return stripeError(404, 'invalid_request_error', `No such PaymentMethod: '${id}'`, 'resource_missing', 'payment_method')
    if (method === 'GET' && !m[2]) return Response.json(pm)
    if (method === 'POST' && m[2] === 'attach') {
      const customer = String(body.customer ?? '')
      if (!customers.has(customer)) return stripeError(404, 'invalid_request_error', `No such customer: '${customer}'`, 'resource_missing', 'customer')
      if (declines.delete(id)) return stripeError(402, 'card_error', 'Your card was declined.', 'card_declined')
      if (pm.customer && pm.customer !== customer) {
        return stripeError(400, 'invalid_request_error', 'The payment method you provided has already been attached to a customer.', 'payment_method_unexpected_state')
      }
      pm.customer = customer
      return Response.json(pm)
    }
    if (method === 'POST' && m[2] === 'detach') {
      if (!pm.customer) {
        return stripeError(400, 'invalid_request_error', 'The payment method you provided is not attached to a customer so detachment is impossible.', 'payment_method_unexpected_state')
      }
      pm.customer = null
      return Response.json(pm)
    }
    return stripeError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`)
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    secretKey,
    requests,
    customers,
    paymentMethods,
    addPaymentMethod(id, card = {}) {
      paymentMethods.set(id, {
        id,
        object: 'payment_method',
        type: 'card',
        customer: null,
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, ...card },
        livemode: false,
        created: Math.floor(Date.now() / 1000),
      })
    },
    declineOnAttach(id) {
      declines.add(id)
    },
    failAll(on) {
      failing = on
    },
    async stop() {
      await server.stop(true)
    },
  }
}
