// The configuration the appliance runs with is settled (PUBLIC_HOST, NODE_ID) and frozen before
// anything starts; the node's name and the outbound URL policy are worked out once.
import { describe, expect, test } from 'bun:test'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { loadConfig, outboundUrlPolicy, renamedKeyNotes } from '../../src/platform/config/index.ts'
import { nodeIdOf, settleConfig } from '../../src/app/startup/index.ts'

const quiet = { info() {}, warn() {} }
const loaded = (over: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  loadConfig(env, { DATA_DIR: join(tmpdir(), 'settled-config'), PUBLIC_HOST: '', SIP_HOST: '127.0.0.1', ...over } as never)

describe('settled configuration', () => {
  test('PUBLIC_HOST and NODE_ID are settled in a new frozen object; the loaded one is left as it was', async () => {
    const cfg = loaded({}, { ANTHROPIC_MODEL: 'claude-haiku-4-5' })
    let asked = 0
    const { config, warnings } = await settleConfig(cfg, quiet, async () => (asked++, { host: '192.0.2.7', source: 'default route' }))
    expect(asked).toBe(1)
    expect(config.PUBLIC_HOST).toBe('192.0.2.7')
    expect(config.NODE_ID).toBe(hostname())
    expect(warnings).toEqual([])
    expect(Object.isFrozen(config)).toBe(true)
    expect(() => ((config as { NODE_ID: string }).NODE_ID = 'other')).toThrow(TypeError)
    expect(config.NODE_ID).toBe(hostname())
    expect(cfg.PUBLIC_HOST).toBe('')
    expect(cfg.NODE_ID).toBe('')
    // the start-up log still names the old keys it was read with
    expect(renamedKeyNotes(config)).toEqual(['ANTHROPIC_MODEL is now LLM_ANTHROPIC_MODEL; the old name still works'])
  })

  test('nodes sharing PostgreSQL get the host name and one random suffix, drawn once; a set NODE_ID is kept', async () => {
    const pg = loaded({ DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' })
    const { config, shared } = await settleConfig(pg, quiet, async () => ({ host: '192.0.2.7', source: 'default route' }))
    expect(shared).toBe(true)
    expect(config.NODE_ID).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-[0-9a-f]{6}$`))
    expect(config.NODE_ID).toBe(config.NODE_ID)
    let draws = 0
    expect(nodeIdOf({ NODE_ID: '' }, true, 'box', () => (draws++, 'abc123'))).toBe('box-abc123')
    expect(nodeIdOf({ NODE_ID: '' }, false, 'box', () => (draws++, 'x'))).toBe('box')
    expect(nodeIdOf({ NODE_ID: 'edge-1' }, true, 'box', () => (draws++, 'x'))).toBe('edge-1')
    expect(draws).toBe(1)
  })

  test('a loopback PUBLIC_HOST while SIP listens beyond is a warning for /ready', async () => {
    const { config, warnings } = await settleConfig(loaded({ PUBLIC_HOST: '127.0.0.1', SIP_HOST: '0.0.0.0' }), quiet)
    expect(config.PUBLIC_HOST).toBe('127.0.0.1')
    expect(warnings).toEqual([expect.stringContaining('PUBLIC_HOST is 127.0.0.1, a loopback address')])
  })

  test('the outbound URL policy of the settled config is built once and shared; it cannot be changed', async () => {
    const { config } = await settleConfig(loaded({ WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8' }), quiet, async () => ({ host: '192.0.2.7', source: 'configured' }))
    const policy = outboundUrlPolicy(config)
    expect(outboundUrlPolicy(config)).toBe(policy)
    expect(Object.isFrozen(policy)).toBe(true)
    expect(policy.allowPrivate).toBe(false)
    // an unfrozen settings object may change, so its policy is read afresh
    const open = { WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_ALLOW_NETWORKS: '' }
    const before = outboundUrlPolicy(open)
    open.WEBHOOK_ALLOW_PRIVATE = true
    expect(outboundUrlPolicy(open).allowPrivate).toBe(true)
    expect(before.allowPrivate).toBe(false)
  })
})
