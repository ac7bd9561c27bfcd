// Knowledge bases of the caller's workspace: the bases, their documents, re-indexing and a search
// that shows what a caller's question would retrieve.
import { Elysia, t } from 'elysia'
import type { Db } from '../../platform/db/index.ts'
import type { AuthPlugin } from '../../http/auth.ts'
import { IdParams, NextCursor, Ok, PaginationQuery } from '../../platform/schema/index.ts'
import {
  CreateKnowledgeBaseBody, IndexChange, KnowledgeBase, KnowledgeDocument, Passage, SearchQuery, SearchResult, UpdateKnowledgeBaseBody, UploadDocumentBody,
} from './knowledge.model.ts'
import * as service from './knowledge.service.ts'

const DocParams = t.Object({ id: t.String(), document_id: t.String() })
const One = t.Object({ knowledgeBase: KnowledgeBase })

export function knowledgeController(db: Db, limits: service.KnowledgeLimits, auth: AuthPlugin, hooks: (db: Db) => service.KnowledgeHooks) {
  return new Elysia({ prefix: '/api/knowledge-bases', tags: ['Knowledge bases'] })
    .use(auth)
    .post('', async ({ body, principal }) => ({ knowledgeBase: await service.createBase(db, principal.workspaceId, body, limits) }), {
      permission: 'knowledge:write',
      body: CreateKnowledgeBaseBody,
      response: One,
      detail: { summary: 'Create a knowledge base', description: `A workspace has at most KNOWLEDGE_MAX_BASES (${limits.KNOWLEDGE_MAX_BASES}) bases.` },
    })
    .get('', ({ query, principal }) => service.listBases(db, principal.workspaceId, query), {
      permission: 'knowledge:read',
      query: PaginationQuery,
      response: t.Object({ knowledgeBases: t.Array(KnowledgeBase), nextCursor: NextCursor }),
      detail: { summary: 'List knowledge bases, newest first' },
    })
    .get('/:id', async ({ params, principal }) => ({ knowledgeBase: service.toBase(await service.getBaseRow(db, principal.workspaceId, params.id)) }), {
      permission: 'knowledge:read',
      params: IdParams,
      response: One,
      detail: { summary: 'Get a knowledge base' },
    })
    .patch('/:id', async ({ params, body, principal }) => ({ knowledgeBase: await service.updateBase(db, principal.workspaceId, params.id, body, limits) }), {
      permission: 'knowledge:write',
      params: IdParams,
      body: UpdateKnowledgeBaseBody,
      response: One,
      detail: { summary: 'Rename a knowledge base or change its language (which re-indexes it)' },
    })
    .delete(
      '/:id',
      async ({ params, principal }) => {
        await service.deleteBase(db, principal.workspaceId, params.id, hooks)
        return { ok: true as const }
      },
      { permission: 'knowledge:manage', params: IdParams, response: Ok, detail: { summary: 'Delete a knowledge base with its documents (admins); agents that linked it no longer do' } },
    )
    .post('/:id/documents', async ({ params, body, principal }) => service.uploadDocument(db, principal.workspaceId, params.id, body, limits), {
      permission: 'knowledge:write',
      params: IdParams,
      body: UploadDocumentBody,
      response: t.Object({ document: KnowledgeDocument, index: IndexChange, replaced: t.Boolean({ description: 'a document of this name was there and is replaced' }) }),
      detail: {
        summary: 'Upload a document (text, Markdown, HTML or an FAQ CSV), or replace the one of the same name',
        description:
          `Refused with 4xx, storing nothing: binary files, text that is not UTF-8, HTML that runs script, more than KNOWLEDGE_MAX_DOCUMENT_BYTES (${limits.KNOWLEDGE_MAX_DOCUMENT_BYTES}) bytes of text (413), ` +
          `more than KNOWLEDGE_MAX_DOCUMENT_PASSAGES (${limits.KNOWLEDGE_MAX_DOCUMENT_PASSAGES}) passages (422), control characters (422), ` +
          `more than KNOWLEDGE_MAX_DOCUMENTS (${limits.KNOWLEDGE_MAX_DOCUMENTS}) documents or KNOWLEDGE_MAX_WORKSPACE_BYTES in the workspace. An FAQ CSV has a header row question,answer.`,
      },
    })
    .get('/:id/documents', ({ params, query, principal }) => service.listDocuments(db, principal.workspaceId, params.id, query), {
      permission: 'knowledge:read',
      params: IdParams,
      query: PaginationQuery,
      response: t.Object({ documents: t.Array(KnowledgeDocument), nextCursor: NextCursor }),
      detail: { summary: 'List a base\'s documents, newest first' },
    })
    .get('/:id/documents/:document_id', ({ params, principal }) => service.getDocument(db, principal.workspaceId, params.id, params.document_id), {
      permission: 'knowledge:read',
      params: DocParams,
      response: t.Object({ document: KnowledgeDocument, passages: t.Array(Passage) }),
      detail: { summary: 'Get a document and the passages it is searched by' },
    })
    .delete(
      '/:id/documents/:document_id',
      async ({ params, principal }) => {
        await service.deleteDocument(db, principal.workspaceId, params.id, params.document_id)
        return { ok: true as const }
      },
      { permission: 'knowledge:write', params: DocParams, response: Ok, detail: { summary: 'Delete a document and its passages' } },
    )
    .post('/:id/reindex', ({ params, principal }) => service.reindexBase(db, principal.workspaceId, params.id, limits), {
      permission: 'knowledge:write',
      params: IdParams,
      response: t.Object({ documents: t.Integer(), added: t.Integer(), removed: t.Integer(), kept: t.Integer() }),
      detail: { summary: 'Re-index every document of the base from its stored text; unchanged passages are kept as they are' },
    })
    .get(
      '/:id/search',
      async ({ params, query, principal }) => {
        await service.getBaseRow(db, principal.workspaceId, params.id)
        return { results: await service.searchKnowledge(db, principal.workspaceId, [params.id], query.q, query.limit ?? 5) }
      },
      {
        permission: 'knowledge:read',
        params: IdParams,
        query: SearchQuery,
        response: t.Object({ results: t.Array(SearchResult) }),
        detail: { summary: 'What a caller\'s question would retrieve: the ranked passages with their scores and what an agent would say' },
      },
    )
}
