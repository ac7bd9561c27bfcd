// The SdpError a negotiation throws, for tests that check its status and message.
import { expect } from 'bun:test'
import { SdpError } from '../../src/realtime/telephony/sdp/index.ts'

export function sdpRefusal(fn: () => unknown): SdpError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(SdpError)
    return err as SdpError
  }
  throw new Error('expected an SdpError')
}
