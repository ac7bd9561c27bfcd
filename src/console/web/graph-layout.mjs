// Pure: places a workflow graph in layers (longest path from start, cycles ignored) so it can be
// drawn with no layout library. Returns node boxes and edge end points in pixels.
export const BOX = { w: 150, h: 44, gapX: 40, gapY: 56 }

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
  return {
    width,
    height: layers.length * (BOX.h + BOX.gapY) + BOX.gapY / 2,
    nodes: nodes.map((n) => ({ ...n, ...pos.get(n.id) })),
    edges: edges.map((e, index) => ({ ...e, index, ...route(pos.get(e.from), pos.get(e.to), index) })),
  }
}

/**
 * An edge's SVG path and label position: straight between layers; within a layer (or to itself)
 * a curve under the row, so it does not run through the boxes between. Labels sit past the
 * middle, where edges leaving one node have spread apart.
 */
function route(a, b, index) {
  if (a.y === b.y) {
    const x1 = a.x + BOX.w / 2
    const x2 = b.x + BOX.w / 2
    const y = a.y + BOX.h
    const dip = y + BOX.gapY * 0.6 + (a === b ? 0 : 4 * (index % 3))
    const d = a === b ? `M ${x1 - 20} ${y} C ${x1 - 40} ${dip}, ${x1 + 40} ${dip}, ${x1 + 20} ${y}` : `M ${x1} ${y} Q ${(x1 + x2) / 2} ${dip} ${x2} ${y}`
    return { d, lx: (x1 + x2) / 2 + 4, ly: dip - 8 }
  }
  const down = b.y > a.y
  const x1 = a.x + BOX.w / 2
  const y1 = down ? a.y + BOX.h : a.y
  const x2 = b.x + BOX.w / 2
  const y2 = down ? b.y : b.y + BOX.h
  return { d: `M ${x1} ${y1} L ${x2} ${y2}`, x1, y1, x2, y2, lx: x1 + (x2 - x1) * 0.6 + 4, ly: y1 + (y2 - y1) * 0.6 }
}

export function conditionText(c) {
  if (!c) return 'else'
  if (c.type === 'dtmf') return `key ${c.digits}`
  if (c.type === 'keywords') return c.keywords.join(' / ')
  if (c.type === 'regex') return `/${c.pattern}/`
  if (c.type === 'variable') return `${c.variable} ${c.op} ${c.value ?? ''}`
  if (c.type === 'intent') return `intent ${c.intent}`
  return c.type
}
