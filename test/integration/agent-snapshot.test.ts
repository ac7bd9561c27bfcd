import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createAgent, publishAgent, snapshotAgent, updateAgent } from '../../src/features/agents/index.ts'
import { agentProfile } from '../../src/features/calls/conversation/profile.ts'
import { startTestAppliance, type TestAppliance } from '../helpers/appliance.ts'

let t: TestAppliance
beforeAll(async () => {
  t = await startTestAppliance()
})
afterAll(() => t.stop())

const rules = { urlPolicy: { allowHttp: false, allowPrivate: false } }

test('a snapshot taken at call start is unchanged by later edits; the next snapshot sees them', async () => {
  const db = t.appliance.database.db
  const agent = await createAgent(db, t.workspaceId, {
    name: 'Desk',
    promptDraft: 'draft one',
    promptPublished: 'You help {{caller}}',
    welcome: { mode: 'agent_speaks_first', message: 'Hello {{caller}}' },
    enabledTools: ['end_call'],
  }, rules)
  const first = await snapshotAgent(db, agent.id)
  expect(first).toMatchObject({
    agentId: agent.id,
    workspaceId: t.workspaceId,
    version: 1,
    prompt: 'You help {{caller}}',
    welcome: { mode: 'agent_speaks_first', message: 'Hello {{caller}}', interruptible: true, delayMs: 0 },
    enabledTools: ['end_call'],
    variables: ['caller'],
  })
  const frozenCopy = structuredClone(first)

  await updateAgent(db, t.workspaceId, agent.id, { name: 'Desk 2', welcome: { mode: 'user_speaks_first' }, enabledTools: [], voice: { provider: 'openai', voiceId: 'nova' } }, rules)
  await t.api('PUT', `/api/agents/${agent.id}`, { body: { promptDraft: 'You now help {{customer}}', llmModel: 'claude-haiku-4-5' } })
  await publishAgent(db, t.workspaceId, agent.id)

  expect(first).toEqual(frozenCopy)
  expect(Object.isFrozen(first) && Object.isFrozen(first.welcome) && Object.isFrozen(first.enabledTools)).toBe(true)
  expect(() => {
    ;(first.welcome as { message: string }).message = 'mutated'
  }).toThrow()

  const next = await snapshotAgent(db, agent.id, { workspaceId: t.workspaceId })
  expect(next).toMatchObject({
    version: 4,
    name: 'Desk 2',
    prompt: 'You now help {{customer}}',
    llmModel: 'claude-haiku-4-5',
    voice: { provider: 'openai', voiceId: 'nova', speed: 1 },
    enabledTools: [],
    welcome: { mode: 'user_speaks_first', message: '' },
  })
})

test('a snapshot uses the published prompt, never the draft, and is scoped to the workspace when asked', async () => {
  const db = t.appliance.database.db
  const agent = await createAgent(db, t.workspaceId, { name: 'Drafty', promptDraft: 'unreviewed' }, rules)
  expect((await snapshotAgent(db, agent.id)).prompt).toBe('')
  await expect(snapshotAgent(db, agent.id, { workspaceId: 'ws_other' })).rejects.toMatchObject({ status: 404 })
  await expect(snapshotAgent(db, 'ag_missing')).rejects.toMatchObject({ status: 404 })
})

test("a call's profile carries the agent's endpointing as the snapshot froze it; a snapshot from before the setting gets 'normal'", async () => {
  const db = t.appliance.database.db
  const lines = { CALL_MAX_DURATION_MS: 60_000, CALL_SILENCE_TIMEOUT_MS: 10_000, CALL_REPROMPT_MESSAGE: 'Still there?', CALL_GOODBYE_MESSAGE: 'Bye', CALL_FALLBACK_MESSAGE: 'Sorry' }
  const made = await t.api('POST', '/api/agents', { body: { name: 'Patient desk', endpointing: 900 } })
  expect(made.status).toBe(200)
  const first = await snapshotAgent(db, made.body.agent.id)
  expect(first.endpointing).toBe(900)
  expect(agentProfile(first, lines, {}, []).endpointing).toBe(900)
  expect((await t.api('PATCH', `/api/agents/${made.body.agent.id}`, { body: { endpointing: 'fast' } })).status).toBe(200)
  expect(agentProfile(first, lines, {}, []).endpointing).toBe(900)
  expect(agentProfile(await snapshotAgent(db, made.body.agent.id), lines, {}, []).endpointing).toBe('fast')
  const { endpointing: _, ...older } = structuredClone(first)
  expect(agentProfile(older, lines, {}, []).endpointing).toBe('normal')
})
