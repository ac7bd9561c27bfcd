// Media streams: a program talks with an agent over a WebSocket in Twilio Media Streams' shape
// (docs/media-stream.md). Before the upgrade the agent is looked up in the caller's workspace and
// a place is taken under WEB_CALLS_MAX; the session then runs the call as type `stream`.
import { snapshotAgent } from '../../agents/index.ts'
import type { Principal } from '../../api-keys/principal.ts'
import type { Db } from '../../../platform/db/index.ts'
import { CallRefused } from '../../calls/index.ts'
import type { Logger } from '../../../platform/log.ts'
import type { AppCallHost, AppCallSlots } from '../app-calls.ts'
import type { StreamFormat } from './protocol.ts'
import { StreamSession } from './session.ts'

export interface MediaStreamsDeps {
  db: Db
  log: Logger
  host: () => AppCallHost | undefined
  /** WEB_CALLS_MAX, shared with web calls. */
  slots: AppCallSlots
}

export class MediaStreams {
  constructor(private readonly d: MediaStreamsDeps) {}

  /**
   * A session for a socket about to be upgraded; refused (before the upgrade) when calls are not
   * running, this node is full, or the agent is not in the caller's workspace. If the upgrade
   * fails, `session.closed()` gives its place back.
   */
  async prepare(principal: Principal, agentId: string, opts: { format: StreamFormat; draft: boolean; remote: { address: string; port: number } }): Promise<StreamSession> {
    const host = this.d.host()
    if (!host) throw new CallRefused('starting')
    const slot = this.d.slots.take(principal.workspaceId, 'stream')
    let ticket
    try {
      ticket = await host.admit(principal.workspaceId, 'stream')
    } catch (err) {
      slot()
      throw err
    }
    const release = () => (slot(), ticket.release())
    try {
      const agent = await snapshotAgent(this.d.db, agentId, { workspaceId: principal.workspaceId, draft: opts.draft })
      return new StreamSession({
        format: opts.format,
        agent,
        from: principal.userId,
        workspaceId: principal.workspaceId,
        draft: opts.draft,
        remote: opts.remote,
        startCall: (req) => {
          const h = this.d.host()
          if (!h) return Promise.reject(new CallRefused('starting'))
          return h.startAppCall({ ...req, ticket })
        },
        log: this.d.log,
        onDone: release,
      })
    } catch (err) {
      release()
      throw err
    }
  }
}
