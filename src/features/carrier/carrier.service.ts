import type { Config } from '../../platform/config/index.ts'
import type { Db } from '../../platform/db/index.ts'
import { AppError } from '../../platform/errors.ts'
import { nowIso } from '../../platform/ids.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import type { AvailableNumber, CarrierSettings } from './carrier.model.ts'
import { CarrierError, type TwilioAvailableNumber, TwilioClient } from './twilio.ts'

export type CarrierConfig = Pick<Config, 'CARRIER_API_BASE' | 'CARRIER_ACCOUNT_SID' | 'CARRIER_AUTH_TOKEN'>

const tokenContext = (workspaceId: string) => `carrier_settings.auth_token:${workspaceId}`

/** The carrier's answer in our error body, its own error code in details. */
export function fromCarrier(err: CarrierError): AppError {
  const details = { carrier: 'twilio', carrierStatus: err.status, carrierCode: err.code, moreInfo: err.moreInfo ?? null }
  if (err.status === 0 || err.status >= 500 || err.status === 401 || err.status === 403 || err.status === 429) {
    return new AppError(502, 'carrier_error', `the carrier could not be used: ${err.message}`, details)
  }
  return new AppError(422, 'carrier_error', `the carrier refused: ${err.message}`, details)
}

export async function carrierCall<T>(p: Promise<T>): Promise<T> {
  try {
    return await p
  } catch (err) {
    throw err instanceof CarrierError ? fromCarrier(err) : err
  }
}

/** Credentials for the workspace: its own settings first, then the appliance config. */
export async function carrierCredentials(db: Db, box: SecretBox, cfg: CarrierConfig, workspaceId: string): Promise<{ accountSid: string; authToken: string }> {
  const row = await db.selectFrom('carrier_settings').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst()
  if (row) return { accountSid: row.account_sid, authToken: box.decrypt(row.auth_token_enc, tokenContext(workspaceId)) }
  const missing = [!cfg.CARRIER_ACCOUNT_SID && 'CARRIER_ACCOUNT_SID', !cfg.CARRIER_AUTH_TOKEN && 'CARRIER_AUTH_TOKEN'].filter(Boolean) as string[]
  if (missing.length) {
    throw new AppError(
      503,
      'carrier_not_configured',
      `the carrier is not configured: set ${missing.join(' and ')} or PUT /api/workspaces/${workspaceId}/carrier/settings`,
      { missing },
    )
  }
  return { accountSid: cfg.CARRIER_ACCOUNT_SID, authToken: cfg.CARRIER_AUTH_TOKEN }
}

export async function carrierClient(db: Db, box: SecretBox, cfg: CarrierConfig, workspaceId: string): Promise<TwilioClient> {
  const { accountSid, authToken } = await carrierCredentials(db, box, cfg, workspaceId)
  return new TwilioClient(cfg.CARRIER_API_BASE, accountSid, authToken)
}

export function toAvailableNumber(n: TwilioAvailableNumber): AvailableNumber {
  const caps = n.capabilities ?? {}
  const cap = (k: string) => Boolean(caps[k] ?? caps[k.toLowerCase()])
  return {
    phoneNumber: n.phone_number,
    friendlyName: n.friendly_name ?? n.phone_number,
    locality: n.locality ?? '',
    region: n.region ?? '',
    isoCountry: n.iso_country ?? '',
    capabilities: { voice: cap('voice'), SMS: cap('SMS'), MMS: cap('MMS') },
  }
}

export async function searchAvailable(
  db: Db,
  box: SecretBox,
  cfg: CarrierConfig,
  workspaceId: string,
  q: { country: string; area_code?: string; limit?: number },
): Promise<{ numbers: AvailableNumber[] }> {
  const client = await carrierClient(db, box, cfg, workspaceId)
  const found = await carrierCall(client.searchLocal(q.country.toUpperCase(), { areaCode: q.area_code, limit: q.limit }))
  return { numbers: found.map(toAvailableNumber) }
}

export async function getSettings(db: Db, cfg: CarrierConfig, workspaceId: string): Promise<CarrierSettings> {
  const row = await db.selectFrom('carrier_settings').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst()
  if (row) return { accountSid: row.account_sid, authTokenSet: true, source: 'workspace', updatedAt: row.updated_at }
  if (cfg.CARRIER_ACCOUNT_SID && cfg.CARRIER_AUTH_TOKEN) return { accountSid: cfg.CARRIER_ACCOUNT_SID, authTokenSet: true, source: 'config', updatedAt: null }
  return { accountSid: null, authTokenSet: false, source: 'none', updatedAt: null }
}

export async function putSettings(db: Db, box: SecretBox, workspaceId: string, accountSid: string, authToken: string): Promise<CarrierSettings> {
  const at = nowIso()
  const row = { workspace_id: workspaceId, account_sid: accountSid, auth_token_enc: box.encrypt(authToken, tokenContext(workspaceId)), updated_at: at }
  await db
    .insertInto('carrier_settings')
    .values(row)
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ account_sid: row.account_sid, auth_token_enc: row.auth_token_enc, updated_at: at }))
    .execute()
  return { accountSid, authTokenSet: true, source: 'workspace', updatedAt: at }
}

export async function deleteSettings(db: Db, workspaceId: string): Promise<void> {
  await db.deleteFrom('carrier_settings').where('workspace_id', '=', workspaceId).execute()
}
