import { t } from 'elysia'
import { DEFAULT_MIN_SCORE } from '../knowledge/index.ts'
import { BodyRecord, Guarded, Name, VARIABLE_NAME_PATTERN } from '../../platform/schema/index.ts'

/**
 * The workflow graph: nodes {id, type, config} and edges {from, to, condition}. Each node type
 * has its own config schema; the request body is parsed loosely (NodeInput) and each node is
 * then checked against its type's schema by validateWorkflow, so every error names its node.
 */

const Text = (description: string, maxLength = 4000) => t.String({ minLength: 1, maxLength, description })
export const VARIABLE_NAME = VARIABLE_NAME_PATTERN
const VariableName = t.String({ pattern: VARIABLE_NAME, description: 'variable name: letters, digits, _' })

export const StartConfig = t.Object(
  { text: t.Optional(Text('greeting spoken when the workflow starts; {{variables}} are filled')) },
  { additionalProperties: false },
)
export const SayConfig = t.Object({ text: Text('text spoken; {{variables}} are filled') }, { additionalProperties: false })
export const ConversationConfig = t.Object(
  { instructions: Text('what the LLM should do in this part of the conversation; {{variables}} are filled', 20000) },
  { additionalProperties: false },
)

export const CollectConfig = t.Object(
  {
    prompt: Text('question asked; {{variables}} are filled'),
    kind: t.Union(
      [t.Literal('digits'), t.Literal('yes_no'), t.Literal('date'), t.Literal('email'), t.Literal('text'), t.Literal('regex')],
      { description: 'what to extract from the answer' },
    ),
    variable: VariableName,
    pattern: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'regex kind: the pattern; group 1 (or the match) is kept' })),
    minDigits: t.Optional(t.Integer({ minimum: 1, maximum: 64, description: 'digits kind: fewest digits accepted' })),
    maxDigits: t.Optional(t.Integer({ minimum: 1, maximum: 64, description: 'digits kind: most digits accepted' })),
    reprompt: t.Optional(Text('said when the answer held no value; default: "Sorry, I didn\'t get that." + prompt')),
    maxAttempts: t.Optional(t.Integer({ minimum: 1, maximum: 10, default: 3, description: 'asks in all, the first included' })),
  },
  { additionalProperties: false },
)
export const ConditionConfig = t.Object({}, { additionalProperties: false })
export const ToolConfig = t.Object(
  {
    tool: t.String({ minLength: 1, maxLength: 100, description: 'an enabled tool of the agent, e.g. http_request' }),
    arguments: t.Optional(
      t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]), {
        description: 'tool arguments; string values have {{variables}} filled',
      }),
    ),
    saveAs: t.Optional(t.Union([VariableName], { description: 'variable that receives the whole result' })),
    assign: t.Optional(
      t.Record(t.String({ pattern: VARIABLE_NAME }), t.String({ minLength: 1, maxLength: 200 }), {
        description: 'variable -> dotted path into the result, e.g. {"status": "order.status"}',
      }),
    ),
  },
  { additionalProperties: false },
)
export const TransferConfig = t.Object(
  {
    target: t.String({ minLength: 1, maxLength: 256, description: 'E.164 number that is a real number (+14155550123) or SIP URI (sip:desk@pbx.example)' }),
    text: t.Optional(Text('said before transferring')),
  },
  { additionalProperties: false },
)
export const AnswerConfig = t.Object(
  {
    minScore: t.Optional(t.Number({ minimum: 0, maximum: 1, default: DEFAULT_MIN_SCORE, description: 'confidence (0..1, a calibrated probability that the passage answers) the best passage needs to be spoken; below it the no_match edge is taken' })),
    maxChars: t.Optional(t.Integer({ minimum: 40, maximum: 1000, default: 300, description: 'characters spoken at most, cut at sentences' })),
  },
  { additionalProperties: false, description: "answers the caller's question from the agent's knowledge bases (no LLM needed)" },
)
export const EndConfig = t.Object({ text: t.Optional(Text('said before hanging up')) }, { additionalProperties: false })

export const NODE_CONFIGS = {
  start: StartConfig,
  say: SayConfig,
  conversation: ConversationConfig,
  collect: CollectConfig,
  condition: ConditionConfig,
  tool: ToolConfig,
  transfer: TransferConfig,
  end: EndConfig,
  answer: AnswerConfig,
} as const
export type NodeType = keyof typeof NODE_CONFIGS
export const NODE_TYPES = ['start', 'say', 'conversation', 'collect', 'condition', 'tool', 'transfer', 'end', 'answer'] as const satisfies readonly NodeType[]
export const TERMINAL_TYPES: readonly NodeType[] = ['transfer', 'end']

const NodeId = t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$', description: 'unique within the workflow' })
const nodeOf = <K extends NodeType>(type: K) =>
  t.Object({ id: NodeId, type: t.Literal(type), config: NODE_CONFIGS[type] }, { additionalProperties: false })

