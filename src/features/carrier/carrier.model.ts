import { t } from 'elysia'

export const AvailableNumber = t.Object({
  phoneNumber: t.String(),
  friendlyName: t.String(),
  locality: t.String(),
  region: t.String(),
  isoCountry: t.String(),
  capabilities: t.Object({ voice: t.Boolean(), SMS: t.Boolean(), MMS: t.Boolean() }),
})
export type AvailableNumber = typeof AvailableNumber.static

export const SearchQuery = t.Object({
  country: t.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 country code, e.g. US' }),
  area_code: t.Optional(t.String({ pattern: '^[0-9]{1,6}$', description: 'area code digits' })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 50, default: 20 })),
})

export const CarrierSettings = t.Object({
  accountSid: t.Union([t.String(), t.Null()]),
  authTokenSet: t.Boolean({ description: 'the token itself is never returned' }),
  source: t.Union([t.Literal('workspace'), t.Literal('config'), t.Literal('none')], {
    description: 'where the credentials in use come from: this workspace, the appliance config (CARRIER_*), or nowhere',
  }),
  updatedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
})
export type CarrierSettings = typeof CarrierSettings.static

export const PutCarrierSettingsBody = t.Object({
  accountSid: t.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'Twilio account SID (AC + 32 hex)' }),
  authToken: t.String({ minLength: 8, maxLength: 200, description: 'write-only; stored encrypted' }),
})
