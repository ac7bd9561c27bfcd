// Requests per API key: the appliance's one token-bucket class.
export { RateLimiter } from '../rate-limit.ts'
