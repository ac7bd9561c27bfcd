import { type TSchema, Type as T } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import type { FieldIssue } from '../../platform/errors.ts'
import { pointerToPath, UNKNOWN_FIELD } from '../../platform/schema/index.ts'
import { callTargetProblem } from '../../platform/net/call-target.ts'

export interface ToolDefinition {
  name: string
  description: string
  /** Schema of toolConfigs[name]; its defaults fill omitted members. */
  config: TSchema
  /** The tool cannot run without a config (a transfer needs somewhere to transfer to). */
  configRequired: boolean
}

const strict = { additionalProperties: false } as const

/**
 * The built-in tools an agent may enable. The voice engine executes them; this is their contract.
 * Names come from requests: look them up in TOOLS (own keys only), never by indexing an object.
 */
const DEFINITIONS: Record<string, ToolDefinition> = {
  end_call: {
    name: 'end_call',
    description: 'Hang up once the conversation is over',
    configRequired: false,
    config: T.Object({ farewellMessage: T.Optional(T.String({ maxLength: 500 })) }, strict),
  },
  transfer_call: {
    name: 'transfer_call',
    description: 'Transfer the caller to a person or another number',
    configRequired: true,
    config: T.Object(
      {
        destinations: T.Array(
          T.Object(
            {
              number: T.String({ minLength: 1, maxLength: 300, description: 'E.164 number or SIP URI' }),
              description: T.Optional(T.String({ maxLength: 500, description: 'when the agent should pick this destination' })),
            },
            strict,
          ),
          { minItems: 1, maxItems: 20 },
        ),
        mode: T.Union([T.Literal('blind'), T.Literal('warm')], { default: 'blind' }),
        message: T.Optional(T.String({ maxLength: 500, description: 'said to the caller before transferring' })),
      },
      strict,
    ),
  },
  send_dtmf: {
    name: 'send_dtmf',
    description: 'Press keys on a phone menu (RFC 4733 DTMF)',
    configRequired: false,
    config: T.Object({ allowedDigits: T.String({ pattern: '^[0-9*#A-D]+$', default: '0123456789*#' }) }, strict),
  },
  http_request: {
    name: 'http_request',
    description: 'Call an HTTP API during the conversation and use its answer',
    configRequired: true,
    config: T.Object(
      {
        url: T.String({ minLength: 1, maxLength: 2048, description: 'absolute https URL; the same address rules as webhookUrl' }),
        method: T.Union([T.Literal('GET'), T.Literal('POST'), T.Literal('PUT'), T.Literal('PATCH'), T.Literal('DELETE')], { default: 'POST' }),
        description: T.String({ minLength: 1, maxLength: 1000, description: 'tells the model when to use the request' }),
        headers: T.Record(T.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), T.String({ maxLength: 2000 }), { default: {} }),
        timeoutMs: T.Integer({ minimum: 100, maximum: 30_000, default: 5000 }),
        parameters: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'JSON Schema of the arguments the model fills' })),
      },
      strict,
    ),
  },
  opt_out: {
    name: 'opt_out',
    description: 'The callee asks not to be called again: add their number to the do-not-call list',
    configRequired: false,
    config: T.Object({}, strict),
  },
}

export const TOOLS: ReadonlyMap<string, ToolDefinition> = new Map(Object.entries(DEFINITIONS))
export const TOOL_NAMES = [...TOOLS.keys()]

/** A config may not exceed this many characters of JSON (http_request parameters are free-form). */
export const MAX_TOOL_CONFIG_CHARS = 16_384

export interface ToolCheck {
  issues: FieldIssue[]
  /** toolConfigs with defaults applied, for known tools only. */
  configs: Record<string, unknown>
}

/** Checks enabledTools and toolConfigs together; every issue names its field path. Pure. */
export function checkTools(enabledTools: string[], toolConfigs: Record<string, unknown>): ToolCheck {
  const issues: FieldIssue[] = []
  const configs: Record<string, unknown> = {}
  const seen = new Set<string>()
  enabledTools.forEach((name, i) => {
    if (!TOOLS.has(name)) issues.push({ path: `enabledTools[${i}]`, message: `unknown tool '${name}'; known tools: ${TOOL_NAMES.join(', ')}` })
    else if (seen.has(name)) issues.push({ path: `enabledTools[${i}]`, message: `'${name}' is listed twice` })
    seen.add(name)
  })
  for (const [name, raw] of Object.entries(toolConfigs)) {
    const tool = TOOLS.get(name)
    if (!tool) {
      issues.push({ path: `toolConfigs.${name}`, message: `unknown tool '${name}'; known tools: ${TOOL_NAMES.join(', ')}` })
      continue
    }
    if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
      issues.push({ path: `toolConfigs.${name}`, message: 'must be an object' })
      continue
    }
    if (JSON.stringify(raw ?? {}).length > MAX_TOOL_CONFIG_CHARS) {
      issues.push({ path: `toolConfigs.${name}`, message: `is larger than ${MAX_TOOL_CONFIG_CHARS} characters of JSON` })
      continue
    }
    const value = Value.Default(tool.config, Value.Clone(raw ?? {}))
    const errors = [...Value.Errors(tool.config, value)]
    const reported = new Set<string>()
    for (const e of errors) {
      const sub = pointerToPath(e.path)
      const path = `toolConfigs.${name}${sub ? (sub.startsWith('[') ? sub : `.${sub}`) : ''}`
      if (reported.has(path)) continue
      reported.add(path)
      issues.push({ path, message: e.type === ValueErrorType.ObjectAdditionalProperties ? UNKNOWN_FIELD : e.message })
    }
    if (errors.length === 0) {
      issues.push(...semanticIssues(name, value))
      configs[name] = value
    }
  }
  for (const name of seen) {
    const tool = TOOLS.get(name)
    if (!tool || Object.hasOwn(toolConfigs, name)) continue
    if (tool.configRequired) issues.push({ path: `toolConfigs.${name}`, message: `is required when ${name} is enabled` })
    else configs[name] = Value.Default(tool.config, {})
  }
  return { issues, configs }
}

function semanticIssues(name: string, config: unknown): FieldIssue[] {
  if (name !== 'transfer_call') return []
  const out: FieldIssue[] = []
  const { destinations } = config as { destinations: { number: string }[] }
  destinations.forEach((d, i) => {
    const problem = callTargetProblem(d.number)
    if (problem) out.push({ path: `toolConfigs.transfer_call.destinations[${i}].number`, message: problem })
  })
  return out
}
