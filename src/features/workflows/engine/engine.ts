import { DEFAULT_MIN_SCORE } from '../../knowledge/index.ts'
import { INPUT_CONDITIONS, type WorkflowEdge, type WorkflowGraph, type WorkflowNode } from '../workflow.model.ts'
import { matchesLocally } from './conditions.ts'
import { type AnswerSource, type EngineInput, type Final, type KnowledgeSearch, type RunState, type StepResult, type ToolRunner, WorkflowRunError } from './contracts.ts'
import { extractDate, extractDigits, extractEmail, extractRegex, extractText, extractYesNo } from './extract.ts'
import { conversationReply, judgeIntent } from './llm.ts'
import { fillTemplate, readPath, stringify, type Variables } from '../../../platform/template.ts'
import type { ChatMessage, Llm } from '../../../realtime/voice/llm/index.ts'

export interface EngineOptions {
  /** Intent edges and conversation nodes need it; absent when no LLM is configured. */
  llm?: Llm
  tools?: ToolRunner
  /** Answer nodes search it; absent when the agent links no knowledge base. */
  knowledge?: KnowledgeSearch
  /** Default for graphs without settings.maxVisits. */
  maxVisits: number
  /** Today's date as YYYY-MM-DD, for relative dates in collect nodes. */
  today: () => string
}

const MAX_HISTORY = 50
const DEFAULT_MAX_ATTEMPTS = 3
const DEFAULT_ANSWER_CHARS = 300

/** A step in progress: a working copy of the state plus what the step produced. */
interface Step {
  s: RunState
  visited: string[]
  responses: { nodeId: string; output: string; sources?: AnswerSource[] }[]
  /** The caller's turn of this step is not answered yet (an answer node answers it once). */
  fresh?: boolean
  /** The last route taken met a condition (not the else edge, not staying). */
  matched?: boolean
  /** The caller's turn met a condition or a collect node's extraction. */
  understood?: boolean
}

type Next = { enter: string } | { stay: true } | { finish: Final }

/**
 * The workflow engine: one graph, driven turn by turn. `start` enters the start node and runs
 * until the workflow waits for the caller or ends; `receive` feeds one caller turn. Both return
 * a new state and never change the one passed in. Without an LLM or tools the engine is
 * deterministic; nodes that need one raise WorkflowRunError naming the node.
 */
export class WorkflowEngine {
  private readonly nodes: Map<string, WorkflowNode>
  private readonly outgoing = new Map<string, WorkflowEdge[]>()
  private readonly maxVisits: number

  constructor(
    private readonly graph: WorkflowGraph,
    private readonly opts: EngineOptions,
  ) {
    this.nodes = new Map(graph.nodes.map((n) => [n.id, n]))
    for (const e of graph.edges) {
      const list = this.outgoing.get(e.from) ?? []
      list.push(e)
      this.outgoing.set(e.from, list)
    }
    this.maxVisits = graph.settings?.maxVisits ?? opts.maxVisits
  }

  async start(variables: Variables = {}): Promise<StepResult> {
    const start = this.graph.nodes.find((n) => n.type === 'start')
    if (!start) throw new Error('workflow has no start node; validate it first')
    const s: RunState = { nodeId: start.id, status: 'awaiting_input', visits: {}, variables: structuredClone(variables), attempts: 0, history: [], lastInput: null, final: null }
    const step: Step = { s, visited: [], responses: [] }
    await this.run(step, { enter: start.id })
    return this.result(step)
  }

  /** One caller turn. Ignored (nothing happens) once the run has finished. */
  async receive(state: RunState, input: EngineInput): Promise<StepResult> {
    const step: Step = { s: structuredClone(state), visited: [], responses: [], fresh: true }
    if (state.status === 'finished') return this.result(step)
    step.s.lastInput = input
    this.remember(step.s, { role: 'user', content: input.kind === 'speech' ? input.text : `(pressed keys ${input.digits})` })
    await this.run(step, await this.onInput(step, this.node(step.s.nodeId), input))
    return this.result(step)
  }

