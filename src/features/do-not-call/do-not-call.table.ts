export interface DoNotCallTable {
  workspace_id: string
  /** E.164 */
  number: string
  reason: string | null
  /** api, import or opt_out (the callee asked during a call). */
  source: string
  created_at: string
}
