import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/**
 * The `metadata_props` of an ONNX file (ModelProto field 14), read without loading the model:
 * top-level fields are skipped by their lengths, so the weights (inside the graph) are never read.
 * Throws on a file that is not protobuf-shaped.
 */
export function readOnnxMetadata(path: string): Record<string, string> {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const head = Buffer.alloc(20)
    const meta: Record<string, string> = {}
    let pos = 0
    while (pos < size) {
      const n = readSync(fd, head, 0, head.length, pos)
      const tag = varint(head, 0, n)
      const field = Number(tag.value >> 3n)
      const wire = Number(tag.value & 7n)
      pos += tag.length
      if (field === 0) throw new Error('not an ONNX file (bad field number)')
      if (wire === 0) {
        pos += varint(head, tag.length, n).length
      } else if (wire === 1) pos += 8
      else if (wire === 5) pos += 4
      else if (wire === 2) {
        const len = varint(head, tag.length, n)
        pos += len.length
        const bytes = Number(len.value)
        if (pos + bytes > size) throw new Error('not an ONNX file (field runs past the end)')
        if (field === 14) {
          const entry = Buffer.alloc(bytes)
          readSync(fd, entry, 0, bytes, pos)
          const { key, value } = stringPair(entry)
          meta[key] = value
        }
        pos += bytes
      } else throw new Error(`not an ONNX file (wire type ${wire})`)
    }
    return meta
  } finally {
    closeSync(fd)
  }
}

function varint(buf: Buffer, at: number, end: number): { value: bigint; length: number } {
  let value = 0n
  for (let i = at, shift = 0n; i < end && shift < 70n; i++, shift += 7n) {
    const byte = buf[i]!
    value |= BigInt(byte & 0x7f) << shift
    if ((byte & 0x80) === 0) return { value, length: i - at + 1 }
  }
  throw new Error('not an ONNX file (truncated varint)')
}

/** StringStringEntryProto: key = 1, value = 2. */
function stringPair(buf: Buffer): { key: string; value: string } {
  const out = { key: '', value: '' }
  let pos = 0
  while (pos < buf.length) {
    const tag = varint(buf, pos, buf.length)
    pos += tag.length
    const len = varint(buf, pos, buf.length)
    pos += len.length
    const text = buf.toString('utf8', pos, pos + Number(len.value))
    pos += Number(len.value)
    if (tag.value === 10n) out.key = text
    else if (tag.value === 18n) out.value = text
  }
  return out
}
