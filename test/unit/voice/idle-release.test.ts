import { expect, test } from 'bun:test'
import { IdleRelease } from '../../../src/realtime/voice/idle.ts'
import { until } from '../../helpers/until.ts'

test('an engine is released once nothing has held it for the idle time, and not while it is held', async () => {
  let released = 0
  const idle = new IdleRelease(30, () => released++)
  const release = idle.hold()
  const second = idle.hold()
  release()
  release() // a second call of the same release changes nothing
  expect(idle.inUse).toBe(true)
  second()
  expect(idle.inUse).toBe(false)
  await until(() => released === 1, 2000, 'the idle release')
  // a new hold cancels a pending countdown
  idle.arm()
  const again = idle.hold()
  const start = Date.now()
  await until(() => Date.now() - start > 90, 2000)
  expect(released).toBe(1)
  again()
  await until(() => released === 2, 2000, 'the second idle release')
})

test('an idle time of 0 never releases', async () => {
  let released = 0
  const idle = new IdleRelease(0, () => released++)
  idle.hold()()
  idle.arm()
  const start = Date.now()
  await until(() => Date.now() - start > 50, 1000)
  expect(released).toBe(0)
})
