// The webhooks feature's public face; its HTTP routes are webhooks.http.ts.
export { enqueueWebhookEvent, eventBody, releaseCallEvents, type WebhookEvent } from './outbox.ts'
export { DELIVERY_ERROR_CODES, type DeliveryErrorCode, deliveryErrorCode } from './delivery-error.ts'
export { postWebhook, WEBHOOK_TIMEOUT_MS } from './post.ts'
export { DEFAULT_RETRY_SCHEDULE, nextAttemptDelay, parseSchedule } from './schedule.ts'
export { PREVIOUS_SECRET_GRACE_MS, signingSecrets } from './secrets.ts'
export { newWebhookSecret, signedHeaders } from './signer.ts'
export type { DeliveryRow, WebhookAttemptTable, WebhookDeliveryTable, WebhookSecretTable } from './webhooks.table.ts'
export { WebhookWorker, type WebhookWorkerOptions } from './worker.ts'
