import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Api, apiClient, memberKey, startTestAppliance } from '../helpers/appliance.ts'
import { startLoggedAppliance } from '../helpers/logged-appliance.ts'
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts'

let stripe: FakeStripe
let t: Awaited<ReturnType<typeof startLoggedAppliance>>
let path: string
let other: { api: Api; workspaceId: string }

beforeAll(async () => {
  stripe = startFakeStripe()
  t = await startLoggedAppliance({ STRIPE_API_BASE: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey })
  path = `/api/workspaces/${t.workspaceId}/payment-methods`
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = { api: apiClient(t.url, ws.body.apiKey.key), workspaceId: ws.body.workspace.id }
  for (const id of ['pm_card_visa', 'pm_card_mastercard', 'pm_card_declined', 'pm_card_gone']) stripe.addPaymentMethod(id)
  stripe.paymentMethods.get('pm_card_mastercard')!.card = { brand: 'mastercard', last4: '4444', exp_month: 3, exp_year: 2031 }
})
afterAll(async () => {
  await t.stop()
  await stripe.stop()
})

const paths = (body: any): string[] => body.error.details.fields.map((f: { path: string }) => f.path)

describe('payment methods', () => {
  test('stripe: verified with Stripe, attached to one customer per workspace, stored without card data', async () => {
    const r = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_visa' } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      paymentMethod: {
        id: expect.stringMatching(/^pay_/),
        workspaceId: t.workspaceId,
        provider: 'stripe',
        stripePaymentMethodId: 'pm_card_visa',
        card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2030 },
        reference: null,
        createdAt: expect.any(String),
      },
    })
    const calls = stripe.requests.map((q) => `${q.method} ${q.path}`)
    expect(calls).toEqual(['GET /v1/payment_methods/pm_card_visa', 'POST /v1/customers', 'POST /v1/payment_methods/pm_card_visa/attach'])
    const create = stripe.requests[1]!
    expect(create.contentType).toBe('application/x-www-form-urlencoded')
    expect(create.form['metadata[workspace_id]']).toBe(t.workspaceId)
    expect(create.idempotencyKey).toBe(`appliance-customer-${t.workspaceId}`)
    const customer = [...stripe.customers.keys()][0]
    expect(stripe.requests[2]!.form).toEqual({ customer: customer as string })
    expect(stripe.paymentMethods.get('pm_card_visa')!.customer).toBe(customer as string)

    const second = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_mastercard' } })
    expect(second.body.paymentMethod.card).toEqual({ brand: 'mastercard', last4: '4444', expMonth: 3, expYear: 2031 })
    expect(stripe.customers.size).toBe(1)
  })

  test('the same Stripe payment method twice is 409', async () => {
    const r = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_visa' } })
    expect(r.status).toBe(409)
  })

  test('Stripe errors map into our error body with the Stripe code in details; nothing is stored', async () => {
    const missing = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_nope' } })
    expect(missing.status).toBe(422)
    expect(paths(missing.body)).toEqual(['stripePaymentMethodId'])

    stripe.declineOnAttach('pm_card_declined')
    const declined = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_declined' } })
    expect(declined.status).toBe(422)
    expect(declined.body.error).toMatchObject({
      code: 'payment_provider_error',
      message: 'Stripe refused: Your card was declined.',
      details: { provider: 'stripe', stripeStatus: 402, stripeType: 'card_error', stripeCode: 'card_declined' },
    })

    stripe.failAll(true)
    const down = await t.api('POST', path, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_gone' } })
    stripe.failAll(false)
    expect(down.status).toBe(502)
    expect(down.body.error.details.stripeType).toBe('api_error')

    const list = await t.api('GET', path)
    expect(list.body.paymentMethods.map((p: any) => p.stripePaymentMethodId).sort()).toEqual(['pm_card_mastercard', 'pm_card_visa'])
  })

  test('manual: needs a reference; provider-specific fields are checked', async () => {
    const ok = await t.api('POST', path, { body: { provider: 'manual', reference: 'PO 2026-118' } })
    expect(ok.status).toBe(200)
    expect(ok.body.paymentMethod).toMatchObject({ provider: 'manual', reference: 'PO 2026-118', stripePaymentMethodId: null, card: null })
    for (const [body, field] of [
      [{ provider: 'manual' }, 'reference'],
      [{ provider: 'manual', reference: 'x', stripePaymentMethodId: 'pm_x' }, 'stripePaymentMethodId'],
      [{ provider: 'stripe' }, 'stripePaymentMethodId'],
      [{ provider: 'stripe', stripePaymentMethodId: 'pm_x', reference: 'y' }, 'reference'],
      [{ provider: 'paypal' }, 'provider'],
      [{ provider: 'stripe', stripePaymentMethodId: 'card_123' }, 'stripePaymentMethodId'],
    ] as const) {
      const r = await t.api('POST', path, { body })
      expect(r.status).toBe(422)
      expect(paths(r.body)).toEqual([field])
    }
  })

  test('a body holding something like a card number is refused, not stored and not logged', async () => {
    const before = (await t.api('GET', path)).body.paymentMethods.length
    const cards = ['4242424242424242', '4000 0566 5566 5556']
    for (const body of [
      { provider: 'manual', reference: `card ${cards[0]}` },
      { provider: 'stripe', stripePaymentMethodId: 'pm_card_visa', card: { number: cards[1], cvc: '123' } },
      { provider: 'stripe', cardNumber: 4242424242424242 },
    ]) {
      const r = await t.api('POST', path, { body })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
      expect(r.body.error.message).toContain('card number')
      for (const c of cards) expect(JSON.stringify(r.body)).not.toContain(c)
    }
    expect((await t.api('GET', path)).body.paymentMethods.length).toBe(before)
    const logs = t.logs.join('')
    expect(logs).toContain('"status":422')
    for (const c of cards) expect(logs).not.toContain(c)
    expect(logs).not.toContain('4242424242424242')
  })

  test('admins only: members get 403 on every payment-method route', async () => {
    const { key } = await memberKey(t, 'billing-member@example.com')
    const id = (await t.api('GET', path)).body.paymentMethods[0].id
    // Access is decided before the body is looked at.
    expect((await t.api('POST', path, { key, body: { provider: 'manual', reference: '4242424242424242' } })).status).toBe(403)
    expect((await t.api('POST', path, { key: null, body: { provider: 'manual', reference: '4242424242424242' } })).status).toBe(401)
    expect((await t.api('GET', path, { key })).status).toBe(403)
    expect((await t.api('GET', `${path}/${id}`, { key })).status).toBe(403)
    expect((await t.api('POST', path, { key, body: { provider: 'manual', reference: 'x' } })).status).toBe(403)
    expect((await t.api('DELETE', `${path}/${id}`, { key })).status).toBe(403)
  })

  test("another workspace's payment methods are 404, by workspace path and by id", async () => {
    const theirs = await other.api('POST', `/api/workspaces/${other.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'theirs' } })
    expect(theirs.status).toBe(200)
    expect((await t.api('GET', `/api/workspaces/${other.workspaceId}/payment-methods`)).status).toBe(404)
    expect((await t.api('POST', `/api/workspaces/${other.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'x' } })).status).toBe(404)
    expect((await t.api('GET', `${path}/${theirs.body.paymentMethod.id}`)).status).toBe(404)
    expect((await t.api('DELETE', `${path}/${theirs.body.paymentMethod.id}`)).status).toBe(404)
    expect((await other.api('GET', `/api/workspaces/${other.workspaceId}/payment-methods`)).body.paymentMethods).toHaveLength(1)
  })

  test('DELETE detaches at Stripe; with none left the number gate is shut again', async () => {
    const list = (await t.api('GET', path)).body.paymentMethods as any[]
    for (const pm of list) expect((await t.api('DELETE', `${path}/${pm.id}`)).body).toEqual({ ok: true })
    expect(stripe.requests.filter((q) => q.path.endsWith('/detach')).map((q) => q.path).sort()).toEqual([
      '/v1/payment_methods/pm_card_mastercard/detach',
      '/v1/payment_methods/pm_card_visa/detach',
    ])
    expect(stripe.paymentMethods.get('pm_card_visa')!.customer).toBeNull()
    const gate = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550150', sipTerminationUri: 'sip:pbx.example.com' } })
    expect(gate.status).toBe(402)
    expect(gate.body.error.code).toBe('payment_method_required')
  })
})

describe('payment method configuration', () => {
  test('manual methods can be turned off and Stripe needs a secret key', async () => {
    const off = await startTestAppliance({ BILLING_ALLOW_MANUAL: false })
    try {
      const p = `/api/workspaces/${off.workspaceId}/payment-methods`
      const manual = await off.api('POST', p, { body: { provider: 'manual', reference: 'x' } })
      expect(manual.status).toBe(422)
      expect(manual.body.error.message).toContain('BILLING_ALLOW_MANUAL=false')
      const s = await off.api('POST', p, { body: { provider: 'stripe', stripePaymentMethodId: 'pm_card_visa' } })
      expect(s.status).toBe(422)
      expect(s.body.error.message).toContain('STRIPE_SECRET_KEY')
      expect((await off.api('GET', p)).body.paymentMethods).toEqual([])
    } finally {
      await off.stop()
    }
  })
})
