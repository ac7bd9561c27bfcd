import type { Db } from '../../platform/db/index.ts'
import { type PageRequest, keysetPage } from '../../platform/db/index.ts'
import type { PaymentMethodTable } from './billing.table.ts'

export const insertPaymentMethod = (db: Db, row: PaymentMethodTable) => db.insertInto('payment_methods').values(row).execute()

export const findPaymentMethod = (db: Db, workspaceId: string, id: string) =>
  db.selectFrom('payment_methods').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst()

export const findByStripeId = (db: Db, workspaceId: string, stripeId: string) =>
  db
    .selectFrom('payment_methods')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('stripe_payment_method_id', '=', stripeId)
    .executeTakeFirst()

export const listPaymentMethods = (db: Db, workspaceId: string, page: PageRequest) =>
  keysetPage(db.selectFrom('payment_methods').selectAll().where('workspace_id', '=', workspaceId), 'created_at', 'id', page).execute()

export const deletePaymentMethod = (db: Db, workspaceId: string, id: string) =>
  db.deleteFrom('payment_methods').where('workspace_id', '=', workspaceId).where('id', '=', id).execute()

export async function hasPaymentMethod(db: Db, workspaceId: string): Promise<boolean> {
  const row = await db.selectFrom('payment_methods').select('id').where('workspace_id', '=', workspaceId).limit(1).executeTakeFirst()
  return row !== undefined
}

export const findStripeCustomer = (db: Db, workspaceId: string) =>
  db.selectFrom('billing_customers').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst()

export const insertStripeCustomer = (db: Db, workspaceId: string, customerId: string, at: string) =>
  db
    .insertInto('billing_customers')
    .values({ workspace_id: workspaceId, stripe_customer_id: customerId, created_at: at })
    .onConflict((oc) => oc.column('workspace_id').doNothing())
    .execute()
