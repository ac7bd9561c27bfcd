// The media benchmark's far end (scripts/bench/media-peer.ts) as a separate process, so timing
// is measured outside the process under test, as SIPp would.
import { join } from 'node:path'
import { JsonLinesChild } from '../../scripts/bench/json-lines-child.ts'

export class FarPeer extends JsonLinesChild {
  constructor() {
    super(join(import.meta.dir, '../../scripts/bench/media-peer.ts'))
  }
}
