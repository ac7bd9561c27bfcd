import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { findNumbersByE164 } from '../../src/features/numbers/index.ts'
import { secretBoxFor } from '../../src/platform/secrets/index.ts'
import { startTestAppliance } from '../helpers/appliance.ts'

test('the secret key is made once: after a restart on the same DATA_DIR stored SIP passwords still decrypt', async () => {
  const first = await startTestAppliance()
  const dir = first.dataDir
  await first.api('POST', `/api/workspaces/${first.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'r' } })
  const made = await first.api('POST', '/api/phone-numbers', {
    body: { e164: '+14155550177', sipTerminationUri: 'sip:pbx.example.com', sipUsername: 'u', sipPassword: 'restart-secret-1' },
  })
  expect(made.status).toBe(200)
  const keyBefore = readFileSync(join(dir, 'secret.key'), 'utf8')
  await first.stop({ keepData: true })

  const second = await startTestAppliance({}, dir)
  try {
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).toBe(keyBefore)
    const [route] = await findNumbersByE164(second.appliance.database.db, secretBoxFor(dir), '+14155550177')
    expect(route?.sip?.password).toBe('restart-secret-1')
  } finally {
    await second.stop()
  }
})
