import { t } from 'elysia'
import { Name } from '../../platform/schema/index.ts'

export const PaymentProviderSchema = t.Union([t.Literal('stripe'), t.Literal('manual')])

export const PaymentMethod = t.Object({
  id: t.String(),
  workspaceId: t.String(),
  provider: PaymentProviderSchema,
  stripePaymentMethodId: t.Union([t.String(), t.Null()]),
  card: t.Union([
    t.Object({ brand: t.String(), last4: t.String(), expMonth: t.Integer(), expYear: t.Integer() }, { description: 'as Stripe reports it' }),
    t.Null(),
  ]),
  reference: t.Union([t.String(), t.Null()], { description: 'manual methods: the operator-approved record' }),
  createdAt: t.String({ format: 'date-time' }),
})
export type PaymentMethod = typeof PaymentMethod.static

export const CreatePaymentMethodBody = t.Object({
  provider: PaymentProviderSchema,
  stripePaymentMethodId: t.Optional(t.String({ pattern: '^pm_[A-Za-z0-9_]{1,200}$', description: 'stripe: a PaymentMethod id made by Stripe.js or Elements' })),
  reference: t.Optional(Name({ minLength: 1, maxLength: 200, notBlank: true, description: 'manual: an invoice account or purchase order' })),
})
export type CreatePaymentMethodBody = typeof CreatePaymentMethodBody.static

export const PaymentMethodParams = t.Object({ workspace_id: t.String(), payment_method_id: t.String() })
