import type { Kysely } from 'kysely'
import type { ApiKeyTable } from '../api-keys/api-keys.table.ts'
import type { WorkflowTable } from '../workflows/workflows.table.ts'
import type { MembershipTable, UserTable, WorkspaceTable } from '../workspaces/workspaces.table.ts'

/** Every table of the appliance, gathered from the capability folders' *.table.ts files. */
export interface Database {
  workspaces: WorkspaceTable
  users: UserTable
  memberships: MembershipTable
  api_keys: ApiKeyTable
  workflows: WorkflowTable
}

export type Db = Kysely<Database>
