// A value Fastify's serializer writes its own way (a Date under a number, a class by its toString, 1.5 under an
// integer) that a converter moves to another field: the old client gets what HEAD writes for it (decision 0321).
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, type ResponseInfo } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { call } from '../helpers/http'
import type { FastifyInstance } from 'fastify'

/** A class teams give a `toString` and no `toJSON`. */
class Slug {
  constructor (readonly parts: string[]) {}
  toString (): string { return this.parts.join('-') }
}

/**
 * An app answering `{ v: value, note: 'n' }` under `{ v: head, note }` at HEAD, whose `2000-01-01` has `v` renamed `w`
 * (typed `old`) by a converter; `seen` gets what the converter read.
 */
async function renamingApp (t: Teardown, head: TSchema, old: TSchema, value: () => unknown, seen: unknown[] = []): Promise<FastifyInstance> {
  const Body = Type.Object({ v: head, note: Type.String() })
  class VWasW extends VersionChange {
    description = '`v` was `w`.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('v').had(old === head ? { name: 'w' } : { name: 'w', type: old })]
    @ConvertResponseToPreviousVersionFor(Body)
    rename (response: ResponseInfo): void {
      seen.push(response.body.v)
      response.body.w = response.body.v
      delete response.body.v
    }
  }
  return await versionedApp(t, new VersionBundle(new Version('2001-01-01', VWasW), new Version('2000-01-01')), async (api) => {
    api.get('/thing', { schema: { response: { 200: Body } } }, async () => ({ v: value(), note: 'n' }) as never)
  })
}

/** HEAD's `v` and the old client's `w`, as sent. */
async function bothAnswers (app: FastifyInstance): Promise<{ head: string, old: string }> {
  const [head, old] = await Promise.all([call(app, '2001-01-01', '/thing'), call(app, '2000-01-01', '/thing')])
  return { head: `${head.statusCode} ${head.body}`, old: `${old.statusCode} ${old.body}`.replace('"w":', '"v":') }
}

const at = new Date('2024-03-05T07:08:09.123Z')

test('regression: a Date under an integer or a number, which HEAD writes as its milliseconds, moved by a converter was a 500 for old clients', async (t) => {
  for (const place of [Type.Integer(), Type.Number()]) {
    const seen: unknown[] = []
    const app = await renamingApp(t, place, place, () => at, seen)
    const { head, old } = await bothAnswers(app)
    t.equal(head, `200 {"v":${at.getTime()},"note":"n"}`)
    t.equal(old, head, `${String(place.type)}: the old client gets HEAD's milliseconds`)
    t.same(seen, [at.getTime()], 'the converter saw what HEAD writes')
  }
})

test('regression: a class with only a toString under a string, moved by a converter, reached old clients as "[object Object]"', async (t) => {
  const seen: unknown[] = []
  const text = Type.String()
  const app = await renamingApp(t, text, text, () => new Slug(['a', 'b']), seen)
  const { head, old } = await bothAnswers(app)
  t.equal(head, '200 {"v":"a-b","note":"n"}')
  t.equal(old, head)
  t.same(seen, ['a-b'], 'the converter saw what HEAD writes')
})

test('regression: 1.5 under an integer, which HEAD writes as 1, moved by a converter to a number reached old clients as 1.5', async (t) => {
  const seen: unknown[] = []
  const app = await renamingApp(t, Type.Integer(), Type.Number(), () => 1.5, seen)
  const { head, old } = await bothAnswers(app)
  t.equal(head, '200 {"v":1,"note":"n"}', 'fast-json-stringify truncates')
  t.equal(old, head)
  t.same(seen, [1], 'the converter saw what HEAD writes')
})
