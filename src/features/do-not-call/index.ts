// The do-not-call feature's public face; its HTTP routes are do-not-call.http.ts.
export { isListed, listedAmong } from './do-not-call.repository.ts'
export type { DoNotCallTable } from './do-not-call.table.ts'
export { optOut } from './opt-out.ts'
