// Refused SIP requests per source: a scanner that keeps collecting 4xx answers is ignored until
// its bucket refills (blocked / hit), while a trunk whose calls are accepted is never slowed.
export { RateLimiter } from '../../../platform/rate-limit.ts'
