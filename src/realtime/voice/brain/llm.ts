// The LLM runs the conversation: history, tool rounds, the reply streamed sentence by sentence
// into the host's speech, and what the caller actually heard of each reply.
import type { ChatMessage, ChatRequest, Llm } from '../llm/contract.ts'
import { streamReply } from '../reply.ts'
import { endMessage, runTool } from '../session/tools.ts'
import { type AgentProfile, type Brain, type BrainHost, END_CALL_TOOL, type TranscriptSource, type TurnContext } from '../session/types.ts'
import type { SpeechHandle } from '../turn/speech-handle.ts'
import { Preemption } from './preempt.ts'

const MAX_HISTORY = 40
const MAX_TOOL_ROUNDS = 3
/** A spoken reply is short; this also bounds the audio one reply can queue. */
const MAX_REPLY_TOKENS = 400

type Said = { role: 'assistant'; content: string }

/** The agent's prompt, opening, goodbye line and tools, answered by `llm`. */
export function llmBrain(llm: Llm, agent: AgentProfile): Brain {
  return new LlmBrain(llm, agent)
}

class LlmBrain implements Brain {
  readonly kind = 'llm' as const
  readonly answersKeys = false
  private host!: BrainHost
  private readonly history: ChatMessage[] = []
  private replying: Promise<void> | undefined
  private stopped = false
  /** The reply requested for the caller's words while their endpoint was pending. */
  private preempted: Preemption | undefined
  /** Lines still playing, whose history entry an interruption cuts. */
  private playing: { speech: SpeechHandle; message: Said }[] = []
  /** Passages found for the reply being made (a tool, the turn's context): its speech names them. */
  private cited: TranscriptSource[] = []
  /** The turn context of the last words looked up, shared by their preview and their turn. */
  private looked: { text: string; context: Promise<TurnContext | undefined> } | undefined

  constructor(
    private readonly llm: Llm,
    private readonly agent: AgentProfile,
  ) {}

  get busy(): boolean {
    return this.replying !== undefined
  }

  start(host: BrainHost): void {
    this.host = host
    const a = this.agent
    if (a.firstSpeaker !== 'agent' || !a.welcomeMessage.trim()) return
    const message: Said = { role: 'assistant', content: host.fill(a.welcomeMessage) }
    this.history.push(message)
    void host.say(a.welcomeMessage, { interruptible: a.welcomeInterruptible ?? true }).then(({ speech }) => this.heard(speech, message))
  }

  onDtmf(): void {}

  /** A supervisor's guidance joins the history: the next request carries it. */
  note(text: string): void {
    this.history.push({ role: 'system', content: `Guidance from a supervisor of this call (never read it out): ${text}` })
  }

  stop(): void {
    this.stopped = true
    this.discard()
  }

  /**
   * Preemptive generation: the reply to `text` is requested now, while the caller may still go
   * on; the turn, if it comes with the same words and history, streams from it. Its first
   * sentence is the preview (synthesised ahead by the session).
   */
  async preview(text: string): Promise<{ reply: string } | undefined> {
    if (this.stopped || this.replying) return undefined
    const context = await this.contextOf(text)
    if (this.stopped || this.replying) return undefined
    const request = this.request([...this.history, { role: 'user', content: text }, ...(context ? [note(context)] : [])])
    const key = JSON.stringify(request.messages)
    if (this.preempted?.key !== key) {
      this.discard()
      this.preempted = new Preemption(this.llm, key, request)
    }
    return this.preempted.firstSentence.then((reply) => (reply ? { reply } : undefined))
  }

  onUserTurn(text: string): void {
    this.history.push({ role: 'user', content: text })
    const previous = this.replying ?? Promise.resolve()
    const idle = !this.replying
    const run = previous
      .then(async () => {
        const context = await this.contextOf(text)
        if (context) {
          this.history.push(note(context))
          this.cited.push(...context.sources)
        }
        const request = this.request(this.history)
        const ahead = idle && this.preempted?.key === JSON.stringify(request.messages) ? this.preempted : undefined
        if (ahead) this.preempted = undefined
        else this.discard()
        return this.respond(ahead)
      })
      // a bug must not leave the caller in silence either
      .catch((err) => this.host.fail('session', (err as Error).message))
    this.replying = run
    void run.finally(() => {
      if (this.replying === run) this.replying = undefined
    })
  }

