// The configuration as the appliance runs with it: the keys whose value depends on this machine
// (PUBLIC_HOST unset, NODE_ID unset) worked out once, then frozen, before anything starts. Every
// subsystem reads the one object; none can change what another was started with.
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type Config, copyRenamedKeys } from '../../platform/config/index.ts'
import { sharedByNodes } from '../../platform/db/index.ts'
import type { Logger } from '../../platform/log.ts'
import { adoptPublicHost, type PublicHost, resolvePublicHost } from './public-host.ts'

export interface SettledConfig {
  config: Readonly<Config>
  /** Several nodes share the database (PostgreSQL): they coordinate through leases. */
  shared: boolean
  /** For /ready; the start adds the ones it finds later. */
  warnings: string[]
}

/**
 * This node's name on its leases and calls: NODE_ID, else the host name, with a random suffix
 * when nodes share the database (two containers may carry one host name).
 */
export function nodeIdOf(cfg: Pick<Config, 'NODE_ID'>, shared: boolean, host = hostname(), suffix = () => randomBytes(3).toString('hex')): string {
  return cfg.NODE_ID || (shared ? `${host}-${suffix()}` : host)
}

/** `loaded` with PUBLIC_HOST and NODE_ID settled, as a new frozen object (`loaded` is left as it was). */
export async function settleConfig(
  loaded: Config,
  log: Pick<Logger, 'info' | 'warn'>,
  resolve: (cfg: Pick<Config, 'PUBLIC_HOST'>) => Promise<PublicHost> = resolvePublicHost,
): Promise<SettledConfig> {
  const shared = sharedByNodes(loaded)
  const advertised = await adoptPublicHost(loaded, log, resolve)
  const config = Object.freeze({ ...loaded, PUBLIC_HOST: advertised.host, NODE_ID: nodeIdOf(loaded, shared) })
  copyRenamedKeys(loaded, config)
  return { config, shared, warnings: advertised.warnings }
}
