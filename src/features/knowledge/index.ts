// The knowledge-bases feature's public face; its HTTP routes are knowledge.http.ts.
export type { KnowledgeBaseTable, KnowledgeChunkTable, KnowledgeDocumentTable } from './knowledge.table.ts'
export { type KnowledgeLimits, type KnowledgeResult, searchKnowledge } from './knowledge.service.ts'
export { findBases } from './knowledge.repository.ts'

/**
 * The one confidence threshold of knowledge answers (issue 49): a passage scoring less is no
 * answer. A score is a calibrated probability of being right (search/calibration.ts); at 0.7 the
 * passages spoken on the tuning sets were right 85 times in 100, a wrong answer was spoken for 3 %
 * of questions and 91 % of the unanswerable were refused (docs/knowledge.md). A workflow answer
 * node's default minScore; the knowledge_search tool and knowledgeAutoSearch pass only passages
 * at least this sure.
 */
export const KNOWLEDGE_MIN_SCORE = 0.7
/** The answer node's default minScore: the knowledge threshold. */
export const DEFAULT_MIN_SCORE = KNOWLEDGE_MIN_SCORE
