import { t } from 'elysia'

/** The `limit` and `cursor` query parameters of every list route; the paging itself is db/pagination.ts. */
export const PaginationQuery = t.Object({
  limit: t.Optional(t.Integer({ title: 'limit', minimum: 1, maximum: 100, default: 50, description: 'page size, 1-100' })),
  cursor: t.Optional(t.String({ description: 'opaque cursor from the previous page\'s nextCursor' })),
})
