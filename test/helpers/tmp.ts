// Temporary folders for tests, removed when the test process exits (a helper that hands a
// folder to a child process cannot know when the child is done with it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A new folder under the temporary folder, named `<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
