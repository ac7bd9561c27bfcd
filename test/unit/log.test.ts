import { expect, test } from 'bun:test'
import { accessLog, createLogger } from '../../src/log.ts'

const capture = (level: string) => {
  const writes: string[] = []
  const lines = () => writes.join('').split('\n').filter((l) => l !== '')
  return { writes, lines, log: createLogger(level, { write: (chunk: string) => writes.push(chunk) }) }
}
// Access lines are written on the next turn of the event loop; this waits for exactly that turn.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test('the hand-written access line is the line pino itself would write for the same fields', async () => {
  const { lines, log } = capture('info')
  const child = log.child({ component: 'http' })
  child.info({ requestId: 'req_1', method: 'GET', path: '/api/workspaces/ws_1', status: 200, ms: 0.42 }, 'request')
  accessLog(child)('req_1', 'GET', '/api/workspaces/ws_1', 200, 0.42)
  await nextTurn()
  const [pinos, ours] = lines().map((l) => ({ ...JSON.parse(l), time: 0 }))
  expect(ours).toEqual(pinos)
})

test('the lines of one turn of the event loop go out in one write, each a whole line', async () => {
  const { writes, lines, log } = capture('info')
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
  write('req_3', 'GET', '/health', 200, 1)
  log.level = 'info'
  write('req_4', 'GET', '/health', 200, 1)
  await nextTurn()
  expect(lines().map((l) => JSON.parse(l).requestId)).toEqual(['req_4'])
})
