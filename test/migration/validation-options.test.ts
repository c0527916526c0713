// An old version's request under the validation options teams set (Ajv's coerceTypes, removeAdditional, useDefaults,
// allErrors; TypeBoxValidatorCompiler; closed or open objects): answered as plain Fastify answers the same request
// written in HEAD's names, with its own names in the answer and the 400's message.
import { test } from 'tap'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, fastifyVersioner,
  schema, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'

type Json = Record<string, unknown>

interface Setup {
  readonly closed: boolean
  readonly typebox: boolean
  readonly ajv: { coerceTypes: boolean | 'array', removeAdditional: boolean | 'all', useDefaults: boolean, allErrors: boolean }
}

/** `value` with its object keys named `from` renamed `to`, at any depth. */
function renamed (value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((item) => renamed(item, from, to))
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key === from ? to : key, renamed(item, from, to)]))
}

/** `value` with its object keys sorted, to compare answers whatever order their fields came in. */
function sorted (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Json)[key])]))
}

/** One app: `POST /users` versioned (`fullName` was `name`, `perPage` was `per_page`), `POST /plain/users` HEAD's alone. */
async function appWith (setup: Setup): Promise<FastifyInstance> {
  const closed = setup.closed ? { additionalProperties: false } : {}
  const Body = Type.Object({
    fullName: Type.String({ minLength: 1 }),
    age: Type.Optional(Type.Integer({ minimum: 0 })),
    tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
    role: Type.Optional(Type.String({ default: 'member' })),
    nested: Type.Optional(Type.Object({ a: Type.Integer(), b: Type.Optional(Type.Boolean()) }, closed))
  }, closed)
  const Query = Type.Object({ perPage: Type.Optional(Type.Integer({ default: 10 })), ids: Type.Optional(Type.Array(Type.Integer())), q: Type.Optional(Type.String()) }, closed)
  const Echo = Type.Object({ body: Type.Unknown(), query: Type.Unknown() })
  class Renames extends VersionChange {
    description = 'A user\'s name is now fullName; per_page is perPage.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('fullName').had({ name: 'name' }), schema(Query).field('perPage').had({ name: 'per_page' })]

    @ConvertRequestToNextVersionFor(Body)
    nameUp (request: RequestInfo) {
      if (!('name' in request.body)) return
      request.body.fullName = request.body.name
      delete request.body.name
    }

    @ConvertRequestToNextVersionFor('/users', ['POST'])
    pageUp (request: RequestInfo) {
      if (!('per_page' in request.queryParams)) return
      request.queryParams.perPage = request.queryParams.per_page
      delete request.queryParams.per_page
    }

    @ConvertResponseToPreviousVersionFor(Echo)
    echoDown (response: ResponseInfo) {
      response.body.body = renamed(response.body.body, 'fullName', 'name')
      response.body.query = renamed(response.body.query, 'perPage', 'per_page')
    }
  }
  const app = Fastify({ ajv: { customOptions: setup.ajv } })
  if (setup.typebox) app.setValidatorCompiler(TypeBoxValidatorCompiler)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', Renames), new Version('2000-01-01')), openapiUrl: null, docsUrl: null })
  const route = { schema: { body: Body, querystring: Query, response: { 200: Echo } } }
  const handler = async (request: { body: unknown, query: unknown }): Promise<{ body: unknown, query: unknown }> => ({ body: request.body, query: request.query })
  await app.register(versioned(async (api) => { api.post('/users', route, handler) }))
  await app.register(async (plain) => { plain.post('/plain/users', route, handler) })
  await app.ready()
  return app
}

const scalar = fc.oneof(fc.constantFrom('', 'a', '5', '-1', 'true', 'null'), fc.integer({ min: -2, max: 3 }), fc.boolean(), fc.constant(null))
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), scalar, { maxKeys: 3 }))
// An old client's body and query in its own names (never HEAD's `fullName` or `perPage`), `extra` and `zz` undeclared.
// Mostly values the field takes (so that most requests reach the handler), else any value.
const fitting = (fits: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: fits, weight: 12 }, { arbitrary: value, weight: 1 })
const body = fc.record({
  name: fitting(fc.constantFrom('Ada', 'B')),
  age: fitting(fc.nat(3)),
  tags: fitting(fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 })),
  role: fitting(fc.constantFrom('admin', 'member')),
  nested: fitting(fc.record({ a: fc.nat(3) })),
  extra: fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: value, weight: 1 })
}, { requiredKeys: [] }).map((fields) => Object.fromEntries(Object.entries(fields).filter(([, field]) => field !== undefined)))
const text = fc.constantFrom('1', '5', 'x', '', '-3', '2.5')
const query = fc.array(fc.oneof(
  fc.tuple(fc.constant('per_page'), fc.oneof({ arbitrary: fc.constantFrom('1', '5'), weight: 4 }, { arbitrary: text, weight: 1 })),
  fc.tuple(fc.constant('ids'), fc.oneof({ arbitrary: fc.constantFrom('1', '2'), weight: 4 }, { arbitrary: text, weight: 1 })),
  fc.tuple(fc.constantFrom('q', 'zz'), text)
), { maxLength: 3 })
const setups = fc.record({
  closed: fc.boolean(),
  typebox: fc.boolean(),
  ajv: fc.record({ coerceTypes: fc.constantFrom(true, false, 'array' as const), removeAdditional: fc.constantFrom(true, false, 'all' as const), useDefaults: fc.boolean(), allErrors: fc.boolean() })
})

test('an old version\'s request is validated, defaulted, coerced and cleaned as plain Fastify does HEAD\'s, under random validation options', async (t) => {
  let compared = 0
  let served = 0
  await fc.assert(fc.asyncProperty(setups, fc.array(fc.tuple(body, query), { minLength: 1, maxLength: 6 }), async (setup, requests) => {
    const app = await appWith(setup)
    try {
      for (const [payload, pairs] of requests) {
        const search = pairs.map(([key, text]) => `${key}=${encodeURIComponent(text)}`).join('&')
        const old = await app.inject({ method: 'POST', url: `/users?${search}`, headers: { 'x-api-version': '2000-01-01' }, payload })
        const plain = await app.inject({ method: 'POST', url: `/plain/users?${search.replace(/per_page=/g, 'perPage=')}`, payload: renamed(payload, 'name', 'fullName') as Json })
        t.equal(old.statusCode, plain.statusCode, `${JSON.stringify(setup)} ${JSON.stringify(payload)} ?${search}: the status`)
        if (plain.statusCode === 200) {
          // The rebuilt objects lose the fields the version does not declare (decision 0013): `extra` and `zz` go.
          const { body: sent, query: asked } = plain.json<{ body: Json, query: Json }>()
          const { extra: _extra, ...kept } = renamed(sent, 'fullName', 'name') as Json
          const { zz: _zz, ...keptQuery } = renamed(asked, 'perPage', 'per_page') as Json
          t.same(sorted(old.json()), sorted({ body: kept, query: keptQuery }), 'what the handler received, in the version\'s names')
        } else {
          const parts = (message: string): string[] => message.split(', ').sort()
          t.same(parts(old.json<{ message: string }>().message), parts(plain.json<{ message: string }>().message.replace(/fullName/g, 'name').replace(/perPage/g, 'per_page')),
            'the message, naming the version\'s fields')
        }
        compared++
        if (plain.statusCode === 200) served++
      }
    } finally {
      await app.close()
    }
  }), { numRuns: 30, seed: 155 })
  t.ok(compared >= 30 && served >= compared / 4, `${compared} requests compared, ${served} served`)
})
