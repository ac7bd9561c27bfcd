// The workspaces feature's public face; its HTTP routes are workspaces.http.ts.
export { bootstrapIfEmpty, workspaceCallLimit } from './workspaces.service.ts'
export { forgetWorkspace } from './workspaces.repository.ts'
export type { Role } from './workspaces.table.ts'
