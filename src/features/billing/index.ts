// The billing feature's public face; its HTTP routes are billing.http.ts.
export { requirePaymentMethod } from './billing.service.ts'
export { findCardNumber, looksLikeCardNumber } from './card-guard.ts'
export { StripeClient, StripeError } from './stripe.ts'
