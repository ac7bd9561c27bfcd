// The workspace's do-not-call (suppression) list: numbers no campaign ever dials. The opt_out
// tool and workflow node add the callee to it during a call.
import { Elysia, t } from 'elysia'
import { type Db, decodeCursor, finishPage, pageLimit } from '../../platform/db/index.ts'
import { notFound, validation, type FieldIssue } from '../../platform/errors.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { NextCursor, Ok, WorkspaceParams } from '../../platform/schema/index.ts'
import { PaginationQuery } from '../../platform/schema/index.ts'
import { nowIso } from '../../platform/ids.ts'
import { strictE164 } from '../numbers/index.ts'
import * as repo from './do-not-call.repository.ts'


export const MAX_IMPORT = 100_000


const Entry = t.Object({ number: t.String(), reason: t.Union([t.String(), t.Null()]), source: t.String(), createdAt: t.String() })
const AddBody = t.Object({
  number: t.Optional(t.String({ description: 'one E.164 number' })),
  numbers: t.Optional(t.Array(t.String(), { maxItems: MAX_IMPORT, description: `bulk import: up to ${MAX_IMPORT} E.164 numbers` })),
  reason: t.Optional(t.String({ maxLength: 500 })),
})

export function doNotCallController(db: Db, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/workspaces/:workspace_id/do-not-call', tags: ['Do not call'] })
    .use(auth)
    .get(
      '',
      async ({ params, query }) => {
        const number = query.number ? strictE164(query.number) : undefined
        if (query.number && !number) throw validation([{ path: 'number', message: 'must be an E.164 number' }])
        const rows = await repo.listNumbers(db, params.workspace_id, { limit: pageLimit(query), after: decodeCursor(query.cursor), number })
        const page = finishPage(rows, pageLimit(query), (r) => [r.created_at, r.number])
        return { numbers: page.items.map((r) => ({ number: r.number, reason: r.reason, source: r.source, createdAt: r.created_at })), nextCursor: page.nextCursor }
      },
      {
        permission: 'campaigns:read',
        params: WorkspaceParams,
        query: t.Composite([PaginationQuery, t.Object({ number: t.Optional(t.String({ description: 'only this number (is it listed?)' })) })]),
        response: t.Object({ numbers: t.Array(Entry), nextCursor: NextCursor }),
        detail: { summary: 'List the do-not-call numbers, newest first' },
      },
    )
    .post(
      '',
      async ({ params, body }) => {
        const given = [...(body.number !== undefined ? [body.number] : []), ...(body.numbers ?? [])]
        const issues: FieldIssue[] = []
        if (!given.length) issues.push({ path: 'numbers', message: 'give number or numbers' })
        const clean: string[] = []
        given.forEach((n, i) => {
          const e164 = strictE164(n.trim())
          if (e164) clean.push(e164)
          else if (issues.length < 50) issues.push({ path: body.number !== undefined && i === 0 ? 'number' : `numbers[${i - (body.number !== undefined ? 1 : 0)}]`, message: 'must be an E.164 number such as +14155550123' })
        })
        if (issues.length) throw validation(issues)
        const unique = [...new Set(clean)]
        const source = body.numbers ? 'import' : 'api'
        const added = await repo.addNumbers(db, params.workspace_id, unique.map((number) => ({ number, reason: body.reason ?? null, source })), nowIso())
        return { added, alreadyListed: unique.length - added }
      },
      {
        permission: 'campaigns:write',
        params: WorkspaceParams,
        body: AddBody,
        response: t.Object({ added: t.Integer(), alreadyListed: t.Integer() }),
        detail: {
          summary: 'Add numbers to the do-not-call list (one, or a bulk import of up to 100,000)',
          description: 'All or nothing: one invalid number refuses the request (422, naming numbers[i]). Listed numbers are never dialled by a campaign, also in jobs created before; such contacts count as suppressed.',
        },
      },
    )
    .delete(
      '/:number',
      async ({ params }) => {
        // Elysia has decoded the path already; a number never holds '%', so there is nothing more to decode
        const number = strictE164(params.number)
        if (!number || !(await repo.removeNumber(db, params.workspace_id, number))) throw notFound('do-not-call number')
        return { ok: true as const }
      },
      {
        permission: 'campaigns:write',
        params: t.Object({ workspace_id: t.String(), number: t.String() }),
        response: Ok,
        detail: { summary: 'Remove a number from the do-not-call list (URL-encode the +: %2B)' },
      },
    )
}
