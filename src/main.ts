// The appliance's entry point, and that of the helper processes it starts from its own
// executable (the sherpa-onnx probe, the Silero host). Everything is imported on demand: a helper
// process loads only its own modules, not the whole appliance.
import { HELPER_COMMANDS } from './platform/embedded/index.ts'
import type { Logger } from './platform/log.ts'

/** Exit codes: 0 clean stop, 1 unexpected failure, 2 bad configuration, 3 DATA_DIR (SQLite) or NODE_ID (PostgreSQL) in use. */
async function serve(failures: { log: Logger }): Promise<void> {
  const { messageOf } = await import('./app/cli/failure.ts')
  const { ConfigError, renamedKeyNotes } = await import('./platform/config/index.ts')
  const { DataDirLockedError } = await import('./platform/db/index.ts')
  const { NodeIdInUseError } = await import('./platform/jobs/index.ts')
  const { createLogger } = await import('./platform/log.ts')
  const { loadCheckedConfig } = await import('./app/startup/index.ts')
  const { startAppliance } = await import('./app/appliance.ts')
  let appliance
  try {
    const config = await loadCheckedConfig()
    // from here the details of a failure go to the appliance's log
    failures.log = createLogger(config.LOG_LEVEL)
    appliance = await startAppliance(config, failures.log)
  } catch (err) {
    if (err instanceof ConfigError) exit(2, `configuration error: ${messageOf(err)}`)
    if (err instanceof DataDirLockedError || err instanceof NodeIdInUseError) exit(3, `refusing to start: ${messageOf(err)}`)
    throw err
  }
  for (const note of renamedKeyNotes(appliance.config)) appliance.log.warn(note)
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

if (process.argv[2] === HELPER_COMMANDS.sherpaProbe) {
  const { sherpaProbe } = await import('./realtime/voice/stt/sherpa-onnx-probe.ts')
  process.exit(sherpaProbe(process.argv[3]))
} else if (process.argv[2] === HELPER_COMMANDS.sileroHost) {
  const { runSileroHost } = await import('./realtime/voice/vad/silero-host.ts')
  process.exit(await runSileroHost({ model: process.argv[3] ?? '', shared: process.argv[4] ?? '', idleExitMs: Number(process.argv[5] ?? 0) }))
} else {
  // every command and serve end here on an error nobody handled: one line, exit code 1
  const { exitOnUncaught, failureLog, reportFailure } = await import('./app/cli/failure.ts')
  const failures = { log: failureLog() }
  exitOnUncaught(() => failures.log)
  try {
    const { runCli } = await import('./app/cli/index.ts')
    const command = await runCli(process.argv.slice(2))
    if (command === 'serve') await serve(failures)
    else process.exit(command)
  } catch (err) {
    reportFailure(err, failures.log)
    process.exit(1)
  }
}
