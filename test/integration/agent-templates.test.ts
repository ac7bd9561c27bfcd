// Templates of POST /api/agents: one per role of the seed, each with a workflow that works
// offline; the outbound roles (sales, followup) speak as the one who places the call. Also the
// tools of GET /api/providers, which the console's agent form is built from.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance

beforeAll(async () => {
  t = await startTestAppliance({ LLM_PROVIDER: 'none' })
})
afterAll(async () => {
  await t?.stop()
})

const ROLES = { receptionist: 'reception', booking: 'booking', sales: 'sales', followup: 'followup' } as const
const OUTBOUND = ['sales', 'followup']

/** The caller's lines (keys or a keyword) that lead from the start node to `target`, by key and keyword edges. */
function pathTo(workflow: { nodes: any[]; edges: any[] }, target: string): string[] | undefined {
  const queue: { id: string; inputs: string[] }[] = [{ id: 'start', inputs: [] }]
  const seen = new Set(['start'])
  while (queue.length) {
    const { id, inputs } = queue.shift()!
    if (id === target) return inputs
    for (const e of workflow.edges.filter((x) => x.from === id)) {
      const c = e.condition
      const line = c?.type === 'dtmf' ? `dtmf:${c.digits}` : c?.type === 'keywords' ? c.keywords[0] : c ? undefined : null
      if (line === undefined || seen.has(e.to)) continue
      seen.add(e.to)
      queue.push({ id: e.to, inputs: line === null ? inputs : [...inputs, line] })
    }
  }
  return undefined
}

async function fromTemplate(template: string) {
  const r = await t.api('POST', '/api/agents', { body: { name: `From ${template}`, template } })
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  const wf = await t.api('GET', `/api/agents/${r.body.agent.id}/workflow`)
  expect(wf.status).toBe(200)
  return { agent: r.body.agent, workflow: wf.body.workflow }
}

