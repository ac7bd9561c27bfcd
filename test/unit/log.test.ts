import { expect, test } from 'bun:test'
import { accessLog, createLogger } from '../../src/platform/log.ts'

const capture = (level: string) => {
  const writes: string[] = []
  const lines = () => writes.join('').split('\n').filter((l) => l !== '')
  return { writes, lines, log: createLogger(level, { write: (chunk: string) => writes.push(chunk) }) }
}
// Access lines are written on the next turn of the event loop; this waits for exactly that turn.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test('the hand-written access line is the line pino itself would write for the same fields, at debug and at info', async () => {
  const { lines, log } = capture('debug')
  const child = log.child({ component: 'http' })
  child.debug({ requestId: 'req_1', method: 'GET', path: '/api/workspaces/ws_1', status: 200, ms: 0.42 }, 'request')
  accessLog(child)('req_1', 'GET', '/api/workspaces/ws_1', 200, 0.42)
  child.info({ requestId: 'req_1b', method: 'POST', path: '/api/agents', status: 201, ms: 3 }, 'request')
  accessLog(child)('req_1b', 'POST', '/api/agents', 201, 3)
  await nextTurn()
  const [pinoRead, pinoWrite, ourRead, ourWrite] = lines().map((l) => ({ ...JSON.parse(l), time: 0 }))
  expect(ourRead).toEqual(pinoRead)
  expect(ourWrite).toEqual(pinoWrite)
})

test('a successful GET or HEAD is logged at debug only; a write, and any request answered 4xx or 5xx, at info', async () => {
  const { lines, log } = capture('info')
  const write = accessLog(log)
  write('get_200', 'GET', '/api/calls', 200, 1)
  write('head_200', 'HEAD', '/api/calls', 200, 1)
  write('get_304', 'GET', '/console/app.mjs', 304, 1)
  write('post_200', 'POST', '/api/outbound/jobs', 200, 1)
  write('delete_204', 'DELETE', '/api/calls/call_1', 204, 1)
  write('get_401', 'GET', '/api/calls', 401, 1)
  write('get_404', 'GET', '/favicon.ico', 404, 1)
  write('get_500', 'GET', '/api/calls', 500, 1)
  await nextTurn()
  const info = lines().map((l) => JSON.parse(l))
  expect(info.map((l) => l.requestId)).toEqual(['post_200', 'delete_204', 'get_401', 'get_404', 'get_500'])
  expect(new Set(info.map((l) => l.level))).toEqual(new Set([30]))
  // LOG_LEVEL=debug shows every request, the reads at level 20
  log.level = 'debug'
  write('get_200_debug', 'GET', '/api/calls', 200, 1)
  await nextTurn()
  expect(JSON.parse(lines().at(-1) as string)).toMatchObject({ requestId: 'get_200_debug', level: 20, msg: 'request' })
})

test('the lines of one turn of the event loop go out in one write, each a whole line', async () => {
  const { writes, lines, log } = capture('debug')
  const write = accessLog(log)
  for (let i = 0; i < 50; i++) write(`req_${i}`, 'GET', '/health', 200, 0.1)
  expect(writes).toHaveLength(0)
  await nextTurn()
  expect(writes).toHaveLength(1)
  expect(writes[0]?.endsWith('\n')).toBe(true)
  expect(lines().map((l) => JSON.parse(l).requestId)).toEqual(Array.from({ length: 50 }, (_, i) => `req_${i}`))
})

test('a path with quotes, backslashes or control characters stays one valid JSON line', async () => {
  const { lines, log } = capture('info')
  const path = '/api/"x"\\y\n{"level":60}'
  accessLog(log)('req_2', 'GET', path, 404, 1)
  await nextTurn()
  expect(lines()).toHaveLength(1)
  expect(JSON.parse(lines()[0] as string).path).toBe(path)
})

test('nothing is written when the logger is above info, and the level is read on every line', async () => {
  const { lines, log } = capture('warn')
  const write = accessLog(log)
  write('req_3', 'POST', '/api/agents', 200, 1)
  log.level = 'info'
  write('req_4', 'POST', '/api/agents', 200, 1)
  await nextTurn()
  expect(lines().map((l) => JSON.parse(l).requestId)).toEqual(['req_4'])
})
