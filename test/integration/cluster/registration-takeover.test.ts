// A trunk's REGISTER binding is kept by exactly one of two nodes; when that node is killed with
// SIGKILL, the other takes over the binding once the lease expires.
import { expect } from 'bun:test'
import { createSocket } from 'node:dgram'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { clusterNodes, nodeApi, startClusterNode } from '../../helpers/cluster-node.ts'
import { testNeedingPackage } from '../../helpers/debian.ts'
import { postgresInstalled, sharedPostgres } from '../../helpers/postgres.ts'
import { until } from '../../helpers/until.ts'

const pgTest = testNeedingPackage('postgresql', postgresInstalled())
const { nodes, secretKeyFile } = clusterNodes()

/** A registrar on UDP that grants every REGISTER 2 s and notes the SIP port (Via) each came from. */
async function registrar() {
  const from: { port: number; atMs: number }[] = []
  const socket = createSocket('udp4')
  socket.on('message', (buf, rinfo) => {
    const text = buf.toString()
    if (!text.startsWith('REGISTER ')) return
    const header = (name: string) => text.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`)) ?? ''
    const via = /SIP\/2\.0\/UDP [^:;\s]+:(\d+)/i.exec(header('Via'))
    from.push({ port: Number(via?.[1] ?? rinfo.port), atMs: Date.now() })
    const to = header('To')
    const reply = ['SIP/2.0 200 OK', header('Via'), header('From'), /;tag=/.test(to) ? to : `${to};tag=reg1`, header('Call-ID'), header('CSeq'),
      `${header('Contact')};expires=2`, 'Content-Length: 0', '', ''].join('\r\n')
    socket.send(reply, rinfo.port, rinfo.address)
  })
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()))
  return { port: socket.address().port, from, close: () => socket.close() }
}

pgTest('one of two nodes keeps the trunk registration; when it is killed the other registers within the lease time', async () => {
  const databaseUrl = await (await sharedPostgres()).createDatabase('registration_takeover')
  const env = { NODE_LEASE_MS: '3000', SIP_REGISTER_SYNC_MS: '200' }
  const reg = await registrar()
  try {
    const a = await startClusterNode({ databaseUrl, nodeId: 'node-a', secretKeyFile, env })
    nodes.push(a)
    const b = await startClusterNode({ databaseUrl, nodeId: 'node-b', secretKeyFile, env })
    nodes.push(b)
    const api = nodeApi(a, readFileSync(join(a.dataDir, 'admin-api-key'), 'utf8').trim())
    const workspaceId = (await api('GET', '/api/workspaces')).body.workspaces[0].id
    await api('POST', `/api/workspaces/${workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'test' } })
    const created = await api('POST', '/api/phone-numbers', {
      body: { e164: '+14155550177', sipTerminationUri: `sip:127.0.0.1:${reg.port}`, sipOutboundTransport: 'udp', sipRegister: true },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)

    // the first binding and three refreshes (every second): all from one node
    await until(() => reg.from.length >= 4, 15_000, 'the registration and its refreshes')
    const holderPort = reg.from[0]!.port
    expect(reg.from.map((r) => r.port)).toEqual(reg.from.map(() => holderPort))
    const [holder, other] = holderPort === a.sipPort ? [a, b] : [b, a]
    expect(holder.sipPort).toBe(holderPort)

    const killedAt = Date.now()
    await holder.kill()
    await until(() => reg.from.some((r) => r.port === other.sipPort), 15_000, 'the other node registering')
    const takeover = reg.from.find((r) => r.port === other.sipPort)!
    // after the holder's lease (3 s) ran out, not before
    expect(takeover.atMs - killedAt).toBeLessThan(3000 + 2000)
    const before = reg.from.length
    await until(() => reg.from.length >= before + 2, 10_000, 'the new holder refreshing')
    expect(reg.from.slice(before).map((r) => r.port)).toEqual(reg.from.slice(before).map(() => other.sipPort))
  } finally {
    reg.close()
  }
}, 90_000)