describe('agent templates', () => {
  for (const [template, role] of Object.entries(ROLES)) {
    test(`"${template}" creates a ${role} agent whose workflow is valid, converses offline, and leads somewhere on key 1`, async () => {
      const { agent, workflow } = await fromTemplate(template)
      expect(agent.role).toBe(role)
      expect(agent.agentType).toBe(OUTBOUND.includes(template) ? 'outbound' : 'inbound')
      expect(agent.readiness).toEqual({ canConverse: true, brain: 'workflow', problems: [] })
      expect(agent.promptPublished.length).toBeGreaterThan(0)
      // the stored graph passes the same validation again, unchanged
      const again = await t.api('PUT', `/api/agents/${agent.id}/workflow`, { body: { nodes: workflow.nodes, edges: workflow.edges } })
      expect(again.status, JSON.stringify(again.body)).toBe(200)
      const run = await t.api('POST', `/api/agents/${agent.id}/workflow/test-run`, { body: { inputs: [{ role: 'user', content: 'dtmf:1' }] } })
      expect(run.status, JSON.stringify(run.body)).toBe(200)
      expect(run.body.path.length).toBeGreaterThan(1)
      expect(run.body.path[0]).toBe('start')
    })
  }

  for (const template of OUTBOUND) {
    test(`"${template}" is worded for a call the agent places: it says who calls and never thanks the callee for calling`, async () => {
      const { agent, workflow } = await fromTemplate(template)
      const texts = workflow.nodes.map((n: any) => String(n.config?.text ?? ''))
      for (const text of [...texts, agent.promptPublished]) expect(text).not.toMatch(/for calling|calling us/i)
      const start = workflow.nodes.find((n: any) => n.type === 'start').config.text
      expect(start).toMatch(/this is an automated (follow-up )?call/i)
      expect(agent.promptPublished).toMatch(/you are calling/i)
    })
  }

  // "Please leave your message after this sentence" must be followed by the caller's turn, not by
  // the next sentence of the agent: every node whose words ask the caller to speak waits for them.
  const ASKS_TO_SPEAK = /\b(please (say|tell|leave)|tell us|leave (your|a) message|say your)\b/i
  for (const template of Object.keys(ROLES)) {
    test(`"${template}": every branch that asks the caller to speak waits for the caller's words, then goes on`, async () => {
      const { agent, workflow } = await fromTemplate(template)
      const spoken = (n: any) => String(n.config?.text ?? n.config?.prompt ?? '')
      const asking = workflow.nodes.filter((n: any) => n.type !== 'start' && ASKS_TO_SPEAK.test(spoken(n)))
      if (template !== 'sales') expect(asking.length).toBeGreaterThan(0)
      for (const node of asking) {
        const inputs = pathTo(workflow, node.id)
        expect(inputs, `no key or keyword path from start to ${node.id}`).toBeDefined()
        const run = (lines: string[]) => t.api('POST', `/api/agents/${agent.id}/workflow/test-run`, { body: { inputs: lines.map((content) => ({ role: 'user', content })) } })
        const reached = (await run(inputs!)).body
        expect({ node: reached.finalNode, action: reached.finalAction }).toEqual({ node: node.id, action: 'awaiting_input' })
        expect(reached.responses.at(-1).nodeId).toBe(node.id)
        const answered = (await run([...inputs!, 'this is Ann Lee, Tuesday at ten would suit me'])).body
        expect(answered.path.slice(reached.path.length).length).toBeGreaterThan(0)
        expect(answered.responses.length).toBeGreaterThan(reached.responses.length)
      }
    })
  }

  test("business is written in place of the template prompt's {{business}}; without it the placeholder stays for dynamic variables; without a template it is refused and nothing is created", async () => {
    const named = await t.api('POST', '/api/agents', { body: { name: 'Desk', template: 'receptionist', business: 'Acme Dental' } })
    expect(named.status, JSON.stringify(named.body)).toBe(200)
    expect(named.body.agent.promptDraft).toBe('You are the friendly receptionist of Acme Dental. Answer in one or two short sentences.')
    expect(named.body.agent.promptPublished).toBe(named.body.agent.promptDraft)
    expect(named.body.agent.variables).toEqual([])
    const sales = await t.api('POST', '/api/agents', { body: { name: 'Caller', template: 'sales', business: 'Acme Dental' } })
    expect(sales.body.agent.variables).toEqual(['offer'])
    expect((await fromTemplate('booking')).agent.variables).toEqual(['business'])
    const before = (await t.api('GET', '/api/agents?limit=100')).body.agents.length
    const refused = await t.api('POST', '/api/agents', { body: { name: 'Blank', business: 'Acme Dental' } })
    expect(refused.status).toBe(422)
    expect(refused.body.error.details.fields).toEqual([expect.objectContaining({ path: 'business' })])
    expect((await t.api('GET', '/api/agents?limit=100')).body.agents.length).toBe(before)
  })

  test('GET /api/providers lists the built-in tools with the JSON Schema of their settings (the console builds its tool fields from it)', async () => {
    const r = await t.api('GET', '/api/providers')
    expect(r.status).toBe(200)
    const names = r.body.tools.map((x: any) => x.name)
    expect(names).toEqual(expect.arrayContaining(['end_call', 'transfer_call', 'send_dtmf', 'http_request', 'opt_out']))
    const transfer = r.body.tools.find((x: any) => x.name === 'transfer_call')
    expect(transfer.configRequired).toBe(true)
    expect(transfer.config.type).toBe('object')
    expect(transfer.config.properties.destinations.type).toBe('array')
    expect(transfer.config.properties.mode.anyOf.map((c: any) => c.const)).toEqual(['blind', 'warm'])
  })

  test('an unknown template is refused with 422 naming the field', async () => {
    const r = await t.api('POST', '/api/agents', { body: { name: 'X', template: 'astronaut' } })
    expect(r.status).toBe(422)
    expect(JSON.stringify(r.body)).toContain('template')
  })
})
