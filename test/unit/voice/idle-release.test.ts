import { expect, test } from 'bun:test'
import { type IdleTimers, IdleRelease } from '../../../src/realtime/voice/idle.ts'
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

/** Timers on a clock the test moves. */
function testClock() {
  let now = 0
  let next = 1
  const pending = new Map<number, { at: number; fn: () => void }>()
  const timers: IdleTimers = {
    set(fn, ms) {
      pending.set(next, { at: now + ms, fn })
      return next++
    },
    clear: (id) => void pending.delete(id as number),
  }
  const advance = (ms: number) => {
    now += ms
    for (const [id, t] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at > now) break
      pending.delete(id)
      t.fn()
    }
  }
  return { timers, advance }
}

test('a keeper (a call worker sharing the engine) delays the release without restarting the countdown: the engine goes when the keeper does, once the idle time has passed', async () => {
  const clock = testClock()
  let released = 0
  const idle = new IdleRelease(60_000, () => released++, clock.timers)
  const worker = idle.keep()
  idle.hold()() // the worker's last call ends: the countdown starts
  clock.advance(60_000)
  expect(released).toBe(0) // the worker still runs on the engine's threads
  worker() // the worker stops, at the engine's idle time: the engine goes now, not 60 s later
  await until(() => released === 1, 2000, 'the release as the keeper let go')
  clock.advance(120_000)
  expect(released).toBe(1)
})

test('a keeper that lets go before the idle time has passed leaves the countdown running to its end', async () => {
  const clock = testClock()
  let released = 0
  const idle = new IdleRelease(60_000, () => released++, clock.timers)
  const worker = idle.keep()
  idle.hold()()
  clock.advance(20_000)
  worker()
  expect(released).toBe(0)
  clock.advance(39_999)
  expect(released).toBe(0)
  clock.advance(1)
  await until(() => released === 1, 2000, 'the release at the idle time')
})

test('a hold after the countdown ran out under a keeper cancels the release it was waiting for', async () => {
  const clock = testClock()
  let released = 0
  const idle = new IdleRelease(60_000, () => released++, clock.timers)
  const worker = idle.keep()
  idle.hold()()
  clock.advance(60_000)
  const call = idle.hold() // a new call on the worker
  worker()
  clock.advance(120_000)
  expect(released).toBe(0)
  call()
  clock.advance(60_000)
  await until(() => released === 1, 2000, 'the release 60 s after the new call')
})

test('releaseNow unloads at once and resolves once the release is done, unless something holds or keeps the engine', async () => {
  const clock = testClock()
  let released = 0
  const idle = new IdleRelease(60_000, async () => {
    await Promise.resolve()
    released++
  }, clock.timers)
  const held = idle.hold()
  await idle.releaseNow()
  expect(released).toBe(0)
  held()
  const kept = idle.keep()
  await idle.releaseNow()
  expect(released).toBe(0)
  kept()
  await idle.releaseNow()
  expect(released).toBe(1)
  // the countdown the last release armed was cancelled by releaseNow
  clock.advance(60_000)
  expect(released).toBe(1)
})
