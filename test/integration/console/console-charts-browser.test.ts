// The console's charts in Debian's Chromium at a phone's, a tablet's and a desktop's width: the
// overview's time axis over a day of calls draws labels that do not overlap (their boxes are
// measured in the page with the axis' own font), and a call's per-turn latency chart has ticks
// at whole turns and whole milliseconds. The page's clock and time zone are fixed, so the day
// is the same whatever today is. Screenshots for docs/console.md.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import type { Page } from 'playwright-core'
import { startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, hasChromium, openBrowser, screenshot, seriousViolations } from '../../helpers/browser.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'

const test = testNeedingPackage('chromium', hasChromium)

// the overview of a day with a busy morning (labels like 10:10am, ten minutes apart), then of
// the same day with calls from morning to evening (hours) instead; the call with turns is of the
// day before
const DAYS = [
  { name: 'a morning of calls', day: '2030-03-14', first: '10:00', everyMin: 10 },
  { name: 'a day of calls', day: '2030-03-14', first: '06:00', everyMin: 50 },
]
const WIDTHS = [390, 768, 1280]

let t: TestAppliance
let b: ConsoleBrowser
let turnsCall = ''
const pages: Page[] = []

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance()
  const db = t.appliance.database.db
  const turn = (voiceToVoiceMs: number) => ({ vadHangoverMs: 300, endpointingMs: 312.4, sttFinalMs: 290.2, responseMs: voiceToVoiceMs - 340.6, llmTtftMs: null, ttsTtfbMs: 41.3, leadingSilenceMs: 28.2, voiceToVoiceMs })
  turnsCall = await seedCall(db, {
    workspaceId: t.workspaceId,
    createdAt: '2030-03-13T16:40:00Z',
    metrics: { latencyP50: 938, latencyP99: 1041.7, turns: [turn(912.4), turn(938), turn(1041.7)] },
  })
  b = await openBrowser()
}, 60_000)
afterAll(async () => {
  for (const p of pages) await p.context().close()
  await b?.close()
  await t?.stop()
})

/** A signed-in page `width` px wide whose clock reads `now` in UTC. */
async function pageAt(width: number, now = '2030-03-13T18:00:00Z'): Promise<Page> {
  const context = await b.browser.newContext({ viewport: { width, height: 900 }, timezoneId: 'UTC' })
  await context.addInitScript(`sessionStorage.setItem('voice-agent-api-key', ${JSON.stringify(t.adminKey)})`)
  const page = await context.newPage()
  await page.clock.setFixedTime(new Date(now))
  pages.push(page)
  return page
}

/** The day's calls: twelve, `everyMin` apart from `first`, instead of the previous day's. */
async function seedDay(d: (typeof DAYS)[number]) {
  const db = t.appliance.database.db
  await db.deleteFrom('calls').where('id', '!=', turnsCall).execute()
  for (let i = 0; i < 12; i++) {
    const createdAt = new Date(Date.parse(`${d.day}T${d.first}:00Z`) + i * d.everyMin * 60_000).toISOString()
    await seedCall(db, { workspaceId: t.workspaceId, createdAt, metrics: { latencyP50: 600 + 25 * i, latencyP99: 900 + 40 * i } })
  }
}

const drawn = async (page: Page, name: string) => JSON.parse((await page.locator('figure.chart').first().getAttribute(`data-${name}`))!)

describe('the console charts are readable at any width', () => {
  for (const d of DAYS) {
    describe(d.name, () => {
      beforeAll(() => hasChromium && seedDay(d))
      for (const width of WIDTHS) {
        test(`overview at ${width} px: the time axis has several labels and none overlaps the next`, async () => {
          const page = await pageAt(width, `${d.day}T23:00:00Z`)
          await page.goto(`${t.url}/console#/`)
          await page.locator('figure.chart[data-x-labels]').waitFor({ timeout: 15_000 })
          const labels = (await drawn(page, 'x-labels')) as [string, number, number][]
          expect(labels.length).toBeGreaterThanOrEqual(3)
          for (let i = 1; i < labels.length; i++) {
            const [prev, next] = [labels[i - 1]!, labels[i]!]
            // at least a few pixels of air between one label's box and the next
            expect([prev[0], next[0], next[1] - prev[2] >= 4]).toEqual([prev[0], next[0], true])
          }
          const chart = await page.locator('figure.chart').first().boundingBox()
          expect(chart!.width).toBeLessThanOrEqual(width)
          expect(await seriousViolations(page)).toEqual([])
          if (width === 390 && d === DAYS[0]) await screenshot(page, 'overview-chart-phone')
        }, 30_000)
      }
    })
  }

  for (const width of [390, 1280]) {
    test(`call page at ${width} px: the per-turn latency chart ticks at whole turns (1, 2, 3) and whole milliseconds`, async () => {
      const page = await pageAt(width)
      await page.goto(`${t.url}/console#/calls/${turnsCall}`)
      await page.locator('figure.chart[data-x-ticks]').waitFor({ timeout: 15_000 })
      expect(await drawn(page, 'x-ticks')).toEqual([1, 2, 3])
      const y = (await drawn(page, 'y-ticks')) as number[]
      expect(y.length).toBeGreaterThanOrEqual(2)
      for (const v of y) expect([v, Number.isInteger(v)]).toEqual([v, true])
      expect((await drawn(page, 'x-labels')).map((l: [string, number, number]) => l[0])).toEqual(['1', '2', '3'])
      if (width === 1280) await screenshot(page, 'call-latency')
    }, 30_000)
  }
})
