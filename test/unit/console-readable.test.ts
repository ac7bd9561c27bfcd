// The console's drawings read well: workflow edge labels sit on their edges without covering one
// another or a node, and the time axis of a chart spans what its points need (not years).
import { describe, expect, test } from 'bun:test'
// @ts-ignore: plain browser modules without type declarations
import { timeAxisRange } from '../../src/features/console/web/chart.mjs'
// @ts-ignore: plain browser modules without type declarations
import { BOX, layoutGraph } from '../../src/features/console/web/graph-layout.mjs'
// @ts-ignore: plain browser modules without type declarations
import { AGENT_TEMPLATES } from '../../src/features/agents/templates.ts'

interface Box {
  x: number
  y: number
  w: number
  h: number
}
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

/** Distance from the label's centre to the nearest of 200 points along its edge. */
function offEdge(d: string, label: { cx: number; cy: number }): number {
  const n = d.match(/-?[\d.]+/g)!.map(Number)
  const pts: { x: number; y: number }[] = []
  for (let i = 0; i < n.length; i += 2) pts.push({ x: n[i]!, y: n[i + 1]! })
  const at = (t: number) => {
    if (pts.length === 2) return { x: pts[0]!.x + (pts[1]!.x - pts[0]!.x) * t, y: pts[0]!.y + (pts[1]!.y - pts[0]!.y) * t }
    const u = 1 - t
    if (pts.length === 3) return { x: u * u * pts[0]!.x + 2 * u * t * pts[1]!.x + t * t * pts[2]!.x, y: u * u * pts[0]!.y + 2 * u * t * pts[1]!.y + t * t * pts[2]!.y }
    const k = [u ** 3, 3 * u * u * t, 3 * u * t * t, t ** 3]
    return { x: k.reduce((s, c, i) => s + c * pts[i]!.x, 0), y: k.reduce((s, c, i) => s + c * pts[i]!.y, 0) }
  }
  let best = Infinity
  for (let i = 0; i <= 200; i++) {
    const p = at(i / 200)
    best = Math.min(best, Math.hypot(p.x - label.cx, p.y - label.cy))
  }
  return best
}

function checkLabels(graph: { nodes: any[]; edges: any[] }) {
  const g = layoutGraph(graph)
  const labels = g.edges.map((e: any) => e.label as Box & { text: string; cx: number; cy: number })
  expect(labels.length).toBe(graph.edges.length)
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) expect([labels[i]!.text, labels[j]!.text, overlap(labels[i]!, labels[j]!)]).toEqual([labels[i]!.text, labels[j]!.text, false])
    for (const n of g.nodes) expect([labels[i]!.text, n.id, overlap(labels[i]!, { x: n.x, y: n.y, w: BOX.w, h: BOX.h })]).toEqual([labels[i]!.text, n.id, false])
    // inside the drawing
    expect(labels[i]!.x).toBeGreaterThanOrEqual(g.minX)
    expect(labels[i]!.y + labels[i]!.h).toBeLessThanOrEqual(g.minY + g.height)
  }
  return g
}

describe('workflow edge labels', () => {
  test('the receptionist graph ("hours / open / opening" beside "key 1" on one pair of nodes): no two labels overlap, none covers a node, each sits on its edge', () => {
    const g = checkLabels(AGENT_TEMPLATES.receptionist!.workflow as any)
    for (const e of g.edges) expect(offEdge(e.d, e.label)).toBeLessThanOrEqual(BOX.h)
    const keys = g.edges.filter((e: any) => e.from === 'start' && e.to === 'hours')
    expect(keys.map((e: any) => e.label.text).sort()).toEqual(['hours / open / opening', 'key 1'])
    // two edges between the same nodes are drawn apart, not on top of each other
    expect(keys[0].d).not.toBe(keys[1].d)
  })

  test('several edges between nearby nodes, both ways, with loops and long labels: no two label boxes overlap and none covers a node', () => {
    const nodes = ['start', 'a', 'b', 'c'].map((id) => ({ id, type: id === 'start' ? 'start' : 'say' }))
    const kw = (...keywords: string[]) => ({ type: 'keywords', keywords })
    const edges = [
      { from: 'start', to: 'a', condition: { type: 'dtmf', digits: '1' } },
      { from: 'start', to: 'a', condition: kw('appointment', 'booking', 'book') },
      { from: 'start', to: 'a', condition: { type: 'regex', pattern: '^(yes|yeah)$' } },
      { from: 'start', to: 'b', condition: { type: 'dtmf', digits: '2' } },
      { from: 'start', to: 'b', condition: kw('cancel', 'change', 'move') },
      { from: 'start', to: 'c' },
      { from: 'a', to: 'b', condition: kw('other') },
      { from: 'b', to: 'a', condition: kw('back') },
      { from: 'a', to: 'a', condition: kw('again', 'repeat') },
      { from: 'b', to: 'c', condition: { type: 'intent', intent: 'goodbye' } },
      { from: 'c', to: 'start', condition: { type: 'variable', variable: 'retries', op: 'lt', value: 3 } },
    ]
    for (const template of Object.values(AGENT_TEMPLATES)) checkLabels(template.workflow as any)
    checkLabels({ nodes, edges })
  })
})

describe('time axis of a chart', () => {
  const noon = Date.UTC(2026, 5, 1, 12) / 1000
  const midnight = Date.UTC(2026, 5, 1) / 1000

  test('a single point gets an hour around it, not years', () => {
    const [min, max] = timeAxisRange(noon, noon, midnight)
    expect(min).toBeLessThan(noon)
    expect(max).toBeGreaterThan(noon)
    expect(max - min).toBe(3600)
  })

  test('no points give the day', () => {
    expect(timeAxisRange(undefined, undefined, midnight)).toEqual([midnight, midnight + 86_400])
    expect(timeAxisRange(null, null, midnight)).toEqual([midnight, midnight + 86_400])
  })

  test("a day's range keeps every point inside with a small margin", () => {
    const first = midnight + 600
    const last = midnight + 86_000
    const [min, max] = timeAxisRange(first, last, midnight)
    expect(min).toBeLessThan(first)
    expect(max).toBeGreaterThan(last)
    expect(max - min).toBeLessThanOrEqual((last - first) * 1.1 + 1)
  })
})
