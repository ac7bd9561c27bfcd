// `voice-agent workspaces` and the workspace `create-api-key` takes when none is named.
import type { Db } from '../../platform/db/index.ts'

export interface WorkspaceLine {
  id: string
  name: string
}

/** More than one workspace and none named: a usage error (exit 2) listing them. */
export class WhichWorkspaceError extends Error {}
/** No workspace at all (an appliance never started on this DATA_DIR). */
export class NoWorkspaceError extends Error {}

/** Every workspace, oldest first. */
export function listWorkspaces(db: Db): Promise<WorkspaceLine[]> {
  return db.selectFrom('workspaces').select(['id', 'name']).orderBy('created_at').orderBy('id').execute()
}

/** One line per workspace: id, a tab, the name (names hold no control characters). */
export const formatWorkspaces = (list: WorkspaceLine[]): string[] => list.map((w) => `${w.id}\t${w.name}`)

const SHOWN = 20

/** The only workspace; with several the error (one line) names them (at most 20) and asks for --workspace. */
export async function soleWorkspace(db: Db): Promise<string> {
  const list = await db.selectFrom('workspaces').select(['id', 'name']).orderBy('created_at').orderBy('id').limit(SHOWN + 1).execute()
  if (list.length === 0) throw new NoWorkspaceError('no workspace yet: start the appliance once on this DATA_DIR (it creates workspace "Default")')
  if (list.length === 1) return list[0]!.id
  const shown = list.slice(0, SHOWN).map((w) => `${w.id} (${w.name})`).join(', ')
  const more = list.length > SHOWN ? ', ...' : ''
  throw new WhichWorkspaceError(`there are several workspaces; name one with --workspace ID: ${shown}${more} (voice-agent workspaces lists them all)`)
}
