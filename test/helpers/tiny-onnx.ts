/**
 * Writes small ONNX models from a list of nodes: enough protobuf (onnx.proto3 field numbers) to
 * give the real sherpa-onnx runtime models it accepts, built at test time instead of shipped.
 */

export type ElemType = 'float' | 'int64'
const ELEM: Record<ElemType, number> = { float: 1, int64: 7 }

export interface ValueInfo {
  name: string
  type: ElemType
  /** A number is a fixed size; a string a named, free dimension. */
  dims: (number | string)[]
}

export interface Initializer {
  name: string
  type: ElemType
  dims: number[]
  values: number[]
}

export interface OnnxNode {
  op: string
  inputs: string[]
  outputs: string[]
  attrs?: Record<string, number | number[]>
}

export interface OnnxGraph {
  inputs: ValueInfo[]
  outputs: ValueInfo[]
  nodes: OnnxNode[]
  initializers?: Initializer[]
  metadata?: Record<string, string | number>
  opset?: number
}

class Writer {
  private readonly parts: number[] = []
  varint(n: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(n))
    do {
      let byte = Number(v & 0x7fn)
      v >>= 7n
      if (v > 0n) byte |= 0x80
      this.parts.push(byte)
    } while (v > 0n)
    return this
  }
  tag(field: number, wire: number): this {
    return this.varint((field << 3) | wire)
  }
  int(field: number, n: number): this {
    return this.tag(field, 0).varint(n)
  }
  bytes(field: number, data: Uint8Array): this {
    this.tag(field, 2).varint(data.length)
    for (const b of data) this.parts.push(b)
    return this
  }
  string(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s))
  }
  message(field: number, build: (w: Writer) => void): this {
    const inner = new Writer()
    build(inner)
    return this.bytes(field, inner.done())
  }
  float(field: number, f: number): this {
    this.tag(field, 5)
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, f, true)
    for (const x of b) this.parts.push(x)
    return this
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts)
  }
}

function tensor(w: Writer, init: Initializer): void {
  for (const d of init.dims) w.int(1, d)
  w.int(2, ELEM[init.type])
  w.string(8, init.name)
  const raw = init.type === 'float' ? new Uint8Array(Float32Array.from(init.values).buffer) : new Uint8Array(BigInt64Array.from(init.values.map(BigInt)).buffer)
  w.bytes(9, raw)
}

function valueInfo(w: Writer, v: ValueInfo): void {
  w.string(1, v.name)
  w.message(2, (type) =>
    type.message(1, (t) => {
      t.int(1, ELEM[v.type])
      t.message(2, (shape) => {
        for (const d of v.dims) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)))
      })
    }),
  )
}

function node(w: Writer, n: OnnxNode, index: number): void {
  for (const i of n.inputs) w.string(1, i)
  for (const o of n.outputs) w.string(2, o)
  w.string(3, `${n.op.toLowerCase()}_${index}`)
  w.string(4, n.op)
  for (const [name, value] of Object.entries(n.attrs ?? {})) {
    w.message(5, (a) => {
      a.string(1, name)
      if (Array.isArray(value)) {
        for (const v of value) a.int(8, v)
        a.int(20, 7) // INTS
      } else if (Number.isInteger(value)) {
        a.int(3, value).int(20, 2) // INT
      } else {
        a.float(2, value).int(20, 1) // FLOAT
      }
    })
  }
}

/** The serialized ModelProto. */
export function onnxModel(g: OnnxGraph): Uint8Array {
  const w = new Writer()
  w.int(1, 8) // ir_version
  w.string(2, 'voice-agent-tests')
  w.message(7, (graph) => {
    g.nodes.forEach((n, i) => graph.message(1, (m) => node(m, n, i)))
    graph.string(2, 'g')
    for (const init of g.initializers ?? []) graph.message(5, (t) => tensor(t, init))
    for (const v of g.inputs) graph.message(11, (m) => valueInfo(m, v))
    for (const v of g.outputs) graph.message(12, (m) => valueInfo(m, v))
  })
  w.message(8, (op) => op.string(1, '').int(2, g.opset ?? 13))
  for (const [key, value] of Object.entries(g.metadata ?? {})) {
    w.message(14, (kv) => kv.string(1, key).string(2, String(value)))
  }
  return w.done()
}
