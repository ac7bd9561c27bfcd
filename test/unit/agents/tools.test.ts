import { describe, expect, test } from 'bun:test'
import { checkTools, fillTemplate, templateVariables, TOOL_NAMES } from '../../../src/features/agents/index.ts'

describe('tool registry', () => {
  test('has the built-in tools', () => {
    expect(TOOL_NAMES).toEqual(['end_call', 'transfer_call', 'send_dtmf', 'http_request', 'opt_out'])
  })

  test('fills defaults for enabled tools that need no config', () => {
    const r = checkTools(['end_call', 'send_dtmf'], {})
    expect(r.issues).toEqual([])
    expect(r.configs).toEqual({ end_call: {}, send_dtmf: { allowedDigits: '0123456789*#' } })
  })

  test('names the field path of every bad config', () => {
    const r = checkTools(['transfer_call', 'http_request', 'fax'], {
      transfer_call: { destinations: [{ number: '+14155550123' }, { number: '12345' }], mode: 'sideways' },
      http_request: { url: 'https://93.184.216.34/x', timeoutMs: 5, extra: true },
      nope: {},
    })
    const paths = r.issues.map((i) => i.path).sort()
    expect(paths).toEqual([
      'enabledTools[2]',
      'toolConfigs.http_request.description',
      'toolConfigs.http_request.extra',
      'toolConfigs.http_request.timeoutMs',
      'toolConfigs.nope',
      'toolConfigs.transfer_call.mode',
    ])
  })

  test('checks transfer destinations are E.164 numbers or SIP URIs', () => {
    const r = checkTools(['transfer_call'], { transfer_call: { destinations: [{ number: 'sip:desk@pbx.example.com' }, { number: '+1234' }] } })
    expect(r.issues).toEqual([{ path: 'toolConfigs.transfer_call.destinations[1].number', message: expect.stringContaining('E.164') }])
  })

  test('a tool that needs a config cannot be enabled without one', () => {
    expect(checkTools(['http_request'], {}).issues).toEqual([{ path: 'toolConfigs.http_request', message: 'is required when http_request is enabled' }])
  })

  test('a tool listed twice is refused', () => {
    expect(checkTools(['end_call', 'end_call'], {}).issues.map((i) => i.path)).toEqual(['enabledTools[1]'])
  })
})

describe('template variables', () => {
  test('lists distinct names across texts, sorted', () => {
    expect(templateVariables('Hi {{ first_name }}, about {{order.id}}', 'Bye {{first_name}} {{ not valid-}', '{{}}')).toEqual(['first_name', 'order.id'])
  })

  test('fills known names; an unknown one becomes empty, as on a call (the caller must never hear a raw placeholder)', () => {
    expect(fillTemplate('Hi {{name}}, {{missing}}', { name: 'Ada' })).toBe('Hi Ada, ')
  })
})
