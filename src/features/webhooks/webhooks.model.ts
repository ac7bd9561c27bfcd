import { t } from 'elysia'
import { DELIVERY_ERROR_DOC } from './delivery-error.ts'

const ErrorCode = t.Union(
  [t.Literal('connection_failed'), t.Literal('timeout'), t.Literal('tls_failed'), t.Literal('http_status'), t.Literal('address_refused'), t.Literal('internal_error'), t.Null()],
  { description: `why the attempt failed, null when a 2xx came back. ${DELIVERY_ERROR_DOC}` },
)
const ErrorDetail = t.Optional(
  t.Union([t.String(), t.Null()], {
    description: 'admins only (absent for members): what exactly failed, e.g. the network error; it would let a member probe which ports of a host answer',
  }),
)

export const DeliveryStatus = t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed'), t.Literal('gone')], {
  description: 'pending: to be sent (again) at nextAttemptAt; delivered: a 2xx came back; failed: the retry schedule ran out; gone: the receiver answered 410',
})

export const Attempt = t.Object({
  attemptedAt: t.String(),
  statusCode: t.Union([t.Integer(), t.Null()], { description: "the receiver's HTTP status; null when no answer came" }),
  latencyMs: t.Number(),
  error: ErrorCode,
  errorDetail: ErrorDetail,
})

export const Delivery = t.Object({
  id: t.String({ description: 'the webhook-id header of every attempt' }),
  type: t.String({ description: 'event type, e.g. call.completed' }),
  callId: t.Union([t.String(), t.Null()]),
  agentId: t.Union([t.String(), t.Null()]),
  url: t.String(),
  status: DeliveryStatus,
  attemptCount: t.Integer(),
  nextAttemptAt: t.Union([t.String(), t.Null()], { description: 'when pending' }),
  lastStatusCode: t.Union([t.Integer(), t.Null()]),
  lastError: ErrorCode,
  lastErrorDetail: ErrorDetail,
  createdAt: t.String(),
  deliveredAt: t.Union([t.String(), t.Null()]),
  attempts: t.Array(Attempt, { description: 'oldest first' }),
})
export type Delivery = typeof Delivery.static

export const DeliveriesQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 50, description: 'page size, 1-100' })),
  cursor: t.Optional(t.String({ description: "opaque cursor from the previous page's nextCursor" })),
  callId: t.Optional(t.String()),
  status: t.Optional(DeliveryStatus),
})
export type DeliveriesQuery = typeof DeliveriesQuery.static

export const SecretResponse = t.Object({
  secret: t.String({ description: 'whsec_<base64>: the Standard Webhooks signing secret' }),
  previousSecret: t.Union([t.String(), t.Null()], { description: 'the secret before the last rotation while it still signs (24 h)' }),
  previousValidUntil: t.Union([t.String(), t.Null()]),
  rotatedAt: t.Union([t.String(), t.Null()]),
})
