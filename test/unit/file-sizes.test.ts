// Files a newcomer can read: none in src/ over 400 lines, and the voice session (the busiest
// class of a call) under 320.
import { expect, test } from 'bun:test'
import { srcFiles } from '../helpers/src-files.ts'

function lineCounts(): [string, number][] {
  return [...srcFiles()].map(([file, text]) => [file, text.split('\n').length - 1])
}

test('no file in src/ is over 400 lines', () => {
  expect(lineCounts().filter(([, n]) => n > 400)).toEqual([])
})

test('the voice session is under 320 lines', () => {
  const [, n] = lineCounts().find(([f]) => f === 'realtime/voice/session/session.ts')!
  expect(n).toBeLessThan(320)
})

test('the composition root, appliance.ts, is under 120 lines: subsystems start themselves', () => {
  const [, n] = lineCounts().find(([f]) => f === 'app/appliance.ts')!
  expect(n).toBeLessThan(120)
})
