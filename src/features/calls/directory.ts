// Which inbound INVITEs reach a number: the numbers table behind the SIP layer's directory contract.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { Db } from '../../platform/db/index.ts'
import { findNumberByE164, type NumberRoute } from '../numbers/index.ts'
import { parseSipUri } from '../../platform/net/index.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import type { InboundDecision, InboundQuery, NumberDirectory } from '../../realtime/telephony/sip/index.ts'
import type { TestLines } from './test-lines.ts'

export interface DirectoryOptions {
  /** Addresses the carrier delivers calls for bought numbers from. */
  carrierSources: string[]
  /** How long a trunk host's addresses are trusted before they are looked up again. */
  dnsTtlMs?: number
  resolveHost?: (host: string) => Promise<string[]>
  /** Agent test calls from the built-in test phone (test-lines.ts). */
  testLines?: TestLines
}

const systemResolve = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address)

/**
 * An e164 belongs to one workspace at a time, so an INVITE reaches at most one number (the first
 * user part that names one) and only that number's own rule applies: with SIP credentials, any
 * source that answers a digest challenge with them; otherwise only the addresses its trunk host
 * resolves to (the carrier's, for bought numbers). Anything else is refused alike (403) whether
 * or not the number exists.
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
    const test = this.opts.testLines?.take(q.users, q.source.address)
    if (test) return { accept: true, number: test.e164, context: test }
    let route: NumberRoute | undefined
    for (const user of new Set(q.users)) if ((route = await findNumberByE164(this.db, this.box, user))) break
    if (!route) return { accept: false, status: 403, why: 'unknown_number' }
    if (route.provider === 'sip' && route.sip?.username && route.sip.password) {
      return { accept: true, number: route.e164, context: route, credentials: { username: route.sip.username, password: route.sip.password } }
    }
    if ((await this.sourcesOf(route)).includes(q.source.address)) return { accept: true, number: route.e164, context: route }
    return { accept: false, status: 403, why: 'not_trunk' }
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
