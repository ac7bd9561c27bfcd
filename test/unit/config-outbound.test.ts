// WEBHOOK_ALLOW_* become one URL policy in one place (platform/config/outbound.ts): the check at
// load, the check when an agent is saved and the webhook sender read the same parsed list.
import { expect, test } from 'bun:test'
import { ConfigError, loadConfig, outboundUrlPolicy } from '../../src/platform/config/index.ts'
import { checkOutboundUrl, type Resolver } from '../../src/platform/net/index.ts'

const resolver: Resolver = async (host) => ({ 'lab.example': ['10.20.3.4'], 'office.example': ['192.168.1.9'] })[host] ?? []

test('the policy the config builds lets a webhook reach a listed network and nothing else private', async () => {
  const policy = outboundUrlPolicy(loadConfig({ WEBHOOK_ALLOW_NETWORKS: '10.20.0.0/16, 192.0.2.7' }))
  expect(await checkOutboundUrl('https://lab.example/hook', policy, resolver)).toMatchObject({ ok: true })
  expect(await checkOutboundUrl('https://office.example/hook', policy, resolver)).toMatchObject({ ok: false, resolved: true })
  expect(policy).toMatchObject({ allowHttp: false, allowPrivate: false })
})

test('WEBHOOK_ALLOW_NETWORKS is parsed once: every policy built from the same value shares one list', () => {
  const config = loadConfig({ WEBHOOK_ALLOW_NETWORKS: '10.21.0.0/16' })
  const forAgents = outboundUrlPolicy(config)
  const forSender = outboundUrlPolicy({ ...config })
  expect(forSender.allowNetworks).toBe(forAgents.allowNetworks!)
  expect(forAgents.allowNetworks!.has('10.21.9.9')).toBe(true)
})

test('a bad WEBHOOK_ALLOW_NETWORKS entry stops the load, naming the key and the entry', () => {
  expect(() => loadConfig({ WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/33' })).toThrow(ConfigError)
  expect(() => loadConfig({ WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/33' })).toThrow(/WEBHOOK_ALLOW_NETWORKS.*10\.0\.0\.0\/33/)
})
