import { t } from 'elysia'
import { Name, Prose } from '../../platform/schema/index.ts'

export const LANGUAGE_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$'

export const KnowledgeBase = t.Object({
  id: t.String(),
  workspaceId: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  language: t.String({ description: 'BCP 47; English is searched with stemming and stop words, other languages word by word' }),
  createdAt: t.String(),
  updatedAt: t.String(),
})
export type KnowledgeBase = typeof KnowledgeBase.static

export const CreateKnowledgeBaseBody = t.Object({
  name: Name({ minLength: 1, maxLength: 200, notBlank: true }),
  description: t.Optional(t.Union([Prose({ maxLength: 2000 }), t.Null()])),
  language: t.Optional(t.String({ pattern: LANGUAGE_PATTERN, maxLength: 35, error: 'must be a BCP 47 language tag such as en or de-CH', description: 'default en' })),
})

export const UpdateKnowledgeBaseBody = t.Partial(CreateKnowledgeBaseBody)

const Format = (o: { description?: string } = {}) => t.Union([t.Literal('text'), t.Literal('markdown'), t.Literal('html'), t.Literal('faq_csv')], o)

export const KnowledgeDocument = t.Object({
  id: t.String(),
  knowledgeBaseId: t.String(),
  name: t.String(),
  format: Format(),
  title: t.String(),
  bytes: t.Integer({ description: 'UTF-8 bytes of the text' }),
  contentHash: t.String({ description: 'SHA-256 of the text, base64url' }),
  passages: t.Integer({ description: 'passages the document is searched by' }),
  createdAt: t.String(),
  updatedAt: t.String(),
})
export type KnowledgeDocument = typeof KnowledgeDocument.static

export const UploadDocumentBody = t.Object({
  name: Name({ minLength: 1, maxLength: 200, notBlank: true, description: 'file name, unique in the base: uploading the same name again replaces the document (only changed passages are re-indexed)' }),
  format: t.Optional(Format({ description: 'default: from the name\'s extension (.md, .html/.htm, .csv, .txt), else text' })),
  title: t.Optional(Name({ maxLength: 200, description: 'default: the first top heading or HTML <title>, else the name' })),
  content: t.Optional(t.String({ description: 'the text (UTF-8)' })),
  contentBase64: t.Optional(t.String({ description: 'or the file\'s bytes in base64, which must be UTF-8 text' })),
})

export const IndexChange = t.Object({
  added: t.Integer({ description: 'passages indexed anew' }),
  removed: t.Integer({ description: 'passages dropped' }),
  kept: t.Integer({ description: 'passages unchanged, not rewritten' }),
})

export const Passage = t.Object({
  id: t.Integer(),
  position: t.Integer(),
  title: t.String(),
  section: t.String(),
  text: t.String(),
  answer: t.Union([t.String(), t.Null()], { description: 'an FAQ row\'s answer' }),
})

export const SearchResult = t.Object({
  passageId: t.Integer(),
  documentId: t.String(),
  documentName: t.String(),
  title: t.String(),
  section: t.String(),
  text: t.String(),
  answer: t.Union([t.String(), t.Null()]),
  score: t.Number({ description: '0..1: the calibrated probability that the passage answers the question (docs/knowledge.md); what answer thresholds compare, 0.7 by default' }),
  spoken: t.String({ description: 'what an agent would say for it: the FAQ answer, or the passage made speakable and cut at sentences' }),
})

export const SearchQuery = t.Object({
  q: t.String({ minLength: 1, maxLength: 1000, description: 'what a caller would ask' }),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 20, description: 'default 5' })),
})