  /** The agent's turn context for `text`, looked up once for its preview and its turn. */
  private contextOf(text: string): Promise<TurnContext | undefined> {
    const lookup = this.agent.turnContext
    if (!lookup) return Promise.resolve(undefined)
    if (this.looked?.text !== text) this.looked = { text, context: lookup(text).catch(() => undefined) }
    return this.looked.context
  }

  /** An interrupted line stays in the history as far as the caller heard it. */
  private heard(speech: SpeechHandle, message: Said): void {
    this.playing.push({ speech, message })
    void speech.done.then(() => this.settle())
  }

  /** Lines interrupted by now are cut to what was heard (a request built now must see that). */
  private settle(): void {
    for (const { speech, message } of this.playing) if (speech.state === 'interrupted') message.content = speech.playedText
    this.playing = this.playing.filter(({ speech }) => speech.state === 'speaking')
  }

  /** A reply thrown away still cost what the provider reported for it. */
  private discard(): void {
    const p = this.preempted
    if (!p) return
    this.preempted = undefined
    p.close()
    const usage = p.usage
    if (usage && this.host) this.host.usage.llm.push({ model: this.llm.model, ...usage })
  }

  private request(history: ChatMessage[]): ChatRequest {
    this.settle()
    const tools = [END_CALL_TOOL, ...this.agent.tools.map((t) => t.spec)]
    return { messages: [{ role: 'system', content: this.host.fill(this.agent.systemPrompt) }, ...history.slice(-MAX_HISTORY)], tools, maxTokens: MAX_REPLY_TOKENS }
  }

  private async respond(ahead?: Preemption): Promise<void> {
    if (this.stopped) return ahead?.close()
    const own = this.agent.tools
    const host = this.host
    const cite = (sources: TranscriptSource[]) => this.cited.push(...sources)
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      const sources = this.cited.splice(0)
      const out = host.speak(true, sources)
      const speech = out.speech
      const llm = round === 0 && ahead ? ahead.asLlm() : this.llm
      const r = await streamReply({
        llm,
        request: this.request(this.history),
        tts: out.tts,
        speech,
        onAudio: (f) => out.play(f),
        now: host.now,
      })
      out.flush()
      host.usage.llm.push({ model: llm.model, inputTokens: r.inputTokens, outputTokens: r.outputTokens, ...(r.cachedInputTokens ? { cachedInputTokens: r.cachedInputTokens } : {}) })
      if (r.ttsCharacters > 0) host.usage.tts.push({ provider: out.tts.provider, characters: r.ttsCharacters, audioMs: r.ttsAudioMs })
      if (round === 0) host.noteLatency({ llmTtftMs: r.llmTtftMs, ttsTtfbMs: r.ttsTtfbMs })
      if (r.outcome === 'failed') {
        speech.interrupt()
        await host.fail(r.error?.provider ?? llm.provider, r.error?.message ?? 'the reply failed')
        return
      }
      if (r.outcome === 'interrupted') {
        this.history.push({ role: 'assistant', content: speech.playedText })
        return
      }
      const message = { role: 'assistant' as const, content: r.text, ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}) }
      this.history.push(message)
      this.heard(speech, message)
      if (r.toolCalls.length === 0) return
      const end = r.toolCalls.find((c) => c.name === END_CALL_TOOL.name)
      if (end) {
        await speech.done
        // say goodbye: the tool's message, else the agent's line when the model said nothing
        // the round's passages go with its words, or with the goodbye when the model said none
        await host.end('agent_hangup', endMessage(end) ?? (r.text.trim() ? undefined : host.fill(this.agent.goodbyeMessage)), r.text.trim() ? undefined : sources)
        return
      }
      for (const call of r.toolCalls) {
        // a transfer must not cut off what the agent is saying about it
        if (own.find((t) => t.spec.name === call.name)?.afterSpeech) await speech.done
        const result = await runTool(own, call, cite)
        host.noteTool(call.name, call.arguments, result)
        this.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result })
      }
      if (speech.state === 'interrupted' || this.stopped) return
    }
  }
}

/** Passages looked up for the caller's turn, as a note before the LLM answers it. */
const note = (context: TurnContext): ChatMessage => ({ role: 'system', content: context.note })
