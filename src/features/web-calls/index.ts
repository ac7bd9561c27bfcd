// Calls without SIP: browser test calls over WebRTC (and the media-stream WebSocket), on the
// ordinary call path. See docs/webrtc.md.
export { AppCallSlots, type AppCallHost, type LiveView } from './app-calls.ts'
export { WebCalls, webCallLimits, type WebCallsDeps } from './web-calls.service.ts'
