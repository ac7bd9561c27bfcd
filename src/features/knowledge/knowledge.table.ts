import type { Generated } from 'kysely'

export interface KnowledgeBaseTable {
  id: string
  workspace_id: string
  name: string
  description: string | null
  /** BCP 47; English ("en", "en-GB", ...) is stemmed (porter / english), other languages are not (unicode61 / simple). */
  language: string
  /** Its passages' ids are passage_block * 2^32 + n (see PASSAGE_BLOCK): a search keeps to the base by an id range. */
  passage_block: number
  /** n of the next passage. */
  next_passage: number
  created_at: string
  updated_at: string
}

export interface KnowledgeDocumentTable {
  id: string
  knowledge_base_id: string
  workspace_id: string
  /** Unique in its base: uploading the same name again replaces the document. */
  name: string
  /** text, markdown, html or faq_csv */
  format: string
  title: string
  /** UTF-8 bytes of the content, counted against the workspace's total. */
  bytes: number
  /** The text as uploaded, kept so that the base can be re-indexed. */
  content: string
  content_hash: string
  chunk_count: number
  created_at: string
  updated_at: string
}

export interface KnowledgeChunkTable {
  /** The full-text index's row id. */
  id: Generated<number>
  document_id: string
  knowledge_base_id: string
  position: number
  title: string
  section: string
  body: string
  answer: string | null
  hash: string
  /** 1 when stemmed as English (knowledge_fts_en / english), 0 otherwise (knowledge_fts_any / simple). */
  english: number
  /** English passages: the sound keys of their words (text/sounds.ts), searched for misrecognised words; '' otherwise. */
  sounds: string
}
