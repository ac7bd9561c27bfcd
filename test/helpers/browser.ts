// A headless Chromium (Debian's) driven by playwright-core for the console's browser tests: a
// log of every request the page makes, CSP and script errors collected, axe-core run in the page.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

/** Where the tests write the screenshots docs/console.md shows. */
export const SCREENSHOTS = join(import.meta.dir, '../../docs/console')

const AXE = readFileSync(join(import.meta.dir, '../../node_modules/axe-core/axe.min.js'), 'utf8')

export interface ConsoleBrowser {
  browser: Browser
  page: Page
  /** Every URL the page requested, in order. */
  requests: string[]
  /** Page errors, failed requests' console errors and CSP refusals. */
  problems: string[]
  close(): Promise<void>
}

/**
 * Chromium's environment: the test's, without libfaketime, whose clock_gettime its crash handler
 * cannot run under. Under `faketime` (the suite a year ahead) the browser keeps the machine's
 * clock while the appliance runs on the faked one, as a browser with a skewed clock would.
 */
export function chromiumEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'LD_PRELOAD' && !k.startsWith('FAKETIME')) env[k] = v
  return env
}

export async function openBrowser(opts: { width?: number; height?: number } = {}): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    env: chromiumEnv(),
    headless: true,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio'],
  })
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 }, acceptDownloads: true })
  const page = await context.newPage()
  const requests: string[] = []
  const problems: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`)
  })
  return { browser, page, requests, problems, close: () => browser.close() }
}

/**
 * A headless Chromium whose microphone is a fake device playing `wav` once, for calls from the
 * console to the appliance on 127.0.0.1.
 */
export function launchWithMicrophone(wav: string, opts: { loopback?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    env: chromiumEnv(),
    headless: true,
    args: [
      '--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--mute-audio',
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}%noloop`,
      // without it Chromium neither gathers nor checks a loopback candidate (docs/webrtc.md)
      ...(opts.loopback === false ? [] : ['--allow-loopback-in-peer-connection']),
    ],
  })
}

/** Requests that left 127.0.0.1 (data: and blob: URLs stay in the page). */
export function externalRequests(requests: string[]): string[] {
  return requests.filter((u) => {
    if (u.startsWith('data:') || u.startsWith('blob:')) return false
    try {
      return new URL(u).hostname !== '127.0.0.1'
    } catch {
      return true
    }
  })
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/** axe-core on the page as it is now; only serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // evaluated through the DevTools protocol, which the page's CSP does not govern
  if ((await page.evaluate('typeof window.axe')) === 'undefined') await page.evaluate(`${AXE}\n;window.axe = axe`)
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: any[] }
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }))
}

/**
 * Photographs the page for docs/console.md. The docs' copies are rewritten only with
 * UPDATE_SCREENSHOTS=1, so an ordinary test run leaves the checkout clean; otherwise the picture
 * is still taken (the page must render) into a temporary folder.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? SCREENSHOTS : join(tmpdir(), 'console-screenshots')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}

/** Opens the console and signs in with `key`; resolves once the navigation is shown. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/console`)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Console' }).waitFor()
}
