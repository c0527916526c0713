// `verify` on deep schemas: a field held by optional objects many levels deep (each nullable object two levels: the
// object and its union member) is generated and replayed like any other; only a recursive schema's optional parts
// stop, past twelve levels, so that its examples end.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, VersionChange, type ResponseInfo, type VersionChangeClass } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'

/** A check's `line1Check` (`line1` in 2000-01-01), its converter renaming it where `converted`. */
function checkRenamed (Check: TSchema, converted: boolean): VersionChangeClass {
  const instructions = [schema(Check).field('line1Check').had({ name: 'line1' })]
  class LineCheckWasLine extends VersionChange {
    description = 'A check\'s line1 is its line1Check.'
    instructionsToMigrateToPreviousVersion = instructions
  }
  class LineCheckWasLineConverted extends VersionChange {
    description = 'A check\'s line1 is its line1Check.'
    instructionsToMigrateToPreviousVersion = instructions

    @ConvertResponseToPreviousVersionFor(Check)
    down (response: ResponseInfo) {
      response.body.line1 = response.body.line1Check
      delete response.body.line1Check
    }
  }
  return converted ? LineCheckWasLineConverted : LineCheckWasLine
}

/** `Check` held by `levels` optional objects (nullable ones where `nullable`) in an event's `data`. */
function nested (Check: TSchema, levels: number, nullable: boolean): TSchema {
  let inner = Check
  for (let level = 0; level < levels; level++) inner = Type.Object({ [`l${level}`]: Type.Optional(nullable ? Type.Union([inner, Type.Null()]) : inner) })
  return Type.Object({ id: Type.String(), data: inner }, { $id: 'Event' })
}

test('regression: a field renamed without a converter many optional objects deep is found, not passed as clean', async (t) => {
  // Before: past twelve levels every optional field was left out of every example (a limit meant for recursions), so
  // a payment's checks seven nullable objects deep were never generated: 0 findings and no note.
  for (const [levels, nullable] of [[7, true], [10, true], [13, false], [20, false]] as const) {
    const Check = Type.Object({ line1Check: Type.String() }, { $id: 'Check' })
    const Event = nested(Check, levels, nullable)
    const app = await appWith(t, checkRenamed(Check, false), (api: FastifyInstance) => {
      api.get('/events', { schema: { response: { 200: Event } } }, async () => ({ id: 'e1' }))
    })
    const findings = await verify(app, { examples: 20 })
    t.same(summary(findings).map((line) => line.replace(/ response 200\/.*? after /, ' after ')), ['GET /events 2000-01-01 response invalid after LineCheckWasLine (2001-01-01) by '],
      `${levels} ${nullable ? 'nullable ' : ''}objects deep: the rename is found`)
    t.same(findings.unverified, [])
  }
})

test('the same depths with the converter verify cleanly', async (t) => {
  for (const [levels, nullable] of [[7, true], [20, false]] as const) {
    const Check = Type.Object({ line1Check: Type.String() }, { $id: 'Check' })
    const app = await appWith(t, checkRenamed(Check, true), (api: FastifyInstance) => {
      api.get('/events', { schema: { response: { 200: nested(Check, levels, nullable) } } }, async () => ({ id: 'e1' }))
    })
    const findings = await verify(app, { examples: 20 })
    t.same(findings.map((finding) => finding.text), [], `${levels} ${nullable ? 'nullable ' : ''}objects deep`)
    t.same(findings.unverified, [])
  }
})

test('regression: a recursive response schema (Type.Recursive) is verified: its examples end, its renamed field is found, its converter clean', async (t) => {
  // Before: its own `$ref` to its `$id` did not compile in Fastify's Ajv setup (which serving's serializer never uses):
  // a note blaming the instructions of no version change, and exit 1, on an app serving every version right.
  for (const converted of [false, true]) {
    const Check = Type.Object({ line1Check: Type.String() }, { $id: 'Check' })
    // A thread of comments, each with optional replies and an optional parent, both the thread again, and a check.
    const Thread = Type.Recursive((This) => Type.Object({
      check: Type.Optional(Check), replies: Type.Optional(Type.Array(This)), parent: Type.Optional(Type.Union([This, Type.Null()]))
    }), { $id: 'Thread' })
    const app = await appWith(t, checkRenamed(Check, converted), (api: FastifyInstance) => {
      api.get('/threads', { schema: { response: { 200: Thread } } }, async () => ({ check: { line1Check: 'a' }, replies: [{ check: { line1Check: 'b' } }] }))
    })
    if (converted) {
      const served = await app.inject({ url: '/threads', headers: { 'x-api-version': '2000-01-01' } })
      t.same(served.json(), { check: { line1: 'a' }, replies: [{ check: { line1: 'b' } }] }, 'the app serves the old version right')
    }
    const findings = await verify(app, { examples: 20 })
    t.same([...new Set(summary(findings).map((line) => line.replace(/ response 200\/.*? after /, ' after ')))], converted ? [] : ['GET /threads 2000-01-01 response invalid after LineCheckWasLine (2001-01-01) by '],
      converted ? 'converted: clean' : 'not converted: found')
    t.same(findings.unverified, [])
  }
})
