export {
  decodeG711,
  encodeG711,
  decodeAlawSample,
  decodeUlawSample,
  encodeAlawSample,
  encodeUlawSample,
  G711_SILENCE,
  type G711Law,
} from './g711.ts'
export { createResampler, PolyphaseResampler, type ResamplerEngine, type ResamplerOptions, type SampleRateConverter } from './resample.ts'
export { SpeexResampler, speexAvailable } from './speex.ts'
export { OpusCodec, opusAvailable } from './opus.ts'
export { tone, rmsDb, rms, toneLevelDb } from './signal.ts'
