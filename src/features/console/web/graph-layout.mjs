// Pure: places a workflow graph in layers (longest path from start, cycles ignored) so it can be
// drawn with no layout library. Returns node boxes, edge paths and label boxes in pixels.
export const BOX = { w: 150, h: 44, gapX: 40, gapY: 72 }
/** A label's box: 11 px text, about 6.2 px a character, padded. */
export const LABEL = { charW: 6.2, padX: 8, h: 16 }

export function layoutGraph(graph) {
  const nodes = graph.nodes ?? []
  const edges = (graph.edges ?? []).filter((e) => nodes.some((n) => n.id === e.from) && nodes.some((n) => n.id === e.to))
  const start = nodes.find((n) => n.type === 'start') ?? nodes[0]
  const depth = new Map()
  if (start) {
    // breadth-first: a node's layer is the first time it is reached, so back edges do not stretch the drawing
    depth.set(start.id, 0)
    const queue = [start.id]
    while (queue.length) {
      const id = queue.shift()
      for (const e of edges) if (e.from === id && !depth.has(e.to)) {
        depth.set(e.to, depth.get(id) + 1)
        queue.push(e.to)
      }
    }
  }
  const maxDepth = Math.max(-1, ...depth.values())
  for (const n of nodes) if (!depth.has(n.id)) depth.set(n.id, maxDepth + 1)
  const layers = []
  for (const n of nodes) (layers[depth.get(n.id)] ??= []).push(n.id)
  const widest = Math.max(1, ...layers.map((l) => l?.length ?? 0))
  const width = widest * (BOX.w + BOX.gapX) + BOX.gapX
  const pos = new Map()
  layers.forEach((ids, layer) => {
    const rowWidth = ids.length * (BOX.w + BOX.gapX) - BOX.gapX
    ids.forEach((id, i) => pos.set(id, { x: (width - rowWidth) / 2 + i * (BOX.w + BOX.gapX), y: BOX.gapY / 2 + layer * (BOX.h + BOX.gapY) }))
  })
  // edges between one pair of nodes bend apart, alternately to either side
  const seen = new Map()
  const routed = edges.map((e, index) => {
    const pair = [e.from, e.to].sort().join('>')
    const k = seen.get(pair) ?? 0
    seen.set(pair, k + 1)
    const bend = k === 0 ? 0 : (k % 2 ? 1 : -1) * Math.ceil(k / 2) * 36
    return { ...e, index, ...route(pos.get(e.from), pos.get(e.to), index, bend) }
  })
  const placed = nodes.map((n) => ({ ...n, ...pos.get(n.id) }))
  const labelled = placeLabels(routed, placed.map((n) => ({ x: n.x, y: n.y, w: BOX.w, h: BOX.h })))
  const height = layers.length * (BOX.h + BOX.gapY) + BOX.gapY / 2
  const boxes = labelled.map((e) => e.label)
  const minX = Math.min(0, ...boxes.map((b) => b.x - 2))
  const minY = Math.min(0, ...boxes.map((b) => b.y - 2))
  const maxX = Math.max(width, ...boxes.map((b) => b.x + b.w + 2))
  const maxY = Math.max(height, ...boxes.map((b) => b.y + b.h + 2))
  return { minX, minY, width: maxX - minX, height: maxY - minY, nodes: placed, edges: labelled.map(({ at, ...e }) => e) }
}

const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

/**
 * Pure: a label box for each edge, on its edge where it can be: the first spot along the path
 * (middle first, then towards either end, then beside the path) that covers no node and no label
 * placed before; failing all, the nearest free spot below the middle. No two boxes overlap.
 */
