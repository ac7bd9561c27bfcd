// What a phone reports for one call: every time is the phone's own clock (ms, performance.timeOrigin
// based, so the phones' and the bench's clocks agree), taken when the packet was sent or arrived.

export interface StepLog {
  id: string
  kind: 'turn' | 'backchannel'
  /** First frame of the step sent. */
  startAt: number
  /** The step's first and last voiced frames as sent. */
  firstVoicedAt: number
  lastVoicedAt: number
  /** What made the phone speak: the agent's answer was over, or the agent was this far into an utterance, or a wait ran out. */
  trigger: 'after_answer' | 'into_agent' | 'no_answer' | 'timeout'
  /** The most any of the step's frames went out after its 20 ms slot: the phones' process was kept off the CPU this long. */
  sendLateMaxMs: number
}

export interface PhoneLog {
  /** The bench's id of the call (also the SIP From user, which the call record shows as `from`). */
  id: string
  /** A web call's record id (its record's `from` is the API key's user, not the bench's id). */
  callId?: string
  ok: boolean
  error?: string
  /** 200 OK to the INVITE received (a web call: ICE and DTLS connected); the first RTP packet sent. */
  answeredAt: number
  rtpStartAt: number
  steps: StepLog[]
  /** Every RTP packet received: arrival time and the level of its 20 ms of audio (dBFS). */
  rx: { at: number[]; db: number[] }
  /** Who hung up. */
  hungUpBy: 'agent' | 'caller' | 'none'
  endedAt: number
}
