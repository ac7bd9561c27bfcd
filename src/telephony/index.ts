// Telephony as the appliance runs it: media, then SIP once the speech engines are loaded.
export { type RunningMedia, type RunningTelephony, start, startMedia, type TelephonyDeps } from './start.ts'
