import { describe, expect, test } from 'bun:test'
import { t } from 'elysia'
import { BodyRecord, Guarded, unknownFieldIssues, unknownFields, Variables } from '../../../src/platform/schema/index.ts'

const Settings = t.Object({ maxVisits: t.Optional(t.Integer()), voice: t.Optional(t.Object({ speed: t.Number() })) })
const Body = t.Object({
  name: t.String(),
  settings: t.Optional(Settings),
  nodes: t.Optional(t.Array(t.Object({ id: t.String(), config: t.Optional(t.Unknown()) }))),
})

describe('undeclared fields of a body, found wherever they are', () => {
  test('a body that names only declared fields has none', () => {
    expect(unknownFields(Body, { name: 'a', settings: { maxVisits: 2, voice: { speed: 1 } }, nodes: [{ id: 'n' }] })).toEqual([])
  })

  test('an undeclared field is named at the top, in a nested object and in an object of a list', () => {
    const body = { name: 'a', colour: 'red', settings: { maxVisit: 2, voice: { speed: 1, pitch: 3 } }, nodes: [{ id: 'n' }, { id: 'm', kind: 'x' }] }
    expect(unknownFields(Body, body)).toEqual(['/colour', '/settings/maxVisit', '/settings/voice/pitch', '/nodes/1/kind'])
  })

  test('as issues they read like the other validation issues: a field path, where, and "unknown field"', () => {
    expect(unknownFieldIssues(Body, { name: 'a', nodes: [{ id: 'n', 'a/b': 1 }], 'x~y': 1 }, 'body')).toEqual([
      { path: 'nodes[0].a/b', location: 'body', message: 'unknown field' },
      { path: 'x~y', location: 'body', message: 'unknown field' },
    ])
  })

  test('what validation refuses anyway is left to it: a value of the wrong type is not searched', () => {
    expect(unknownFields(Body, { name: 'a', settings: 'fast', nodes: { colour: 1 } })).toEqual([])
    expect(unknownFields(Body, { name: { colour: 1 } })).toEqual([])
  })

  test('t.Unknown, t.Any and additionalProperties true accept anything beneath them', () => {
    expect(unknownFields(Body, { name: 'a', nodes: [{ id: 'n', config: { any: { thing: [1] } } }] })).toEqual([])
    expect(unknownFields(t.Object({ a: t.Any() }), { a: { b: 1 } })).toEqual([])
    const open = t.Object({ a: t.String() }, { additionalProperties: true })
    expect(unknownFields(open, { a: 'x', b: { c: 1 } })).toEqual([])
  })

  test('additionalProperties as a schema declares every other key, and its value is searched by it', () => {
    const map = t.Object({}, { additionalProperties: t.Object({ on: t.Boolean() }) })
    expect(unknownFields(map, { x: { on: true }, y: { on: false, colour: 1 } })).toEqual(['/y/colour'])
  })

  test("a record's keys are free; its values are searched by the record's value schema", () => {
    const r = t.Record(t.String(), t.Object({ on: t.Boolean() }))
    expect(unknownFields(r, { anything: { on: true }, other: { on: true, colour: 1 } })).toEqual(['/other/colour'])
    expect(unknownFields(Variables(t.String(), 'v'), { customer_name: 'Ada', order_id: '7' })).toEqual([])
  })

  test("a record's key outside its pattern is validation's to name when the record refuses such keys, unknown otherwise", () => {
    expect(unknownFields(BodyRecord('^[a-z]+$', t.String(), { maxProperties: 4 }), { ok: 'x', 'Not-OK': 'y' })).toEqual([])
    expect(unknownFields(t.Record(t.String({ pattern: '^[a-z]+$' }), t.String()), { ok: 'x', 'Not-OK': 'y' })).toEqual(['/Not-OK'])
  })

  test('a guarded schema is searched as the schema it guards', () => {
    const nodes = Guarded(t.Array(t.Object({ id: t.String() })), 'must be nodes')
    expect(unknownFields(t.Object({ nodes }), { nodes: [{ id: 'a', colour: 1 }] })).toEqual(['/nodes/0/colour'])
  })

  test('in a union the member the value is valid for decides, and a value valid for none is left to validation', () => {
    const u = t.Object({
      c: t.Union([t.Object({ type: t.Literal('keywords'), keywords: t.Array(t.String()) }), t.Object({ type: t.Literal('regex'), pattern: t.String() })]),
    })
    expect(unknownFields(u, { c: { type: 'regex', pattern: 'x' } })).toEqual([])
    expect(unknownFields(u, { c: { type: 'regex', pattern: 'x', keywords: ['a'] } })).toEqual(['/c/keywords'])
    expect(unknownFields(u, { c: { type: 'other', colour: 1 } })).toEqual([])
  })

  test('an intersection declares what any of its members declares', () => {
    const both = t.Intersect([t.Object({ a: t.String() }), t.Object({ b: t.Object({ c: t.String() }) })])
    expect(unknownFields(both, { a: 'x', b: { c: 'y', d: 1 }, e: 1 })).toEqual(['/b/d', '/e'])
  })

  test('a tuple searches each position by its own schema', () => {
    const pair = t.Object({ p: t.Tuple([t.Object({ a: t.String() }), t.Object({ b: t.String() })]) })
    expect(unknownFields(pair, { p: [{ a: 'x', z: 1 }, { b: 'y' }] })).toEqual(['/p/0/z'])
  })
})
