// The web console: a Preact + htm single page served at /console from files embedded in the
// executable. It talks only to the public API with the API key the operator signs in with.
import { Elysia } from 'elysia'
import { notFound } from '../../platform/errors.ts'
import { type Asset, type ConsoleAssets, loadAssets } from './assets.ts'


/**
 * Inline styles are allowed because wavesurfer.js draws inside a shadow root with its own
 * `<style>` element; scripts run only from this origin plus the hashed inline import map.
 */
export function contentSecurityPolicy(importMapHash: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' '${importMapHash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

function send(a: Asset, request: Request, cache: string, csp?: string): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  const headers: Record<string, string> = {
    'content-type': a.type,
    'cache-control': cache,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    vary: 'accept-encoding',
  }
  if (csp) headers['content-security-policy'] = csp
  if (gzip) headers['content-encoding'] = 'gzip'
  return new Response((gzip ? a.gzip : a.body) as Uint8Array<ArrayBuffer>, { headers })
}

export function consoleController() {
  let loaded: Promise<ConsoleAssets> | undefined
  const assets = () => (loaded ??= loadAssets())
  const page = async ({ request }: { request: Request }) => {
    const a = await assets()
    return send(a.index, request, 'no-store', contentSecurityPolicy(a.importMapHash))
  }
  const detail = { hide: true }
  return new Elysia({ name: 'console' })
    // browsers ask for /favicon.ico on their own, whatever the page links to
    .get(
      '/favicon.ico',
      async ({ request }) => {
        const a = await assets()
        return send(a.files.get('favicon.svg')!, request, 'public, max-age=86400')
      },
      { detail },
    )
    .get('/console', page, { detail })
    .get('/console/', page, { detail })
    .get(
      '/console/assets/:version/*',
      async ({ request, params }) => {
        const a = await assets()
        const file = a.files.get(params['*'])
        if (params.version !== a.version || !file) throw notFound('console file')
        return send(file, request, 'public, max-age=31536000, immutable')
      },
      { detail },
    )
}
