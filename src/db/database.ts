import type { Kysely } from 'kysely'
import type { AgentTable } from '../agents/agents.table.ts'
import type { ApiKeyTable } from '../api-keys/api-keys.table.ts'
import type { BillingCustomerTable, PaymentMethodTable } from '../billing/billing.table.ts'
import type { CallTable } from '../calls/calls.table.ts'
import type { OutboundContactTable, OutboundJobTable } from '../campaigns/campaigns.table.ts'
import type { CarrierSettingsTable } from '../carrier/carrier.table.ts'
import type { DoNotCallTable } from '../do-not-call/do-not-call.table.ts'
import type { PhoneNumberTable } from '../numbers/numbers.table.ts'
import type { WorkflowTable } from '../workflows/workflows.table.ts'
import type { MembershipTable, UserTable, WorkspaceTable } from '../workspaces/workspaces.table.ts'

/** Every table of the appliance, gathered from the capability folders' *.table.ts files. */
export interface Database {
  workspaces: WorkspaceTable
  users: UserTable
  memberships: MembershipTable
  api_keys: ApiKeyTable
  agents: AgentTable
  phone_numbers: PhoneNumberTable
  payment_methods: PaymentMethodTable
  billing_customers: BillingCustomerTable
  carrier_settings: CarrierSettingsTable
  workflows: WorkflowTable
  calls: CallTable
  outbound_jobs: OutboundJobTable
  outbound_contacts: OutboundContactTable
  do_not_call: DoNotCallTable
}

export type Db = Kysely<Database>
