// A scrape must not stall the thread that carries SIP, media and HTTP.
import { expect, spyOn, test } from 'bun:test'
import v8 from 'node:v8'
import { Metrics } from '../../../src/platform/metrics/index.ts'

test('a /metrics scrape does not read V8 heap statistics, which walk the whole heap under Bun', async () => {
  const spaces = spyOn(v8, 'getHeapSpaceStatistics')
  const heap = spyOn(v8, 'getHeapStatistics')
  const m = new Metrics()
  const calledAtSetUp = spaces.mock.calls.length + heap.mock.calls.length
  const text = await m.text()
  expect(spaces.mock.calls.length + heap.mock.calls.length).toBe(calledAtSetUp)
  expect(text).not.toContain('nodejs_heap_space_size')
  expect(text).toContain('voice_agent_nodejs_heap_size_used_bytes') // from process.memoryUsage(), which is cheap
  m.stop()
  spaces.mockRestore()
  heap.mockRestore()
})
