/**
 * A recursive shared schema (`Type.Recursive`, `$id: 'Node'`) a version changes, named by more than one `$ref` in one
 * route schema: each place holds the version's form, which refers to itself by its `$id`.
 */
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import { HeadVersion, schema, Version, VersionBundle } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { v } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'

test('regression: two $refs to a recursive shared schema a version changes answered that version 500 ("resolves to more than one schema")', async (t) => {
  const Node = Type.Recursive((This) => Type.Object({ name: Type.String(), note: Type.Optional(Type.String()), children: Type.Array(This) }), { $id: 'Node' })
  const same = Type.Ref(Node)
  const shapes: Record<string, TSchema> = {
    // Two fields, each its own `Type.Ref`.
    fields: Type.Object({ tree: Type.Ref(Node), other: Type.Ref(Node), maybe: Type.Union([Type.Ref(Node), Type.Null()]) }),
    // One `Type.Ref` object at three places.
    shared: Type.Object({ tree: same, other: same, maybe: Type.Union([same, Type.Null()]) }),
    // With keywords of their own beside the `$ref`s (decision 0294).
    described: Type.Object({
      tree: Type.Ref(Node, { description: 'The tree.' }), other: Type.Ref(Node, { description: 'Another.' }), maybe: Type.Union([Type.Ref(Node, { description: 'Maybe.' }), Type.Null()])
    })
  }
  const app = await versionedApp(t, new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('NotesAdded', [schema(Node).field('note').didntExist])),
    new Version('2000-01-01')
  ), async (api) => {
    api.addSchema(Node)
    for (const [name, shape] of Object.entries(shapes)) {
      api.get(`/${name}`, { schema: { response: { 200: shape } } }, async () => ({
        tree: { name: 'a', note: 'n', children: [{ name: 'b', note: 'n', children: [] }] }, other: { name: 'c', note: 'n', children: [] }, maybe: { name: 'd', note: 'n', children: [] }
      }))
      api.post(`/${name}`, { schema: { body: shape, response: { 200: shape } } }, async (request) => request.body)
    }
  })
  const sent = { tree: { name: 'a', children: [{ name: 'b', children: [] }] }, other: { name: 'c', children: [] }, maybe: null }
  for (const name of Object.keys(shapes)) {
    const read = await app.inject({ url: `/${name}`, headers: v('2000-01-01') })
    t.equal(read.statusCode, 200, `${name}: ${read.body}`)
    t.same(read.json(), { tree: { name: 'a', children: [{ name: 'b', children: [] }] }, other: { name: 'c', children: [] }, maybe: { name: 'd', children: [] } }, `${name}: no note, at any depth`)
    // A note the version lacks, sent at the second place, reaches no handler.
    const withNote = { ...sent, other: { name: 'c', children: [{ name: 'e', note: 'n', children: [] }] } }
    const written = await app.inject({ method: 'POST', url: `/${name}`, headers: v('2000-01-01'), payload: withNote })
    t.equal(written.statusCode, 200, `${name}: ${written.body}`)
    t.same(written.json(), { ...sent, other: { name: 'c', children: [{ name: 'e', children: [] }] } })
    const refused = await app.inject({ method: 'POST', url: `/${name}`, headers: v('2000-01-01'), payload: { ...sent, other: { name: 'c', children: [{ children: [] }] } } })
    t.equal(refused.statusCode, 400, `${name}: a child without its name is refused at the second place too`)
    t.match(refused.json().message, /name/)
  }
})
