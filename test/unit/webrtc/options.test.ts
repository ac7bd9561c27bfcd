import { expect, test } from 'bun:test'
import { admitsRemote, parseHostAddresses, parseIceServers } from '../../../src/realtime/webrtc/options.ts'
import { ConfigError, loadConfig } from '../../../src/platform/config/index.ts'
import { webrtcSettingsProblem } from '../../../src/platform/config/webrtc.ts'

test('loopback host candidates admit only loopback peers; LAN or TURN setups admit any address', () => {
  const loopback = { hostAddresses: ['127.0.0.1'], iceServers: [] }
  expect(admitsRemote(loopback, '127.0.0.1')).toBe(true)
  expect(admitsRemote(loopback, '192.168.1.20')).toBe(false)
  expect(admitsRemote({ hostAddresses: [], iceServers: [] }, '192.168.1.20')).toBe(true)
  expect(admitsRemote({ hostAddresses: ['127.0.0.1'], iceServers: [{ urls: 'turn:t.example:3478' }] }, '203.0.113.9')).toBe(true)
  expect(admitsRemote(loopback, 'not-an-ip')).toBe(false)
})

test('WEBRTC_ICE_SERVERS and WEBRTC_HOST_ADDRESSES refuse what they cannot use, naming the key', () => {
  expect(parseIceServers('')).toEqual([])
  expect(parseIceServers('[{"urls":["stun:s.example:3478"]},{"urls":"turn:t.example","username":"u","credential":"p"}]')).toEqual([
    { urls: ['stun:s.example:3478'] },
    { urls: 'turn:t.example', username: 'u', credential: 'p' },
  ])
  expect(() => parseIceServers('{')).toThrow(/WEBRTC_ICE_SERVERS/)
  expect(() => parseIceServers('[{"urls":"http://x"}]')).toThrow(/stun:/)
  expect(() => parseIceServers('[{"urls":"turn:x","credential":5}]')).toThrow(/strings/)
  expect(parseHostAddresses(' 127.0.0.1, 10.0.0.5 ')).toEqual(['127.0.0.1', '10.0.0.5'])
  expect(() => parseHostAddresses('lan.example')).toThrow(/WEBRTC_HOST_ADDRESSES/)
})

test('the appliance refuses to start with unusable web-call keys, naming them', () => {
  const base = { WEBRTC_HOST_ADDRESSES: '', WEBRTC_ICE_SERVERS: '', WEBRTC_PORT_MIN: 0, WEBRTC_PORT_MAX: 0, WEBRTC_ALLOW_NETWORKS: '', WEBRTC_MAX_REMOTE_CANDIDATES: 20 }
  expect(webrtcSettingsProblem(base)).toBeUndefined()
  expect(webrtcSettingsProblem({ ...base, WEBRTC_PORT_MIN: 40000, WEBRTC_PORT_MAX: 40100 })).toBeUndefined()
  expect(webrtcSettingsProblem({ ...base, WEBRTC_PORT_MIN: 40100, WEBRTC_PORT_MAX: 40000 })).toMatch(/WEBRTC_PORT_MIN-WEBRTC_PORT_MAX/)
  expect(webrtcSettingsProblem({ ...base, WEBRTC_ICE_SERVERS: '[1]' })).toMatch(/WEBRTC_ICE_SERVERS\[0\]/)
  expect(webrtcSettingsProblem({ ...base, WEBRTC_ALLOW_NETWORKS: '192.0.2.0/33' })).toMatch(/^WEBRTC_ALLOW_NETWORKS: not a network/)
  expect(webrtcSettingsProblem({ ...base, WEBRTC_MAX_REMOTE_CANDIDATES: 0 })).toMatch(/WEBRTC_MAX_REMOTE_CANDIDATES/)
  expect(() => loadConfig({}, { WEBRTC_HOST_ADDRESSES: 'nope' })).toThrow(ConfigError)
  expect(() => loadConfig({}, { WEBRTC_ALLOW_NETWORKS: 'lan' })).toThrow(/WEBRTC_ALLOW_NETWORKS/)
})
