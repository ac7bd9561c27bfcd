export { StereoRecorder } from './recorder.ts'
export { parseWavHeader, repairWavFiles, wavHeader, WAV_HEADER_BYTES, type WavInfo } from './wav.ts'
