import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Server } from 'bun'
import { CarrierError, fromCarrier, TwilioClient } from '../../../src/features/carrier/index.ts'
import { StripeClient, StripeError } from '../../../src/features/billing/index.ts'

let garbage: Server<undefined>
let closedPort: number
beforeAll(() => {
  garbage = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('<html>bad gateway</html>', { status: 502 }) })
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('') })
  closedPort = probe.port as number
  probe.stop(true)
})
afterAll(() => garbage.stop(true))

describe('malformed or missing provider answers become clean errors', () => {
  test('a carrier answering HTML maps to 502 carrier_error', async () => {
    const client = new TwilioClient(`http://127.0.0.1:${garbage.port}`, 'AC0', 'token')
    const err = await client.searchLocal('US', {}).catch((e) => e)
    expect(err).toBeInstanceOf(CarrierError)
    expect(fromCarrier(err)).toMatchObject({ status: 502, code: 'carrier_error', details: { carrierStatus: 502, carrierCode: null } })
  })

  test('an unreachable carrier maps to 502 carrier_error', async () => {
    const client = new TwilioClient(`http://127.0.0.1:${closedPort}`, 'AC0', 'token')
    const err = await client.buyNumber({ phoneNumber: '+14155550123' }).catch((e) => e)
    expect(err).toBeInstanceOf(CarrierError)
    expect(fromCarrier(err)).toMatchObject({ status: 502, details: { carrierStatus: 0 } })
  })

  test('Stripe answering HTML or not at all is a StripeError, never a crash', async () => {
    const html = await new StripeClient(`http://127.0.0.1:${garbage.port}`, 'sk').retrievePaymentMethod('pm_x').catch((e) => e)
    expect(html).toBeInstanceOf(StripeError)
    expect(html.status).toBe(502)
    const down = await new StripeClient(`http://127.0.0.1:${closedPort}`, 'sk').retrievePaymentMethod('pm_x').catch((e) => e)
    expect(down).toMatchObject({ status: 0, type: 'api_connection_error' })
  })
})
