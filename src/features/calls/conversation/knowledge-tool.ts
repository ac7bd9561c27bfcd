// An LLM agent's knowledge bases during a call: the knowledge_search tool it may call, and, with
// knowledgeAutoSearch, the passages found for every caller turn put before it. Either way only
// passages at least as sure as the knowledge feature's threshold count, they are clipped to a
// token budget, and the transcript names them; the tool says plainly when none was found.
import type { AgentSnapshot } from '../../agents/index.ts'
import { KNOWLEDGE_MIN_SCORE } from '../../knowledge/index.ts'
import type { SessionTool, TranscriptSource, TurnContext } from '../../../realtime/voice/session/index.ts'

export type SearchKnowledge = (query: string, opts: KnowledgeQueryOptions) => Promise<KnowledgePassage[]>

export interface KnowledgeQueryOptions {
  limit: number
  /** What is said of a passage, at most (cut at sentences). */
  maxChars: number
}

/** A passage as a call uses it: what to say and where it came from. */
export interface KnowledgePassage {
  passageId: number
  documentName: string
  title: string
  section: string
  text: string
  /** 0..1: the calibrated probability that the passage answers (the search's score). */
  score: number
  spoken: string
}

/** Passages handed to the LLM at most, and their words together (about 4 characters a token). */
const PASSAGES = 3
const PASSAGE_TOKEN_BUDGET = 600
const CHARS_PER_TOKEN = 4
/** What the tool says when no passage is sure enough, so that the model does not make an answer up. */
export const NOTHING_FOUND = "Nothing relevant was found in the business's documents. Do not answer from your own knowledge: tell the caller you do not have that information, and offer to help another way."

const sourceOf = (p: KnowledgePassage): TranscriptSource => ({ passageId: p.passageId, documentName: p.documentName, section: p.section, score: p.score })
const label = (p: KnowledgePassage) => (p.section ? `${p.documentName} > ${p.section}` : p.documentName)

async function passages(search: SearchKnowledge, query: string): Promise<KnowledgePassage[]> {
  const maxChars = Math.floor((PASSAGE_TOKEN_BUDGET * CHARS_PER_TOKEN) / PASSAGES)
  return (await search(query.slice(0, 500), { limit: PASSAGES, maxChars })).filter((p) => p.score >= KNOWLEDGE_MIN_SCORE && p.spoken)
}

export function knowledgeTool(search: SearchKnowledge): SessionTool {
  return {
    spec: {
      name: 'knowledge_search',
      description:
        "Search the business's own documents (opening hours, prices, policies, directions, FAQs) for what the caller asks. Each passage comes with its confidence (0-1, the probability it answers). Answer from the passages it returns; when found is false or none answers the question, say you do not know rather than guess.",
      parameters: { type: 'object', properties: { query: { type: 'string', description: 'what to look up, in a few words' } }, required: ['query'] },
    },
    async run(args, ctx) {
      const query = String((args as { query?: unknown }).query ?? '').trim()
      if (!query) return JSON.stringify({ error: 'query is empty' })
      const found = await passages(search, query)
      if (!found.length) return JSON.stringify({ found: false, passages: [], note: NOTHING_FOUND })
      ctx.cite?.(found.map(sourceOf))
      // confidence: how likely the passage answers (0..1, calibrated); the best comes first
      return JSON.stringify({ found: true, passages: found.map((p) => ({ source: label(p), text: p.spoken, confidence: p.score })) })
    },
  }
}

/** With knowledgeAutoSearch, what a caller's turn finds is put before the LLM as a note. */
export function knowledgeContext(agent: AgentSnapshot, search: SearchKnowledge): ((text: string) => Promise<TurnContext | undefined>) | undefined {
  if (!agent.knowledgeAutoSearch || !agent.knowledgeBaseIds?.length) return undefined
  return async (text) => {
    const found = await passages(search, text)
    if (!found.length) return undefined
    const lines = found.map((p, i) => `[${i + 1}] ${label(p)}: ${p.spoken} (confidence ${p.score.toFixed(2)})`)
    return {
      note: `Passages from the business's documents that may answer the caller's last words. Answer from them when they do; do not mention them otherwise.\n${lines.join('\n')}`,
      sources: found.map(sourceOf),
    }
  }
}
