import { describe, expect, test } from 'bun:test'
import { findCardNumber, looksLikeCardNumber } from '../../../src/features/billing/index.ts'

describe('card number guard', () => {
  test.each(['4242424242424242', '4242 4242 4242 4242', '4242-4242-4242-4242', 'card 5555555555554444 exp 12/30', '378282246310005'])('spots %p', (s) => {
    expect(looksLikeCardNumber(s)).toBe(true)
  })

  test.each(['4242424242424241', 'INV-2026-000123', 'pm_card_visa', '+14155550123', '0000000000000000', 'PO 1234567890'])('lets %p through', (s) => {
    expect(looksLikeCardNumber(s)).toBe(false)
  })

  test('finds the path at any depth, including numbers and keys', () => {
    expect(findCardNumber({ provider: 'manual', reference: 'x', extra: { card: ['a', '4242424242424242'] } })).toBe('extra.card[1]')
    expect(findCardNumber({ number: 4242424242424242 })).toBe('number')
    expect(findCardNumber({ '4111111111111111': true })).toBe('4111111111111111')
    expect(findCardNumber({ provider: 'stripe', stripePaymentMethodId: 'pm_123' })).toBeUndefined()
  })

  test('a body nested 20,000 deep is walked without overflowing the stack, and a card at the bottom is found', () => {
    let deep: unknown = 'nothing here'
    let withCard: unknown = '4242424242424242'
    for (let i = 0; i < 20_000; i++) {
      deep = [deep]
      withCard = { a: withCard }
    }
    expect(findCardNumber(deep)).toBeUndefined()
    expect(findCardNumber(withCard)?.startsWith('a.a.a.')).toBe(true)
  })
})
