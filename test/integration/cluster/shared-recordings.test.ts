// Two appliance node processes on one PostgreSQL database with recordings in S3-compatible
// storage (the local fake speaking the S3 REST protocol): a call recorded by one node is
// downloadable, whole and through its signed link, from the other, and deleted from either.
import { afterAll, beforeAll, describe, expect } from 'bun:test'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { freePort, sipp } from '../../helpers/sipp.ts'
import { untilAsync } from '../../helpers/until.ts'
import { startFakeS3, type FakeS3 } from '../../fakes/s3.ts'
import { connectNumber, startNodes, type Node } from './nodes-setup.ts'

const E164 = '+14155550177'
const test = testNeedingPackage('postgresql', postgresInstalled())

describe('two nodes on one PostgreSQL database and one bucket', () => {
  let s3: FakeS3
  let a: Node
  let b: Node

  beforeAll(async () => {
    if (!postgresInstalled()) return
    s3 = startFakeS3()
    const database = await (await sharedPostgres()).createDatabase('cluster')
    const env = s3.settings()
    ;[a, b] = (await startNodes(database, ['rec-a', 'rec-b'], () => env)) as [Node, Node]
    await connectNumber(a, E164, 'sip:127.0.0.1:5999') // one number in the shared database serves both nodes
  }, 60_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await s3?.stop()
  })

  /** One call straight to `node`; returns the call's id once its recording is in the bucket. */
  async function recordedCallOn(node: Node): Promise<string> {
    const before = new Set(((await node.api('GET', '/api/calls?limit=100')).body.calls as any[]).map((c) => c.id))
    const run = await sipp(['-sn', 'uac', `127.0.0.1:${node.sipPort}`, '-s', E164.slice(1), '-m', '1', '-d', '1000', '-i', '127.0.0.1', '-p', String(await freePort())]).exited
    expect(run.code, run.stderr + run.stdout.slice(-1500)).toBe(0)
    let id = ''
    await untilAsync(
      async () => {
        const fresh = ((await node.api('GET', '/api/calls?limit=100')).body.calls as any[]).find((c) => !before.has(c.id) && c.status === 'ended')
        id = fresh?.id ?? ''
        return id !== '' && s3.objects.has(`recordings/${id}.wav`)
      },
      15_000,
      `a recorded call on node ${node.nodeId} in the bucket`,
      100,
    )
    return id
  }

  test('a recording written by one node is downloaded through the other, whole, by range and by signed link, and deleted from it', async () => {
    for (const [writer, reader] of [
      [a, b],
      [b, a],
    ] as const) {
      const id = await recordedCallOn(writer)
      const stored = Buffer.from(s3.objects.get(`recordings/${id}.wav`)!)
      expect(stored.subarray(0, 4).toString()).toBe('RIFF')

      const whole = await fetch(`${reader.url}/api/calls/${id}/recording`, { headers: { authorization: `Bearer ${reader.adminKey}` } })
      expect(whole.status).toBe(200)
      expect(Buffer.from(await whole.arrayBuffer())).toEqual(stored)

      const link = (await reader.api('GET', `/api/calls/${id}/export`)).body.recordingUrl as string
      expect(link).toStartWith(`${reader.url}/recordings/${id}?`)
      const part = await fetch(link, { headers: { range: 'bytes=44-1043' } })
      expect(part.status).toBe(206)
      expect(Buffer.from(await part.arrayBuffer())).toEqual(stored.subarray(44, 1044))
      // a link signed by one node works on the other: the nodes share the secret key
      const writerLink = (await writer.api('GET', `/api/calls/${id}/export`)).body.recordingUrl as string
      expect((await fetch(writerLink.replace(writer.url, reader.url))).status).toBe(200)

      expect((await reader.api('DELETE', `/api/calls/${id}/recording`)).status).toBe(200)
      expect(s3.objects.has(`recordings/${id}.wav`)).toBe(false)
      expect((await writer.api('GET', `/api/calls/${id}/recording`)).status).toBe(404)
    }
  }, 60_000)
})
