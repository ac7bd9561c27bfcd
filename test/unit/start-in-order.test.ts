// The appliance's subsystems start in order and stop in reverse; a failed start leaves nothing running.
import { expect, test } from 'bun:test'
import { once, startInOrder, type Step } from '../../src/app/startup/index.ts'

function recorder() {
  const events: string[] = []
  const step = (name: string): Step => async () => {
    events.push(`start ${name}`)
    return { stop: async () => void events.push(`stop ${name}`) }
  }
  return { events, step }
}

test('subsystems start in the order given and stop in reverse', async () => {
  const { events, step } = recorder()
  const running = await startInOrder([step('a'), step('b'), step('c')])
  await running.stop()
  expect(events).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a'])
})

test('a failed start stops the subsystems already started, in reverse, and rethrows its own error', async () => {
  const { events, step } = recorder()
  const failing: Step = () => Promise.reject(new Error('port in use'))
  const later = step('never')
  await expect(startInOrder([step('a'), step('b'), failing, later])).rejects.toThrow('port in use')
  expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a'])
})

test('a stop that fails while unwinding a failed start does not hide the start error nor skip the others', async () => {
  const { events, step } = recorder()
  const brokenStop: Step = () => ({ stop: () => Promise.reject(new Error('stop failed')) })
  const failing: Step = () => { throw new Error('start failed') }
  await expect(startInOrder([step('a'), brokenStop, failing])).rejects.toThrow('start failed')
  expect(events).toEqual(['start a', 'stop a'])
})

test('a stop made once runs once however often it is called', async () => {
  let runs = 0
  const stop = once(async () => void runs++)
  await Promise.all([stop(), stop()])
  await stop()
  expect(runs).toBe(1)
})
