import { type Migration, Migrator } from 'kysely'
import type { Db } from './database.ts'
import * as foundation from './migrations/2026-11-21T1930_foundation.ts'
import * as agentsNumbersBilling from './migrations/2026-11-21T2000_agents_numbers_billing.ts'
import * as workflows from './migrations/2026-11-21T2010_workflows.ts'
import * as calls from './migrations/2026-11-21T2100_calls.ts'
import * as numberRegistration from './migrations/2026-11-21T2110_number_registration.ts'
import * as callCampaignLinks from './migrations/2026-11-23T1700_call_campaign_links.ts'
import * as numberOwner from './migrations/2026-11-23T1820_number_owner.ts'
import * as callRecords from './migrations/2026-11-23T1830_call_records.ts'
import * as webhooks from './migrations/2026-11-23T1831_webhooks.ts'
import * as outboundJobs from './migrations/2026-11-23T1840_outbound_jobs.ts'
import * as callNode from './migrations/2026-11-24T0100_call_node.ts'
import * as webhookErrorDetail from './migrations/2026-11-25T1200_webhook_error_detail.ts'
import * as agentEndpointing from './migrations/2026-11-25T2200_agent_endpointing.ts'
import * as numberMediaEncryption from './migrations/2026-11-26T1000_number_media_encryption.ts'
import * as knowledgeBases from './migrations/2026-11-26T1400_knowledge_bases.ts'
import * as agentKnowledge from './migrations/2026-11-26T1500_agent_knowledge.ts'
import * as callTestDraft from './migrations/2026-11-26T1600_call_test_draft.ts'
import * as callMedia from './migrations/2026-12-08T1000_call_media.ts'
import * as agentMaxDuration from './migrations/2026-12-08T1001_agent_max_duration.ts'
import * as contactTimezone from './migrations/2026-12-07T1900_contact_timezone.ts'
import * as agentVocabulary from './migrations/2026-12-08T1400_agent_vocabulary.ts'
import * as workspaceMaxCalls from './migrations/2026-12-08T1100_workspace_max_calls.ts'
import * as numberWhenBusy from './migrations/2026-12-08T1101_number_when_busy.ts'
import * as agentTests from './migrations/2026-12-08T1500_agent_tests.ts'
import * as knowledgeFtsPerBase from './migrations/2026-12-08T1200_knowledge_fts_per_base.ts'

/** Every migration, by name. Names sort by time; a landed entry is never edited. */
export const MIGRATIONS: Record<string, Migration> = {
  '2026-11-21T1930_foundation': foundation,
  '2026-11-21T2000_agents_numbers_billing': agentsNumbersBilling,
  '2026-11-21T2010_workflows': workflows,
  '2026-11-21T2100_calls': calls,
  '2026-11-21T2110_number_registration': numberRegistration,
  '2026-11-23T1700_call_campaign_links': callCampaignLinks,
  '2026-11-23T1820_number_owner': numberOwner,
  '2026-11-23T1830_call_records': callRecords,
  '2026-11-23T1831_webhooks': webhooks,
  '2026-11-23T1840_outbound_jobs': outboundJobs,
  '2026-11-24T0100_call_node': callNode,
  '2026-11-25T1200_webhook_error_detail': webhookErrorDetail,
  '2026-11-25T2200_agent_endpointing': agentEndpointing,
  '2026-11-26T1000_number_media_encryption': numberMediaEncryption,
  '2026-11-26T1400_knowledge_bases': knowledgeBases,
  '2026-11-26T1500_agent_knowledge': agentKnowledge,
  '2026-11-26T1600_call_test_draft': callTestDraft,
  '2026-12-07T1900_contact_timezone': contactTimezone,
  '2026-12-08T1000_call_media': callMedia,
  '2026-12-08T1001_agent_max_duration': agentMaxDuration,
  '2026-12-08T1100_workspace_max_calls': workspaceMaxCalls,
  '2026-12-08T1101_number_when_busy': numberWhenBusy,
  '2026-12-08T1200_knowledge_fts_per_base': knowledgeFtsPerBase,
  '2026-12-08T1400_agent_vocabulary': agentVocabulary,
  '2026-12-08T1500_agent_tests': agentTests,
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
