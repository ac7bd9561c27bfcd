// The pure parts of the start-up checks (issue 23): number ranges, the default route's address,
// what gets probed and how it is named.
import { describe, expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../../src/platform/config/index.ts'
import { defaultRouteAddress, isLoopbackHost, probeTargets, publicHostWarning } from '../../src/app/startup/index.ts'

describe('every port, range and number of the configuration', () => {
  test.each([
    [{ SIP_PORT: '99999' }, 'SIP_PORT must be a port (0-65535; 0 picks a free one), got 99999'],
    [{ HTTP_PORT: '3000.5' }, 'HTTP_PORT must be a port'],
    [{ SIP_TLS_PORT: '65536' }, 'SIP_TLS_PORT must be a port'],
    [{ RTP_PORT_MIN: '0' }, 'RTP_PORT_MIN must be a port (1-65535), got 0'],
    [{ RTP_PORT_MIN: '20001', RTP_PORT_MAX: '20001' }, 'must hold an even RTP port and the odd RTCP port after it'],
    [{ VAD_START_THRESHOLD: '1.5' }, 'VAD_START_THRESHOLD must be a probability (0-1), got 1.5'],
    [{ VAD_START_THRESHOLD: '0.3', VAD_STOP_THRESHOLD: '0.4' }, 'VAD_STOP_THRESHOLD must not exceed VAD_START_THRESHOLD'],
    [{ MEDIA_PTIME_MS: '25' }, 'MEDIA_PTIME_MS must be 10, 20, 30, 40, 50 or 60, got 25'],
    [{ CALL_MAX_DURATION_MS: '3000000000' }, 'CALL_MAX_DURATION_MS must be at most 2147483647'],
    [{ FLITE_WORKERS: '1.5' }, 'FLITE_WORKERS must be a whole number, got 1.5'],
  ])('%j is refused naming the key', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  test('the defaults and the edges pass', () => {
    expect(() => loadConfig({})).not.toThrow()
    // one RTP port pair is enough for one call worker
    expect(() => loadConfig({ HTTP_PORT: '0', SIP_PORT: '65535', RTP_PORT_MIN: '2', RTP_PORT_MAX: '3', CALL_WORKERS: '1', VAD_START_THRESHOLD: '1', VAD_STOP_THRESHOLD: '0' })).not.toThrow()
  })
})

describe('the advertised address', () => {
  const route = (rows: string[]) => {
    const file = join(mkdtempSync(join(tmpdir(), 'route-')), 'route')
    writeFileSync(file, ['Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT', ...rows].join('\n'))
    return file
  }
  const nic = (address: string) => [{ address, family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '', cidr: null }] as any

  test('the default route of lowest metric names the interface whose IPv4 address is advertised', () => {
    const file = route([
      'wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0',
      'eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
      'eth0\t000200C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0',
    ])
    expect(defaultRouteAddress(file, { eth0: nic('192.0.2.50'), wlan0: nic('192.168.1.7') })).toBe('192.0.2.50')
  })

  test('no default route, or no route table, gives nothing', () => {
    expect(defaultRouteAddress(route(['eth0\t000200C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0']), { eth0: nic('192.0.2.50') })).toBeUndefined()
    expect(defaultRouteAddress('/nonexistent/route')).toBeUndefined()
  })

  test('a loopback address is warned about only when SIP listens beyond loopback', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true)
    expect(isLoopbackHost('[::1]')).toBe(true)
    expect(isLoopbackHost('192.0.2.50')).toBe(false)
    expect(publicHostWarning('127.0.0.1', '0.0.0.0')).toContain('PUBLIC_HOST is 127.0.0.1, a loopback address, but SIP listens on 0.0.0.0')
    expect(publicHostWarning('127.0.0.1', '127.0.0.1')).toBeUndefined()
    expect(publicHostWarning('192.0.2.50', '0.0.0.0')).toBeUndefined()
  })
})

describe('provider probes', () => {
  test('the offline default probes nothing', () => {
    expect(probeTargets(loadConfig({}))).toEqual([])
  })

  test('only the configured providers are probed, named by URLs without credentials or query', () => {
    const cfg = loadConfig({
      LLM_BASE_URL: 'http://user:pw@10.0.0.5:11434/v1/?key=secret',
      DEEPGRAM_API_KEY: 'dg',
      DEEPGRAM_BASE_URL: 'wss://dg.example',
      ELEVENLABS_API_KEY: 'xi',
    })
    expect(probeTargets(cfg).map((t) => [t.kind, t.provider, t.url, t.host, t.port])).toEqual([
      ['llm', 'openai', 'http://10.0.0.5:11434/v1', '10.0.0.5', 11434],
      ['stt', 'deepgram', 'wss://dg.example', 'dg.example', 443],
      ['tts', 'elevenlabs', 'https://api.elevenlabs.io', 'api.elevenlabs.io', 443],
    ])
  })
})
