/** A lease on a singleton background job (one sweep at a time across nodes). */
export interface JobLeaseTable {
  name: string
  owner: string
  expires_at: string
}
