// Dialog state (RFC 3261 section 12) and the messages built from it. Pure: no sockets here.
import { randomBytes } from 'node:crypto'
import { parseNameAddr } from './grammar.ts'
import { canonicalName, header, headerValues, reasonFor, request, response, type Header, type SipRequest, type SipResponse } from './message.ts'
import type { Remote } from './transport.ts'

export interface Dialog {
  callId: string
  localTag: string
  remoteTag: string
  /** From/To values as they appear in requests we send inside the dialog. */
  localUri: string
  remoteUri: string
  remoteTarget: string
  routeSet: string[]
  localSeq: number
  remoteSeq: number
  /** The flow in-dialog requests are sent over (the peer's source address). */
  flow: Remote
}

export const dialogKey = (callId: string, localTag: string, remoteTag: string) => `${callId}|${localTag}|${remoteTag}`

export const newTag = () => randomBytes(6).toString('hex')
export const newBranch = () => 'z9hG4bK' + randomBytes(9).toString('base64url')
export const newCallId = () => randomBytes(12).toString('hex')

const tagOf = (nameAddr: string | undefined) => (nameAddr ? parseNameAddr(nameAddr)?.params.get('tag') ?? undefined : undefined)
export const fromTag = (m: SipRequest | SipResponse) => tagOf(header(m, 'from'))
export const toTag = (m: SipRequest | SipResponse) => tagOf(header(m, 'to'))

const contactUri = (m: SipRequest | SipResponse) => {
  const c = header(m, 'contact')
  return c ? parseNameAddr(c)?.uri : undefined
}

/** The UAS side of a dialog created by our 2xx to `invite` (12.1.1). */
export function uasDialog(invite: SipRequest, localTag: string, flow: Remote, cseq: number): Dialog {
  const to = header(invite, 'to')!
  return {
    callId: header(invite, 'call-id')!.trim(),
    localTag,
    remoteTag: fromTag(invite) ?? '',
    localUri: to.includes(';tag=') ? to : `${to};tag=${localTag}`,
    remoteUri: header(invite, 'from')!,
    remoteTarget: contactUri(invite) ?? invite.uri,
    routeSet: headerValues(invite, 'record-route'),
    localSeq: 0,
    remoteSeq: cseq,
    flow,
  }
}

/** The UAC side of a dialog created by a 2xx to our INVITE (12.1.2). */
export function uacDialog(invite: SipRequest, res: SipResponse, flow: Remote, cseq: number): Dialog {
  return {
    callId: header(invite, 'call-id')!,
    localTag: fromTag(invite)!,
    remoteTag: toTag(res) ?? '',
    localUri: header(invite, 'from')!,
    remoteUri: header(res, 'to')!,
    remoteTarget: contactUri(res) ?? invite.uri,
    routeSet: headerValues(res, 'record-route').reverse(),
    localSeq: cseq,
    remoteSeq: 0,
    flow,
  }
}

/** A request inside the dialog (12.2.1.1); ACK reuses the INVITE's CSeq number. */
export function inDialogRequest(d: Dialog, method: string, via: string, extra: Header[] = [], body = '', ackSeq?: number): SipRequest {
  const seq = method === 'ACK' ? ackSeq ?? d.localSeq : ++d.localSeq
  const headers: Header[] = [
    { name: 'Via', value: via },
    { name: 'Max-Forwards', value: '70' },
    ...d.routeSet.map((r) => ({ name: 'Route', value: r })),
    { name: 'From', value: d.localUri },
    { name: 'To', value: d.remoteUri },
    { name: 'Call-ID', value: d.callId },
    { name: 'CSeq', value: `${seq} ${method}` },
    ...extra,
  ]
  return request(method, d.remoteTarget, headers, body)
}

const COPIED = new Set(['via', 'from', 'call-id', 'cseq'])

/**
 * A response to `req` (8.2.6): Via, From, Call-ID, CSeq copied, a To tag added when given. A
 * response that creates a dialog (101-299 to an INVITE) carries the request's Record-Route in
 * order (12.1.1), so the caller's ACK and BYE go through the proxies that record-routed it.
 */
export function responseTo(req: SipRequest, status: number, opts: { toTag?: string; headers?: Header[]; body?: string; reason?: string } = {}): SipResponse {
  const headers: Header[] = []
  let sawTo = false
  const dialogCreating = req.method === 'INVITE' && status > 100 && status < 300
  for (const h of req.headers) {
    const n = canonicalName(h.name)
    if (COPIED.has(n) || (dialogCreating && n === 'record-route')) headers.push({ name: h.name, value: h.value })
    else if (n === 'to' && !sawTo) {
      sawTo = true
      const tagged = opts.toTag && status > 100 && !tagOf(h.value)
      headers.push({ name: h.name, value: tagged ? `${h.value};tag=${opts.toTag}` : h.value })
    }
  }
  return response(status, opts.reason ?? reasonFor(status), [...headers, ...(opts.headers ?? [])], opts.body ?? '')
}
