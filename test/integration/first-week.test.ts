// An operator's first week (issue 23), against the built executable as an operator runs it:
// copied alone, started from another folder, configured by environment variables only.
// Each describe block is one finding; other findings append their own blocks at the end.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { buildExecutable, execExecutable, ExecutableStartError, type RunningExecutable, runExecutable } from '../helpers/executable.ts'

const TIMEOUT = 240_000

beforeAll(() => {
  buildExecutable()
}, TIMEOUT)

async function failedStart(env: Record<string, string>): Promise<ExecutableStartError> {
  const outcome = await runExecutable(env).then(
    async (running) => {
      await running.stop()
      return new Error(`it started: ${JSON.stringify(running.logs.map((l) => l.msg))}`)
    },
    (err) => err,
  )
  if (!(outcome instanceof ExecutableStartError)) throw outcome
  return outcome
}

describe('start-up: a port in use stops the start, naming its key', () => {
  let first: RunningExecutable | undefined
  afterAll(async () => {
    await first?.stop()
  })

  test('a second appliance on the HTTP port of a running one exits 2 naming HTTP_PORT, and the first keeps the port alone', async () => {
    first = await runExecutable()
    const port = new URL(first.url).port
    const second = await failedStart({ HTTP_PORT: port })
    expect(second.exitCode).toBe(2)
    expect(second.stderr).toContain(`HTTP_PORT ${port}`)
    expect(second.stderr).toContain('in use')
    expect(second.stderr).not.toContain(' at ')
    expect(second.logs.some((l) => l.msg === 'HTTP listening')).toBe(false)
    // every request reaches the first appliance: none is answered by another key store
    for (let i = 0; i < 10; i++) expect((await first.api('GET', '/api/agents')).status).toBe(200)
  }, TIMEOUT)

  test('a SIP port held by another program exits 2 naming SIP_PORT before HTTP listens, without a stack trace', async () => {
    const holder = await Bun.udpSocket({ hostname: '127.0.0.1', port: 0 })
    try {
      const failed = await failedStart({ SIP_PORT: String(holder.port) })
      expect(failed.exitCode).toBe(2)
      expect(failed.stderr).toContain(`SIP_PORT ${holder.port}`)
      expect(failed.stderr).not.toContain('startBunSocket')
      expect(failed.stderr).not.toContain('EADDRINUSE')
      expect(failed.logs.some((l) => l.msg === 'HTTP listening')).toBe(false)
    } finally {
      holder.close()
    }
  }, TIMEOUT)
})

describe('start-up: every port and number of the configuration is checked', () => {
  test('SIP_PORT=99999 fails check-config and serve with exit code 2 naming SIP_PORT', async () => {
    const checked = execExecutable(['check-config'], { SIP_PORT: '99999' })
    expect(checked.exitCode).toBe(2)
    expect(checked.stderr).toContain('SIP_PORT must be a port (0-65535; 0 picks a free one), got 99999')
    const served = await failedStart({ SIP_PORT: '99999' })
    expect(served.exitCode).toBe(2)
    expect(served.stderr).toContain('configuration error: SIP_PORT must be a port')
    expect(served.stderr).not.toContain('TypeError')
  }, TIMEOUT)

  test('an RTP range above 65535 and a fractional timer fail check-config with exit code 2 naming the key', () => {
    const rtp = execExecutable(['check-config'], { RTP_PORT_MAX: '70000' })
    expect(rtp.exitCode).toBe(2)
    expect(rtp.stderr).toContain('RTP_PORT_MAX must be a port (1-65535), got 70000')
    const timer = execExecutable(['check-config'], { SIP_T1_MS: '2.5' })
    expect(timer.exitCode).toBe(2)
    expect(timer.stderr).toContain('SIP_T1_MS must be a whole number, got 2.5')
  }, TIMEOUT)
})

