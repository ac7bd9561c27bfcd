// Requests per API key: the appliance's one token-bucket class.
export { RateLimiter } from '../platform/rate-limit.ts'
