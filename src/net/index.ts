export { classifyAddress, type ForbiddenClass } from './address-class.ts'
export { guardedFetch, type GuardedFetchInit, type GuardedFetchOptions, type GuardedResponse, OutboundRefusedError } from './guarded-fetch.ts'
export { checkOutboundUrl, dnsResolver, type Resolver, resolveTarget, type TargetVerdict, type UrlPolicy, type UrlVerdict } from './url-guard.ts'
export { isSipUri, parseSipUri, type SipUri } from './sip-uri.ts'
