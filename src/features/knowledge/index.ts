// The knowledge-bases feature's public face; its HTTP routes are knowledge.http.ts.
export type { KnowledgeBaseTable, KnowledgeChunkTable, KnowledgeDocumentTable } from './knowledge.table.ts'
export { type KnowledgeLimits, type KnowledgeResult, searchKnowledge } from './knowledge.service.ts'
export { findBases } from './knowledge.repository.ts'

/** The score a passage needs before an agent speaks it without an LLM (a workflow answer node's default). */
export const DEFAULT_MIN_SCORE = 0.5
export const KNOWLEDGE_MIN_SCORE = DEFAULT_MIN_SCORE
