import { invalidatePrincipals, revokeUserKeys } from '../api-keys/index.ts'
import { type Db, finishPage, pageLimit, type PageRequest } from '../../platform/db/index.ts'
import { AppError, conflict, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import { GRANTABLE, type Member } from './workspaces.model.ts'
import * as repo from './workspaces.repository.ts'
import type { Role } from './workspaces.table.ts'

const toMember = (r: repo.MemberRow): Member => ({ userId: r.user_id, email: r.email, role: r.role, grants: grantsOf(r.grants), joinedAt: r.joined_at })

/** A membership's grants column, read back (only GRANTABLE values are ever written). */
export function grantsOf(column: string | null | undefined): Member['grants'] {
  const parsed: unknown = JSON.parse(column || '[]')
  return Array.isArray(parsed) ? parsed.filter((g): g is (typeof GRANTABLE)[number] => (GRANTABLE as readonly unknown[]).includes(g)) : []
}

const lastAdmin = () =>
  new AppError(409, 'last_admin', 'a workspace keeps at least one admin; promote another member first')

/**
 * Adds a user (created on first sight, identified by email) to the workspace. The appliance
 * has no mail server, so an invitation takes effect at once; an admin then creates an API key
 * for the new member.
 */
export async function inviteMember(db: Db, workspaceId: string, email: string, role: Role = 'member'): Promise<Member> {
  const normalized = email.trim().toLowerCase()
  return db.transaction().execute(async (trx) => {
    const at = nowIso()
    let user = await repo.findUserByEmail(trx, normalized)
    if (!user) {
      user = { id: newId('usr'), email: normalized, created_at: at }
      await repo.insertUser(trx, user)
    }
    if (await repo.findMember(trx, workspaceId, user.id)) {
      throw conflict(`${normalized} is already a member of this workspace`, { userId: user.id })
    }
    await repo.insertMembership(trx, { workspace_id: workspaceId, user_id: user.id, role, joined_at: at })
    return { userId: user.id, email: normalized, role, grants: [], joinedAt: at }
  })
}

export async function listMembers(db: Db, workspaceId: string, page: PageRequest) {
  const rows = await repo.listMembers(db, workspaceId, page)
  const { items, nextCursor } = finishPage(rows, pageLimit(page), (r) => [r.joined_at, r.user_id])
  return { members: items.map(toMember), nextCursor }
}

export async function changeRole(db: Db, workspaceId: string, userId: string, role: Role): Promise<Member> {
  const updated = await db.transaction().execute(async (trx) => {
    const member = await repo.findMember(trx, workspaceId, userId)
    if (!member) throw notFound('member')
    if (member.role === 'admin' && role !== 'admin' && (await repo.countAdmins(trx, workspaceId)) <= 1) throw lastAdmin()
    await repo.setMemberRole(trx, workspaceId, userId, role)
    return toMember({ ...member, role })
  })
  await invalidatePrincipals(db)
  return updated
}

/** Replaces the member's grants (permissions beyond their role); their keys act with them at once. */
export async function setGrants(db: Db, workspaceId: string, userId: string, grants: Member['grants']): Promise<Member> {
  const member = await repo.findMember(db, workspaceId, userId)
  if (!member) throw notFound('member')
  await repo.setMemberGrants(db, workspaceId, userId, grants)
  await invalidatePrincipals(db)
  return toMember({ ...member, grants: JSON.stringify(grants) })
}

/** Removes the member and revokes the keys that acted as them in this workspace. */
export async function removeMember(db: Db, workspaceId: string, userId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const member = await repo.findMember(trx, workspaceId, userId)
    if (!member) throw notFound('member')
    if (member.role === 'admin' && (await repo.countAdmins(trx, workspaceId)) <= 1) throw lastAdmin()
    await repo.deleteMembership(trx, workspaceId, userId)
    await revokeUserKeys(trx, workspaceId, userId)
  })
  await invalidatePrincipals(db)
}
