// Field-level checks of one node or one edge: its schema, then rules a schema cannot state.
import { Value } from '@sinclair/typebox/value'
import { callTargetProblem } from '../../platform/net/call-target.ts'
import { regexProblem } from '../../platform/regex/index.ts'
import { UNKNOWN_FIELD } from '../../platform/schema/index.ts'
import { Condition as ConditionSchema, VARIABLE_NAME, WorkflowEdge as EdgeSchema, type WorkflowEdge, type WorkflowNode } from './workflow.model.ts'

export interface FieldMessage {
  field: string
  message: string
}

// Caller speech is matched against these patterns: the slow shapes are refused (platform/regex).
const regexError = (pattern: string, flags = ''): string | undefined => regexProblem(pattern, flags)?.replace('valid regular expression', 'valid regex')

/** Per-type rules a JSON schema cannot state. */
export function nodeRuleErrors(node: WorkflowNode): FieldMessage[] {
  const out: FieldMessage[] = []
  if (node.type === 'collect') {
    const c = node.config
    if (c.kind === 'regex' && c.pattern === undefined) out.push({ field: 'pattern', message: 'is required when kind is regex' })
    if (c.pattern !== undefined) {
      const err = regexError(c.pattern, 'i')
      if (err) out.push({ field: 'pattern', message: err })
    }
    if (c.minDigits !== undefined && c.maxDigits !== undefined && c.minDigits > c.maxDigits) {
      out.push({ field: 'minDigits', message: 'must not exceed maxDigits' })
    }
  }
  if (node.type === 'tool') {
    const variableName = new RegExp(VARIABLE_NAME)
    for (const name of Object.keys(node.config.assign ?? {})) {
      if (!variableName.test(name)) out.push({ field: `assign.${name}`, message: 'is not a usable variable name (letters, digits, _; not __proto__, constructor, prototype)' })
    }
  }
  const targetProblem = node.type === 'transfer' ? callTargetProblem(node.config.target) : undefined
  if (targetProblem) out.push({ field: 'target', message: targetProblem })
  return out
}

export function edgeRuleErrors(edge: WorkflowEdge): FieldMessage[] {
  const c = edge.condition
  if (!c) return []
  if (c.type === 'regex') {
    const err = regexError(c.pattern, c.flags)
    if (err) return [{ field: 'condition.pattern', message: err }]
  }
  if (c.type === 'variable' && c.op !== 'set' && c.op !== 'unset' && c.value === undefined) {
    return [{ field: 'condition.value', message: `is required for op ${c.op}` }]
  }
  return []
}

type Schema = Parameters<typeof Value.Errors>[0]

function humanize(message: string, schema: { anyOf?: { const?: unknown }[]; error?: unknown }): string {
  if (message === 'Expected required property') return 'is required'
  if (typeof schema.error === 'string' && message.startsWith('Expected string to match')) return schema.error
  if (message === 'Unexpected property') return `is an ${UNKNOWN_FIELD}`
  if (schema.anyOf?.every((s) => s.const !== undefined)) return `must be one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`
  return message.replace(/^Expected string to match/, 'must match').replace(/^Expected /, 'must be ')
}

export function schemaMessages(schema: Schema, value: unknown, max = 3): FieldMessage[] {
  const out: FieldMessage[] = []
  for (const e of Value.Errors(schema, value)) {
    const field = e.path.split('/').filter(Boolean).join('.')
    if (out.some((o) => o.field === field || field.startsWith(`${o.field}.`))) continue
    out.push({ field, message: humanize(e.message, e.schema as never) })
    if (out.length >= max) break
  }
  return out
}

const CONDITION_TYPES = (ConditionSchema.anyOf as { properties: { type: { const: string } } }[]).map((s) => s.properties.type.const)

/** Checks a condition against the schema of its own type, so messages name the exact field. */
function conditionMessages(condition: unknown): FieldMessage[] {
  const type = condition && typeof condition === 'object' ? (condition as { type?: unknown }).type : undefined
  const i = CONDITION_TYPES.indexOf(type as string)
  if (i < 0) return [{ field: 'condition.type', message: `must be one of ${CONDITION_TYPES.join(', ')}` }]
  return schemaMessages(ConditionSchema.anyOf[i] as Schema, condition).map((m) => ({ field: m.field ? `condition.${m.field}` : 'condition', message: m.message }))
}

export function edgeShapeMessages(raw: unknown): FieldMessage[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [{ field: '', message: 'must be an object {from, to, condition}' }]
  const { condition, ...rest } = raw as Record<string, unknown>
  const out = schemaMessages(EdgeSchema, rest)
  if (condition !== undefined) out.push(...conditionMessages(condition))
  return out
}

