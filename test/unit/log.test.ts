import { expect, test } from 'bun:test'
import { accessLog, createLogger } from '../../src/log.ts'

const capture = (level: string) => {
  const lines: string[] = []
  return { lines, log: createLogger(level, { write: (line: string) => lines.push(line) }) }
}

test('the hand-written access line is the line pino itself would write for the same fields', () => {
  const { lines, log } = capture('info')
  const child = log.child({ component: 'http' })
  accessLog(child)('req_1', 'GET', '/api/workspaces/ws_1', 200, 0.42)
  child.info({ requestId: 'req_1', method: 'GET', path: '/api/workspaces/ws_1', status: 200, ms: 0.42 }, 'request')
  expect(lines).toHaveLength(2)
  const [ours, pinos] = lines.map((l) => ({ ...JSON.parse(l), time: 0 }))
  expect(ours).toEqual(pinos)
  expect(lines[0]?.endsWith('}\n')).toBe(true)
})

test('a path with quotes, backslashes or control characters stays one valid JSON line', () => {
  const { lines, log } = capture('info')
  const path = '/api/"x"\\y\n{"level":60}'
  accessLog(log)('req_2', 'GET', path, 404, 1)
  expect(lines).toHaveLength(1)
  expect(lines[0]?.split('\n').length).toBe(2)
  expect(JSON.parse(lines[0] as string).path).toBe(path)
})

test('nothing is written when the logger is above info, and the level is read on every line', () => {
  const { lines, log } = capture('warn')
  const write = accessLog(log)
  write('req_3', 'GET', '/health', 200, 1)
  expect(lines).toHaveLength(0)
  log.level = 'info'
  write('req_4', 'GET', '/health', 200, 1)
  expect(lines.map((l) => JSON.parse(l).requestId)).toEqual(['req_4'])
})
