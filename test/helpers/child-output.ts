// Reading a child appliance process's output as it runs: its JSON log lines, and its stderr.

/** Appends every line of `stream` to `logs` (parsed JSON, or `{ raw }`) and calls `onEntry` with each. */
export function collectLogLines(stream: ReadableStream<Uint8Array>, logs: any[], onEntry: (entry: any) => void = () => {}): void {
  void (async () => {
    const decoder = new TextDecoder()
    let buf = ''
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true })
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        let entry: any
        try {
          entry = JSON.parse(line)
        } catch {
          entry = { raw: line }
        }
        logs.push(entry)
        onEntry(entry)
      }
    }
  })()
}

/** The text of `stream` so far, read in the background: call the returned function for it; `ended` resolves at the stream's end. */
export function collectText(stream: ReadableStream<Uint8Array>): (() => string) & { ended: Promise<void> } {
  let text = ''
  const ended = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true })
  })().catch(() => {})
  return Object.assign(() => text, { ended })
}