describe('start-up: PUBLIC_HOST unset advertises the default route\'s address, and a loopback one is warned about', () => {
  test('unset, the address of the default route is logged at start with the NAT advice and used in check-config', async () => {
    const { defaultRouteAddress } = await import('../../src/app/startup/index.ts')
    // this machine's own answer, read the same way an operator would (ip route): the interface of the default route
    const expected = defaultRouteAddress('/proc/net/route') ?? '127.0.0.1'
    const exe = await runExecutable({ PUBLIC_HOST: '' })
    try {
      const line = exe.logs.find((l) => typeof l.publicHost === 'string')
      expect(line).toMatchObject({ publicHost: expected, source: expected === '127.0.0.1' ? 'none found' : 'default route' })
      expect(line.advice).toContain('behind NAT, set PUBLIC_HOST')
    } finally {
      await exe.stop()
    }
    const checked = execExecutable(['check-config'], { PUBLIC_HOST: '' })
    expect(checked.exitCode).toBe(0)
    expect(checked.stdout).toContain(`# SIP peers are told to reach this appliance at ${expected}`)
    expect(checked.stdout).toContain('PUBLIC_HOST=""')
  }, TIMEOUT)

  test('a loopback PUBLIC_HOST while SIP listens on every interface: check-config warns (exit 0), the start logs it at warn and /ready carries it', async () => {
    const checked = execExecutable(['check-config'], { PUBLIC_HOST: '127.0.0.1', SIP_HOST: '0.0.0.0' })
    expect(checked.exitCode).toBe(0)
    expect(checked.stdout).toContain('# warning: PUBLIC_HOST is 127.0.0.1, a loopback address, but SIP listens on 0.0.0.0')
    const quiet = execExecutable(['check-config'], { PUBLIC_HOST: '127.0.0.1', SIP_HOST: '127.0.0.1' })
    expect(quiet.stdout).not.toContain('# warning:')
    const exe = await runExecutable({ PUBLIC_HOST: '127.0.0.1', SIP_HOST: '0.0.0.0' })
    try {
      expect(exe.logs.find((l) => l.publicHost === '127.0.0.1')).toMatchObject({ level: 40, sipHost: '0.0.0.0' })
      const ready: any = await fetch(`${exe.url}/ready`).then((r) => r.json())
      expect(ready.warnings).toEqual([expect.stringContaining('PUBLIC_HOST is 127.0.0.1, a loopback address')])
    } finally {
      await exe.stop()
    }
  }, TIMEOUT)
})

