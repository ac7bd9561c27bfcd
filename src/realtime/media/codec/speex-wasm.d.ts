declare module '@echogarden/speex-resampler-wasm/simd' {
  const factory: (options?: { wasmBinary?: Uint8Array }) => Promise<unknown>
  export default factory
}

declare module '*.wasm' {
  const path: string
  export default path
}
