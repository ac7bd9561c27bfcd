import type { Db } from '../../platform/db/index.ts'
import { nowIso } from '../../platform/ids.ts'
import * as repo from './do-not-call.repository.ts'

/** Adds one number because the callee asked during a call. */
export const optOut = (db: Db, workspaceId: string, number: string) =>
  repo.addNumbers(db, workspaceId, [{ number, reason: 'the callee asked not to be called again', source: 'opt_out' }], nowIso())
