// Calls by name in Debian's Chromium: the API gives each call the email of the member who placed
// a browser call and our number's label beside their ids, and the calls list and call page show
// those and the agent's name, never a user or agent id; a deleted agent's call (the API says
// so) and a removed member's call still read sensibly, with no request that fails. Screenshots
// for docs/console.md.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { memberKey, startTestAppliance, type TestAppliance } from '../../helpers/appliance.ts'
import { type ConsoleBrowser, externalRequests, hasChromium, openBrowser, screenshot, seriousViolations, signIn } from '../../helpers/browser.ts'
import { seedCall } from '../../helpers/call-records.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'

const test = testNeedingPackage('chromium', hasChromium)

let t: TestAppliance
let b: ConsoleBrowser
let member: { key: string; userId: string }
let agentId = ''
let goneAgentId = ''
let numberId = ''
const failed: string[] = []
const calls: Record<'web' | 'inbound' | 'outbound' | 'gone', string> = { web: '', inbound: '', outbound: '', gone: '' }

beforeAll(async () => {
  if (!hasChromium) return
  t = await startTestAppliance()
  const agent = async (name: string) => (await t.api('POST', '/api/agents', { body: { name } })).body.agent.id as string
  agentId = await agent('Front desk')
  goneAgentId = await agent('Old desk')
  expect((await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'acct' } })).status).toBe(200)
  const number = await t.api('POST', '/api/phone-numbers', { body: { e164: '+14155550100', label: 'Front desk line', sipTerminationUri: 'sip:127.0.0.1:5999' } })
  expect(number.status, JSON.stringify(number.body)).toBe(200)
  numberId = number.body.phoneNumber.id
  member = await memberKey(t, 'caller@example.com')
  const db = t.appliance.database.db
  const base = { workspaceId: t.workspaceId, agentId, agentName: 'Front desk' }
  const at = (minutes: number) => new Date(Date.parse('2030-03-14T12:00:00Z') + minutes * 60_000).toISOString()
  calls.web = await seedCall(db, { ...base, type: 'web', from: member.userId, to: agentId, createdAt: at(4) })
  calls.inbound = await seedCall(db, { ...base, phoneNumberId: numberId, from: '+14155550199', to: '+14155550100', createdAt: at(3) })
  calls.outbound = await seedCall(db, { ...base, type: 'outbound', phoneNumberId: numberId, from: '+14155550100', to: '+14155550142', createdAt: at(2) })
  calls.gone = await seedCall(db, { workspaceId: t.workspaceId, agentId: goneAgentId, agentName: 'Old desk', type: 'web', from: member.userId, to: goneAgentId, createdAt: at(1) })
  expect((await t.api('DELETE', `/api/agents/${goneAgentId}`)).status).toBe(200)
  b = await openBrowser()
  b.page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`))
}, 60_000)
afterAll(async () => {
  await b?.close()
  await t?.stop()
})

async function checkPage(name: string) {
  expect(await seriousViolations(b.page)).toEqual([])
  await screenshot(b.page, name)
}

describe('calls are shown by name', () => {
  test("the API names a browser call's member and a phone call's number beside their ids", async () => {
    const get = async (id: string) => (await t.api('GET', `/api/calls/${id}`)).body.call
    expect(await get(calls.web)).toMatchObject({ from: member.userId, to: agentId, memberEmail: 'caller@example.com', agentName: 'Front desk', agentDeleted: false, phoneNumberLabel: null })
    expect(await get(calls.gone)).toMatchObject({ agentId: goneAgentId, agentName: 'Old desk', agentDeleted: true })
    expect(await get(calls.inbound)).toMatchObject({ from: '+14155550199', phoneNumberId: numberId, phoneNumberLabel: 'Front desk line', memberEmail: null })
    const listed = (await t.api('GET', '/api/calls')).body.calls
    expect(listed.map((c: any) => [c.id, c.memberEmail, c.phoneNumberLabel])).toEqual([
      [calls.web, 'caller@example.com', null],
      [calls.inbound, null, 'Front desk line'],
      [calls.outbound, null, 'Front desk line'],
      [calls.gone, 'caller@example.com', null],
    ])
  })

  test('the calls list shows the member, the agent and the number by name, and no user or agent id', async () => {
    const { page } = b
    await signIn(page, t.url, t.adminKey)
    await page.goto(`${t.url}/console#/calls`)
    const table = page.getByRole('table', { name: 'Calls' })
    await table.getByRole('link', { name: 'web caller@example.com → Front desk' }).waitFor()
    for (const name of ['inbound +14155550199 → Front desk line (+14155550100)', 'outbound Front desk line (+14155550100) → +14155550142', 'web caller@example.com → Old desk']) {
      expect([name, await table.getByRole('link', { name, exact: true }).count()]).toEqual([name, 1])
    }
    const text = (await table.textContent()) ?? ''
    for (const id of [member.userId, agentId, goneAgentId, numberId]) expect([id, text.includes(id)]).toEqual([id, false])
    await checkPage('calls-names')
  }, 20_000)

  test("a browser call's page is headed by the member and the agent and links the agent; a deleted agent's call names it as deleted", async () => {
    const { page } = b
    await page.goto(`${t.url}/console#/calls/${calls.web}`)
    await page.getByRole('heading', { name: 'Call caller@example.com → Front desk', level: 1 }).waitFor()
    const link = page.getByRole('link', { name: 'Front desk', exact: true })
    await link.waitFor()
    expect(await link.getAttribute('href')).toBe(`#/agents/${agentId}`)
    await checkPage('call-names')

    await page.goto(`${t.url}/console#/calls/${calls.gone}`)
    await page.getByRole('heading', { name: 'Call caller@example.com → Old desk', level: 1 }).waitFor()
    await page.getByText('agent Old desk (deleted)').waitFor()
    expect(await page.getByRole('link', { name: 'Old desk' }).count()).toBe(0)
  }, 20_000)

  test("a member removed from the workspace is still named on the calls they placed", async () => {
    expect((await t.api('DELETE', `/api/workspaces/${t.workspaceId}/members/${member.userId}`)).status).toBe(200)
    expect((await t.api('GET', `/api/calls/${calls.web}`)).body.call.memberEmail).toBe('caller@example.com')
    const { page } = b
    await page.goto(`${t.url}/console#/calls/${calls.inbound}`)
    await page.getByRole('heading', { name: 'Call +14155550199 → Front desk line (+14155550100)', level: 1 }).waitFor()
    await page.goto(`${t.url}/console#/calls/${calls.web}`)
    await page.getByRole('heading', { name: 'Call caller@example.com → Front desk', level: 1 }).waitFor()
    expect(externalRequests(b.requests)).toEqual([])
    expect(failed).toEqual([])
    expect(b.problems).toEqual([])
  }, 20_000)
})
