// @echogarden/svoxpico-wasm ships no types: its default export makes the Emscripten module (pico.ts uses its exports).
declare module '@echogarden/svoxpico-wasm' {
  const init: (options?: object) => Promise<any>
  export default init
}
