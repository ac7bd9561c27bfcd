import type { Kysely } from 'kysely'
import type { AgentTestResultTable, AgentTestRunTable, AgentTestTable } from '../../features/agent-tests/agent-tests.table.ts'
import type { AgentTable } from '../../features/agents/agents.table.ts'
import type { ApiKeyTable } from '../../features/api-keys/api-keys.table.ts'
import type { BillingCustomerTable, PaymentMethodTable } from '../../features/billing/billing.table.ts'
import type { CallTable } from '../../features/calls/calls.table.ts'
import type { CallActionTable } from '../../features/calls/actions/actions.table.ts'
import type { AgentAnalysisSettingsTable, CallAnalysisTable, CallEvaluationTable, CallLabelTable } from '../../features/calls/records/records.table.ts'
import type { CarrierSettingsTable } from '../../features/carrier/carrier.table.ts'
import type { JobLeaseTable } from '../jobs/jobs.table.ts'
import type { OutboundContactTable, OutboundJobTable } from '../../features/campaigns/campaigns.table.ts'
import type { KnowledgeBaseTable, KnowledgeChunkTable, KnowledgeDocumentTable } from '../../features/knowledge/knowledge.table.ts'
import type { DoNotCallTable } from '../../features/do-not-call/do-not-call.table.ts'
import type { PhoneNumberTable } from '../../features/numbers/numbers.table.ts'
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookSecretTable } from '../../features/webhooks/webhooks.table.ts'
import type { WorkflowTable } from '../../features/workflows/workflows.table.ts'
import type { MembershipTable, UserTable, WorkspaceTable } from '../../features/workspaces/workspaces.table.ts'

/** Every table of the appliance, gathered from the capability folders' *.table.ts files. */
export interface Database {
  workspaces: WorkspaceTable
  users: UserTable
  memberships: MembershipTable
  api_keys: ApiKeyTable
  agents: AgentTable
  agent_tests: AgentTestTable
  agent_test_runs: AgentTestRunTable
  agent_test_results: AgentTestResultTable
  call_actions: CallActionTable
  phone_numbers: PhoneNumberTable
  payment_methods: PaymentMethodTable
  billing_customers: BillingCustomerTable
  carrier_settings: CarrierSettingsTable
  workflows: WorkflowTable
  calls: CallTable
  call_analyses: CallAnalysisTable
  call_evaluations: CallEvaluationTable
  call_labels: CallLabelTable
  agent_analysis_settings: AgentAnalysisSettingsTable
  webhook_deliveries: WebhookDeliveryTable
  webhook_attempts: WebhookAttemptTable
  webhook_secrets: WebhookSecretTable
  job_leases: JobLeaseTable
  outbound_jobs: OutboundJobTable
  outbound_contacts: OutboundContactTable
  do_not_call: DoNotCallTable
  knowledge_bases: KnowledgeBaseTable
  knowledge_documents: KnowledgeDocumentTable
  knowledge_chunks: KnowledgeChunkTable
}

export type Db = Kysely<Database>
