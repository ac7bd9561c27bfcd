/** The few Stripe REST calls the appliance makes: form-encoded requests, JSON answers. */
export interface StripePaymentMethod {
  id: string
  object: 'payment_method'
  type: string
  customer: string | null
  card?: { brand: string; last4: string; exp_month: number; exp_year: number } | null
}

export interface StripeCustomer {
  id: string
  object: 'customer'
}

/** A Stripe error body (`{error: {type, code, message, param}}`) or a transport failure (status 0). */
export class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string | undefined,
    message: string,
    readonly param?: string,
  ) {
    super(message)
  }
}

type Params = Record<string, string | number | boolean | Record<string, string>>

/** application/x-www-form-urlencoded the way Stripe reads it: nested keys as `a[b]=c`. */
export function formEncode(params: Params): string {
  const out = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && typeof v === 'object') for (const [sk, sv] of Object.entries(v)) out.append(`${k}[${sk}]`, sv)
    else out.append(k, String(v))
  }
  return out.toString()
}

const TIMEOUT_MS = 10_000

export class StripeClient {
  constructor(
    private readonly baseUrl: string,
    private readonly secretKey: string,
  ) {}

  private async call<T>(method: 'GET' | 'POST', path: string, params?: Params, idempotencyKey?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.secretKey}`, 'stripe-version': '2024-06-20' }
    let body: string | undefined
    if (params) {
      body = formEncode(params)
      headers['content-type'] = 'application/x-www-form-urlencoded'
    }
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey
    let res: Response
    try {
      res = await fetch(new URL(path, this.baseUrl), { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) })
    } catch (err) {
      throw new StripeError(0, 'api_connection_error', undefined, `cannot reach Stripe: ${(err as Error).message}`)
    }
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new StripeError(res.status || 502, 'api_error', undefined, `Stripe answered ${res.status} with a body that is not JSON`)
    }
    if (!res.ok) {
      const e = (json as { error?: { type?: string; code?: string; message?: string; param?: string } }).error ?? {}
      throw new StripeError(res.status, e.type ?? 'api_error', e.code, e.message ?? `Stripe answered ${res.status}`, e.param)
    }
    return json as T
  }

  retrievePaymentMethod(id: string) {
    return this.call<StripePaymentMethod>('GET', `/v1/payment_methods/${encodeURIComponent(id)}`)
  }

  createCustomer(workspaceId: string, name: string) {
    return this.call<StripeCustomer>('POST', '/v1/customers', { name, metadata: { workspace_id: workspaceId } }, `appliance-customer-${workspaceId}`)
  }

  attachPaymentMethod(id: string, customerId: string) {
    return this.call<StripePaymentMethod>('POST', `/v1/payment_methods/${encodeURIComponent(id)}/attach`, { customer: customerId })
  }

  detachPaymentMethod(id: string) {
    return this.call<StripePaymentMethod>('POST', `/v1/payment_methods/${encodeURIComponent(id)}/detach`, {})
  }
}
