// What the appliance checks before and while it starts: ports, the advertised address, providers, prices.
export { checkPortsFree, type PortCheck, PortInUseError, portErrorOf, type PortSettings } from './ports.ts'
export { adoptPublicHost, defaultRouteAddress, isLoopbackHost, NAT_ADVICE, type PublicHost, publicHostWarning, resolvePublicHost } from './public-host.ts'
export { describeFailure, type ProbeFailure, type ProbeTarget, ProviderProbes, probeTargets } from './probes.ts'
export { once, type Running, type Step, startInOrder } from './in-order.ts'
export { prepareDatabase } from './database.ts'
export { loadCheckedConfig } from './config.ts'
export { nodeIdOf, type SettledConfig, settleConfig } from './settle.ts'
export { unpricedWarning, warnUnpriced } from './prices.ts'
