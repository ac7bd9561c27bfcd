// Which inbound INVITEs reach a number: the numbers table behind the SIP layer's directory contract.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { Db } from '../db/index.ts'
import { findNumbersByE164, type NumberRoute } from '../numbers/index.ts'
import { parseSipUri } from '../net/index.ts'
import type { SecretBox } from '../secrets/index.ts'
import type { InboundDecision, InboundQuery, NumberDirectory } from '../telephony/sip/index.ts'

export interface DirectoryOptions {
  /** Addresses the carrier delivers calls for bought numbers from. */
  carrierSources: string[]
  /** How long a trunk host's addresses are trusted before they are looked up again. */
  dnsTtlMs?: number
  resolveHost?: (host: string) => Promise<string[]>
}

const systemResolve = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address)

/**
 * A number with SIP credentials takes calls from any source that answers a digest challenge
 * with them; otherwise only from the addresses its trunk host resolves to (the carrier's, for
 * bought numbers). Anything else is refused alike (403) whether or not the number exists,
 * except that a known trunk calling a number it does not serve gets 404.
 */
export class DbNumberDirectory implements NumberDirectory {
  private readonly cache = new Map<string, { at: number; addresses: Promise<string[]> }>()
  private readonly ttlMs: number
  private readonly resolveHost: (host: string) => Promise<string[]>

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly opts: DirectoryOptions,
  ) {
    this.ttlMs = opts.dnsTtlMs ?? 60_000
    this.resolveHost = opts.resolveHost ?? systemResolve
  }

  async resolveInbound(q: InboundQuery): Promise<InboundDecision> {
    const routes = new Map<string, NumberRoute>()
    for (const user of new Set(q.users)) for (const r of await findNumbersByE164(this.db, this.box, user)) routes.set(r.id, r)
    const candidates = [...routes.values()]
    const secured = candidates.find((r) => r.provider === 'sip' && r.sip?.username && r.sip.password)
    if (secured) {
      return { accept: true, number: secured.e164, context: secured, credentials: { username: secured.sip!.username!, password: secured.sip!.password! } }
    }
    for (const r of candidates) if ((await this.sourcesOf(r)).includes(q.source.address)) return { accept: true, number: r.e164, context: r }
    return { accept: false, status: 403 }
  }

  private async sourcesOf(r: NumberRoute): Promise<string[]> {
    if (r.provider === 'carrier') return this.opts.carrierSources
    const host = r.sip ? parseSipUri(r.sip.terminationUri)?.host : undefined
    if (!host) return []
    if (isIP(host)) return [host]
    const hit = this.cache.get(host)
    const now = Date.now()
    if (hit && now - hit.at < this.ttlMs) return hit.addresses
    const addresses = this.resolveHost(host).catch(() => [] as string[])
    this.cache.set(host, { at: now, addresses })
    return addresses
  }
}
