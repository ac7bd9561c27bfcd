// A local webhook receiver on 127.0.0.1 that records every request and answers as scripted.
export interface Received {
  headers: Record<string, string>
  body: string
}

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** Status codes to answer, in order; 200 once they run out. */
  answers: number[]
  stop(): Promise<void>
}

export function startReceiver(port = 0): Receiver {
  const r: Receiver = { url: '', port: 0, received: [], answers: [], stop: async () => {} }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(req) {
      r.received.push({ headers: Object.fromEntries(req.headers.entries()), body: await req.text() })
      return new Response('ok', { status: r.answers.shift() ?? 200 })
    },
  })
  r.port = server.port!
  r.url = `http://127.0.0.1:${server.port}/hook`
  r.stop = async () => {
    await server.stop(true)
  }
  return r
}
