/** One supervisor action on a live call, kept with the call record (deleted with it). */
export interface CallActionTable {
  id: string
  call_id: string
  workspace_id: string
  type: string
  /** say and note: the words; transfer: null. */
  text: string | null
  target: string | null
  /** The API key that asked, and its user. */
  actor_key_id: string
  actor_user_id: string | null
  /** done, or refused (with error). */
  result: 'done' | 'refused'
  error: string | null
  created_at: string
}
