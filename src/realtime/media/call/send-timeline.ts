// Where each outgoing packet sits on the RTP timeline. A packet normally carries the media
// clock's timestamp of its slot. A talk-spurt that starts while the agent was silent need not
// wait for the next slot: its first packet goes out at once with that slot's timestamp, so the
// stream runs one packet ahead of the clock for the rest of the talk-spurt (the 20 ms spacing
// between its packets stays). RFC 3550 (5.1) lets the timestamp jump at a talk-spurt but never go
// back, so the lead is given back in the next pause: one silent slot is not sent.

/** Silent packets in a row before a slot is skipped to give the lead back (200 ms at 20 ms). */
export const GIVE_BACK_AFTER_SILENT = 10

export type SlotDecision = { send: true; timestamp: number } | { send: false }

export class SendTimeline {
  /** How far (in RTP timestamp units) the stream runs ahead of the media clock. */
  private leadTs = 0
  private silentRun = 0

  get ahead(): boolean {
    return this.leadTs > 0
  }

  /**
   * An early talk-spurt start may go out now when the stream is not already ahead. Returns the
   * timestamp to send it with: the one of the next slot, `nextSlotTs`.
   */
  early(nextSlotTs: number, packetTs: number): number | undefined {
    if (this.leadTs > 0) return undefined
    this.leadTs = packetTs
    this.silentRun = 0
    return nextSlotTs
  }

  /**
   * The packet due on a slot whose clock timestamp is `clockTs`; `audio` says whether it carries
   * the agent's audio (or a DTMF event) rather than silence. A skipped slot sends nothing.
   */
  slot(clockTs: number, audio: boolean): SlotDecision {
    this.silentRun = audio ? 0 : this.silentRun + 1
    if (this.leadTs > 0 && this.silentRun >= GIVE_BACK_AFTER_SILENT) {
      this.giveBack()
      return { send: false }
    }
    return { send: true, timestamp: clockTs + this.leadTs }
  }

  /** Nothing is sent (hold): the next packet after it takes the clock's timestamp again. */
  pause(): boolean {
    if (this.leadTs === 0) return false
    this.giveBack()
    return true
  }

  private giveBack(): void {
    this.leadTs = 0
    this.silentRun = 0
  }
}
