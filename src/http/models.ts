import { t } from 'elysia'

export const WorkspaceParams = t.Object({ workspace_id: t.String() })
export const IdParams = t.Object({ id: t.String() })
export const Ok = t.Object({ ok: t.Literal(true) })
export const NextCursor = t.Union([t.String(), t.Null()], { description: 'cursor of the next page; null on the last page' })

export const ErrorResponse = t.Object(
  {
    error: t.Object({
      code: t.String({ description: 'stable machine-readable code' }),
      message: t.String(),
      details: t.Optional(t.Record(t.String(), t.Unknown())),
      requestId: t.String(),
    }),
  },
  { description: 'The one error body of every 4xx and 5xx response' },
)
