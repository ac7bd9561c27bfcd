import { type Kysely, sql } from 'kysely'

// Landed migrations never change; add a new timestamped file instead.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prompt_draft', 'text', (c) => c.notNull())
    .addColumn('prompt_published', 'text', (c) => c.notNull())
    .addColumn('welcome', 'text', (c) => c.notNull())
    .addColumn('voice', 'text', (c) => c.notNull())
    .addColumn('llm_model', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('enabled_tools', 'text', (c) => c.notNull())
    .addColumn('tool_configs', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text', (c) => c.notNull())
    .addColumn('agent_type', 'text', (c) => c.notNull().check(sql`agent_type in ('inbound', 'outbound')`))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('reception', 'booking', 'sales', 'followup')`))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('agents_workspace').on('agents').columns(['workspace_id', 'created_at', 'id']).execute()

  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('e164', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('sip', 'carrier')`))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('unconfigured', 'active', 'error', 'released')`))
    .addColumn('status_reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('connected', 'purchased')`))
    .addColumn('inbound_agent_id', 'text', (c) => c.references('agents.id'))
    .addColumn('outbound_agent_id', 'text', (c) => c.references('agents.id'))
    .addColumn('sip_termination_uri', 'text')
    .addColumn('sip_username', 'text')
    .addColumn('sip_password_enc', 'text')
    .addColumn('sip_outbound_transport', 'text', (c) => c.notNull().check(sql`sip_outbound_transport in ('tcp', 'udp', 'tls')`))
    .addColumn('carrier_sid', 'text')
    .addColumn('released_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('phone_numbers_e164_live')
    .on('phone_numbers')
    .columns(['workspace_id', 'e164'])
    .unique()
    .where(sql.ref('released_at'), 'is', null)
    .execute()
  await db.schema.createIndex('phone_numbers_e164').on('phone_numbers').columns(['e164']).execute()
  await db.schema.createIndex('phone_numbers_workspace').on('phone_numbers').columns(['workspace_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('phone_numbers_inbound_agent').on('phone_numbers').columns(['inbound_agent_id']).execute()
  await db.schema.createIndex('phone_numbers_outbound_agent').on('phone_numbers').columns(['outbound_agent_id']).execute()

  await db.schema
    .createTable('payment_methods')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('stripe', 'manual')`))
    .addColumn('stripe_payment_method_id', 'text')
    .addColumn('stripe_customer_id', 'text')
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('card_exp_month', 'integer')
    .addColumn('card_exp_year', 'integer')
    .addColumn('reference', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('payment_methods_stripe_unique', ['workspace_id', 'stripe_payment_method_id'])
    .execute()
  await db.schema.createIndex('payment_methods_workspace').on('payment_methods').columns(['workspace_id', 'created_at', 'id']).execute()

  await db.schema
    .createTable('billing_customers')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('stripe_customer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('carrier_settings')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('account_sid', 'text', (c) => c.notNull())
    .addColumn('auth_token_enc', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['carrier_settings', 'billing_customers', 'payment_methods', 'phone_numbers', 'agents']) {
    await db.schema.dropTable(table).execute()
  }
}
