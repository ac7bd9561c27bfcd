import { describe, expect, test } from 'bun:test'
import { endMessage, runTool, type SessionTool } from '../../../../src/realtime/voice/session/index.ts'

const spec = (name: string) => ({ name, description: name, parameters: { type: 'object' } })
const tools: SessionTool[] = [
  { spec: spec('echo'), run: async (args) => JSON.stringify(args) },
  { spec: spec('boom'), run: async () => Promise.reject(new Error('backend down')) },
  { spec: spec('slow'), timeoutMs: 30, run: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('too late'))) },
]
const call = (name: string, args: string) => ({ id: 'c1', name, arguments: args })

describe('tool calls from the LLM', () => {
  const cases: [string, string, string, string][] = [
    ['runs a tool with its parsed arguments', 'echo', '{"a":1}', '{"a":1}'],
    ['treats empty arguments as {}', 'echo', '', '{}'],
    ['reports an unknown tool to the model', 'nope', '{}', '{"error":"unknown tool nope"}'],
    ['reports arguments that are not JSON', 'echo', '{a:', '{"error":"arguments are not valid JSON"}'],
    ['reports a tool that throws', 'boom', '{}', '{"error":"backend down"}'],
    ['gives up on a tool after its timeout', 'slow', '{}', '{"error":"tool timed out after 30 ms"}'],
  ]
  for (const [name, tool, args, expected] of cases) test(name, async () => expect(await runTool(tools, call(tool, args))).toBe(expected))

  test("end_call's goodbye comes from its message argument when there is one", () => {
    expect(endMessage(call('end_call', '{"message":"Bye now."}'))).toBe('Bye now.')
    expect(endMessage(call('end_call', '{"message":"  "}'))).toBeUndefined()
    expect(endMessage(call('end_call', 'garbage'))).toBeUndefined()
  })
})
