import type { RunState } from '../engine/contracts.ts'
import type { WorkflowGraph } from '../workflow.model.ts'

/**
 * Keys arrive one RFC 4733 event at a time; the engine wants a whole answer ("4129", "1").
 * This decides, from the node the run waits on, when the keys pressed so far are complete.
 */
export interface DigitExpectation {
  /** Complete once this many keys were pressed. */
  maxDigits: number
  /** `#` ends the entry early (and is not part of it) unless `#` itself is a menu choice. */
  hashTerminates: boolean
}

const OPEN_ENDED = 32

export function digitExpectation(graph: WorkflowGraph, state: RunState): DigitExpectation {
  const node = graph.nodes.find((n) => n.id === state.nodeId)
  if (node?.type === 'collect') {
    const c = node.config
    if (c.kind === 'yes_no') return { maxDigits: 1, hashTerminates: false }
    if (c.kind === 'digits') return { maxDigits: c.maxDigits ?? OPEN_ENDED, hashTerminates: true }
    return { maxDigits: OPEN_ENDED, hashTerminates: true }
  }
  const choices = graph.edges.flatMap((e) => (e.from === state.nodeId && e.condition?.type === 'dtmf' ? [e.condition.digits] : []))
  if (choices.length === 0) return { maxDigits: 1, hashTerminates: false }
  return { maxDigits: Math.max(...choices.map((d) => d.length)), hashTerminates: !choices.some((d) => d.includes('#')) }
}

/** Collects keys until the expectation is met; `flush` gives what there is when the caller pauses. */
export class DigitBuffer {
  private digits = ''

  get pending(): string {
    return this.digits
  }

  /** Adds one key; returns the complete entry when this key completes it. */
  push(key: string, expect: DigitExpectation): string | undefined {
    if (key === '#' && expect.hashTerminates) return this.flush() ?? undefined
    this.digits += key
    if (this.digits.length >= expect.maxDigits) return this.flush()
    return undefined
  }

  flush(): string | undefined {
    const out = this.digits
    this.digits = ''
    return out === '' ? undefined : out
  }
}
