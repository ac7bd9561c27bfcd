import type { Db } from '../../../platform/db/index.ts'
import type { Form } from '../text/index.ts'

/** A passage found by the engine, best rank first. */
export interface Candidate {
  chunkId: number
  documentId: string
  documentName: string
  title: string
  section: string
  body: string
  answer: string | null
  /** Sound keys of its words (English). */
  sounds: string
  /** The engine's own score, higher is better (BM25 negated, or ts_rank). */
  rank: number
}

/** What a passage count is asked for: one of the caller's forms, or a sound key. */
export type Probe = { form: Form } | { sound: string }

/** A base as the engines search it: its id, and the block of its passages' ids. */
export interface BaseRef {
  id: string
  block: number
}

/** One engine's full-text search over the passages of some bases, all stemmed one way. */
export interface FullTextEngine {
  /** The best `limit` passages holding any of the forms, or any of the sound keys among their words' sounds. */
  candidates(db: Db, bases: BaseRef[], english: boolean, forms: Form[], sounds: string[], limit: number): Promise<Candidate[]>
  /**
   * How many passages of the bases hold each probe, counted up to `cap` (past it a word is common
   * and its exact count changes little); null for a form the engine drops (a stop word of its
   * dictionary).
   */
  df(db: Db, bases: BaseRef[], english: boolean, probes: Probe[], cap: number): Promise<(number | null)[]>
}
