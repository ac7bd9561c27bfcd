export type Role = 'admin' | 'member'

export interface WorkspaceTable {
  id: string
  name: string
  /** The operator's cap on the workspace's calls up at once (every kind); null: unlimited. */
  max_concurrent_calls?: number | null
  created_at: string
  updated_at: string
}

export interface UserTable {
  id: string
  email: string
  created_at: string
}

export interface MembershipTable {
  workspace_id: string
  user_id: string
  role: Role
  /** Permissions granted beyond the role (GRANTABLE), a JSON array; '[]' when none. */
  grants?: string
  joined_at: string
}
