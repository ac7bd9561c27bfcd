import pino from 'pino'

export type Logger = pino.Logger

/** JSON-lines logger. Secrets are redacted by path wherever they might be logged by accident. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: [
          'key', '*.key', 'apiKey.key', 'authorization', '*.authorization', 'headers.authorization',
          'sipPassword', '*.sipPassword', 'password', '*.password', 'secret', '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  )
}

export type AccessLog = (requestId: string, method: string, path: string, status: number, ms: number) => void

// Access lines waiting for the next turn of the event loop, flushed synchronously at exit too.
const unflushed = new Set<() => void>()
let exitHooked = false

/**
 * A successful read (GET or HEAD answered below 400) is logged at debug: a console left open
 * polls several of them every few seconds, which at info outnumbered the call lines four to one.
 * Every write, and every request answered 4xx or 5xx (a refused key, a missing page), is info.
 * /metrics counts every request either way.
 */
export function accessLevel(method: string, status: number): 'debug' | 'info' {
  return status < 400 && (method === 'GET' || method === 'HEAD') ? 'debug' : 'info'
}

/**
 * The one line per HTTP request, serialised by hand in pino's own shape and written to the
 * logger's stream: pino's redaction pass costs microseconds per line, and these fields cannot
 * carry a secret (the request id is validated, the path has no query string, the rest are
 * numbers and the method). Its level is accessLevel's: a successful read at `debug`, the rest
 * at `info`; written only when the logger's level lets it through.
 *
 * Lines are gathered and written once per turn of the event loop (under Bun pino's stream is
 * stdout with one system call per write), so a write may carry several lines, each ending in
 * a newline, as a byte stream does. Pending lines are written when the process exits.
 */
export function accessLog(log: Logger): AccessLog {
  const stream = (log as unknown as Record<symbol, { write(chunk: string): void }>)[pino.symbols.streamSym] as { write(chunk: string): void }
  const levels = { debug: log.levels.values.debug as number, info: log.levels.values.info as number }
  let pending = ''
  const flush = () => {
    unflushed.delete(flush)
    const chunk = pending
    pending = ''
    if (chunk !== '') stream.write(chunk)
  }
  if (!exitHooked) {
    exitHooked = true
    process.on('exit', () => {
      for (const f of unflushed) f()
    })
  }
  return (requestId, method, path, status, ms) => {
    const name = accessLevel(method, status)
    if (!log.isLevelEnabled(name)) return
    const level = levels[name]
    const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? ''
    if (pending === '') {
      unflushed.add(flush)
      setImmediate(flush)
    }
    pending += `{"level":${level},"time":${Date.now()}${bindings},"requestId":${JSON.stringify(requestId)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`
    if (pending.length >= 65_536) flush()
  }
}
