import type { ToolCall } from '../llm/contract.ts'
import type { SessionTool, ToolContext } from './types.ts'

const DEFAULT_TOOL_TIMEOUT_MS = 10_000

/** Runs one tool call; every failure becomes a JSON error the LLM can read, never a throw. */
export async function runTool(tools: SessionTool[], call: ToolCall, cite?: ToolContext['cite']): Promise<string> {
  const tool = tools.find((t) => t.spec.name === call.name)
  if (!tool) return JSON.stringify({ error: `unknown tool ${call.name}` })
  let args: unknown
  try {
    args = JSON.parse(call.arguments || '{}')
  } catch {
    return JSON.stringify({ error: 'arguments are not valid JSON' })
  }
  const abort = new AbortController()
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  // listening before the tool does: at the deadline the timeout wins over a late answer
  const timedOut = new Promise<string>((_, reject) =>
    abort.signal.addEventListener('abort', () => reject(new Error(`tool timed out after ${timeoutMs} ms`))),
  )
  try {
    return await Promise.race([timedOut, tool.run(args, { signal: abort.signal, cite })])
  } catch (err) {
    return JSON.stringify({ error: (err as Error).message })
  } finally {
    clearTimeout(timer)
  }
}

/** The goodbye an end_call carries in its `message` argument, if any. */
export function endMessage(call: ToolCall): string | undefined {
  try {
    const args = JSON.parse(call.arguments || '{}') as { message?: unknown }
    return typeof args.message === 'string' && args.message.trim() ? args.message : undefined
  } catch {
    return undefined
  }
}
