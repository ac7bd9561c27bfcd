// Kamailio (deploy/kamailio/kamailio.cfg) in front of two appliance node processes sharing one
// PostgreSQL database, on 127.0.0.1: SIPp's calls through it are shared fairly between the
// nodes, every ACK and BYE reaches the node holding its call through the recorded route,
// outbound calls from either node leave through the one trunk, and a node killed with SIGKILL
// is skipped: after its unanswered probe, or at once by the INVITE's own failover.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { join } from 'node:path'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { hasKamailio, startKamailio, type Kamailio } from '../../helpers/kamailio.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'
import { connectNumber, dialThrough, startNodes, tallyCalls, type CallTally, type Node } from './nodes-setup.ts'

const E164 = '+14155550142'
const SCENARIO = join(import.meta.dir, '../../fixtures/sip/uac-record-route.xml')
const TRUNK_SCENARIO = join(import.meta.dir, '../../fixtures/sip/uas-record-route.xml')
const present = hasKamailio() && postgresInstalled()
const test = testNeedingPackage(hasKamailio() ? 'postgresql' : 'kamailio', present)

/** SIPp places `calls` calls through Kamailio, `rate` per second, each held `holdMs` then hung up by BYE along the route set. */
async function placeCalls(kamailio: Kamailio, calls: number, rate: number, holdMs = 300) {
  const scenario = scenarioFrom(SCENARIO, { HOLD_MS: String(holdMs), CHECK_RR: 'true' })
  const run = await sipp(
    ['-sf', scenario, `127.0.0.1:${kamailio.port}`, '-s', E164.slice(1), '-m', String(calls), '-r', String(rate), '-l', '40', '-i', '127.0.0.1', '-p', String(await freePort())],
    120,
  ).exited
  const failed = Number(/Failed call\s*\|\s*\d+\s*\|\s*(\d+)/.exec(run.stdout)?.[1] ?? NaN)
  return { ...run, failed }
}

/** Waits until the database holds `total` calls, all ended; returns the tally. */
async function untilEnded(databaseUrl: string, total: number): Promise<CallTally> {
  let tally: CallTally | undefined
  await untilAsync(
    async () => {
      tally = await tallyCalls(databaseUrl)
      return tally.total === total && tally.ended === total
    },
    // the nodes finish their call rows after SIPp is done: on one busy core that takes a while
    60_000,
    `${total} ended calls`,
    200,
  )
  return tally!
}

async function newCluster(names: string[], pingIntervalSec: number, nodeAnswerTimeoutMs: number) {
  const database = await (await sharedPostgres()).createDatabase('dispatch')
  const nodes = await startNodes(database, names)
  const kamailio = await startKamailio({ nodes: nodes.map((n) => n.sipUri), pingIntervalSec, nodeAnswerTimeoutMs })
  // the number's trunk is Kamailio: calls come from its address, outbound calls leave through it
  await connectNumber(nodes[0]!, E164, `sip:127.0.0.1:${kamailio.port}`)
  return { database, nodes, kamailio }
}

