import { invalidatePrincipals, revokeUserKeys } from '../api-keys/index.ts'
import { type Db, finishPage, pageLimit, type PageRequest } from '../../platform/db/index.ts'
import { AppError, conflict, notFound } from '../../platform/errors.ts'
import { newId, nowIso } from '../../platform/ids.ts'
import type { Member } from './workspaces.model.ts'
import * as repo from './workspaces.repository.ts'
import type { Role } from './workspaces.table.ts'

const toMember = (r: repo.MemberRow): Member => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: r.joined_at })

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
    return { userId: user.id, email: normalized, role, joinedAt: at }
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
