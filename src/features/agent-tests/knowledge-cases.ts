// Starting cases from the agent's knowledge bases: one per FAQ question (an FAQ CSV's row). The
// caller asks the question; the case expects the agent to answer from the base, with the first
// words of the row's answer.
import type { Db } from '../../platform/db/index.ts'
import type { CaseInput } from './agent-tests.model.ts'

const ANSWER_WORDS = 8

/** The FAQ rows of these bases of the workspace, in document and row order, at most `limit`. */
export function faqRows(db: Db, workspaceId: string, baseIds: readonly string[], limit: number) {
  if (!baseIds.length) return Promise.resolve([])
  return db
    .selectFrom('knowledge_chunks')
    .innerJoin('knowledge_documents', 'knowledge_documents.id', 'knowledge_chunks.document_id')
    .select(['knowledge_chunks.section as question', 'knowledge_chunks.answer as answer'])
    .where('knowledge_documents.workspace_id', '=', workspaceId)
    .where('knowledge_documents.format', '=', 'faq_csv')
    .where('knowledge_chunks.knowledge_base_id', 'in', [...baseIds])
    .orderBy('knowledge_documents.name')
    .orderBy('knowledge_chunks.position')
    .limit(limit)
    .execute()
}

/** Pure: the case of one FAQ row; rows without a question or an answer give none. */
export function faqCase(row: { question: string; answer: string | null }): CaseInput | undefined {
  const question = row.question.trim()
  const words = (row.answer ?? '').trim().split(/\s+/).filter(Boolean)
  if (!question || !words.length) return undefined
  return {
    name: `FAQ: ${question}`.slice(0, 200),
    caller: { turns: [{ type: 'say', text: question.slice(0, 2000) }] },
    expectations: [{ type: 'knowledge_used', passage: words.slice(0, ANSWER_WORDS).join(' ').slice(0, 2000) }],
  }
}
