import type { Db } from '../../../platform/db/index.ts'
import type { CallActionTable } from './actions.table.ts'

export const insertAction = (db: Db, row: CallActionTable) => db.insertInto('call_actions').values(row).execute()

export const listActions = (db: Db, workspaceId: string, callId: string) =>
  db.selectFrom('call_actions').selectAll().where('workspace_id', '=', workspaceId).where('call_id', '=', callId).orderBy('created_at').orderBy('id').execute()
