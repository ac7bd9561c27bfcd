// What the appliance checks before and while it starts: ports, the advertised address, providers.
export { checkPortsFree, type PortCheck, PortInUseError, portErrorOf, type PortSettings } from './ports.ts'
