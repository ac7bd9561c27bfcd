import type { Config } from '../../platform/config/index.ts'
import { type Db, finishPage, pageLimit, type PageRequest } from '../../platform/db/index.ts'
import { AppError, conflict, invalidField, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { CreatePaymentMethodBody, PaymentMethod } from './billing.model.ts'
import * as repo from './billing.repository.ts'
import type { PaymentMethodTable } from './billing.table.ts'
import { StripeClient, StripeError } from './stripe.ts'

export type BillingConfig = Pick<Config, 'BILLING_ALLOW_MANUAL' | 'STRIPE_API_BASE' | 'STRIPE_SECRET_KEY'>

export function toPaymentMethod(r: PaymentMethodTable): PaymentMethod {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    provider: r.provider,
    stripePaymentMethodId: r.stripe_payment_method_id,
    card:
      r.card_brand !== null && r.card_last4 !== null
        ? { brand: r.card_brand, last4: r.card_last4, expMonth: r.card_exp_month ?? 0, expYear: r.card_exp_year ?? 0 }
        : null,
    reference: r.reference,
    createdAt: r.created_at,
  }
}

/** The gate in front of buying or connecting a number: 402 until the workspace has a payment method. */
export async function requirePaymentMethod(db: Db, workspaceId: string): Promise<void> {
  if (await repo.hasPaymentMethod(db, workspaceId)) return
  throw new AppError(
    402,
    'payment_method_required',
    `this workspace has no payment method; add one with POST /api/workspaces/${workspaceId}/payment-methods first`,
    { workspaceId },
  )
}

/** Stripe's answer in our error body; the Stripe type and code go in details. */
export function fromStripe(err: StripeError): AppError {
  const details = { provider: 'stripe', stripeStatus: err.status, stripeType: err.type, stripeCode: err.code ?? null, stripeParam: err.param ?? null }
  if (err.status === 0 || err.status >= 500 || err.status === 401 || err.status === 403 || err.status === 429) {
    return new AppError(502, 'payment_provider_error', `Stripe could not be used: ${err.message}`, details)
  }
  return new AppError(422, 'payment_provider_error', `Stripe refused: ${err.message}`, details)
}

async function stripeCall<T>(p: Promise<T>): Promise<T> {
  try {
    return await p
  } catch (err) {
    if (err instanceof StripeError) throw fromStripe(err)
    throw err
  }
}

async function ensureCustomer(db: Db, stripe: StripeClient, workspaceId: string): Promise<string> {
  const existing = await repo.findStripeCustomer(db, workspaceId)
  if (existing) return existing.stripe_customer_id
  const ws = await db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirst()
  const customer = await stripeCall(stripe.createCustomer(workspaceId, ws?.name ?? workspaceId))
  await repo.insertStripeCustomer(db, workspaceId, customer.id, nowIso())
  return (await repo.findStripeCustomer(db, workspaceId))?.stripe_customer_id ?? customer.id
}

export async function addPaymentMethod(db: Db, cfg: BillingConfig, workspaceId: string, body: CreatePaymentMethodBody): Promise<PaymentMethod> {
  const base: PaymentMethodTable = {
    id: newId('pay'),
    workspace_id: workspaceId,
    provider: body.provider,
    stripe_payment_method_id: null,
    stripe_customer_id: null,
    card_brand: null,
    card_last4: null,
    card_exp_month: null,
    card_exp_year: null,
    reference: null,
    created_at: nowIso(),
  }
  if (body.provider === 'manual') {
    if (!cfg.BILLING_ALLOW_MANUAL) throw invalidField('provider', 'manual payment methods are turned off on this appliance (BILLING_ALLOW_MANUAL=false)')
    if (body.stripePaymentMethodId !== undefined) throw invalidField('stripePaymentMethodId', 'is only for provider stripe')
    if (body.reference === undefined) throw invalidField('reference', 'is required for provider manual')
    const row = { ...base, reference: body.reference.trim() }
    await repo.insertPaymentMethod(db, row)
    return toPaymentMethod(row)
  }
  if (body.reference !== undefined) throw invalidField('reference', 'is only for provider manual')
  const pmId = body.stripePaymentMethodId
  if (pmId === undefined) throw invalidField('stripePaymentMethodId', 'is required for provider stripe')
  if (!cfg.STRIPE_SECRET_KEY) throw invalidField('provider', 'Stripe is not configured on this appliance (set STRIPE_SECRET_KEY)')
  if (await repo.findByStripeId(db, workspaceId, pmId)) throw conflict(`payment method ${pmId} is already on this workspace`)
  const stripe = new StripeClient(cfg.STRIPE_API_BASE, cfg.STRIPE_SECRET_KEY)
  let pm
  try {
    pm = await stripe.retrievePaymentMethod(pmId)
  } catch (err) {
    if (err instanceof StripeError && (err.status === 404 || err.code === 'resource_missing')) {
      throw invalidField('stripePaymentMethodId', `Stripe has no payment method ${pmId}`)
    }
    throw err instanceof StripeError ? fromStripe(err) : err
  }
  const customerId = await ensureCustomer(db, stripe, workspaceId)
  if (pm.customer !== customerId) pm = await stripeCall(stripe.attachPaymentMethod(pmId, customerId))
  const row: PaymentMethodTable = {
    ...base,
    stripe_payment_method_id: pm.id,
    stripe_customer_id: customerId,
    card_brand: pm.card?.brand ?? null,
    card_last4: pm.card?.last4 ?? null,
    card_exp_month: pm.card?.exp_month ?? null,
    card_exp_year: pm.card?.exp_year ?? null,
  }
  await repo.insertPaymentMethod(db, row)
  return toPaymentMethod(row)
}

export async function listPaymentMethods(db: Db, workspaceId: string, page: PageRequest) {
  const rows = await repo.listPaymentMethods(db, workspaceId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.created_at, r.id])
  return { paymentMethods: items.map(toPaymentMethod), nextCursor }
}

export async function getPaymentMethod(db: Db, workspaceId: string, id: string): Promise<PaymentMethod> {
  const row = await repo.findPaymentMethod(db, workspaceId, id)
  if (!row) throw notFound('payment method')
  return toPaymentMethod(row)
}

/** Removes the method; a Stripe method is detached from the customer first (already gone at Stripe is fine). */
export async function removePaymentMethod(db: Db, cfg: BillingConfig, workspaceId: string, id: string): Promise<void> {
  const row = await repo.findPaymentMethod(db, workspaceId, id)
  if (!row) throw notFound('payment method')
  if (row.provider === 'stripe' && row.stripe_payment_method_id && cfg.STRIPE_SECRET_KEY) {
    const stripe = new StripeClient(cfg.STRIPE_API_BASE, cfg.STRIPE_SECRET_KEY)
    try {
      await stripe.detachPaymentMethod(row.stripe_payment_method_id)
    } catch (err) {
      const gone = err instanceof StripeError && (err.status === 404 || err.code === 'resource_missing' || err.code === 'payment_method_unexpected_state')
      if (!gone) throw err instanceof StripeError ? fromStripe(err) : err
    }
  }
  await repo.deletePaymentMethod(db, workspaceId, id)
}
