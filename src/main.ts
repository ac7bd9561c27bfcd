import { runCli } from './cli/index.ts'
import { ConfigError, loadConfig } from './config.ts'
import { DataDirLockedError } from './db/index.ts'
import { NodeIdInUseError } from './jobs/index.ts'
import { startAppliance } from './appliance.ts'

/** Exit codes: 0 clean stop, 1 unexpected failure, 2 bad configuration, 3 DATA_DIR (SQLite) or NODE_ID (PostgreSQL) in use. */
async function serve(): Promise<void> {
  let appliance
  try {
    appliance = await startAppliance(loadConfig())
  } catch (err) {
    if (err instanceof ConfigError) exit(2, `configuration error: ${err.message}`)
    if (err instanceof DataDirLockedError || err instanceof NodeIdInUseError) exit(3, `refusing to start: ${err.message}`)
    throw err
  }
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    appliance.log.info({ signal }, 'stopping')
    await appliance.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void stop('SIGINT'))
  process.on('SIGTERM', () => void stop('SIGTERM'))
}

function exit(code: number, message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

const command = await runCli(process.argv.slice(2))
if (command === 'serve') await serve()
else process.exit(command)
