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
    edges: edges.map((e, index) => {
      const a = pos.get(e.from)
      const b = pos.get(e.to)
      const down = b.y > a.y
      return { ...e, index, x1: a.x + BOX.w / 2, y1: down ? a.y + BOX.h : a.y, x2: b.x + BOX.w / 2, y2: down ? b.y : b.y + BOX.h }
    }),
  }
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
