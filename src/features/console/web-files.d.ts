// `import path from '../../console/x' with { type: 'file' }`: Bun gives the file's path (embedded when
// compiled). These are the kinds of file the console embeds; the browser runs them, not Bun.
declare module '*.mjs' {
  const path: string
  export default path
}
declare module '*.esm.js' {
  const path: string
  export default path
}
declare module '*.module.js' {
  const path: string
  export default path
}
declare module '*.tmpl' {
  const path: string
  export default path
}
declare module '*.css' {
  const path: string
  export default path
}
declare module '*.svg' {
  const path: string
  export default path
}
