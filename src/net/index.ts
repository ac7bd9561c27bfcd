export { classifyAddress, type ForbiddenClass } from './address-class.ts'
export { checkOutboundUrl, dnsResolver, type Resolver, type UrlPolicy, type UrlVerdict } from './url-guard.ts'
export { isSipUri, parseSipUri, type SipUri } from './sip-uri.ts'
