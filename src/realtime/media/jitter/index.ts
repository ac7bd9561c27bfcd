export {
  JitterBuffer,
  type JitterBufferOptions,
  type JitterPacket,
  type JitterStats,
  type PopResult,
  type PushResult,
} from './jitter-buffer.ts'
