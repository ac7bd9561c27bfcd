// A number directory held in memory, for tests of the SIP layer without a database (the
// appliance's own directory reads the numbers table: src/features/calls/directory.ts).
import { type DirectoryEntry, type InboundDecision, type InboundQuery, type NumberDirectory, sameNumber } from '../../src/realtime/telephony/sip/index.ts'

/**
 * In-memory directory: a number with credentials is open to any source behind a digest
 * challenge; otherwise 403 to any source that is no trunk at all, 404 to a trunk source for a
 * number it does not serve (whether or not the number exists elsewhere).
 */
export class InMemoryNumberDirectory implements NumberDirectory {
  constructor(private readonly entries: DirectoryEntry[]) {}

  resolveInbound(q: InboundQuery): InboundDecision {
    for (const user of q.users) {
      const e = this.entries.find((x) => x.credentials && sameNumber(x.number, user))
      if (e) return { accept: true, number: e.number, context: e.context, credentials: e.credentials }
    }
    const fromTrunk = this.entries.filter((e) => e.trunkSources.includes(q.source.address))
    if (fromTrunk.length === 0) return { accept: false, status: 403 }
    for (const user of q.users) {
      const hit = fromTrunk.find((e) => sameNumber(e.number, user))
      if (hit) return { accept: true, number: hit.number, context: hit.context }
    }
    return { accept: false, status: 404 }
  }
}
