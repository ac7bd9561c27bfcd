// The far-end phones, in a process of their own so their work is not charged to the appliance.
// Protocol on stdin/stdout, one JSON object per line:
//   (on start, once the caller audio is made) -> { ready: true }
//   { cmd: 'floor', echoPort, streams, durationMs } -> { floor: number[] }   round trips, ms
//   { cmd: 'calls', transport: 'sip' | 'web', sipPort, user, web?: { url, key, agentId }, lines: [{ ids, delayMs }], deadlineMs }
//     -> { call: PhoneLog } per call, then { done: true }
//     (each line waits delayMs, then places its calls one after the other; SIP phones call
//     sipPort's number `user`, web callers the agent through the HTTP API at `web`)
//   { cmd: 'exit' }
import { stepAudio } from './audio.ts'
import { measureFloor } from './floor.ts'
import type { PhoneLog } from './log.ts'
import { runPhone } from './phone.ts'
import { CALLER } from './script.ts'
import { opusAudio, runWebPhone, type WebTarget } from './web-phone.ts'

const audio = CALLER.map((step, i) => stepAudio(step, i + 1).frames)
const opus = opusAudio(audio)
const say = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`)
say({ ready: true })

interface Calls {
  transport?: 'sip' | 'web'
  sipPort: number
  user: string
  web?: WebTarget
  lines: { ids: string[]; delayMs: number }[]
  deadlineMs: number
}

function call(m: Calls, id: string): Promise<PhoneLog> {
  if (m.transport !== 'web') return runPhone({ id, sipPort: m.sipPort, user: m.user, steps: CALLER, audio, deadlineMs: m.deadlineMs })
  if (!m.web) throw new Error('web calls need { url, key, agentId }')
  return runWebPhone({ id, target: m.web, steps: CALLER, audio, opus, deadlineMs: m.deadlineMs })
}

async function calls(m: Calls): Promise<void> {
  await Promise.all(
    m.lines.map(async (line) => {
      await Bun.sleep(line.delayMs) // the line's place in the stagger
      for (const id of line.ids) say({ call: await call(m, id) })
    }),
  )
  say({ done: true })
}

const decoder = new TextDecoder()
let buffered = ''
for await (const chunk of Bun.stdin.stream()) {
  buffered += decoder.decode(chunk)
  let nl: number
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buffered.slice(0, nl))
    buffered = buffered.slice(nl + 1)
    if (msg.cmd === 'floor') say({ floor: await measureFloor(msg.echoPort, msg.streams, msg.durationMs) })
    else if (msg.cmd === 'calls') void calls(msg)
    else if (msg.cmd === 'exit') process.exit(0)
  }
}
process.exit(0)
