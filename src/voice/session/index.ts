export { Playout } from './playout.ts'
export { type SessionOptions, VoiceSession } from './session.ts'
export { fillTemplate } from './template.ts'
export * from './types.ts'
