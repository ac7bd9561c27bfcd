// The carrier feature's public face; its HTTP routes are carrier.http.ts.
export { carrierCall, carrierClient, carrierCredentials, type CarrierConfig, fromCarrier } from './carrier.service.ts'
export { CarrierError, TwilioClient } from './twilio.ts'
export { signatureMatches, twilioSignature } from './signature.ts'
