// The capacity model's pure core: a fixed ceiling leaves what is not used of it; a live figure
// past its goal leaves no headroom while a call is up, so calls in progress keep their goals.
import { expect, test } from 'bun:test'
import { headroomOf, LiveCapacity, type CapacityLimits } from '../../../src/features/calls/index.ts'
import { until } from '../../helpers/until.ts'

const limits: CapacityLimits = { callsMax: 0, lagMs: 100, cpu: 0.9, latenessMs: 40, realTimeFactor: 0.8, backlogMs: 1500 }
const calm = { eventLoopLagMs: 5, cpu: 0.2 }

test('with no ceiling and calm figures every call is taken', () => {
  expect(headroomOf(30, calm, limits)).toEqual({ capacity: Infinity, callsUp: 30, headroom: Infinity, limitedBy: undefined })
})

test('CALLS_MAX leaves what is not used of it, and names itself once reached', () => {
  expect(headroomOf(3, calm, { ...limits, callsMax: 5 })).toMatchObject({ capacity: 5, headroom: 2, limitedBy: undefined })
  expect(headroomOf(5, calm, { ...limits, callsMax: 5 })).toMatchObject({ capacity: 5, headroom: 0, limitedBy: 'CALLS_MAX' })
})

test('a live figure past its goal leaves no headroom while calls are up, and names the figure', () => {
  expect(headroomOf(4, { ...calm, eventLoopLagMs: 150 }, limits)).toEqual({ capacity: 4, callsUp: 4, headroom: 0, limitedBy: 'event_loop_lag' })
  expect(headroomOf(4, { ...calm, cpu: 0.95 }, limits)).toMatchObject({ headroom: 0, limitedBy: 'cpu' })
  expect(headroomOf(4, { ...calm, sendLatenessMs: 60 }, limits)).toMatchObject({ headroom: 0, limitedBy: 'media_send_lateness' })
  expect(headroomOf(4, { ...calm, sttRealTimeFactor: 1.2 }, limits)).toMatchObject({ headroom: 0, limitedBy: 'stt_real_time_factor' })
  expect(headroomOf(4, { ...calm, sttBacklogMs: 2000 }, limits)).toMatchObject({ headroom: 0, limitedBy: 'stt_backlog' })
})

test('a node with no call up takes one whatever other work loads it', () => {
  expect(headroomOf(0, { eventLoopLagMs: 500, cpu: 1 }, limits).headroom).toBeGreaterThan(0)
})

test('the live model refuses while the sampled offline STT falls behind, and takes calls again once it catches up', async () => {
  let stt = { sttRealTimeFactor: 1.3, sttBacklogMs: 400 }
  const live = new LiveCapacity({ limits: { ...limits, lagMs: Infinity, cpu: Infinity }, extra: () => stt, sampleMs: 5 })
  try {
    await until(() => live.figuresNow.sttRealTimeFactor === 1.3, 5000, 'a sample of the STT figures')
    expect(live.figures(2)).toMatchObject({ headroom: 0, limitedBy: 'stt_real_time_factor' })
    stt = { sttRealTimeFactor: 0.3, sttBacklogMs: 0 }
    await until(() => live.figuresNow.sttRealTimeFactor === 0.3, 5000, 'the next sample')
    expect(live.figures(2)).toMatchObject({ headroom: Infinity, limitedBy: undefined })
  } finally {
    live.stop()
  }
})
