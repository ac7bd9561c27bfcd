import type { Db } from '../../../platform/db/index.ts'
import type { Form, TermStat } from '../text/index.ts'

/** A passage found by the engine, best rank first. */
export interface Candidate {
  chunkId: number
  documentId: string
  documentName: string
  title: string
  section: string
  body: string
  answer: string | null
  /** The engine's own score, higher is better (BM25 negated, or ts_rank). */
  rank: number
}

export interface FormStats {
  /** Per form, in order; null for a form the engine drops (a stop word of its dictionary). */
  forms: (TermStat | null)[]
  /** Per sound key, in order. */
  sounds: TermStat[]
}

/** One engine's full-text search over the passages of some bases, all stemmed one way. */
export interface FullTextEngine {
  /** The best `limit` passages holding any of the forms, or any of the sound keys among their words' sounds. */
  candidates(db: Db, baseIds: string[], english: boolean, forms: Form[], sounds: string[], limit: number): Promise<Candidate[]>
  /** How many passages of the bases hold each form and sound key, and which of `chunkIds` do. */
  stats(db: Db, baseIds: string[], english: boolean, forms: Form[], sounds: string[], chunkIds: number[]): Promise<FormStats>
}
