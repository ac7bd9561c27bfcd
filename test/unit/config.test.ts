import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { CONFIG_KEYS, ConfigError, loadConfig } from '../../src/platform/config/index.ts'
import { tempDir } from '../helpers/tmp.ts'

describe('config', () => {
  test('defaults need nothing: HTTP 3000, SIP 5060/5061, DATA_DIR ./data', () => {
    const c = loadConfig({})
    expect(c.HTTP_PORT).toBe(3000)
    expect(c.SIP_PORT).toBe(5060)
    expect(c.SIP_TLS_PORT).toBe(5061)
    expect(c.DATA_DIR).toBe(resolve('./data'))
    expect(c.LOG_LEVEL).toBe('info')
    expect(c.RTP_PORT_MIN).toBeLessThan(c.RTP_PORT_MAX)
  })

  test('environment variables override the file, which overrides defaults', () => {
    const dir = tempDir('cfg-')
    const file = join(dir, 'appliance.config.json')
    writeFileSync(file, JSON.stringify({ HTTP_PORT: 4000, SIP_PORT: 5070, BILLING_ALLOW_MANUAL: false }))
    const c = loadConfig({ CONFIG_FILE: file, SIP_PORT: '5080' })
    expect(c.HTTP_PORT).toBe(4000)
    expect(c.SIP_PORT).toBe(5080)
    expect(c.BILLING_ALLOW_MANUAL).toBe(false)
  })

  test('the RTP pacer is on at real-time priority by default, and a bad mode or lead is refused with the key named', () => {
    expect([loadConfig({}).MEDIA_PACER, loadConfig({}).MEDIA_PACER_LEAD_MS]).toEqual(['realtime', 6])
    expect(loadConfig({ MEDIA_PACER: 'off' }).MEDIA_PACER).toBe('off')
    expect(() => loadConfig({ MEDIA_PACER: 'fast' })).toThrow(/MEDIA_PACER must be realtime, thread or off/)
    expect(() => loadConfig({ MEDIA_PACER_LEAD_MS: '0' })).toThrow(/MEDIA_PACER_LEAD_MS must be 1-40/)
    expect(() => loadConfig({ MEDIA_PACER_LEAD_MS: '41' })).toThrow(/MEDIA_PACER_LEAD_MS/)
  })

  test('bad values and unknown file keys are refused with the key named', () => {
    expect(() => loadConfig({ HTTP_PORT: 'eighty' })).toThrow(/HTTP_PORT/)
    expect(() => loadConfig({ WEBHOOK_ALLOW_HTTP: 'maybe' })).toThrow(/WEBHOOK_ALLOW_HTTP/)
    expect(() => loadConfig({ RTP_PORT_MIN: '30000', RTP_PORT_MAX: '20000' })).toThrow(ConfigError)
    const dir = tempDir('cfg-')
    const file = join(dir, 'c.json')
    writeFileSync(file, JSON.stringify({ HTTP_PROT: 1 }))
    expect(() => loadConfig({ CONFIG_FILE: file })).toThrow(/HTTP_PROT/)
    writeFileSync(file, '{not json')
    expect(() => loadConfig({ CONFIG_FILE: file })).toThrow(ConfigError)
  })

  test('every key is documented in the configuration table of docs/configuration.md', async () => {
    const readme = await Bun.file(join(import.meta.dir, '..', '..', 'docs', 'configuration.md')).text()
    for (const key of Object.keys(CONFIG_KEYS)) expect(readme).toContain(`| \`${key}\``)
  })
})
