// The console's pure parts: the workflow graph layout and the shell page's import map. (A
// campaign's CSV is previewed by the appliance: test/integration/campaigns/contacts-preview.test.ts.)
import { describe, expect, test } from 'bun:test'
import { renderIndex } from '../../src/features/console/index.ts'
// @ts-ignore: plain browser modules without type declarations
import { BOX, layoutGraph } from '../../src/features/console/web/graph-layout.mjs'
// @ts-ignore: plain browser modules without type declarations
import { withNode } from '../../src/features/console/web/pages/workflow-editor.mjs'
// @ts-ignore: plain browser modules without type declarations
import { capacityFacts } from '../../src/features/console/web/pages/overview.mjs'

describe('workflow graph layout', () => {
  const graph = {
    nodes: [
      { id: 'bye', type: 'end' },
      { id: 'start', type: 'start' },
      { id: 'menu', type: 'say' },
      { id: 'sales', type: 'transfer' },
      { id: 'orphan', type: 'say' },
    ],
    edges: [
      { from: 'start', to: 'menu' },
      { from: 'menu', to: 'sales', condition: { type: 'dtmf', digits: '1' } },
      { from: 'menu', to: 'bye' },
      { from: 'menu', to: 'menu' },
      { from: 'menu', to: 'ghost' },
    ],
  }

  test('nodes sit in layers by their distance from start; an unreachable node goes below; no two boxes overlap', () => {
    const g = layoutGraph(graph)
    const y = Object.fromEntries(g.nodes.map((n: any) => [n.id, n.y]))
    expect(y.start).toBeLessThan(y.menu)
    expect(y.menu).toBeLessThan(y.sales)
    expect(y.sales).toBe(y.bye)
    expect(y.orphan).toBeGreaterThan(y.bye)
    for (const a of g.nodes) for (const b of g.nodes) {
      if (a === b) continue
      const apart = Math.abs(a.x - b.x) >= BOX.w || Math.abs(a.y - b.y) >= BOX.h
      expect([a.id, b.id, apart]).toEqual([a.id, b.id, true])
    }
    for (const n of g.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(0)
      expect(n.x + BOX.w).toBeLessThanOrEqual(g.width)
      expect(n.y + BOX.h).toBeLessThanOrEqual(g.height)
    }
  })

  test('an edge inside one layer or to its own node curves under the row instead of crossing the boxes', () => {
    const g = layoutGraph(graph)
    const loop = g.edges.find((e: any) => e.from === 'menu' && e.to === 'menu')
    const side = g.edges.find((e: any) => e.from === 'sales' || (e.from === 'menu' && e.to === 'bye'))
    expect(loop.d).toStartWith('M ')
    expect(loop.d).toContain(' C ')
    const flat = layoutGraph({ nodes: [{ id: 's', type: 'start' }, { id: 'a', type: 'say' }, { id: 'b', type: 'end' }], edges: [{ from: 's', to: 'a' }, { from: 's', to: 'b' }, { from: 'a', to: 'b' }] })
    const within = flat.edges.find((e: any) => e.from === 'a' && e.to === 'b')
    expect(within.d).toContain(' Q ')
    const row = flat.nodes.find((n: any) => n.id === 'a').y + BOX.h
    expect(within.label.cy).toBeGreaterThan(row)
    expect(side.d).toContain(' L ')
  })

  test('an edge to a node that does not exist is not drawn (validation reports it)', () => {
    const g = layoutGraph(graph)
    expect(g.edges.map((e: any) => `${e.from}>${e.to}`)).toEqual(['start>menu', 'menu>sales', 'menu>bye', 'menu>menu'])
  })
})

test('the shell page points every module at the versioned folder through its import map', () => {
  const { html, importMap } = renderIndex('<link href="{{base}}x.css"><script type="importmap">{{importMap}}</script>', 'abc123')
  expect(html).toContain('href="/console/assets/abc123/x.css"')
  expect(JSON.parse(importMap).imports.preact).toBe('/console/assets/abc123/vendor/preact.mjs')
  expect(html).toContain(importMap)
})

describe('workflow draft edits', () => {
  const graph = {
    nodes: [{ id: 'start', type: 'start' }, { id: 'menu', type: 'say', config: { text: 'Hi' } }, { id: 'bye', type: 'end' }],
    edges: [{ from: 'start', to: 'menu' }, { from: 'menu', to: 'bye', condition: { type: 'dtmf', digits: '1' } }, { from: 'menu', to: 'menu' }],
    settings: { maxVisits: 5 },
  }

  test('renaming a node keeps its place and moves every edge end that named it', () => {
    const g = withNode(graph, 'menu', { id: 'main', type: 'say', config: { text: 'Hello' } })
    expect(g.nodes.map((n: any) => n.id)).toEqual(['start', 'main', 'bye'])
    expect(g.edges.map((e: any) => `${e.from}>${e.to}`)).toEqual(['start>main', 'main>bye', 'main>main'])
    expect(g.settings).toEqual({ maxVisits: 5 })
  })

  test('removing a node removes the edges to and from it; a new node goes last', () => {
    expect(withNode(graph, 'menu', undefined).edges).toEqual([])
    expect(withNode(graph, 'extra', { id: 'extra', type: 'say' }).nodes.at(-1).id).toBe('extra')
  })
})

test("the overview's capacity facts read /ready's capacity: no ceiling, room left, and what limits a full node", () => {
  expect(capacityFacts(undefined)).toEqual([])
  expect(capacityFacts({ capacity: null, callsUp: 2, headroom: null })).toEqual([['Capacity', 'no fixed ceiling'], ['Calls up', '2'], ['Headroom', 'no fixed ceiling']])
  expect(capacityFacts({ capacity: 20, callsUp: 20, headroom: 0, limitedBy: 'CALLS_MAX' })).toEqual([
    ['Capacity', '20 calls'], ['Calls up', '20'], ['Headroom', 'none: new calls are refused (503)'], ['Limited by', 'CALLS_MAX'],
  ])
})
