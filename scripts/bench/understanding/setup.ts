// Puts the corpus's agents on a running appliance through its HTTP API, as an operator would:
// the four templates (POST /api/agents {template}; the two outbound ones made inbound so a phone
// can call them), the bench's own workflows, the clinic's sixteen documents in a knowledge base
// linked to the clinic agent, and a SIP number for each.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setupCallTarget } from '../../../test/helpers/calls.ts'
import type { BenchAppliance } from '../conversation/appliance.ts'
import { AGENT_NAMES, graphOf, KNOWLEDGE_AGENTS, TEMPLATE_AGENTS, type AgentName } from './agents.ts'
import { CLINIC_DOCUMENTS } from './corpus.ts'

export interface AgentTarget {
  agentId: string
  /** The number to call, as the SIP Request-URI user. */
  user: string
}

export type Targets = Record<AgentName, AgentTarget>

async function ready(a: BenchAppliance): Promise<void> {
  for (let i = 0; (await a.api('GET', '/ready', { key: null })).body?.status !== 'ready'; i++) {
    if (i > 600) throw new Error('the appliance did not become ready in 60 s')
    await Bun.sleep(100) // polling another process's readiness
  }
}

async function clinicBase(a: BenchAppliance): Promise<string> {
  const base = await a.api('POST', '/api/knowledge-bases', { body: { name: 'Harbor Family Clinic' } })
  if (base.status !== 200) throw new Error(`knowledge base: ${JSON.stringify(base.body)}`)
  const id = base.body.knowledgeBase.id as string
  for (const name of readdirSync(CLINIC_DOCUMENTS).sort()) {
    const doc = await a.api('POST', `/api/knowledge-bases/${id}/documents`, { body: { name, content: readFileSync(join(CLINIC_DOCUMENTS, name), 'utf8') } })
    if (doc.status !== 200) throw new Error(`document ${name}: ${JSON.stringify(doc.body)}`)
  }
  return id
}

export async function setupAgents(a: BenchAppliance, only: readonly AgentName[] = AGENT_NAMES): Promise<Targets> {
  await ready(a)
  const t = { api: a.api, workspaceId: a.workspaceId } as never
  const baseId = only.some((n) => KNOWLEDGE_AGENTS.includes(n)) ? await clinicBase(a) : undefined
  const out: Partial<Targets> = {}
  for (const name of only) {
    const template = (TEMPLATE_AGENTS as readonly string[]).includes(name)
    const agent = { name, ...(template ? { template: name } : {}), ...(KNOWLEDGE_AGENTS.includes(name) ? { knowledgeBaseIds: [baseId] } : {}) }
    const target = await setupCallTarget(t, { agent })
    if (!template) {
      const put = await a.api('PUT', `/api/agents/${target.agentId}/workflow`, { body: graphOf(name) })
      if (put.status !== 200) throw new Error(`workflow of ${name}: ${JSON.stringify(put.body)}`)
    }
    out[name] = { agentId: target.agentId, user: target.e164.slice(1) }
  }
  return out as Targets
}

/** The workflow's answer to `text` typed in (POST .../workflow/test-run): the text baseline of a call. */
export async function typedOnAppliance(a: BenchAppliance, agentId: string, text: string): Promise<{ path: string[]; responses: { nodeId: string; output: string }[] }> {
  const r = await a.api('POST', `/api/agents/${agentId}/workflow/test-run`, { body: { inputs: [{ role: 'user', content: text }] } })
  if (r.status !== 200) throw new Error(`test-run: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
  return r.body
}