describe('two nodes behind Kamailio', () => {
  let database: string
  let a: Node
  let b: Node
  let kamailio: Kamailio

  beforeAll(async () => {
    if (!present) return
    const c = await newCluster(['node-a', 'node-b'], 1, 1000)
    ;({ database, kamailio } = c)
    ;[a, b] = c.nodes as [Node, Node]
    await Promise.all([kamailio.untilNode(a.sipUri, true), kamailio.untilNode(b.sipUri, true)])
  }, 60_000)
  afterAll(async () => {
    await kamailio?.stop()
    await Promise.all([a?.stop(), b?.stop()])
  })

  test('100 calls through Kamailio are shared fairly (each node 30-70 %), each ended by the BYE that reached its node', async () => {
    const run = await placeCalls(kamailio, 100, 20)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    const tally = await untilEnded(database, 100)
    expect(tally.byNode['node-a']! + tally.byNode['node-b']!).toBe(100)
    expect(tally.byNode['node-a']).toBeGreaterThanOrEqual(30)
    expect(tally.byNode['node-b']).toBeGreaterThanOrEqual(30)
    // ended by the caller's BYE (not a timeout on the node): the route set led it to the right node
    expect(tally.endings).toEqual({ 'completed/caller_hangup': 100 })
  }, 120_000)

  test('outbound calls from either node leave through the one trunk behind Kamailio and are hung up through it', async () => {
    const trunkPort = await freePort()
    const trunk = sipp(['-sf', TRUNK_SCENARIO, '-i', '127.0.0.1', '-p', String(trunkPort), '-mp', String(await freePort()), '-m', '2'], 40)
    const front = await startKamailio({ nodes: [a.sipUri, b.sipUri], pingIntervalSec: 1, trunk: { host: '127.0.0.1', port: trunkPort } })
    try {
      const placed = await Promise.all([a, b].map((n) => dialThrough(n, `sip:127.0.0.1:${front.port}`)))
      const run = await trunk.exited
      expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
      for (const id of placed) {
        await untilAsync(async () => (await a.api('GET', `/api/calls/${id}`)).body.call.status === 'ended', 20_000, 'the outbound call to end', 200)
        expect((await a.api('GET', `/api/calls/${id}`)).body.call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
      }
    } finally {
      trunk.kill()
      await front.stop()
    }
  }, 60_000)

  test('a node killed with SIGKILL is taken out after its probe goes unanswered, and every next call succeeds on the other', async () => {
    const before = await tallyCalls(database)
    await a.kill()
    await kamailio.untilNode(a.sipUri, false, 10_000)
    const run = await placeCalls(kamailio, 20, 10)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    expect(run.failed).toBe(0)
    const after = await untilEnded(database, before.total + 20)
    expect(after.byNode['node-b']).toBe(before.byNode['node-b']! + 20)
    expect(after.byNode['node-a']).toBe(before.byNode['node-a'])
  }, 120_000)
})

describe('a node that died before its next probe', () => {
  let database: string
  let nodes: Node[] = []
  let kamailio: Kamailio

  beforeAll(async () => {
    if (!present) return
    // probes far apart: only the INVITE's own timeout can find the dead node
    ;({ database, nodes, kamailio } = await newCluster(['node-c', 'node-d'], 3600, 500))
  }, 60_000)
  afterAll(async () => {
    await kamailio?.stop()
    await Promise.all(nodes.map((n) => n.stop()))
  })

  test('an INVITE the dead node never answers fails over to the next node, which answers it, and the dead node is marked down', async () => {
    const [c] = nodes as [Node, Node]
    await c.kill()
    const run = await placeCalls(kamailio, 10, 5)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    expect(run.failed).toBe(0)
    expect((await untilEnded(database, 10)).byNode).toEqual({ 'node-d': 10 })
    expect((await kamailio.targets()).find((t) => t.uri === c.sipUri)?.flags).toStartWith('I')
  }, 60_000)
})

describe('a node with no headroom', () => {
  let database: string
  let nodes: Node[] = []
  let kamailio: Kamailio

  beforeAll(async () => {
    if (!present) return
    database = await (await sharedPostgres()).createDatabase('dispatch_full')
    // node-e carries one call at a time (CALLS_MAX); the live figures are off so this machine's load decides nothing
    nodes = await startNodes(database, ['node-e', 'node-f'], (i) => ({ CAPACITY_LAG_MS: '0', ...(i === 0 ? { CALLS_MAX: '1' } : {}) }))
    kamailio = await startKamailio({ nodes: nodes.map((n) => n.sipUri), pingIntervalSec: 1, nodeAnswerTimeoutMs: 1000 })
    await connectNumber(nodes[0]!, E164, `sip:127.0.0.1:${kamailio.port}`)
    await Promise.all(nodes.map((n) => kamailio.untilNode(n.sipUri, true)))
  }, 60_000)
  afterAll(async () => {
    await kamailio?.stop()
    await Promise.all(nodes.map((n) => n.stop()))
  })

  test("a full node's 503 with Retry-After sends the call to the next node at once: every call succeeds", async () => {
    const [e] = nodes as [Node, Node]
    const run = await placeCalls(kamailio, 20, 10, 3000)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    expect(run.failed).toBe(0)
    const tally = await untilEnded(database, 20)
    expect(tally.byNode['node-f']).toBeGreaterThan(0)
    expect(tally.endings).toEqual({ 'completed/caller_hangup': 20 })
    const metrics = await (await fetch(`${e.url}/metrics`)).text()
    expect(Number(/^voice_agent_calls_refused_total\{kind="inbound",reason="no_headroom"\} (\d+)$/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThan(0)
  }, 120_000)
})
