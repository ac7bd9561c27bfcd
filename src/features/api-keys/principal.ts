// Who an API key speaks for: the identity every authenticated request carries.
import type { Read } from '../../platform/db/index.ts'
import type { Role } from '../workspaces/workspaces.table.ts'

export interface Principal {
  keyId: string
  userId: string
  workspaceId: string
  role: Role
  /** Permissions granted to the key's user beyond the role (memberships.grants). */
  grants?: readonly string[]
}

/**
 * Resolves a bearer token (every failure a 401): the principal itself on a cache hit or an
 * inline read (SQLite), a promise of it on PostgreSQL's cache miss.
 */
export type Authenticate = (token: string, now: Date) => Read<Principal>
