// The HTTP API as a running subsystem: built from its deps, listening on HTTP_HOST:HTTP_PORT.
import type { Logger } from '../platform/log.ts'
import { type PublicBase, publicBaseOf } from '../platform/net/index.ts'
import { once, portErrorOf } from './startup/index.ts'
import { type App, type AppDeps, buildApp } from '../http/app.ts'

export interface RunningHttp {
  app: App
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:3000 */
  url: string
  /** Where links to this appliance point, once the port is known. */
  publicBase: PublicBase
  /** Closes the API; a second call waits for the first. */
  stop(): Promise<void>
}

export async function start(deps: Omit<AppDeps, 'publicBase'> & { log: Logger }): Promise<RunningHttp> {
  const { config, log } = deps
  const publicBase = publicBaseOf(config, () => app.server)
  const app: App = buildApp({ ...deps, publicBase })
  // Elysia asks Bun for SO_REUSEPORT unless told not to: a second appliance would share the port
  try {
    app.listen({ hostname: config.HTTP_HOST, port: config.HTTP_PORT, reusePort: false })
  } catch (err) {
    await app.stop().catch(() => {})
    throw portErrorOf(err, 'HTTP_PORT', config.HTTP_PORT, config.HTTP_HOST, 'TCP')
  }
  const server = app.server
  if (!server) {
    await app.stop().catch(() => {})
    throw new Error('HTTP server did not start')
  }
  const host = config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST
  const url = `http://${host}:${server.port}`
  log.info({ url }, 'HTTP listening')
  return { app, url, publicBase, stop: once(async () => void (await app.stop())) }
}
