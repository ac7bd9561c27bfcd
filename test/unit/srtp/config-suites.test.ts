import { expect, test } from 'bun:test'
import { loadConfig } from '../../../src/platform/config/index.ts'
import { CONFIGURABLE_SRTP_SUITES } from '../../../src/platform/config/media.ts'
import { SRTP_SUITES } from '../../../src/realtime/srtp/index.ts'

test('the suites SRTP_SUITES may name are exactly the suites the SRTP transform implements', () => {
  expect([...CONFIGURABLE_SRTP_SUITES].sort() as string[]).toEqual(Object.keys(SRTP_SUITES).sort())
})

test('MEDIA_ENCRYPTION and SRTP_SUITES refuse values that would fail a call later, naming the key', () => {
  expect(() => loadConfig({ DATA_DIR: './x', MEDIA_ENCRYPTION: 'sdes' })).toThrow(/MEDIA_ENCRYPTION must be none, optional or required/)
  expect(() => loadConfig({ DATA_DIR: './x', SRTP_SUITES: 'AES_CM_128_HMAC_SHA1_80,F8_128_HMAC_SHA1_80' })).toThrow(/SRTP_SUITES: unknown suite F8_128_HMAC_SHA1_80/)
  expect(() => loadConfig({ DATA_DIR: './x', SRTP_SUITES: ' , ' })).toThrow(/SRTP_SUITES: lists no suite/)
  expect(() => loadConfig({ DATA_DIR: './x', SRTP_SUITES: 'AEAD_AES_128_GCM,AEAD_AES_128_GCM' })).toThrow(/names a suite twice/)
  expect(loadConfig({ DATA_DIR: './x', SRTP_SUITES: 'AEAD_AES_128_GCM, AES_CM_128_HMAC_SHA1_80' }).SRTP_SUITES).toBe('AEAD_AES_128_GCM, AES_CM_128_HMAC_SHA1_80')
})
