// Where the appliance may send requests of its own (agent webhooks, http_request tools): the one
// reading of WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE and WEBHOOK_ALLOW_NETWORKS, used by the
// check at load, the check when an agent is saved and the webhook sender alike.
import { type NetworkList, parseNetworks } from '../net/networks.ts'
import type { UrlPolicy } from '../net/url-guard.ts'

export type OutboundSettings = { WEBHOOK_ALLOW_HTTP: boolean; WEBHOOK_ALLOW_PRIVATE: boolean; WEBHOOK_ALLOW_NETWORKS: string }

const parsed = new Map<string, NetworkList>()

/** WEBHOOK_ALLOW_NETWORKS as a list, parsed once per value; throws RangeError naming a bad entry. */
export function allowedNetworks(list: string): NetworkList {
  let networks = parsed.get(list)
  if (!networks) {
    networks = parseNetworks(list)
    parsed.set(list, networks)
  }
  return networks
}

const policies = new WeakMap<OutboundSettings, UrlPolicy>()

/**
 * The URL policy of outbound requests under `cfg`. Of a frozen configuration (the appliance's,
 * see app/startup/settle.ts) it is built once, and every sender and check shares that one object.
 */
export function outboundUrlPolicy(cfg: OutboundSettings): UrlPolicy {
  const known = policies.get(cfg)
  if (known) return known
  const policy: UrlPolicy = Object.freeze({
    allowHttp: cfg.WEBHOOK_ALLOW_HTTP,
    allowPrivate: cfg.WEBHOOK_ALLOW_PRIVATE,
    allowNetworks: allowedNetworks(cfg.WEBHOOK_ALLOW_NETWORKS),
  })
  if (Object.isFrozen(cfg)) policies.set(cfg, policy)
  return policy
}
