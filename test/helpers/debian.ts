// Tests that need a Debian package (installed by `scripts/setup.sh --test`). When it is missing
// the test is skipped, and its name says why (only then: a test that runs and fails carries no
// such label): scripts/test.ts counts such skips, and under
// CI=true a skip for a missing package fails the run (setup installs them, so none may vanish).
import { test } from 'bun:test'

export const MISSING_PACKAGE_MARK = '[needs Debian package'

export function testNeedingPackage(pkg: string, present: boolean) {
  return (name: string, fn: () => Promise<void> | void, timeoutMs?: number) =>
    present ? test(name, fn, timeoutMs) : test.skip(`${name} ${MISSING_PACKAGE_MARK} ${pkg}]`, fn, timeoutMs)
}
