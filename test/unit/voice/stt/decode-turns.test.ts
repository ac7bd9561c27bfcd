import { expect, test } from 'bun:test'
import { DecodeTurns } from '../../../../src/realtime/voice/stt/pocketsphinx-turns.ts'

const order = (turns: DecodeTurns<string>) => {
  const out: string[] = []
  for (let u = turns.next(); u !== undefined; u = turns.next()) out.push(u)
  return out
}

test('callers still talking take turns in the order their audio came', () => {
  const turns = new DecodeTurns<string>()
  for (const u of ['a', 'b', 'a', 'c']) turns.add(u, false)
  expect(order(turns)).toEqual(['a', 'b', 'c'])
})

test('an utterance that ended goes ahead of every caller still talking, ended ones in the order they ended', () => {
  const turns = new DecodeTurns<string>()
  for (const u of ['a', 'b', 'c']) turns.add(u, false)
  turns.add('c', true)
  turns.add('a', true)
  turns.add('c', false)
  expect(order(turns)).toEqual(['c', 'a', 'b'])
})

test('a dropped utterance leaves its turn', () => {
  const turns = new DecodeTurns<string>()
  turns.add('a', false)
  turns.add('b', true)
  turns.remove('a')
  turns.remove('b')
  expect(turns.size).toBe(0)
  expect(turns.next()).toBeUndefined()
})
