// Keeps a REGISTER binding with the trunk of every number that asks for one (sipRegister),
// following changes to the numbers table; a failing registration marks the number's status.
import type { Db } from '../db/index.ts'
import type { Logger } from '../log.ts'
import { reportTrunkHealth } from './numbers.service.ts'
import { findRegisteringNumbers, type NumberRoute } from './sip-lookup.ts'
import type { SecretBox } from '../secrets/index.ts'
import type { Registration, UserAgent } from '../telephony/sip/index.ts'

export interface RegistrationOptions {
  syncMs: number
  expiresSec: number
}

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
    this.timer = setInterval(() => void this.sync(), this.opts.syncMs)
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
      }
    }
    for (const route of wanted) if (!this.active.has(route.id)) await this.register(route)
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
  }
}