export const WorkflowNode = t.Union([
  nodeOf('start'),
  nodeOf('say'),
  nodeOf('conversation'),
  nodeOf('collect'),
  nodeOf('condition'),
  nodeOf('tool'),
  nodeOf('transfer'),
  nodeOf('end'),
  nodeOf('answer'),
])
export type WorkflowNode =
  | { id: string; type: 'start'; config: typeof StartConfig.static }
  | { id: string; type: 'say'; config: typeof SayConfig.static }
  | { id: string; type: 'conversation'; config: typeof ConversationConfig.static }
  | { id: string; type: 'collect'; config: typeof CollectConfig.static }
  | { id: string; type: 'condition'; config: typeof ConditionConfig.static }
  | { id: string; type: 'tool'; config: typeof ToolConfig.static }
  | { id: string; type: 'transfer'; config: typeof TransferConfig.static }
  | { id: string; type: 'end'; config: typeof EndConfig.static }
  | { id: string; type: 'answer'; config: typeof AnswerConfig.static }

export const Condition = t.Union(
  [
    t.Object({ type: t.Literal('keywords'), keywords: t.Array(t.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false, description: 'any word or phrase occurs in what the caller said (case and punctuation ignored)' }),
    t.Object({ type: t.Literal('regex'), pattern: t.String({ minLength: 1, maxLength: 200 }), flags: t.Optional(t.String({ pattern: '^[imsu]*$', maxLength: 4 })) }, { additionalProperties: false, description: 'the regex matches what the caller said' }),
    t.Object({ type: t.Literal('dtmf'), digits: t.String({ pattern: '^[0-9*#A-D]{1,32}$' }) }, { additionalProperties: false, description: 'the caller pressed exactly these keys' }),
    t.Object(
      {
        type: t.Literal('variable'),
        variable: t.String({ minLength: 1, maxLength: 200, description: 'variable name, dotted paths allowed' }),
        op: t.Union([
          t.Literal('eq'), t.Literal('neq'), t.Literal('gt'), t.Literal('gte'), t.Literal('lt'), t.Literal('lte'),
          t.Literal('contains'), t.Literal('set'), t.Literal('unset'),
        ]),
        value: t.Optional(t.Union([t.String(), t.Number(), t.Boolean()])),
      },
      { additionalProperties: false, description: 'compares a variable with a value (set/unset need none)' },
    ),
    t.Object({ type: t.Literal('intent'), intent: t.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false, description: 'the LLM judges that the caller expresses this intent; needs an LLM' }),
    t.Object({ type: t.Literal('else') }, { additionalProperties: false, description: 'taken when no other edge of the node matches' }),
    t.Object({ type: t.Literal('no_match') }, { additionalProperties: false, description: 'answer nodes only: taken when no passage of the knowledge bases answers the caller' }),
  ],
  { description: 'when the edge is taken' },
)
export type Condition = typeof Condition.static
export type ConditionType = Condition['type']
export const INPUT_CONDITIONS: readonly ConditionType[] = ['keywords', 'regex', 'dtmf', 'intent']

export const WorkflowEdge = t.Object(
  {
    id: t.Optional(Name({ minLength: 1, maxLength: 64, description: 'optional name, used in error messages' })),
    from: t.String({ minLength: 1, maxLength: 64 }),
    to: t.String({ minLength: 1, maxLength: 64 }),
    condition: t.Optional(Condition),
  },
  { additionalProperties: false, description: 'an edge without a condition is an else edge' },
)
export type WorkflowEdge = typeof WorkflowEdge.static

export const WorkflowSettings = t.Object(
  { maxVisits: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: 'visits of one node before the run ends with loop_limit' })) },
  { additionalProperties: false },
)

/** The graph as stored and returned: nodes already checked against their type's config. */
export interface WorkflowGraph {
  nodes: WorkflowNode[]
  edges: WorkflowEdge[]
  settings?: { maxVisits?: number }
}

/** Request body of PUT: node configs are checked per type by validateWorkflow. */
export const NodeInput = t.Object(
  {
    id: t.String({ maxLength: 64, description: 'unique within the workflow' }),
    type: t.Union([
      t.Literal('start'), t.Literal('say'), t.Literal('conversation'), t.Literal('collect'),
      t.Literal('condition'), t.Literal('tool'), t.Literal('transfer'), t.Literal('end'), t.Literal('answer'),
    ]),
    config: t.Optional(BodyRecord('^[A-Za-z]{1,32}$', t.Unknown(), { maxProperties: 16, description: 'per type: see the node schemas' })),
  },
  { description: 'start, say, conversation, collect, condition, tool, transfer, end or answer; config is checked against the schema of its type' },
)
export const WorkflowInput = t.Object({
  nodes: Guarded(t.Array(NodeInput, { minItems: 1, maxItems: 500 }), 'must be a list of 1 to 500 nodes {id, type, config}'),
  edges: t.Array(t.Unknown(), { maxItems: 2000, description: 'WorkflowEdge items; each is checked and named in errors' }),
  settings: t.Optional(WorkflowSettings),
})
export type WorkflowInput = typeof WorkflowInput.static

export const Workflow = t.Object({
  agentId: t.String(),
  nodes: t.Array(WorkflowNode),
  edges: t.Array(WorkflowEdge),
  settings: WorkflowSettings,
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
})
export type Workflow = typeof Workflow.static
