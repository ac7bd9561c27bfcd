// The call's transcript as the session keeps it: lines timed from the start of the call, the
// oldest dropped past MAX_TRANSCRIPT, and an agent line as far as the caller heard it.
import type { SpeechHandle } from '../turn/speech-handle.ts'
import type { ToolCallRecord, TranscriptItem, TranscriptSource } from './types.ts'

/** Lines a transcript keeps: the oldest go first. */
export const MAX_TRANSCRIPT = 2000
/** Tool calls a record keeps (the first ones), and the characters kept of each result. */
export const MAX_TOOL_CALLS = 200
export const MAX_TOOL_RESULT = 500

export class Transcript {
  private readonly items: TranscriptItem[] = []
  private readonly tools: ToolCallRecord[] = []

  constructor(
    private readonly startedAt: () => number,
    private readonly added: (item: TranscriptItem) => void,
  ) {}

  add(role: 'agent' | 'user', text: string, atMs: number, sources?: TranscriptSource[], interrupted = false): void {
    if (this.items.length >= MAX_TRANSCRIPT) this.items.shift()
    const item: TranscriptItem = { role, text, timestamp: Math.round(atMs - this.startedAt()) / 1000, ...(sources?.length ? { sources } : {}), ...(interrupted ? { interrupted: true as const } : {}) }
    this.items.push(item)
    this.added(item)
  }

  /**
   * An agent's speech once it ended: what was played (a line cut within its first word was still
   * heard once its voice went out), marked interrupted when it was cut; nothing if no audio left.
   */
  spoken(speech: SpeechHandle, firstFrameAt: number | undefined, voiced: boolean, sources?: TranscriptSource[]): void {
    if (firstFrameAt === undefined) return
    const cut = speech.state === 'interrupted'
    const text = speech.playedText || (cut && voiced ? speech.begunText : '')
    if (text) this.add('agent', text, firstFrameAt, sources, cut)
  }

  tool(name: string, args: string, result: string, atMs: number): void {
    if (this.tools.length >= MAX_TOOL_CALLS) return
    let parsed: unknown = args
    try {
      parsed = JSON.parse(args || '{}')
    } catch {}
    this.tools.push({ name, arguments: parsed, result: result.slice(0, MAX_TOOL_RESULT), at: Math.round(atMs - this.startedAt()) / 1000 })
  }

  toolCalls(): ToolCallRecord[] {
    return [...this.tools]
  }

  /** In the order said. */
  lines(): TranscriptItem[] {
    return [...this.items].sort((a, b) => a.timestamp - b.timestamp)
  }
}
