// Sets up what a call needs through the public API: a payment method, an agent and a number.
import type { TestAppliance } from './appliance.ts'

export interface CallSetup {
  agentId: string
  numberId: string
  e164: string
}

export interface CallSetupOptions {
  e164?: string
  /** The number's trunk; calls from its host are accepted. */
  trunkUri?: string
  transport?: 'udp' | 'tcp' | 'tls'
  agent?: Record<string, unknown>
  /** Digest credentials: then any source may call after a challenge. */
  sipUsername?: string
  sipPassword?: string
  direction?: 'inbound' | 'outbound'
}

export async function setupCallTarget(t: TestAppliance, o: CallSetupOptions = {}): Promise<CallSetup> {
  const methods = await t.api('GET', `/api/workspaces/${t.workspaceId}/payment-methods`)
  if (!methods.body.paymentMethods?.length) {
    const pm = await t.api('POST', `/api/workspaces/${t.workspaceId}/payment-methods`, { body: { provider: 'manual', reference: 'test account' } })
    if (pm.status !== 200) throw new Error(`payment method: ${JSON.stringify(pm.body)}`)
  }
  const direction = o.direction ?? 'inbound'
  const agentType = direction === 'outbound' ? 'outbound' : 'inbound'
  const agent = await t.api('POST', '/api/agents', { body: { name: 'Reception', agentType, ...o.agent } })
  if (agent.status !== 200) throw new Error(`agent: ${JSON.stringify(agent.body)}`)
  const agentId = agent.body.agent.id as string
  const e164 = o.e164 ?? `+1415${Math.floor(2_000_000 + Math.random() * 7_999_999)}`
  const number = await t.api('POST', '/api/phone-numbers', {
    body: {
      e164,
      provider: 'sip',
      sipTerminationUri: o.trunkUri ?? 'sip:127.0.0.1:5999',
      sipOutboundTransport: o.transport ?? 'udp',
      ...(o.sipUsername ? { sipUsername: o.sipUsername, sipPassword: o.sipPassword } : {}),
    },
  })
  if (number.status !== 200) throw new Error(`number: ${JSON.stringify(number.body)}`)
  const numberId = number.body.phoneNumber.id as string
  const patch = await t.api('PATCH', `/api/phone-numbers/${numberId}`, {
    body: {
      ...(direction !== 'outbound' ? { inboundAgentId: agentId } : {}),
      ...(direction !== 'inbound' ? { outboundAgentId: agentId } : {}),
    },
  })
  if (patch.status !== 200) throw new Error(`assign agent: ${JSON.stringify(patch.body)}`)
  return { agentId, numberId, e164 }
}

/** Polls the calls API until a call matches `done`; returns it. */
export async function waitForCall(t: TestAppliance, done: (call: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const r = await t.api('GET', '/api/calls?limit=100')
    const hit = (r.body.calls as any[]).find(done)
    if (hit) return hit
    if (Date.now() > end) throw new Error(`no call matched within ${timeoutMs} ms; calls: ${JSON.stringify(r.body.calls).slice(0, 2000)}`)
    await Bun.sleep(25)
  }
}

/** Polls the calls API until the list satisfies `done`; returns the list. */
export async function waitForCalls(t: TestAppliance, done: (calls: any[]) => boolean, timeoutMs = 20_000): Promise<any[]> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const calls = (await t.api('GET', '/api/calls?limit=100')).body.calls as any[]
    if (done(calls)) return calls
    if (Date.now() > end) throw new Error(`calls did not reach the expected state within ${timeoutMs} ms`)
    await Bun.sleep(25)
  }
}
