// Builds the user agent from the appliance configuration; the composition root calls this.
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import { type Config, parseDigestAlgorithms } from '../../../platform/config/index.ts'
import type { Log } from './call.ts'
import type { NumberDirectory } from './directory.ts'
import type { ConnectionLimits } from './transport.ts'
import { UserAgent, type UserAgentOptions } from './user-agent.ts'

type SipConfig = Pick<
  Config,
  | 'SIP_HOST' | 'SIP_PORT' | 'SIP_TLS_PORT' | 'SIP_TLS_CERT_FILE' | 'SIP_TLS_KEY_FILE' | 'SIP_TLS_CA_FILE' | 'SIP_T1_MS' | 'SIP_RING_TIMEOUT_MS'
  | 'SIP_RETRY_AFTER_SEC' | 'SIP_REFUSALS_PER_SEC' | 'SIP_REFUSAL_BURST' | 'PUBLIC_HOST' | 'SIP_DIGEST_ALGORITHMS'
  | 'SIP_MAX_CONNECTIONS' | 'SIP_MAX_CONNECTIONS_PER_SOURCE' | 'SIP_IDLE_TIMEOUT_MS' | 'SIP_MESSAGE_TIMEOUT_MS' | 'SIP_TLS_HANDSHAKE_TIMEOUT_MS'
>

/** The connection limits from the SIP_* keys (loadConfig has refused a cap or deadline of 0, which would refuse every connection). */
export function connectionLimits(config: SipConfig, onRefused?: ConnectionLimits['onRefused']): ConnectionLimits {
  return {
    maxConnections: config.SIP_MAX_CONNECTIONS,
    maxConnectionsPerSource: config.SIP_MAX_CONNECTIONS_PER_SOURCE,
    idleTimeoutMs: config.SIP_IDLE_TIMEOUT_MS,
    messageTimeoutMs: config.SIP_MESSAGE_TIMEOUT_MS,
    handshakeTimeoutMs: config.SIP_TLS_HANDSHAKE_TIMEOUT_MS,
    onRefused,
  }
}

export function userAgentFromConfig(
  config: SipConfig, directory: NumberDirectory, log?: Log, observe?: UserAgentOptions['observe'], onRefused?: ConnectionLimits['onRefused'],
  onRequestRefused?: UserAgentOptions['onRefused'],
): UserAgent {
  const tls = config.SIP_TLS_CERT_FILE && config.SIP_TLS_KEY_FILE
  return new UserAgent({
    host: config.SIP_HOST,
    publicHost: config.PUBLIC_HOST,
    port: config.SIP_PORT,
    tlsPort: tls ? config.SIP_TLS_PORT : undefined,
    tlsCert: tls ? readFileSync(config.SIP_TLS_CERT_FILE, 'utf8') : undefined,
    tlsKey: tls ? readFileSync(config.SIP_TLS_KEY_FILE, 'utf8') : undefined,
    // Node's `ca` replaces the public roots: keep them beside the operator's own
    tlsCa: config.SIP_TLS_CA_FILE ? [...rootCertificates, readFileSync(config.SIP_TLS_CA_FILE, 'utf8')] : undefined,
    timers: { t1: config.SIP_T1_MS, t2: 8 * config.SIP_T1_MS, t4: 10 * config.SIP_T1_MS, timerD: Math.max(32_000, 64 * config.SIP_T1_MS) },
    ringTimeoutMs: config.SIP_RING_TIMEOUT_MS,
    retryAfterSec: config.SIP_RETRY_AFTER_SEC,
    refusalsPerSec: config.SIP_REFUSALS_PER_SEC,
    refusalBurst: config.SIP_REFUSAL_BURST,
    // strongest first; loadConfig has refused any other
    challengeAlgorithms: parseDigestAlgorithms(config.SIP_DIGEST_ALGORITHMS),
    connections: connectionLimits(config, onRefused),
    directory,
    log,
    observe,
    onRefused: onRequestRefused,
  })
}
