// The one place that decides the URL others reach this appliance's HTTP API at: recordingUrl of a
// call, signed recording links (export documents, webhooks), and the voice URL bought numbers
// point the carrier at. Pure.

/** The configuration keys the public URL comes from. */
export interface PublicUrlConfig {
  PUBLIC_HTTP_URL: string
  PUBLIC_HOST: string
  HTTP_HOST: string
  HTTP_PORT: number
}

/** The public base URL, read when a link is written (the port HTTP listens on is known late). */
export type PublicBase = () => string

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]'])

/**
 * The base URL (no trailing slash), in this order:
 * 1. PUBLIC_HTTP_URL when set (a proxy's or load balancer's URL), trailing slashes removed;
 * 2. else `http://<host>:<port>`, the host being PUBLIC_HOST (which the start fills with the
 *    default route's address when unset), else HTTP_HOST unless it is a wildcard, else
 *    127.0.0.1; an IPv6 host in brackets; the port the one HTTP listens on (what the system
 *    picked for HTTP_PORT=0), else HTTP_PORT.
 * Never from a request's Host header, which the client chooses.
 */
export function publicHttpBase(config: PublicUrlConfig, listeningPort?: number): string {
  if (config.PUBLIC_HTTP_URL) return config.PUBLIC_HTTP_URL.replace(/\/+$/, '')
  const host = config.PUBLIC_HOST || (WILDCARD_HOSTS.has(config.HTTP_HOST) ? '127.0.0.1' : config.HTTP_HOST)
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return `http://${bracketed}:${listeningPort || config.HTTP_PORT}`
}

/** publicHttpBase of `config`, with the port of the server once it listens. */
export function publicBaseOf(config: PublicUrlConfig, server: () => { port?: number } | null | undefined): PublicBase {
  return () => publicHttpBase(config, server()?.port)
}
