import { expect, test } from 'bun:test'
import { signatureMatches, twilioSignature } from '../../../src/features/carrier/index.ts'

// The worked example of Twilio's security documentation (auth token 12345).
test("Twilio request signature matches Twilio's documented example", () => {
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2'
  const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' }
  expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=')
  expect(signatureMatches('12345', url, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', params)).toBe(true)
  expect(signatureMatches('12346', url, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', params)).toBe(false)
})