  /** Records a line the agent said outside the engine (a transcript's assistant turn) as context. */
  note(state: RunState, assistantText: string): RunState {
    const s = structuredClone(state)
    this.remember(s, { role: 'assistant', content: assistantText })
    return s
  }

  private node(id: string): WorkflowNode {
    const n = this.nodes.get(id)
    if (!n) throw new Error(`workflow has no node "${id}"; validate it first`)
    return n
  }

  private result(step: Step): StepResult {
    return { state: step.s, visited: step.visited, responses: step.responses, final: step.s.final, understood: step.understood ?? false }
  }

  private remember(s: RunState, m: ChatMessage) {
    s.history.push(m)
    if (s.history.length > MAX_HISTORY) s.history.splice(0, s.history.length - MAX_HISTORY)
  }

  private say(step: Step, nodeId: string, text: string) {
    const output = fillTemplate(text, step.s.variables)
    step.responses.push({ nodeId, output })
    this.remember(step.s, { role: 'assistant', content: output })
  }

  private async run(step: Step, next: Next): Promise<void> {
    let cur = next
    while ('enter' in cur) cur = await this.enter(step, this.node(cur.enter))
    if ('finish' in cur) {
      step.s.status = 'finished'
      step.s.final = cur.finish
      step.s.nodeId = cur.finish.nodeId
    } else {
      step.s.status = 'awaiting_input'
    }
  }

  private listens(node: WorkflowNode): boolean {
    if (node.type === 'conversation' || node.type === 'collect' || node.type === 'answer') return true
    if (node.type !== 'start' && node.type !== 'say') return false
    return (this.outgoing.get(node.id) ?? []).some((e) => e.condition && INPUT_CONDITIONS.includes(e.condition.type))
  }

  private async enter(step: Step, node: WorkflowNode): Promise<Next> {
    const s = step.s
    s.nodeId = node.id
    s.attempts = 0
    // Node ids may be "__proto__" or "toString": counted by own key, or a loop of them never ends.
    const visits = (Object.hasOwn(s.visits, node.id) ? (s.visits[node.id] as number) : 0) + 1
    Object.defineProperty(s.visits, node.id, { value: visits, enumerable: true, writable: true, configurable: true })
    step.visited.push(node.id)
    if (visits > this.maxVisits) return { finish: { action: 'loop_limit', nodeId: node.id } }
    switch (node.type) {
      case 'start':
      case 'say':
        if (node.config.text) this.say(step, node.id, node.config.text)
        return this.listens(node) ? { stay: true } : this.route(step, node, s.lastInput)
      case 'conversation':
        this.say(step, node.id, await this.llmReply(step, node))
        return { stay: true }
      case 'collect':
        this.say(step, node.id, node.config.prompt)
        return { stay: true }
      case 'condition':
        return this.route(step, node, s.lastInput)
      case 'tool':
        await this.runTool(step, node)
        return this.route(step, node, s.lastInput)
      case 'transfer':
        if (node.config.text) this.say(step, node.id, node.config.text)
        return { finish: { action: 'transfer', nodeId: node.id, target: node.config.target } }
      case 'end':
        if (node.config.text) this.say(step, node.id, node.config.text)
        return { finish: { action: 'end_call', nodeId: node.id } }
      case 'answer':
        // a question that led here is answered now; else the node waits for one
        if (!step.fresh || s.lastInput?.kind !== 'speech') return { stay: true }
        return this.answer(step, node, s.lastInput.text)
    }
  }