export function placeLabels(edges, obstacles) {
  const taken = [...obstacles]
  return edges.map((e) => {
    const text = conditionText(e.condition)
    const w = Math.ceil(text.length * LABEL.charW + LABEL.padX)
    const h = LABEL.h
    const boxAt = (p) => ({ x: p.x - w / 2, y: p.y - h / 2, w, h })
    const free = (b) => !taken.some((o) => overlaps(o, b))
    let box
    for (const along of [0.5, 0.38, 0.62, 0.26, 0.74, 0.16, 0.84]) {
      const p = e.at(along)
      const q = e.at(Math.min(1, along + 0.01))
      const r = e.at(Math.max(0, along - 0.01))
      const len = Math.hypot(q.x - r.x, q.y - r.y) || 1
      const normal = { x: -(q.y - r.y) / len, y: (q.x - r.x) / len }
      for (const side of [0, 0.6, -0.6]) {
        const shift = side * (Math.abs(normal.x) * w + Math.abs(normal.y) * h)
        const b = boxAt({ x: p.x + normal.x * shift, y: p.y + normal.y * shift })
        if (free(b)) {
          box = b
          break
        }
      }
      if (box) break
    }
    if (!box) {
      const mid = e.at(0.5)
      for (let step = 1; !box; step++) {
        const b = boxAt({ x: mid.x, y: mid.y + step * (h + 2) })
        if (free(b)) box = b
      }
    }
    taken.push(box)
    return { ...e, label: { ...box, text, cx: box.x + w / 2, cy: box.y + h / 2 } }
  })
}

const lerp = (a, b, t) => a + (b - a) * t
const quad = (p0, c, p2) => (t) => ({ x: (1 - t) ** 2 * p0.x + 2 * (1 - t) * t * c.x + t * t * p2.x, y: (1 - t) ** 2 * p0.y + 2 * (1 - t) * t * c.y + t * t * p2.y })

/**
 * An edge's SVG path and `at(t)`, the point at fraction t along it: straight between layers (bent
 * by `bend` px when other edges join the same nodes); within a layer (or to itself) a curve under
 * the row, so it does not run through the boxes between.
 */
function route(a, b, index, bend) {
  if (a.y === b.y) {
    const x1 = a.x + BOX.w / 2
    const x2 = b.x + BOX.w / 2
    const y = a.y + BOX.h
    const dip = y + BOX.gapY * 0.6 + (a === b ? 0 : 4 * (index % 3)) + Math.abs(bend) / 2
    if (a === b) {
      const p = [{ x: x1 - 20, y }, { x: x1 - 40, y: dip }, { x: x1 + 40, y: dip }, { x: x1 + 20, y }]
      const at = (t) => {
        const u = 1 - t
        const k = [u ** 3, 3 * u * u * t, 3 * u * t * t, t ** 3]
        return { x: k.reduce((s, c, i) => s + c * p[i].x, 0), y: k.reduce((s, c, i) => s + c * p[i].y, 0) }
      }
      return { d: `M ${p[0].x} ${y} C ${p[1].x} ${dip}, ${p[2].x} ${dip}, ${p[3].x} ${y}`, at }
    }
    const c = { x: (x1 + x2) / 2, y: dip }
    return { d: `M ${x1} ${y} Q ${c.x} ${dip} ${x2} ${y}`, at: quad({ x: x1, y }, c, { x: x2, y }) }
  }
  const down = b.y > a.y
  const p1 = { x: a.x + BOX.w / 2, y: down ? a.y + BOX.h : a.y }
  const p2 = { x: b.x + BOX.w / 2, y: down ? b.y : b.y + BOX.h }
  if (!bend) return { d: `M ${p1.x} ${p1.y} L ${p2.x} ${p2.y}`, at: (t) => ({ x: lerp(p1.x, p2.x, t), y: lerp(p1.y, p2.y, t) }) }
  const len = Math.hypot(p2.x - p1.x, p2.y - p1.y) || 1
  // the control point sits twice the bend off the middle: the curve passes `bend` px off the line
  const c = { x: (p1.x + p2.x) / 2 - ((p2.y - p1.y) / len) * bend * 2, y: (p1.y + p2.y) / 2 + ((p2.x - p1.x) / len) * bend * 2 }
  return { d: `M ${p1.x} ${p1.y} Q ${c.x} ${c.y} ${p2.x} ${p2.y}`, at: quad(p1, c, p2) }
}

export function conditionText(c) {
  if (!c) return 'else'
  if (c.type === 'dtmf') return `key ${c.digits}`
  if (c.type === 'keywords') return c.keywords.join(' / ')
  if (c.type === 'regex') return `/${c.pattern}/`
  if (c.type === 'no_match') return 'no answer'
  if (c.type === 'variable') return `${c.variable} ${c.op} ${c.value ?? ''}`
  if (c.type === 'intent') return `intent ${c.intent}`
  return c.type
}
