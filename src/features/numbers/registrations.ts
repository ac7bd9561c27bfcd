// Keeps a REGISTER binding with the trunk of every number that asks for one (sipRegister),
// following changes to the numbers table; a failing registration marks the number's status.
// Each binding is kept by one node only: the holder of the lease `register:<number id>`,
// renewed at every sync; when its node is lost another node takes the lease and registers.
import type { Db } from '../../platform/db/index.ts'
import { releaseLease, renewEvery, takeLease } from '../../platform/jobs/index.ts'
import type { Logger } from '../../platform/log.ts'
import { reportTrunkHealth } from './numbers.service.ts'
import { findRegisteringNumbers, type NumberRoute } from './sip-lookup.ts'
import type { SecretBox } from '../../platform/secrets/index.ts'
import type { Registration, UserAgent } from '../../realtime/telephony/sip/index.ts'

export interface RegistrationOptions {
  syncMs: number
  expiresSec: number
  /** This node on the registration leases (NODE_ID). */
  owner: string
  /** A lost node's bindings are taken over after this long. */
  leaseMs: number
}

const leaseOf = (numberId: string) => `register:${numberId}`

/** What a binding depends on: when any of it changes the registration is made anew. */
function fingerprint(r: NumberRoute): string {
  const s = r.sip!
  return JSON.stringify([r.e164, s.terminationUri, s.transport, s.username, s.password])
}

function registrarOf(r: NumberRoute): string {
  const uri = r.sip!.terminationUri
  return /;transport=/i.test(uri) || uri.startsWith('sips:') ? uri : `${uri};transport=${r.sip!.transport}`
}

export class TrunkRegistrations {
  private readonly active = new Map<string, { fingerprint: string; reg: Registration; registered: number }>()
  private timer?: ReturnType<typeof setInterval>
  private syncing?: Promise<void>
  private stopped = false

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly ua: UserAgent,
    private readonly log: Logger,
    private readonly opts: RegistrationOptions,
  ) {}

  async start(): Promise<void> {
    await this.sync()
    this.timer = setInterval(() => void this.sync(), Math.min(this.opts.syncMs, renewEvery(this.opts.leaseMs)))
  }

  /** Brings the bindings in line with the numbers table. */
  sync(): Promise<void> {
    this.syncing ??= this.doSync().finally(() => (this.syncing = undefined))
    return this.syncing
  }

  private async doSync(): Promise<void> {
    if (this.stopped) return
    let wanted: NumberRoute[]
    try {
      wanted = await findRegisteringNumbers(this.db, this.box)
    } catch (err) {
      this.log.warn({ err }, 'could not read the numbers to register')
      return
    }
    const byId = new Map(wanted.map((r) => [r.id, r]))
    for (const [id, a] of this.active) {
      const now = byId.get(id)
      if (!now || fingerprint(now) !== a.fingerprint) {
        a.reg.stop()
        this.active.delete(id)
        if (!now) await releaseLease(this.db, leaseOf(id), this.opts.owner).catch(() => {})
      }
    }
    for (const route of wanted) {
      let mine: boolean
      try {
        mine = await takeLease(this.db, leaseOf(route.id), this.opts.owner, new Date(), this.opts.leaseMs)
      } catch (err) {
        this.log.warn({ err, numberId: route.id }, 'could not renew the registration lease')
        continue
      }
      const held = this.active.get(route.id)
      if (!mine) {
        // another node holds the binding (this one lost its lease, e.g. while cut off)
        held?.reg.stop()
        this.active.delete(route.id)
      } else if (!held) await this.register(route)
    }
  }

  private async register(route: NumberRoute): Promise<void> {
    const s = route.sip!
    let reg: Registration
    try {
      reg = await this.ua.register({
        registrar: registrarOf(route),
        user: s.username ?? route.e164,
        credentials: s.username && s.password ? { username: s.username, password: s.password } : undefined,
        expiresSec: this.opts.expiresSec,
      })
    } catch (err) {
      await this.health(route, { ok: false, reason: `registration failed: ${(err as Error).message}` })
      return
    }
    const entry = { fingerprint: fingerprint(route), reg, registered: 0 }
    this.active.set(route.id, entry)
    // refreshes repeat 'registered'; the status only changes on the first success and after a failure
    let healthy: boolean | undefined
    reg.on('registered', () => {
      entry.registered++
      if (healthy !== true) void this.health(route, { ok: true })
      healthy = true
    })
    reg.on('failed', (status) => {
      healthy = false
      void this.health(route, { ok: false, reason: `registration failed${status ? ` (${status})` : ''}` })
    })
  }

  private async health(route: NumberRoute, h: { ok: true } | { ok: false; reason: string }): Promise<void> {
    if (this.stopped) return
    await reportTrunkHealth(this.db, route.id, h).catch((err) => this.log.warn({ err, numberId: route.id }, 'could not record trunk health'))
  }

  /** Registrations in force: how many times each number's binding was granted (1 + refreshes). */
  bindings(): { numberId: string; registered: number }[] {
    return [...this.active].map(([numberId, a]) => ({ numberId, registered: a.registered }))
  }

  /** Stops following the table; the user agent removes the bindings when it stops. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.syncing
    this.stopped = true
    // handed back so another node registers at once instead of after the lease expires
    for (const id of this.active.keys()) await releaseLease(this.db, leaseOf(id), this.opts.owner).catch(() => {})
  }
}
