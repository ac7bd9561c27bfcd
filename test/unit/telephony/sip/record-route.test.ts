// Behind a record-routing proxy (Kamailio in front of several nodes), the responses that create
// a dialog must carry the INVITE's Record-Route, in order, or the caller's ACK and BYE bypass it.
import { expect, test } from 'bun:test'
import { headerValues, parseMessage, responseTo, type SipRequest } from '../../../../src/realtime/telephony/sip/index.ts'

const invite = (method = 'INVITE') =>
  parseMessage(
    new TextEncoder().encode(
      [
        `${method} sip:+15551230000@10.0.0.5:5060 SIP/2.0`,
        'Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-proxy;rport',
        'Via: SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bK-trunk',
        'Record-Route: <sip:10.0.0.1;r2=on;lr;ftag=abc>',
        'Record-Route: <sip:192.0.2.1;r2=on;lr;ftag=abc>',
        'Max-Forwards: 69',
        'To: <sip:+15551230000@10.0.0.1>',
        'From: <sip:+14155550100@192.0.2.7>;tag=abc',
        'Call-ID: rr-1@192.0.2.7',
        `CSeq: 1 ${method}`,
        'Contact: <sip:trunk@192.0.2.7:5060>',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
    ),
  ).message as SipRequest

test.each([180, 183, 200])('a %d to an INVITE copies its Record-Route values in order', (status) => {
  const res = responseTo(invite(), status, { toTag: 'uas1' })
  expect(headerValues(res, 'record-route')).toEqual(['<sip:10.0.0.1;r2=on;lr;ftag=abc>', '<sip:192.0.2.1;r2=on;lr;ftag=abc>'])
})

test.each([
  ['INVITE', 100],
  ['INVITE', 486],
  ['INVITE', 503],
  ['OPTIONS', 200],
  ['BYE', 200],
])('a response that creates no dialog (%s %d) carries no Record-Route', (method, status) => {
  expect(headerValues(responseTo(invite(method as string), status as number, { toTag: 'uas1' }), 'record-route')).toEqual([])
})
