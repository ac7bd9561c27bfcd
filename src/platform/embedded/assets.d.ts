/** `import path from 'x.onnx' with { type: 'file' }`: Bun gives the file's path (embedded when compiled). */
declare module '*.onnx' {
  const path: string
  export default path
}
declare module '*.bson' {
  const path: string
  export default path
}
declare module '*.so.1' {
  const path: string
  export default path
}
/** `import text from 'x.txt' with { type: 'text' }`: Bun gives the file's text (embedded when compiled). */
declare module '*.txt' {
  const text: string
  export default text
}
