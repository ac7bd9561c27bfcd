// A stereo call recording (caller left, agent right) streamed to disk while the call runs.
// Both channels are fed on the same media clock; whatever one channel lacks when the other
// has audio is written as silence at close, so the two stay time-aligned.

import { open, type FileHandle } from 'node:fs/promises'
import { WAV_HEADER_BYTES, wavHeader } from './wav.ts'

export class StereoRecorder {
  private left: Int16Array
  private right: Int16Array
  private leftLen = 0
  private rightLen = 0
  private dataBytes = 0
  private writing: Promise<void> = Promise.resolve()
  private failed: Error | undefined
  private closed = false

  private constructor(
    private readonly fh: FileHandle,
    readonly path: string,
    readonly sampleRate: number,
    private readonly flushSamples: number,
  ) {
    this.left = new Int16Array(flushSamples * 2)
    this.right = new Int16Array(flushSamples * 2)
  }

  /** Creates the file with a provisional header (sizes 0 until close or start-up repair). */
  static async create(path: string, sampleRate = 16000, flushMs = 250): Promise<StereoRecorder> {
    const fh = await open(path, 'wx', 0o600) // recordings are readable by the appliance's user only
    await fh.write(wavHeader(sampleRate, 2, 0), 0, WAV_HEADER_BYTES, 0)
    return new StereoRecorder(fh, path, sampleRate, Math.round((sampleRate * flushMs) / 1000))
  }

  get durationMs(): number {
    return (this.dataBytes / 4 / this.sampleRate) * 1000
  }

  /** Copies `pcm` at once; the caller may reuse its buffer. */
  writeLeft(pcm: Int16Array): void {
    if (this.closed) return
    this.left = append(this.left, this.leftLen, pcm)
    this.leftLen += pcm.length
    this.maybeFlush()
  }

  writeRight(pcm: Int16Array): void {
    if (this.closed) return
    this.right = append(this.right, this.rightLen, pcm)
    this.rightLen += pcm.length
    this.maybeFlush()
  }

  /** Writes what is left (padding the shorter channel), fixes the header and closes the file. */
  async close(): Promise<{ path: string; durationMs: number }> {
    if (!this.closed) {
      this.closed = true
      this.flush(Math.max(this.leftLen, this.rightLen))
      this.writing = this.writing.then(async () => {
        await this.fh.write(wavHeader(this.sampleRate, 2, this.dataBytes), 0, WAV_HEADER_BYTES, 0)
        await this.fh.close()
      })
    }
    await this.writing
    if (this.failed) throw this.failed
    return { path: this.path, durationMs: this.durationMs }
  }

  private flushScheduled = false

  /** Interleaving a second of audio is deferred out of the media tick that filled it. */
  private maybeFlush(): void {
    if (this.flushScheduled || Math.min(this.leftLen, this.rightLen) < this.flushSamples) return
    this.flushScheduled = true
    setImmediate(() => {
      this.flushScheduled = false
      if (!this.closed) this.flush(Math.min(this.leftLen, this.rightLen))
    })
  }

  /** The last flush's buffer once its write is done, so a running call allocates none per flush. */
  private spare: Int16Array | undefined

  private flush(frames: number): void {
    if (frames === 0) return
    const spare = this.spare
    this.spare = undefined
    const buffer = spare && spare.length >= frames * 2 ? spare : new Int16Array(Math.max(frames, Math.ceil(this.flushSamples * 1.25)) * 2)
    const out = buffer.subarray(0, frames * 2)
    for (let i = 0; i < frames; i++) {
      out[2 * i] = i < this.leftLen ? this.left[i]! : 0
      out[2 * i + 1] = i < this.rightLen ? this.right[i]! : 0
    }
    this.left.copyWithin(0, Math.min(frames, this.leftLen), this.leftLen)
    this.right.copyWithin(0, Math.min(frames, this.rightLen), this.rightLen)
    this.leftLen = Math.max(0, this.leftLen - frames)
    this.rightLen = Math.max(0, this.rightLen - frames)
    const position = WAV_HEADER_BYTES + this.dataBytes
    this.dataBytes += out.byteLength
    const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
    this.writing = this.writing.then(async () => {
      if (this.failed) return
      try {
        await this.fh.write(bytes, 0, bytes.length, position)
        this.spare = buffer
      } catch (err) {
        this.failed = err as Error
      }
    })
  }
}

function append(buf: Int16Array, len: number, pcm: Int16Array): Int16Array {
  if (len + pcm.length > buf.length) {
    const bigger = new Int16Array(Math.max(buf.length * 2, len + pcm.length))
    bigger.set(buf.subarray(0, len))
    buf = bigger
  }
  buf.set(pcm, len)
  return buf
}
