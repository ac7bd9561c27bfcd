// The api-keys feature's public face; its HTTP routes are api-keys.http.ts.
export { authenticate, createKey, revokeUserKeys } from './api-keys.service.ts'
export { invalidatePrincipals, PrincipalCache } from './principal-cache.ts'
export { ApiKeyWithSecret } from './api-keys.model.ts'
export type { Authenticate, Principal } from './principal.ts'
