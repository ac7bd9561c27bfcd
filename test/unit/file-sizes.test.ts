// Files a newcomer can read: none in src/ over 400 lines, and the voice session (the busiest
// class of a call) under 320.
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '../../src')

function lineCounts(dir: string): [string, number][] {
  return readdirSync(dir).flatMap((name): [string, number][] => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return lineCounts(path)
    if (!name.endsWith('.ts')) return []
    return [[relative(SRC, path), readFileSync(path, 'utf8').split('\n').length - 1]]
  })
}

test('no file in src/ is over 400 lines', () => {
  expect(lineCounts(SRC).filter(([, n]) => n > 400)).toEqual([])
})

test('the voice session is under 320 lines', () => {
  const [, n] = lineCounts(SRC).find(([f]) => f === 'voice/session/session.ts')!
  expect(n).toBeLessThan(320)
})

test('the composition root, appliance.ts, is under 120 lines: subsystems start themselves', () => {
  const [, n] = lineCounts(SRC).find(([f]) => f === 'appliance.ts')!
  expect(n).toBeLessThan(120)
})
