export type Role = 'admin' | 'member'

export interface WorkspaceTable {
  id: string
  name: string
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
  joined_at: string
}
