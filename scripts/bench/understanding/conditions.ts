// How the caller's audio reaches the agent. `wide` is 16 kHz PCM over a media stream (the only
// 16 kHz path into a call that carries PCM: GET /api/agents/{id}/media-stream?format=pcm16).
// Every other condition is a SIP call whose audio was band-limited to the phone band at 8 kHz
// (sox rate 8k, sinc 300-3400) and which the caller encodes as G.711 μ-law or A-law; packet loss
// is applied on the wire by the caller, noise is mixed in at a set SNR before encoding.

export type NoiseKind = 'pink' | 'babble' | 'street'
export const NOISE_KINDS: NoiseKind[] = ['pink', 'babble', 'street']

export interface Condition {
  id: string
  transport: 'stream' | 'sip'
  codec: 'pcm16' | 'pcmu' | 'pcma'
  /** Share of RTP packets the caller does not send (seeded per call). */
  loss?: number
  noise?: { kind: NoiseKind; snrDb: number }
}

export const CONDITIONS: Condition[] = [
  { id: 'wide', transport: 'stream', codec: 'pcm16' },
  { id: 'pcmu', transport: 'sip', codec: 'pcmu' },
  { id: 'pcma', transport: 'sip', codec: 'pcma' },
  { id: 'pcmu-loss1', transport: 'sip', codec: 'pcmu', loss: 0.01 },
  { id: 'pcmu-loss3', transport: 'sip', codec: 'pcmu', loss: 0.03 },
  ...NOISE_KINDS.flatMap((kind) => [20, 15, 10].map((snrDb): Condition => ({ id: `pcmu-${kind}${snrDb}`, transport: 'sip', codec: 'pcmu', noise: { kind, snrDb } }))),
]

export const CONDITION_IDS = CONDITIONS.map((c) => c.id)
export const conditionOf = (id: string) => CONDITIONS.find((c) => c.id === id)

/** Conditions the SIPp recording is played in: it is phone audio already (8 kHz A-law), so no 16 kHz and no mixing. */
export const HUMAN_CONDITIONS = ['pcmu', 'pcma', 'pcmu-loss1', 'pcmu-loss3']
