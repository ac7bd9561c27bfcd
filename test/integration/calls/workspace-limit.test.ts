// maxConcurrentCalls, set by a workspace's admin, counts the workspace's calls of every
// kind together: a workspace at its limit is refused over SIP (503 with Retry-After), as a web
// call, as a media stream and from the API, while another workspace's calls go on being taken.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { apiClient, memberKey, startTestAppliance, type Api, type TestAppliance } from '../../helpers/appliance.ts'
import { setupCallTarget, waitForCall, type CallSetup } from '../../helpers/calls.ts'
import { BUSY_ANNOUNCEMENT } from '../../../src/features/calls/runtime/busy.ts'
import { gatheredOffer, loopbackPeer } from '../../helpers/loopback-peer.ts'
import { inviteOnce } from '../../helpers/sip-invite.ts'
import { header } from '../../../src/realtime/telephony/sip/index.ts'

let t: TestAppliance
let tenant: { id: string; key: string; api: Api }
let tenantTarget: CallSetup
let tenantOutbound: CallSetup
let asTenant: TestAppliance
let ownTarget: CallSetup
const peers: { close(): Promise<void> }[] = []

beforeAll(async () => {
  // an unanswered web call holds its place until WEB_CALL_CONNECT_MS: long enough for the test
  t = await startTestAppliance({ WEBRTC_HOST_ADDRESSES: '127.0.0.1', WEB_CALL_CONNECT_MS: 60_000 })
  const made = await t.api('POST', '/api/workspaces', { body: { name: 'Tenant' } })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  tenant = { id: made.body.workspace.id, key: made.body.apiKey.key, api: apiClient(t.url, made.body.apiKey.key) }
  asTenant = { ...t, api: tenant.api, workspaceId: tenant.id, adminKey: tenant.key }
  tenantTarget = await setupCallTarget(asTenant, { agent: { welcome: { mode: 'user_speaks_first' } } })
  tenantOutbound = await setupCallTarget(asTenant, { direction: 'outbound' })
  ownTarget = await setupCallTarget(t, { agent: { welcome: { mode: 'user_speaks_first' } } })
})

afterAll(async () => {
  for (const p of peers) await p.close()
  await t?.stop()
})

/** A web call whose browser never takes the answer: it holds its place without connecting. */
async function unansweredWebCall(key: string, agentId: string) {
  const { pc } = loopbackPeer()
  peers.push({ close: () => pc.close().catch(() => {}) })
  const offer = await gatheredOffer(pc)
  const res = await fetch(`${t.url}/api/agents/${agentId}/web-calls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sdp: offer }),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }
}

/** The final response to one INVITE of `e164`. */
async function invite(e164: string) {
  const r = await inviteOnce(t.appliance.sip.udp!, e164)
  peers.push({ close: async () => r.close() })
  return r.final
}

test('maxConcurrentCalls is set by an admin, not by the members it bounds, and GET shows its use', async () => {
  const member = apiClient(t.url, (await memberKey(asTenant, 'caller@example.com')).key)
  const own = await member('PATCH', `/api/workspaces/${tenant.id}`, { body: { maxConcurrentCalls: 50 } })
  expect(own.status).toBe(403)
  expect((await tenant.api('GET', `/api/workspaces/${tenant.id}`)).body.workspace).toMatchObject({ maxConcurrentCalls: null, callsInProgress: 0 })
  const bad = await tenant.api('PATCH', `/api/workspaces/${tenant.id}`, { body: { maxConcurrentCalls: 0 } })
  expect(bad.status).toBe(422)
  const set = await tenant.api('PATCH', `/api/workspaces/${tenant.id}`, { body: { maxConcurrentCalls: 1 } })
  expect(set.status, JSON.stringify(set.body)).toBe(200)
  expect((await tenant.api('GET', `/api/workspaces/${tenant.id}`)).body.workspace).toMatchObject({ name: 'Tenant', maxConcurrentCalls: 1, callsInProgress: 0 })
})

test('a workspace at its maxConcurrentCalls is refused over SIP, web, media stream and the API, while another workspace is not', async () => {
  const held = await unansweredWebCall(tenant.key, tenantTarget.agentId)
  expect(held.status, JSON.stringify(held.body)).toBe(201)
  expect((await tenant.api('GET', `/api/workspaces/${tenant.id}`)).body.workspace).toMatchObject({ maxConcurrentCalls: 1, callsInProgress: 1 })

  const web = await unansweredWebCall(tenant.key, tenantTarget.agentId)
  expect(web.status).toBe(503)
  expect(web.body.error).toMatchObject({ code: 'not_ready', details: { reason: 'workspace_limit' } })
  expect(Number(web.headers.get('retry-after'))).toBeGreaterThan(0)

  const stream = await fetch(`${t.url}/api/agents/${tenantTarget.agentId}/media-stream`, {
    headers: { authorization: `Bearer ${tenant.key}`, upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
  })
  expect(stream.status).toBe(503)
  expect(((await stream.json()) as any).error.details.reason).toBe('workspace_limit')

  const api = await tenant.api('POST', '/api/calls', { body: { phoneNumberId: tenantOutbound.numberId, to: '+14155550123' } })
  expect(api.status, JSON.stringify(api.body)).toBe(503)
  expect(api.body.error.details.reason).toBe('workspace_limit')
  expect(Number(api.headers.get('retry-after'))).toBeGreaterThan(0)

  const sip = await invite(tenantTarget.e164)
  expect(sip.kind === 'response' && sip.status).toBe(503)
  expect(Number(header(sip, 'retry-after'))).toBeGreaterThan(0)

  // the operator's own workspace has no limit: its calls are taken meanwhile
  const ownWeb = await unansweredWebCall(t.adminKey, ownTarget.agentId)
  expect(ownWeb.status, JSON.stringify(ownWeb.body)).toBe(201)
  const ownSip = await invite(ownTarget.e164)
  expect(ownSip.kind === 'response' && ownSip.status).toBe(200)

  const metrics = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.adminKey}` } })).text()
  expect(metrics).toMatch(/voice_agent_calls_refused_total\{kind="inbound",reason="workspace_limit"\} 1/)
  expect(metrics).toMatch(/voice_agent_calls_refused_total\{kind="web",reason="workspace_limit"\} 1/)
}, 60_000)

test('a number set to announce answers a caller over the limit, says all lines are busy and hangs up', async () => {
  const announcing = await setupCallTarget(asTenant, { agent: { welcome: { mode: 'user_speaks_first' } } })
  const patched = await tenant.api('PATCH', `/api/phone-numbers/${announcing.numberId}`, { body: { whenBusy: 'announce' } })
  expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  expect(patched.body.phoneNumber.whenBusy).toBe('announce')
  // the tenant is at its limit still (the unanswered web call of the test before holds its one place)
  expect((await tenant.api('GET', `/api/workspaces/${tenant.id}`)).body.workspace.callsInProgress).toBe(1)
  const r = await inviteOnce(t.appliance.sip.udp!, announcing.e164)
  peers.push({ close: async () => r.close() })
  expect(r.final.status).toBe(200)
  await r.ackAndAwaitBye()
  const call = await waitForCall(asTenant, (c) => c.to === announcing.e164 && c.status === 'ended', 20_000)
  expect(call.transcript[0]).toMatchObject({ role: 'agent', text: BUSY_ANNOUNCEMENT })
  // the announcement held no place of the workspace
  expect((await tenant.api('GET', `/api/workspaces/${tenant.id}`)).body.workspace.callsInProgress).toBe(1)
}, 40_000)
