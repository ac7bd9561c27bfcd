// The extraction cache of the executable: a folder that survives restarts, holding only the
// current build's files (issue 23: 26 old 21 MB copies of flite.wasm were left in /tmp).
import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildFolder, cacheRoot, OTHER_BUILD_GRACE_MS, removeOtherBuilds } from '../../../src/platform/embedded/index.ts'

describe('extraction cache', () => {
  test('systemd CacheDirectory= comes first, then XDG_CACHE_HOME, then ~/.cache', () => {
    const home = mkdtempSync(join(tmpdir(), 'va-home-'))
    expect(cacheRoot({ CACHE_DIRECTORY: '/var/cache/voice-agent', XDG_CACHE_HOME: '/x', HOME: home })).toBe('/var/cache/voice-agent')
    expect(cacheRoot({ XDG_CACHE_HOME: '/x', HOME: home })).toBe('/x')
    expect(cacheRoot({ HOME: home })).toBe(join(home, '.cache'))
    expect(cacheRoot({ HOME: '/nonexistent-home-of-nobody' })).toBe(tmpdir())
  })

  test('one folder per build, whatever the file', () => {
    expect(buildFolder('2026-01-01T00:00:00.000Z')).toMatch(/^voice-agent-[0-9a-f]{16}$/)
    expect(buildFolder('a')).not.toBe(buildFolder('b'))
  })

  test("other builds' folders are removed; the current one, young ones, links and other names stay", () => {
    const root = mkdtempSync(join(tmpdir(), 'va-cache-'))
    const current = buildFolder('now')
    const old = buildFolder('old')
    const starting = buildFolder('starting')
    const target = mkdtempSync(join(tmpdir(), 'va-target-'))
    for (const d of [current, old, starting, 'voice-agent-cache-abc123', 'other']) {
      mkdirSync(join(root, d))
      writeFileSync(join(root, d, 'flite.wasm'), 'x')
    }
    const linked = buildFolder('linked')
    symlinkSync(target, join(root, linked))
    const past = (Date.now() - 2 * OTHER_BUILD_GRACE_MS) / 1000
    for (const d of [current, old, 'voice-agent-cache-abc123', 'other']) utimesSync(join(root, d), past, past)
    // ages come from this process's clock, not the kernel's (they differ under faketime)
    utimesSync(join(root, starting), Date.now() / 1000, Date.now() / 1000)
    expect(removeOtherBuilds(root, current)).toEqual([old])
    expect(existsSync(join(root, old))).toBe(false)
    for (const d of [current, starting, 'voice-agent-cache-abc123', 'other', linked]) expect(existsSync(join(root, d))).toBe(true)
    expect(existsSync(target)).toBe(true)
  })

  test('a cache root that does not exist yet removes nothing', () => {
    expect(removeOtherBuilds(join(tmpdir(), 'va-missing-cache-root-xyz'), buildFolder('x'))).toEqual([])
  })
})
