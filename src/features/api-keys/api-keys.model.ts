import { t } from 'elysia'
import { Name } from '../../platform/schema/index.ts'

export const ApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String({ description: 'first characters of the key, for recognising it' }),
  last4: t.String(),
  userId: t.String({ description: 'the member this key acts as' }),
  createdAt: t.String({ format: 'date-time' }),
  expiresAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
})
export type ApiKey = typeof ApiKey.static

export const ApiKeyWithSecret = t.Composite([ApiKey, t.Object({ key: t.String({ description: 'the secret; shown only once' }) })])

export const CreateApiKeyBody = t.Object({
  name: Name({ minLength: 1, maxLength: 100 }),
  expiresAt: t.Optional(t.String({ format: 'date-time', description: 'ISO 8601; must be in the future' })),
  userId: t.Optional(t.String({ description: 'member the key acts as; defaults to the caller' })),
})
export type CreateApiKeyBody = typeof CreateApiKeyBody.static
