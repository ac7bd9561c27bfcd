// The console feature's public face; its HTTP routes are console.http.ts.
export { loadAssets, renderIndex } from './assets.ts'
