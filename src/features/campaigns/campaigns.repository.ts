// Jobs and contacts. Every change of a contact's status moves the job's counters in the same
// transaction (bump), so the counters equal counts over the contacts at every commit.
import { sql, type Insertable, type Transaction } from 'kysely'
import { type Database, type Db, forEachChunk, lockedForUpdate } from '../../platform/db/index.ts'
import type { Counter, JobStatus, OutboundContactTable, OutboundJobTable } from './campaigns.table.ts'

export type Tx = Transaction<Database> | Db

const CHUNK = 500

export async function insertJob(trx: Tx, job: Insertable<OutboundJobTable>, contacts: Insertable<OutboundContactTable>[]): Promise<void> {
  await trx.insertInto('outbound_jobs').values(job).execute()
  await forEachChunk(contacts, CHUNK, (chunk) => trx.insertInto('outbound_contacts').values(chunk).execute())
}

/** Adds `deltas` to the job's counters. */
export async function bump(trx: Tx, jobId: string, deltas: Partial<Record<Counter, number>>): Promise<void> {
  const set: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(deltas)) if (v) set[k] = sql`${sql.ref(k)} + ${v}`
  if (Object.keys(set).length) await trx.updateTable('outbound_jobs').set(set).where('id', '=', jobId).execute()
}

const jobWithNames = (db: Tx) =>
  db
    .selectFrom('outbound_jobs as j')
    .leftJoin('agents as a', 'a.id', 'j.agent_id')
    .leftJoin('phone_numbers as n', 'n.id', 'j.phone_number_id')
    .selectAll('j')
    .select(['a.name as agent_name', 'n.e164 as phone_e164'])

export const findJob = (db: Tx, workspaceId: string, id: string) =>
  jobWithNames(db).where('j.workspace_id', '=', workspaceId).where('j.id', '=', id).executeTakeFirst()

export const findJobById = (db: Tx, id: string) => db.selectFrom('outbound_jobs').selectAll().where('id', '=', id).executeTakeFirst()

/** The job, locked until the transaction ends (PostgreSQL): claims and closes of several nodes take turns. */
export const lockJob = (trx: Tx, id: string) => lockedForUpdate(trx, trx.selectFrom('outbound_jobs').selectAll().where('id', '=', id)).executeTakeFirst()

/** Newest first, `limit + 1` rows after the (createdAt, id) cursor. */
export function listJobs(db: Db, workspaceId: string, limit: number, after?: [string, string]) {
  let qb = jobWithNames(db).where('j.workspace_id', '=', workspaceId)
  if (after) qb = qb.where(sql<boolean>`(j.created_at, j.id) < (${after[0]}, ${after[1]})`)
  return qb.orderBy('j.created_at', 'desc').orderBy('j.id', 'desc').limit(limit + 1).execute()
}

export const setJob = (trx: Tx, id: string, patch: Partial<{ status: JobStatus; started_at: string; completed_at: string }>, onlyFrom?: JobStatus[]) => {
  let q = trx.updateTable('outbound_jobs').set(patch).where('id', '=', id)
  if (onlyFrom) q = q.where('status', 'in', onlyFrom)
  return q.executeTakeFirst().then((r) => Number(r.numUpdatedRows))
}

/** Jobs the dispatcher may work on now: running ones, and scheduled ones whose start has come. */
export const runnableJobs = (db: Tx, nowMs: number) =>
  db
    .selectFrom('outbound_jobs')
    .selectAll()
    .where((eb) => eb.or([eb('status', '=', 'in_progress'), eb.and([eb('status', '=', 'scheduled'), eb('start_at_ms', '<=', nowMs)])]))
    .orderBy('created_at')
    .execute()

/** The next moment something becomes due: a scheduled start or a waiting contact of a running job. */
export async function nextDueMs(db: Tx): Promise<number | undefined> {
  const start = await db.selectFrom('outbound_jobs').select((eb) => eb.fn.min('start_at_ms').as('at')).where('status', '=', 'scheduled').executeTakeFirst()
  const contact = await db
    .selectFrom('outbound_contacts as c')
    .innerJoin('outbound_jobs as j', 'j.id', 'c.job_id')
    .select((eb) => eb.fn.min('c.next_attempt_ms').as('at'))
    .where('j.status', '=', 'in_progress')
    .where('c.status', '=', 'pending')
    .executeTakeFirst()
  const times = [start?.at, contact?.at].filter((v): v is number => typeof v === 'number')
  return times.length ? Math.min(...times) : undefined
}

/** The first pending contact due at `nowMs` (on PostgreSQL: FOR UPDATE SKIP LOCKED). */
export const nextDueContact = (trx: Tx, jobId: string, nowMs: number) =>
  trx
    .selectFrom('outbound_contacts')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('status', '=', 'pending')
    .where('next_attempt_ms', '<=', nowMs)
    .orderBy('next_attempt_ms')
    .orderBy('position')
    .limit(1)
    .executeTakeFirst()

export const findContact = (db: Tx, id: string) => db.selectFrom('outbound_contacts').selectAll().where('id', '=', id).executeTakeFirst()

/** The contact, locked until the transaction ends (PostgreSQL): one node finishes an attempt. */
export const lockContact = (trx: Tx, id: string) => lockedForUpdate(trx, trx.selectFrom('outbound_contacts').selectAll().where('id', '=', id)).executeTakeFirst()

export function listContacts(db: Db, jobId: string, q: { status?: string; limit: number; after: number }) {
  let qb = db.selectFrom('outbound_contacts').selectAll().where('job_id', '=', jobId).where('position', '>', q.after)
  if (q.status) qb = qb.where('status', '=', q.status as never)
  return qb.orderBy('position').limit(q.limit + 1).execute()
}

/** Contacts under a lease held by `owner` (when given) or run out: their attempt must be reconciled. */
export const staleClaims = (db: Tx, owner: string | undefined, nowMs: number) =>
  db
    .selectFrom('outbound_contacts')
    .selectAll()
    .where('status', '=', 'dialing')
    .where((eb) => (owner ? eb.or([eb('lease_owner', '=', owner), eb('lease_expires_ms', '<', nowMs)]) : eb('lease_expires_ms', '<', nowMs)))
    .execute()

export const renewLeases = (db: Tx, owner: string, ids: string[], untilMs: number) =>
  ids.length ? db.updateTable('outbound_contacts').set({ lease_expires_ms: untilMs }).where('lease_owner', '=', owner).where('id', 'in', ids).execute() : Promise.resolve([])

/** Cancels every pending contact of a job; returns how many. */
export async function cancelPending(trx: Tx, jobId: string, updatedAt: string): Promise<number> {
  const r = await trx
    .updateTable('outbound_contacts')
    .set({ status: 'cancelled', outcome: 'cancelled', updated_at: updatedAt })
    .where('job_id', '=', jobId)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return Number(r.numUpdatedRows)
}