  private async onInput(step: Step, node: WorkflowNode, input: EngineInput): Promise<Next> {
    if (node.type === 'answer') {
      // its keyword, key and intent edges first ("goodbye"); any other question is answered
      const next = await this.route(step, node, input, true)
      step.understood = step.matched === true
      if (!('stay' in next) || input.kind !== 'speech') return next
      return this.answer(step, node, input.text)
    }
    let extracted = false
    if (node.type === 'collect') {
      const c = node.config
      const value = this.extract(node, input)
      if (value !== undefined) {
        extracted = true
        step.s.variables[c.variable] = value
      } else {
        step.s.attempts += 1
        const max = c.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
        if (step.s.attempts < max) {
          this.say(step, node.id, c.reprompt ?? `Sorry, I didn't get that. ${c.prompt}`)
          return { stay: true }
        }
        // Out of attempts: a value from an earlier visit must not pass for this answer.
        delete step.s.variables[c.variable]
      }
    }
    const next = await this.route(step, node, input)
    step.understood = extracted || step.matched === true
    if (!('stay' in next)) return next
    // Nothing matched the caller's answer: a conversation answers it, other nodes start over.
    if (node.type === 'conversation') {
      this.say(step, node.id, await this.llmReply(step, node))
      return next
    }
    return { enter: node.id }
  }

  private extract(node: Extract<WorkflowNode, { type: 'collect' }>, input: EngineInput): string | undefined {
    const c = node.config
    const text = input.kind === 'speech' ? input.text : input.digits
    switch (c.kind) {
      case 'digits':
        return extractDigits(text, c.minDigits ?? 1, c.maxDigits ?? 64)
      case 'yes_no':
        return extractYesNo(text)
      case 'date':
        return extractDate(text, this.opts.today())
      case 'email':
        return input.kind === 'speech' ? extractEmail(text) : undefined
      case 'text':
        return extractText(text)
      case 'regex':
        return extractRegex(text, c.pattern ?? '')
    }
  }

  /**
   * Takes the first edge, in the order given, whose condition holds; else the else edge. A node
   * that listens stays when nothing matches; one that does not has no route and ends the run.
   */
  private async route(step: Step, node: WorkflowNode, input: EngineInput | null, inputOnly = false): Promise<Next> {
    const all = this.outgoing.get(node.id) ?? []
    const edges = inputOnly ? all.filter((e) => e.condition && INPUT_CONDITIONS.includes(e.condition.type)) : all
    let intent: number | null | undefined
    for (const edge of edges) {
      const c = edge.condition
      if (!c || c.type === 'else') continue
      if (c.type === 'intent') {
        if (input?.kind !== 'speech') continue
        if (intent === undefined) intent = await this.judge(step, node, edges, edge, input.text)
        if (intent !== null && edges.filter((e) => e.condition?.type === 'intent')[intent] === edge) return this.took(step, edge.to)
        continue
      }
      if (matchesLocally(c, input, step.s.variables)) return this.took(step, edge.to)
    }
    step.matched = false
    if (inputOnly) return { stay: true }
    const fallback = edges.find((e) => !e.condition || e.condition.type === 'else')
    if (fallback) return { enter: fallback.to }
    return this.listens(node) ? { stay: true } : { finish: { action: 'no_route', nodeId: node.id } }
  }

  private took(step: Step, to: string): Next {
    step.matched = true
    return { enter: to }
  }

  private async judge(step: Step, node: WorkflowNode, edges: WorkflowEdge[], edge: WorkflowEdge, utterance: string): Promise<number | null> {
    const llm = this.opts.llm
    const name = edge.id ? `edge "${edge.id}"` : `edge ${node.id} -> ${edge.to}`
    if (!llm) {
      throw new WorkflowRunError('llm_not_configured', node.id, `${name} of node "${node.id}" has an intent condition, which needs an LLM, and no LLM is configured`, edge.id)
    }
    const intents = edges.flatMap((e) => (e.condition?.type === 'intent' ? [e.condition.intent] : []))
    try {
      const i = await judgeIntent(llm, { utterance, intents, history: step.s.history })
      return i !== null && Number.isInteger(i) && i >= 0 && i < intents.length ? i : null
    } catch (err) {
      throw new WorkflowRunError('llm_failed', node.id, `LLM intent check for node "${node.id}" failed: ${(err as Error).message}`, edge.id)
    }
  }

