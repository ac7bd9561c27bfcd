// Converts between RTP payloads and the voice engine's 16 kHz mono PCM for the negotiated codec,
// with loss concealment at the codec's own rate so resampler state stays continuous.

import type { CodecName } from '../../telephony/sdp/index.ts'
import { createResampler, decodeG711, encodeG711, OpusCodec, type G711Law } from '../codec/index.ts'
import { FadeConcealer } from './concealment.ts'

export const ENGINE_RATE = 16000

export interface AudioCodec {
  readonly name: string
  /** RTP clock rate in Hz. */
  readonly clockRate: number
  // Results may be views of the codec's own buffers: use them before the next call.
  /** 16 kHz PCM -> one RTP payload. */
  encode(pcm16k: Int16Array): Uint8Array
  /** One RTP payload -> 16 kHz PCM. */
  decode(payload: Uint8Array): Int16Array
  /** Replacement audio for `rtpSamples` lost samples (RTP clock units), at 16 kHz. */
  conceal(rtpSamples: number): Int16Array
  /** Frees native state (resamplers in wasm memory). */
  close(): void
}

export class G711Codec implements AudioCodec {
  readonly clockRate = 8000
  private readonly up = createResampler(8000, ENGINE_RATE)
  private readonly down = createResampler(ENGINE_RATE, 8000)
  private readonly concealer = new FadeConcealer(8000)

  constructor(readonly law: G711Law) {}

  get name(): string {
    return this.law === 'ulaw' ? 'PCMU' : 'PCMA'
  }
  private encoded = new Uint8Array(160)
  private decoded = new Int16Array(160)
  private zeroFrames = 0
  private silence: Uint8Array | undefined

  encode(pcm16k: Int16Array): Uint8Array {
    // An idle agent sends silence most of the call. Zeros through the FIR give zeros once its
    // history holds only zeros (within three frames even at 10 ms), and 2:1 leaves no fractional
    // phase, so after three silent frames the packet is the encoded silence seen last time.
    const silent = isSilent(pcm16k)
    this.zeroFrames = silent ? this.zeroFrames + 1 : 0
    if (this.zeroFrames > 3 && this.silence?.length === pcm16k.length / 2) return this.silence
    const pcm8k = this.down.processView(pcm16k)
    if (this.encoded.length !== pcm8k.length) this.encoded = new Uint8Array(pcm8k.length)
    const out = encodeG711(this.law, pcm8k, this.encoded)
    if (this.zeroFrames >= 3) this.silence = isSilent(pcm8k) ? out.slice() : undefined
    return out
  }
  decode(payload: Uint8Array): Int16Array {
    if (this.decoded.length !== payload.length) this.decoded = new Int16Array(payload.length)
    const pcm = decodeG711(this.law, payload, this.decoded)
    this.concealer.good(pcm)
    return this.up.processView(pcm)
  }
  conceal(rtpSamples: number): Int16Array {
    return this.up.processView(this.concealer.conceal(rtpSamples))
  }
  close(): void {
    this.up.close()
    this.down.close()
  }
}

function isSilent(pcm: Int16Array): boolean {
  for (let i = 0; i < pcm.length; i++) if (pcm[i] !== 0) return false
  return true
}

export class OpusAudioCodec implements AudioCodec {
  readonly name = 'opus'
  readonly clockRate = 48000
  private readonly codec = new OpusCodec(ENGINE_RATE)
  private readonly concealer = new FadeConcealer(ENGINE_RATE)

  encode(pcm16k: Int16Array): Uint8Array {
    return this.codec.encode(pcm16k)
  }
  decode(payload: Uint8Array): Int16Array {
    let pcm: Int16Array
    try {
      pcm = this.codec.decode(payload)
    } catch {
      return this.conceal(960)
    }
    this.concealer.good(pcm)
    return pcm
  }
  conceal(rtpSamples: number): Int16Array {
    const samples = Math.round((rtpSamples * ENGINE_RATE) / this.clockRate)
    try {
      return this.codec.conceal(samples)
    } catch {
      return this.concealer.conceal(samples)
    }
  }
  close(): void {}
}

/**
 * 16 kHz 16-bit mono PCM as little-endian bytes: the media-stream WebSocket's binary frames. It
 * never travels in RTP, whose L16 (RFC 3551) is big-endian, and SIP never offers it.
 */
export class L16Codec implements AudioCodec {
  readonly name = 'L16'
  readonly clockRate = ENGINE_RATE
  private readonly concealer = new FadeConcealer(ENGINE_RATE)
  private bytes = new Uint8Array(640)
  private pcm = new Int16Array(320)

  encode(pcm16k: Int16Array): Uint8Array {
    if (this.bytes.length !== pcm16k.length * 2) this.bytes = new Uint8Array(pcm16k.length * 2)
    const view = new DataView(this.bytes.buffer)
    for (let i = 0; i < pcm16k.length; i++) view.setInt16(2 * i, pcm16k[i]!, true)
    return this.bytes
  }
  /** An odd last byte (half a sample) is dropped. */
  decode(payload: Uint8Array): Int16Array {
    const n = payload.length >> 1
    if (this.pcm.length !== n) this.pcm = new Int16Array(n)
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength)
    for (let i = 0; i < n; i++) this.pcm[i] = view.getInt16(2 * i, true)
    this.concealer.good(this.pcm)
    return this.pcm
  }
  conceal(rtpSamples: number): Int16Array {
    return this.concealer.conceal(rtpSamples)
  }
  close(): void {}
}

export function createAudioCodec(name: CodecName): AudioCodec {
  if (name === 'opus') return new OpusAudioCodec()
  if (name === 'L16') return new L16Codec()
  return new G711Codec(name === 'PCMU' ? 'ulaw' : 'alaw')
}
