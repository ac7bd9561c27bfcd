export interface ApiKeyTable {
  id: string
  workspace_id: string
  user_id: string
  name: string
  prefix: string
  last4: string
  key_hash: string
  created_at: string
  expires_at: string | null
  revoked_at: string | null
}