describe('start-up: a configured provider that cannot be reached', () => {
  test('an unreachable LLM_BASE_URL makes /ready degraded naming it without credentials, and the number of an LLM agent needs attention', async () => {
    const { setupCallTarget } = await import('../helpers/calls.ts')
    const { untilAsync } = await import('../helpers/until.ts')
    const closed = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = closed.port
    closed.stop(true)
    const exe = await runExecutable({ LLM_BASE_URL: `http://probe:hunter2@127.0.0.1:${port}/v1`, LLM_API_KEY: 'sk-never-shown' })
    try {
      let ready: any
      await untilAsync(async () => (ready = (await fetch(`${exe.url}/ready`).then((r) => r.json())) as any).status === 'degraded', 60_000, '/ready to say degraded', 200)
      expect(ready.problems).toContain(`llm provider openai at http://127.0.0.1:${port}/v1 cannot be reached (connection refused)`)
      expect(JSON.stringify(ready)).not.toContain('hunter2')
      expect(JSON.stringify(ready)).not.toContain('sk-never-shown')
      expect(exe.logs.find((l) => l.msg === 'provider cannot be reached')).toMatchObject({ level: 40, kind: 'llm', url: `http://127.0.0.1:${port}/v1` })
      const workspaceId = (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
      const target = await setupCallTarget({ api: exe.api, workspaceId } as any)
      const agent = (await exe.api('GET', `/api/agents/${target.agentId}`)).body.agent
      expect(agent.readiness).toMatchObject({ canConverse: false, brain: 'llm' })
      const number = (await exe.api('GET', `/api/phone-numbers/${target.numberId}`)).body.phoneNumber
      expect(number).toMatchObject({ status: 'active', needsAttention: true })
      expect(number.statusDetail).toContain(`http://127.0.0.1:${port}/v1 cannot be reached`)
    } finally {
      await exe.stop()
    }
  }, TIMEOUT)
})

describe('zombies: every helper process the appliance started is reaped', () => {
  // the helpers' own imports stay in this block: other findings edit the file's head
  test('after load-and-release cycles of the Silero host (calls on call workers, workers stopping when idle) no child is left <defunct>', async () => {
    const { childrenOf, zombiesOf } = await import('../helpers/children.ts')
    const { sippKeyCall } = await import('../helpers/sipp-call.ts')
    const { setupCallTarget } = await import('../helpers/calls.ts')
    const { untilAsync } = await import('../helpers/until.ts')
    const exe = await runExecutable({ VAD_ENGINE: 'silero', ENGINE_IDLE_RELEASE_MS: '1000', CALL_WORKER_IDLE_MS: '1000', CALL_WORKERS: '2' })
    try {
      const workspaceId = (await exe.api('GET', '/api/workspaces')).body.workspaces[0].id
      const target = await setupCallTarget({ api: exe.api, workspaceId } as any, { agent: { welcome: { mode: 'agent_speaks_first', message: 'Hello.' } } })
      const settled = (what: string) =>
        untilAsync(async () => childrenOf(exe.pid).length === 0, 60_000, `${what}: every child gone, left ${JSON.stringify(childrenOf(exe.pid))}`, 100)
      await settled('after start')
      for (let cycle = 1; cycle <= 3; cycle++) {
        // each call starts its worker's Silero host; a second after it ends the host is released and the worker stops, both at once (the defaults are equal too)
        const run = await sippKeyCall(exe.sipUdp, target.e164, 1000)
        expect(run.code, run.stderr).toBe(0)
        await settled(`after call ${cycle}`)
        expect(zombiesOf(exe.pid)).toEqual([])
      }
    } finally {
      await exe.stop()
    }
  }, TIMEOUT)
})

describe('a refused call leaves a line and a count', () => {
  // the helpers' own imports stay in this block: other findings edit the file's head
  test('an INVITE in national format to the executable is refused, logged at info with source, number as dialled and reason, counted in /metrics, and the appliance stops cleanly', async () => {
    const { SipPeer } = await import('../helpers/sip-peer.ts')
    const { until } = await import('../helpers/until.ts')
    const exe = await runExecutable()
    const peer = await SipPeer.udp(exe.sipUdp)
    try {
      const dialled = '4155550123' // national format: no number of the appliance
      const callId = `first-week-refused-${Date.now()}`
      peer.send(
        [
          `INVITE sip:${dialled}@127.0.0.1:${exe.sipUdp} SIP/2.0`,
          `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKfirstweek1;rport`,
          'Max-Forwards: 70',
          `From: <sip:pbx@127.0.0.1>;tag=fw1`,
          `To: <sip:${dialled}@127.0.0.1>`,
          `Call-ID: ${callId}`,
          'CSeq: 1 INVITE',
          `Contact: <sip:pbx@127.0.0.1:${peer.port}>`,
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n'),
      )
      const res = await peer.waitFor((m) => m.kind === 'response' && m.status >= 400, 60_000)
      expect(res.kind === 'response' && res.status).toBe(401)
      await until(() => exe.logs.some((l) => l.event === 'sip_refused'), 60_000, 'the refusal line')
      expect(exe.logs.find((l) => l.event === 'sip_refused')).toMatchObject({
        level: 30, component: 'sip', reason: 'unknown_number', msg: 'sip request refused: unknown number',
        source: `127.0.0.1:${peer.port}`, requestUser: dialled, toUser: dialled, method: 'INVITE',
      })
      const metrics = await (await fetch(`${exe.url}/metrics`)).text()
      expect(metrics).toMatch(/^voice_agent_sip_refused_total\{reason="unknown_number"\} 1$/m)
    } finally {
      peer.close()
      expect(await exe.stop()).toBe(0)
    }
  }, TIMEOUT)
})
