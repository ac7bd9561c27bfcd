// Digest challenges for inbound INVITEs to numbers that have credentials (RFC 3261 22.4 with
// RFC 7616/8760 algorithms). Nonces are ours, single-realm, and expire.
import { randomBytes } from 'node:crypto'
import { parseAuthParams, verifyAuthorization, type Credentials, type DigestAlgorithm } from './digest.ts'
import { header, type Header, type SipRequest } from './message.ts'

const NONCE_TTL_MS = 5 * 60_000
const MAX_NONCES = 10_000

export class Challenger {
  private nonces = new Map<string, number>()

  constructor(
    private readonly realm: string,
    /** Offered in this order; RFC 7616 clients answer the first they support. */
    private readonly algorithms: DigestAlgorithm[] = ['SHA-256', 'MD5'],
    private readonly now: () => number = Date.now,
  ) {}

  /** The WWW-Authenticate headers of a 401, one per algorithm. */
  challenge(): Header[] {
    const nonce = randomBytes(16).toString('hex')
    if (this.nonces.size >= MAX_NONCES) this.expire(true)
    this.nonces.set(nonce, this.now() + NONCE_TTL_MS)
    return this.algorithms.map((alg) => ({
      name: 'WWW-Authenticate',
      value: `Digest realm="${this.realm}", nonce="${nonce}", algorithm=${alg}, qop="auth"`,
    }))
  }

  /** True when the request's Authorization answers a live nonce of ours with these credentials. */
  verify(req: SipRequest, cred: Credentials): boolean {
    const value = header(req, 'authorization')
    if (!value) return false
    const nonce = parseAuthParams(value)?.get('nonce')
    const until = nonce === undefined ? undefined : this.nonces.get(nonce)
    if (until === undefined || until < this.now()) return false
    return verifyAuthorization(value, cred, req.method, this.realm, nonce!)
  }

  /** True when the Authorization names a nonce we no longer know (expired or never ours). */
  isStale(req: SipRequest): boolean {
    const nonce = parseAuthParams(header(req, 'authorization') ?? '')?.get('nonce')
    const until = nonce === undefined ? undefined : this.nonces.get(nonce)
    return until === undefined || until < this.now()
  }

  private expire(all: boolean): void {
    const t = this.now()
    for (const [n, until] of this.nonces) if (all || until < t) this.nonces.delete(n)
  }
}
