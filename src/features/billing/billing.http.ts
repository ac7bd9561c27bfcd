import { Elysia, t } from 'elysia'
import type { Config } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { NextCursor, Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import { CreatePaymentMethodBody, PaymentMethod, PaymentMethodParams } from './billing.model.ts'
import * as service from './billing.service.ts'
import { findCardNumber } from './card-guard.ts'


/** Raw card data must never be accepted, stored or logged; the value is not echoed back. */
function refuseCardNumbers({ body }: { body: unknown }): void {
  const path = findCardNumber(body)
  if (!path) return
  const message = 'looks like a raw card number; card numbers are never accepted, send a Stripe PaymentMethod id (pm_...) instead'
  throw new AppError(422, 'validation_failed', `${path}: ${message}`, { fields: [{ path, message }] })
}

export function billingController(db: Db, config: Config, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/workspaces/:workspace_id/payment-methods', tags: ['Billing'] })
    .use(auth)
    .macro({ noCardNumbers: { transform: refuseCardNumbers } })
    .post('', async ({ params, body }) => ({ paymentMethod: await service.addPaymentMethod(db, config, params.workspace_id, body) }), {
      permission: 'billing:manage',
      noCardNumbers: true,
      params: WorkspaceParams,
      body: CreatePaymentMethodBody,
      response: t.Object({ paymentMethod: PaymentMethod }),
      detail: {
        summary: 'Add a payment method: {provider: "stripe", stripePaymentMethodId} or {provider: "manual", reference}',
        description:
          'Stripe methods are verified and attached to the workspace\'s Stripe customer. manual needs BILLING_ALLOW_MANUAL. ' +
          'A body holding anything like a card number is refused (422) and not logged. Stripe errors: 422/502 payment_provider_error.',
      },
    })
    .get('', ({ params, query }) => service.listPaymentMethods(db, params.workspace_id, query), {
      permission: 'billing:manage',
      params: WorkspaceParams,
      query: PaginationQuery,
      response: t.Object({ paymentMethods: t.Array(PaymentMethod), nextCursor: NextCursor }),
      detail: { summary: 'List payment methods' },
    })
    .get('/:payment_method_id', async ({ params }) => ({ paymentMethod: await service.getPaymentMethod(db, params.workspace_id, params.payment_method_id) }), {
      permission: 'billing:manage',
      params: PaymentMethodParams,
      response: t.Object({ paymentMethod: PaymentMethod }),
      detail: { summary: 'Get a payment method' },
    })
    .delete(
      '/:payment_method_id',
      async ({ params }) => {
        await service.removePaymentMethod(db, config, params.workspace_id, params.payment_method_id)
        return { ok: true as const }
      },
      {
        permission: 'billing:manage',
        params: PaymentMethodParams,
        response: Ok,
        detail: { summary: 'Remove a payment method (detached at Stripe); numbers already bought stay' },
      },
    )
}
