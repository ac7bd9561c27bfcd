import type { Db } from '../../platform/db/index.ts'
import { type PageRequest, keysetPage } from '../../platform/db/index.ts'
import type { PhoneNumberTable } from './numbers.table.ts'

export const insertNumber = (db: Db, row: PhoneNumberTable) => db.insertInto('phone_numbers').values(row).execute()

export const findLiveNumber = (db: Db, workspaceId: string, id: string) =>
  db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('released_at', 'is', null)
    .executeTakeFirst()

export const findLiveNumberById = (db: Db, id: string) =>
  db.selectFrom('phone_numbers').selectAll().where('id', '=', id).where('released_at', 'is', null).executeTakeFirst()

export const findLiveByE164AnyWorkspace = (db: Db, e164: string) =>
  db.selectFrom('phone_numbers').selectAll().where('e164', '=', e164).where('released_at', 'is', null).orderBy('created_at').execute()

/** The one live number with this e164 (a unique index keeps it one), in whichever workspace. */
export const findLiveOwnerOfE164 = (db: Db, e164: string) =>
  db.selectFrom('phone_numbers').selectAll().where('e164', '=', e164).where('released_at', 'is', null).executeTakeFirst()

export const listLiveNumbers = (db: Db, workspaceId: string, page: PageRequest) =>
  keysetPage(
    db.selectFrom('phone_numbers').selectAll().where('workspace_id', '=', workspaceId).where('released_at', 'is', null),
    'created_at',
    'id',
    page,
  ).execute()

export async function updateNumber(db: Db, id: string, set: Partial<PhoneNumberTable>): Promise<PhoneNumberTable | undefined> {
  return db.updateTable('phone_numbers').set(set).where('id', '=', id).where('released_at', 'is', null).returningAll().executeTakeFirst()
}

export const findLiveRegistering = (db: Db) =>
  db.selectFrom('phone_numbers').selectAll().where('sip_register', '=', 1).where('provider', '=', 'sip').where('released_at', 'is', null).orderBy('created_at').execute()
