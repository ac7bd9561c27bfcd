import { describe, expect, test } from 'bun:test'
import {
  escapeUser, formatNameAddr, formatSipUri, formatVia, parseCSeq, parseNameAddr, parseSipUri, parseVia,
} from '../../../../src/realtime/telephony/sip/index.ts'

describe('name-addr and addr-spec', () => {
  test.each([
    ['"Bob \\"B\\"" <sip:bob@b.example>;tag=9', { displayName: 'Bob "B"', uri: 'sip:bob@b.example', tag: '9' }],
    ['Bob Smith <sip:bob@b.example>', { displayName: 'Bob Smith', uri: 'sip:bob@b.example', tag: undefined }],
    ['sip:bob@b.example;tag=x', { displayName: undefined, uri: 'sip:bob@b.example', tag: 'x' }],
    ['<sip:a@b;lr>;tag=1', { displayName: undefined, uri: 'sip:a@b;lr', tag: '1' }],
  ])('parses %s', (raw, want) => {
    const na = parseNameAddr(raw)!
    expect({ displayName: na.displayName, uri: na.uri, tag: na.params.get('tag') ?? undefined }).toEqual(want)
  })

  test.each([
    ['an unbalanced quote', '"Mr. J. User <sip:j.user@example.com>'],
    ['spaces inside the brackets', '< sip:t.watson@example.org >'],
    ['an unquoted comma in the display name', 'Watson, Thomas <sip:t.watson@example.org>'],
    ['a bare URI with headers', 'sip:user@example.com?Route=%3Csip:sip.example.com%3E'],
    ['empty parameters', '"Joe" <sip:joe@example.org>;;;;'],
  ])('refuses %s', (_, raw) => {
    expect(parseNameAddr(raw)).toBeUndefined()
  })

  test('a display name with quotes and backslashes is escaped on the way out and comes back equal', () => {
    const na = { displayName: 'A "quoted" \\ name', uri: 'sip:a@b', params: new Map([['tag', 'x']]), bracketed: true }
    const out = formatNameAddr(na)
    expect(out).toBe('"A \\"quoted\\" \\\\ name" <sip:a@b>;tag=x')
    expect(parseNameAddr(out)).toEqual(na)
  })
})

describe('SIP URIs', () => {
  test('escaped user parts are unescaped and escaped again when written', () => {
    const u = parseSipUri('sip:sips%3Auser%40example.com@example.net:5070;transport=tcp')!
    expect(u).toMatchObject({ scheme: 'sip', user: 'sips:user@example.com', host: 'example.net', port: 5070 })
    expect(u.params.get('transport')).toBe('tcp')
    expect(formatSipUri(u)).toBe('sip:sips%3Auser%40example.com@example.net:5070;transport=tcp')
    expect(escapeUser('I have spaces')).toBe('I%20have%20spaces')
  })

  test('a user part may hold semicolons (RFC 4475 semiuri)', () => {
    expect(parseSipUri('sip:user;par=u%40example.net@example.com')).toMatchObject({ user: 'user;par=u@example.net', host: 'example.com' })
  })

  test.each(['<sip:a@b>', 'sip:a@b; lr', 'sip:a@b:99999', 'sip:', 'sip:a@b;;'])('refuses %s', (raw) => {
    expect(parseSipUri(raw)).toBeUndefined()
  })
})

describe('Via', () => {
  test('reads protocol, transport, sent-by and parameters with LWS around slashes', () => {
    const v = parseVia('SIP  /   2.0 /UDP    192.0.2.2:5062 ; branch = z9hG4bK30239;rport;received=10.0.0.1')!
    expect(v).toMatchObject({ protocol: 'SIP/2.0', transport: 'UDP', host: '192.0.2.2', port: 5062 })
    expect([...v.params]).toEqual([['branch', 'z9hG4bK30239'], ['rport', null], ['received', '10.0.0.1']])
    expect(formatVia(v)).toBe('SIP/2.0/UDP 192.0.2.2:5062;branch=z9hG4bK30239;rport;received=10.0.0.1')
  })

  test.each(['SIP/2.0/UDP 192.0.2.15;;,;,,', 'SIP/2.0 host', 'SIP/2.0/UDP', 'SIP/2.0/UDP host;branch=a b'])('refuses %s', (raw) => {
    expect(parseVia(raw)).toBeUndefined()
  })
})

describe('CSeq', () => {
  test.each([
    ['0009 INVITE', { seq: 9, method: 'INVITE' }],
    ['2147483647 BYE', { seq: 2147483647, method: 'BYE' }],
    ['36893488147419103232 REGISTER', undefined],
    ['2147483648 BYE', undefined],
    ['1', undefined],
  ])('%s', (raw, want) => {
    expect(parseCSeq(raw)).toEqual(want)
  })
})
