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
