// How every command and serve end on an error nobody expected: one line on stderr, the details
// (stack, cause) in the log at debug, exit code 1. Bun's own report of an uncaught error quotes
// the source around the throw, which in the executable is a line of the minified bundle
// (kilobytes), and SQLite's errors add a caret line under it.
import { createLogger, type Logger } from '../../platform/log.ts'
import { LOG_LEVELS } from '../../platform/config/index.ts'

/** `text` on one line: its lines trimmed and joined with "; ". */
export function oneLine(text: string): string {
  return text.split(/\s*[\r\n]+\s*/).filter(Boolean).join('; ')
}

/** What an error says, on one line (a non-Error thrown value as it prints). */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return oneLine(err.message || err.name)
  return oneLine(String(err))
}

/**
 * The logger the details go to: serve's own log (stdout), or for a command a log on stderr (its
 * stdout carries results) at LOG_LEVEL, when that is a level at all.
 */
export function failureLog(env: Record<string, string | undefined> = process.env): Logger {
  const level = (LOG_LEVELS as readonly string[]).includes(env.LOG_LEVEL ?? '') ? env.LOG_LEVEL! : 'info'
  return createLogger(level, { write: (line: string) => void process.stderr.write(line) })
}

/** Writes the one line and the details; the caller exits. */
export function reportFailure(err: unknown, log: Logger, what = 'error'): void {
  log.debug({ err }, 'unexpected failure')
  process.stderr.write(`${what}: ${messageOf(err)}\n`)
}

/**
 * From now on an uncaught exception or unhandled rejection ends the process with the one line
 * and exit code 1 (what Bun does, without the source excerpt). `log` is asked at the time.
 */
export function exitOnUncaught(log: () => Logger): void {
  const end = (err: unknown) => {
    reportFailure(err, log())
    process.exit(1)
  }
  process.on('uncaughtException', end)
  process.on('unhandledRejection', end)
}