  private async llmReply(step: Step, node: Extract<WorkflowNode, { type: 'conversation' }>): Promise<string> {
    const llm = this.opts.llm
    if (!llm) throw new WorkflowRunError('llm_not_configured', node.id, `conversation node "${node.id}" needs an LLM, and no LLM is configured`)
    const instructions = fillTemplate(node.config.instructions, step.s.variables)
    let text: string
    try {
      text = (await conversationReply(llm, { instructions, history: step.s.history })).trim()
    } catch (err) {
      throw new WorkflowRunError('llm_failed', node.id, `LLM reply for conversation node "${node.id}" failed: ${(err as Error).message}`)
    }
    if (text === '') throw new WorkflowRunError('llm_failed', node.id, `LLM reply for conversation node "${node.id}" was empty`)
    return text
  }

  /** A failing tool does not end the call: its message lands in `tool_error` for the edges to test. */
  private async runTool(step: Step, node: Extract<WorkflowNode, { type: 'tool' }>): Promise<void> {
    const c = node.config
    const tools = this.opts.tools
    if (!tools) throw new WorkflowRunError('tool_not_available', node.id, `tool node "${node.id}" calls ${c.tool}, and no tool runner is available here`)
    const vars = step.s.variables
    const args: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(c.arguments ?? {})) args[k] = typeof v === 'string' ? fillTemplate(v, vars) : v
    let result: unknown
    try {
      result = await tools.run(c.tool, args, { nodeId: node.id, variables: structuredClone(vars) })
    } catch (err) {
      if (err instanceof WorkflowRunError) throw err
      vars.tool_error = stringify((err as Error).message ?? err)
      return
    }
    delete vars.tool_error
    if (c.saveAs) vars[c.saveAs] = result
    for (const [name, path] of Object.entries(c.assign ?? {})) vars[name] = readPath(result, path)
  }

  /**
   * Answers a caller's question from the knowledge bases: the best passage, when it scores at
   * least minScore, is said as it is (no {{variables}} filled into a document's text) and the
   * else edge, if any, is taken; otherwise the no_match edge.
   */
  private async answer(step: Step, node: Extract<WorkflowNode, { type: 'answer' }>, question: string): Promise<Next> {
    step.fresh = false
    // an agent that links no knowledge base has no answer: the no_match edge, as for any question
    const knowledge = this.opts.knowledge
    let hits: Awaited<ReturnType<KnowledgeSearch['search']>> = []
    try {
      if (knowledge) hits = await knowledge.search(question, { maxChars: node.config.maxChars ?? DEFAULT_ANSWER_CHARS })
    } catch (err) {
      throw new WorkflowRunError('knowledge_failed', node.id, `knowledge search for answer node "${node.id}" failed: ${(err as Error).message}`)
    }
    const edges = this.outgoing.get(node.id) ?? []
    const vars = step.s.variables
    const best = hits[0]
    if (!best || !best.spoken || best.score < (node.config.minScore ?? DEFAULT_MIN_SCORE)) {
      delete vars.answer
      delete vars.answer_source
      step.matched = false
      const miss = edges.find((e) => e.condition?.type === 'no_match')
      return miss ? { enter: miss.to } : { stay: true }
    }
    const spoken = best.spoken
    const source: AnswerSource = { passageId: best.passageId, documentName: best.documentName, section: best.section, score: best.score }
    vars.answer = spoken
    vars.answer_source = source.section ? `${source.documentName} > ${source.section}` : source.documentName
    step.responses.push({ nodeId: node.id, output: spoken, sources: [source] })
    this.remember(step.s, { role: 'assistant', content: spoken })
    step.matched = true
    step.understood = true
    const after = edges.find((e) => !e.condition || e.condition.type === 'else')
    return after ? { enter: after.to } : { stay: true }
  }
}
