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
