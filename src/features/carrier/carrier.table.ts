export interface CarrierSettingsTable {
  workspace_id: string
  account_sid: string
  /** Sealed with the DATA_DIR key, bound to `carrier_settings.auth_token:<workspace_id>`. */
  auth_token_enc: string
  updated_at: string
}
