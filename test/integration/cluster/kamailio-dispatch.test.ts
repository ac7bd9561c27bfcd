// Kamailio (deploy/kamailio/kamailio.cfg) in front of two appliance node processes on
// 127.0.0.1: SIPp's calls through it are shared fairly between the nodes, every ACK and BYE
// reaches the node holding its call through the recorded route, and once a node is killed
// (SIGKILL) and its OPTIONS probe goes unanswered, every next call is answered by the other.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { join } from 'node:path'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { hasKamailio, startKamailio, type Kamailio } from '../../helpers/kamailio.ts'
import { freePort, scenarioFrom, sipp } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'
import { startNode, type NodeProcess } from './node-process.ts'
import { allCalls, connectNumber, dialThrough } from './nodes-setup.ts'

const E164 = '+14155550142'
const SCENARIO = join(import.meta.dir, '../../fixtures/sip/uac-record-route.xml')
const TRUNK_SCENARIO = join(import.meta.dir, '../../fixtures/sip/uas-record-route.xml')
const test = testNeedingPackage('kamailio', hasKamailio())

/** SIPp places `calls` calls through Kamailio, `rate` per second, each held `holdMs` then hung up by BYE. */
async function placeCalls(kamailio: Kamailio, calls: number, rate: number, holdMs = 300) {
  const scenario = scenarioFrom(SCENARIO, { HOLD_MS: String(holdMs), CHECK_RR: 'true' })
  const run = await sipp(
    ['-sf', scenario, `127.0.0.1:${kamailio.port}`, '-s', E164.slice(1), '-m', String(calls), '-r', String(rate), '-l', '40', '-i', '127.0.0.1', '-p', String(await freePort())],
    120,
  ).exited
  const failed = Number(/Failed call\s*\|\s*\d+\s*\|\s*(\d+)/.exec(run.stdout)?.[1] ?? NaN)
  return { ...run, failed }
}

describe('two nodes behind Kamailio', () => {
  let a: NodeProcess
  let b: NodeProcess
  let kamailio: Kamailio

  beforeAll(async () => {
    if (!hasKamailio()) return
    ;[a, b] = await Promise.all([startNode('a'), startNode('b')])
    kamailio = await startKamailio({ nodes: [a.sipUri, b.sipUri], pingIntervalSec: 1, nodeAnswerTimeoutMs: 1000 })
    // the number's trunk is Kamailio: calls come from its address, outbound calls leave through it
    await Promise.all([a, b].map((n) => connectNumber(n, E164, `sip:127.0.0.1:${kamailio.port}`)))
    await Promise.all([kamailio.untilNode(a.sipUri, true), kamailio.untilNode(b.sipUri, true)])
  }, 60_000)
  afterAll(async () => {
    await kamailio?.stop()
    await Promise.all([a?.stop(), b?.stop()])
  })

  test('100 calls through Kamailio are shared fairly (each node 30-70 %), each ended by the BYE that reached its node', async () => {
    const run = await placeCalls(kamailio, 100, 20)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    const [onA, onB] = await Promise.all([a, b].map((n) => untilAllEnded(n, (c) => c.length > 0)))
    expect(onA!.length + onB!.length).toBe(100)
    expect(onA!.length).toBeGreaterThanOrEqual(30)
    expect(onB!.length).toBeGreaterThanOrEqual(30)
    // ended by the caller's BYE (not a timeout on the node): the route set led it to the right node
    for (const c of [...onA!, ...onB!]) expect({ outcome: c.outcome, endReason: c.endReason }).toEqual({ outcome: 'completed', endReason: 'caller_hangup' })
  }, 120_000)

  test('outbound calls from either node leave through the one trunk behind Kamailio and are hung up through it', async () => {
    const trunkPort = await freePort()
    const trunk = sipp(['-sf', TRUNK_SCENARIO, '-i', '127.0.0.1', '-p', String(trunkPort), '-mp', String(await freePort()), '-m', '2'], 40)
    const front = await startKamailio({ nodes: [a.sipUri, b.sipUri], pingIntervalSec: 1, trunk: { host: '127.0.0.1', port: trunkPort } })
    try {
      const placed = await Promise.all([a, b].map((n) => dialThrough(n, `sip:127.0.0.1:${front.port}`)))
      const run = await trunk.exited
      expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
      for (const [i, n] of [a, b].entries()) {
        await untilAsync(async () => (await n.api('GET', `/api/calls/${placed[i]}`)).body.call.status === 'ended', 20_000, 'the outbound call to end', 200)
        expect((await n.api('GET', `/api/calls/${placed[i]}`)).body.call).toMatchObject({ outcome: 'completed', endReason: 'agent_hangup' })
      }
    } finally {
      trunk.kill()
      await front.stop()
    }
  }, 60_000)

  test('a node killed with SIGKILL is taken out after its probe goes unanswered, and every next call succeeds on the other', async () => {
    const before = (await allCalls(b)).length
    await a.kill('SIGKILL')
    await kamailio.untilNode(a.sipUri, false, 10_000)
    const run = await placeCalls(kamailio, 20, 10)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    expect(run.failed).toBe(0)
    const onB = await untilAllEnded(b, (c) => c.length === before + 20)
    expect(onB.length).toBe(before + 20)
  }, 60_000)
})

describe('a node that died before its next probe', () => {
  let a: NodeProcess
  let b: NodeProcess
  let kamailio: Kamailio

  beforeAll(async () => {
    if (!hasKamailio()) return
    ;[a, b] = await Promise.all([startNode('c'), startNode('d')])
    // probes far apart: only the INVITE's own timeout can find the dead node
    kamailio = await startKamailio({ nodes: [a.sipUri, b.sipUri], pingIntervalSec: 3600, nodeAnswerTimeoutMs: 500 })
    await Promise.all([a, b].map((n) => connectNumber(n, E164, `sip:127.0.0.1:${kamailio.port}`)))
  }, 60_000)
  afterAll(async () => {
    await kamailio?.stop()
    await Promise.all([a?.stop(), b?.stop()])
  })

  test('an INVITE the dead node never answers fails over to the next node, which answers it, and the dead node is marked down', async () => {
    await a.kill('SIGKILL')
    const run = await placeCalls(kamailio, 10, 5)
    expect(run.code, run.stderr + run.stdout.slice(-2500)).toBe(0)
    expect(run.failed).toBe(0)
    expect((await untilAllEnded(b, (c) => c.length === 10)).length).toBe(10)
    expect((await kamailio.targets()).find((t) => t.uri === a.sipUri)?.flags).toStartWith('I')
  }, 60_000)
})

/** Waits until every call on the node has ended and `done` holds for the list. */
async function untilAllEnded(node: NodeProcess, done: (calls: any[]) => boolean): Promise<any[]> {
  let calls: any[] = []
  await untilAsync(
    async () => {
      calls = await allCalls(node)
      return done(calls) && calls.every((c) => c.status === 'ended')
    },
    20_000,
    `the calls on node ${node.name} to end`,
    200,
  )
  return calls
}
