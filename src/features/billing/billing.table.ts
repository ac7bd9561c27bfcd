export type PaymentProvider = 'stripe' | 'manual'

export interface PaymentMethodTable {
  id: string
  workspace_id: string
  provider: PaymentProvider
  stripe_payment_method_id: string | null
  stripe_customer_id: string | null
  card_brand: string | null
  card_last4: string | null
  card_exp_month: number | null
  card_exp_year: number | null
  reference: string | null
  created_at: string
}

export interface BillingCustomerTable {
  workspace_id: string
  stripe_customer_id: string
  created_at: string
}
