// `verify` and defaults (issue 31, decision 0157). A request is replayed as serving takes it: the version's validation
// runs first, with the validator the route runs (Fastify's Ajv and its options, or the application's own compiler), so
// a field the client left out holds its `default` before the converters read it, where that validator fills it; a
// field left out with no default is still absent. And a `0` of a body (a request's, a response's) arriving as another
// number `n` is replayed with `n` sent: arriving as `n` again, a default replaced it (`quantity || 10`), an integer
// response field's included (`quantity || 1`); units, rounding to whole numbers and a `??` default stay clean.
import { test } from 'tap'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Ajv from 'ajv'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import type { Teardown } from '../helpers/apps'

type Validator = 'fastify' | 'no defaults' | 'typebox route' | 'typebox app' | 'own ajv'

/**
 * `POST /users` whose old version takes `role` lower-case, optional with `old` (its `default`, if any), and HEAD
 * requires it upper-case: the request converter upper-cases it, reading it unguarded.
 */
async function roleApp (t: Teardown, old: { default?: string }, validator: Validator = 'fastify'): Promise<FastifyInstance> {
  const User = Type.Object({ name: Type.String(), role: Type.String({ pattern: '^[A-Z]+$' }) }, { $id: 'User' })
  class RolesBecameUpperCase extends VersionChange {
    description = 'Roles are upper-case.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('role').had({ pattern: '^[a-z]+$', optional: true, ...old })]

    @ConvertRequestToNextVersionFor(User)
    up (request: RequestInfo) {
      request.body.role = request.body.role.toUpperCase()
    }
  }
  const app = Fastify(validator === 'no defaults' ? { ajv: { customOptions: { useDefaults: false } } } : {})
  t.teardown(() => app.close())
  if (validator === 'typebox app') app.setValidatorCompiler(TypeBoxValidatorCompiler)
  if (validator === 'own ajv') {
    const ajv = new Ajv({ useDefaults: true, strict: false })
    app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  }
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RolesBecameUpperCase), new Version('2000-01-01')), docsUrl: null })
  await app.register(versioned(async (api) => {
    const own = validator === 'typebox route' ? { validatorCompiler: TypeBoxValidatorCompiler as never } : {}
    api.post('/users', { schema: { body: User, response: { 200: Type.Object({ ok: Type.Boolean() }) } }, ...own }, async () => ({ ok: true }))
  }))
  await app.ready()
  return app
}

/** What serving answers an old client leaving `role` out. */
async function served (app: FastifyInstance): Promise<number> {
  const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'Ada' } })
  return response.statusCode
}

const failed = ['POST /users 2000-01-01 request converter failed converter after RolesBecameUpperCase (2001-01-01) by RolesBecameUpperCase.up']

test('a converter reading a left-out field the validator in force fills with its default is no finding: serving answers 200', async (t) => {
  for (const validator of ['fastify', 'own ajv'] as const) {
    const app = await roleApp(t, { default: 'member' }, validator)
    t.equal(await served(app), 200, `${validator}: the default reaches the converter when served`)
    t.same(summary(await verify(app, { examples: 20 })), [], validator)
  }
})

test('a converter reading a left-out field with no default, or a default the validator in force does not fill, still fails, as serving does', async (t) => {
  const cases: Array<[string, { default?: string }, Validator]> = [
    ['no default', {}, 'fastify'],
    ['useDefaults: false', { default: 'member' }, 'no defaults'],
    ['TypeBoxValidatorCompiler on the route', { default: 'member' }, 'typebox route'],
    ['TypeBoxValidatorCompiler on the application', { default: 'member' }, 'typebox app']
  ]
  for (const [name, old, validator] of cases) {
    const app = await roleApp(t, old, validator)
    t.equal(await served(app), 500, `${name}: serving fails`)
    t.same(summary(await verify(app, { examples: 20 })), failed, name)
  }
})

/**
 * `quantity` (of schema `type`) renamed from `qty` (with `old`'s keywords in the old version), on a route taking it and
 * one answering it (no round trip), its converters writing `convert` of it each way.
 */
async function renamedQuantity (t: Teardown, at: { type: TSchema, old?: Record<string, unknown> }, convert: (value: any) => unknown): Promise<string[]> {
  const Item = Type.Object({ id: Type.String(), quantity: at.type }, { $id: 'Item' })
  class QtyBecameQuantity extends VersionChange {
    description = 'qty became quantity.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('quantity').had({ name: 'qty', ...at.old })]

    @ConvertRequestToNextVersionFor(Item)
    up (request: RequestInfo) {
      request.body.quantity = convert(request.body.qty)
      delete request.body.qty
    }

    @ConvertResponseToPreviousVersionFor(Item)
    down (response: ResponseInfo) {
      response.body.qty = convert(response.body.quantity)
      delete response.body.quantity
    }
  }
  const app = await appWith(t, QtyBecameQuantity, (api) => {
    api.post('/items', { schema: { body: Item, response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'i1' }))
    api.get('/items', { schema: { response: { 200: Item } } }, async () => { throw new Error('not served in verify') })
  })
  return summary(await verify(app, { examples: 5 }))
}

const request = 'POST /items 2000-01-01 request lost body/qty after QtyBecameQuantity (2001-01-01) by QtyBecameQuantity.up'
const response = 'GET /items 2000-01-01 response lost response 200/quantity after QtyBecameQuantity (2001-01-01) by QtyBecameQuantity.down'

test('one way, a body\'s 0 replaced by a default other than 1 is found in a request and a response; by 1, in a response\'s integer field too', async (t) => {
  const Count = Type.Integer({ minimum: 0, maximum: 100 })
  const lossy: Array<[string, { type: TSchema, old?: Record<string, unknown> }, (value: any) => unknown, string[]]> = [
    ['|| 10, a number', { type: Type.Number() }, (value: number) => value || 10, [request, response]],
    ['|| 10, an integer', { type: Count }, (value: number) => value || 10, [request, response]],
    ['|| 25, a negative number too', { type: Type.Integer({ minimum: -5, maximum: 50 }) }, (value: number) => value || 25, [request, response]],
    ['|| 1, an integer', { type: Count }, (value: number) => value || 1, [request, response]],
    ['Math.max(value, 3)', { type: Count }, (value: number) => Math.max(value, 3), [request, response]],
    // Sent up to a coarser unit, two whole numbers become one (100 and 101 °F are 38 °C): the client reads back another.
    ['whole degrees Fahrenheit to whole degrees Celsius', { type: Type.Integer() }, (value: number) => Math.round((value - 32) * 5 / 9), [request]]
  ]
  for (const [name, at, convert, found] of lossy) t.same(await renamedQuantity(t, at, convert), found, name)
})

test('one way, a body\'s 0 converted without loss is no finding: units, units rounded to whole numbers, a 0 the other side cannot hold', async (t) => {
  const correct: Array<[string, { type: TSchema, old?: Record<string, unknown> }, (value: any) => unknown]> = [
    ['carried', { type: Type.Integer() }, (value) => value],
    ['Celsius to Fahrenheit (0 is 32)', { type: Type.Number() }, (value: number) => value * 1.8 + 32],
    ['Celsius to Fahrenheit, rounded to whole degrees', { type: Type.Integer() }, (value: number) => Math.round(value * 1.8 + 32)],
    ['kilograms to grams, rounded', { type: Type.Integer() }, (value: number) => Math.round(value * 1000)],
    ['an offset of one (a count from 1)', { type: Type.Integer({ minimum: 0 }) }, (value: number) => value + 1],
    // HEAD's minimum of 1 refuses the version's 0: it must become another number (and HEAD sends no 0 down).
    ['a 0 HEAD cannot hold, defaulted', { type: Type.Integer({ minimum: 1, maximum: 100 }), old: { minimum: 0 } }, (value: number) => value || 10]
  ]
  for (const [name, at, convert] of correct) t.same(await renamedQuantity(t, at, convert), [], name)
})

test('a body\'s 0 replaced by a default says which two values arrive as what; a ?? default the version\'s schema declares is no finding', async (t) => {
  const Order = Type.Object({ quantity: Type.Integer({ minimum: 0, maximum: 100 }) }, { $id: 'Order' })
  const build = async (convert: (body: { qty?: number }) => number): Promise<FastifyInstance> => {
    class QtyBecameQuantity extends VersionChange {
      description = 'qty became quantity, and may be left out.'
      instructionsToMigrateToPreviousVersion = [schema(Order).field('quantity').had({ name: 'qty', optional: true, default: 10 })]

      @ConvertRequestToNextVersionFor(Order)
      up (request: RequestInfo) {
        request.body.quantity = convert(request.body)
        delete request.body.qty
      }
    }
    return await appWith(t, QtyBecameQuantity, (api) => {
      api.post('/orders', { schema: { body: Order, response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
    })
  }
  const [defaulted, ...more] = await verify(await build((body) => body.qty || 10), { examples: 5 })
  t.same(more, [])
  t.equal(defaulted?.message, 'the value at /qty in 2000-01-01 does not reach HEAD: 0 and 10 both arrive as 10')
  t.match(defaulted?.fix, /QtyBecameQuantity\.up makes two values one: .*keep a 0 a 0, rather than \|\| a default/)
  t.same(summary(await verify(await build((body) => body.qty ?? 10), { examples: 20 })), [], '?? the default the version declares')
  const app = await build((body) => body.qty as number)
  const served = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: {} })
  t.equal(served.statusCode, 200, 'the version\'s default reaches the converter')
  t.same(summary(await verify(app, { examples: 20 })), [], 'the value read unguarded: the default fills it')
})

test('property: a body\'s 0 defaulted to any other count is found both ways; a linear conversion of it, rounded or not, is not', async (t) => {
  const Count = Type.Integer({ minimum: 0, maximum: 100 })
  await fc.assert(fc.asyncProperty(fc.integer({ min: 2, max: 100 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 50 }), async (fallback, scale, offset) => {
    const defaulted = await renamedQuantity(t, { type: Count }, (value: number) => value || fallback)
    const linear = await renamedQuantity(t, { type: Type.Integer() }, (value: number) => Math.round(value * (scale + 0.5) + offset))
    return defaulted.length === 2 && defaulted[0] === request && defaulted[1] === response && linear.length === 0
  }), { numRuns: 10, seed: 157 })
})

/**
 * `GET /reviews` answering `score` (of schema `head`) that the old version showed as `stars` (of schema `old`, whole
 * numbers; the same schema as `head` gives no type), its response converter writing `down` of it.
 */
async function shownAsStars (t: Teardown, at: { head: TSchema, old: TSchema }, down: (score: number) => unknown): Promise<string[]> {
  const Review = Type.Object({ id: Type.String(), score: at.head }, { $id: 'Review' })
  class StarsBecameScore extends VersionChange {
    description = 'stars became score.'
    instructionsToMigrateToPreviousVersion = [schema(Review).field('score').had({ name: 'stars', ...(JSON.stringify(at.old) === JSON.stringify(at.head) ? {} : { type: at.old }) })]

    @ConvertResponseToPreviousVersionFor(Review)
    down (response: ResponseInfo) {
      response.body.stars = down(response.body.score)
      delete response.body.score
    }
  }
  const app = await appWith(t, StarsBecameScore, (api) => {
    api.get('/reviews', { schema: { response: { 200: Review } } }, async () => { throw new Error('not served in verify') })
  })
  return summary(await verify(app, { examples: 5 }))
}

const shown = 'GET /reviews 2000-01-01 response lost response 200/score after StarsBecameScore (2001-01-01) by StarsBecameScore.down'

test('a response\'s 0 shown on a coarser scale of whole numbers starting above 0 is no finding; a default in such a field still is', async (t) => {
  const Score = Type.Integer({ minimum: 0, maximum: 10 })
  const Offset = Type.Integer({ minimum: 0 })
  const scaled: Array<[string, { head: TSchema, old: TSchema }, (score: number) => number]> = [
    ['stars 1 to 5 from a score 0 to 10', { head: Score, old: Type.Integer() }, (score) => Math.round(score * 0.4) + 1],
    ['Math.round(0.4 * x + 1), the scale of decision 0157', { head: Type.Integer(), old: Type.Integer() }, (score) => Math.round(0.4 * score + 1)],
    ['a decile from a percentage', { head: Type.Integer({ minimum: 0, maximum: 100 }), old: Type.Integer({ maximum: 10 }) }, (score) => Math.min(10, Math.floor(score / 10) + 1)],
    ['a page from an offset', { head: Offset, old: Type.Integer() }, (score) => Math.floor(score / 20) + 1],
    ['days from hours, at least one', { head: Offset, old: Type.Integer() }, (score) => Math.max(1, Math.ceil(score / 24))],
    ['a priority 1 to 3 from 0 to 100', { head: Type.Integer({ minimum: 0, maximum: 100 }), old: Type.Integer() }, (score) => Math.min(3, Math.floor(score / 34) + 1)],
    ['a rating from a number, toFixed', { head: Type.Number({ minimum: 0, maximum: 1 }), old: Type.Integer() }, (score) => Number((score * 4 + 1).toFixed(0))]
  ]
  for (const [name, at, down] of scaled) t.same(await shownAsStars(t, at, down), [], name)
  const defaulted: Array<[string, { head: TSchema, old: TSchema }, (score: number) => number]> = [
    ['|| 1', { head: Score, old: Type.Integer() }, (score) => score || 1],
    ['|| 1 with no bounds', { head: Type.Integer(), old: Type.Integer() }, (score) => score || 1],
    ['|| 5, at the top of the range', { head: Type.Integer({ minimum: 0, maximum: 5 }), old: Type.Integer() }, (score) => score || 5],
    ['|| -1', { head: Type.Integer({ minimum: -10, maximum: 10 }), old: Type.Integer() }, (score) => score || -1],
    ['Math.max(score, 1)', { head: Offset, old: Type.Integer() }, (score) => Math.max(score, 1)],
    ['|| 1, then doubled', { head: Offset, old: Type.Integer() }, (score) => (score || 1) * 2 - 1]
  ]
  for (const [name, at, down] of defaulted) t.same(await shownAsStars(t, at, down), [shown], name)
})

test('a default on top of a coarser scale, whose first step is then wider than the others, is found', async (t) => {
  const Offset = Type.Integer({ minimum: 0 })
  const defaulted: Array<[string, { head: TSchema, old: TSchema }, (score: number) => number]> = [
    ['Math.round(score / 20) || 1', { head: Offset, old: Type.Integer() }, (score) => Math.round(score / 20) || 1],
    ['Math.floor(score / 20) || 1', { head: Offset, old: Type.Integer() }, (score) => Math.floor(score / 20) || 1],
    ['Math.round(grams / 1000) || 1', { head: Offset, old: Type.Integer() }, (score) => Math.round(score / 1000) || 1],
    ['Math.max(1, Math.round(score / 20)), within 0 to 1000', { head: Type.Integer({ minimum: 0, maximum: 1000 }), old: Type.Integer() }, (score) => Math.max(1, Math.round(score / 20))],
    ['Math.round(score * 0.4) || 1', { head: Offset, old: Type.Integer() }, (score) => Math.round(score * 0.4) || 1]
  ]
  for (const [name, at, down] of defaulted) t.same(await shownAsStars(t, at, down), [shown], name)
  const Review = Type.Object({ id: Type.String(), score: Offset }, { $id: 'Review' })
  class StarsBecameScore extends VersionChange {
    description = 'stars became score.'
    instructionsToMigrateToPreviousVersion = [schema(Review).field('score').had({ name: 'stars' })]

    @ConvertResponseToPreviousVersionFor(Review)
    down (response: ResponseInfo) {
      response.body.stars = Math.round(response.body.score / 20) || 1
      delete response.body.score
    }
  }
  const [finding, ...more] = await verify(await appWith(t, StarsBecameScore, (api) => {
    api.get('/reviews', { schema: { response: { 200: Review } } }, async () => { throw new Error('not served in verify') })
  }), { examples: 5 })
  t.same(more, [])
  t.match(finding?.message, /^the value at \/score in HEAD does not reach 2000-01-01: 0 and 1 both arrive as 1$/)
  t.match(finding?.fix, /StarsBecameScore\.down makes two values one: .*keep a 0 a 0, rather than \|\| a default/)
  // A ceiled scale's first step is 0 alone: at least one day is the scale's own (decision 0169), as is a step of two.
  t.same(await shownAsStars(t, { head: Offset, old: Type.Integer() }, (hours) => Math.ceil(hours / 24) || 1), [], 'Math.ceil(hours / 24) || 1')
})

test('property: a scale of whole numbers under a default of 1 is found; one starting at 1 is not', async (t) => {
  const Count = Type.Integer({ minimum: 0 })
  await fc.assert(fc.asyncProperty(fc.integer({ min: 3, max: 5000 }), fc.boolean(), async (size, round) => {
    const scale = round ? (score: number) => Math.round(score / size) : (score: number) => Math.floor(score / size)
    const defaulted = await shownAsStars(t, { head: Count, old: Type.Integer() }, (score) => scale(score) || 1)
    const started = await shownAsStars(t, { head: Count, old: Type.Integer() }, (score) => round ? Math.round(score / size + 0.5) : scale(score) + 1)
    return defaulted.length === 1 && defaulted[0] === shown && started.length === 0
  }), { numRuns: 20, seed: 202 })
})

test('property: in a response\'s integer field, a 0 defaulted to any count is found; a scale of whole numbers from 1 or more is not', async (t) => {
  const Count = Type.Integer({ minimum: 0 })
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 2, max: 50 }), fc.integer({ min: 1, max: 5 }), async (fallback, size, first) => {
    const defaulted = await shownAsStars(t, { head: Count, old: Type.Integer() }, (score) => score || fallback)
    const scale = await shownAsStars(t, { head: Count, old: Type.Integer() }, (score) => Math.floor(score / size) + first)
    return defaulted.length === 1 && defaulted[0] === shown && scale.length === 0
  }), { numRuns: 10, seed: 169 })
})

/**
 * `POST /orders` taking `Order` (a list of lines, each with `quantity`, named `qty` in the old version) and answering
 * `{ id }`, `GET /orders` answering it: no round trip. The converters rename it in each line, `convert` giving the
 * lines the other side gets.
 */
async function orderLines (t: Teardown, at: { type: TSchema }, convert: (lines: Array<Record<string, unknown>>, from: string, to: string) => unknown[]): Promise<string[]> {
  const Line = Type.Object({ sku: Type.String(), quantity: at.type })
  const Order = Type.Object({ id: Type.String(), lines: Type.Array(Line) }, { $id: 'Order' })
  class QtyBecameQuantity extends VersionChange {
    description = 'qty became quantity in every line.'
    instructionsToMigrateToPreviousVersion = [schema(Line).field('quantity').had({ name: 'qty' })]

    @ConvertRequestToNextVersionFor(Order)
    up (request: RequestInfo) {
      request.body.lines = convert(request.body.lines, 'qty', 'quantity')
    }

    @ConvertResponseToPreviousVersionFor(Order)
    down (response: ResponseInfo) {
      response.body.lines = convert(response.body.lines, 'quantity', 'qty')
    }
  }
  const app = await appWith(t, QtyBecameQuantity, (api) => {
    api.post('/orders', { schema: { body: Order, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'o1' }))
    api.get('/orders', { schema: { response: { 200: Order } } }, async () => { throw new Error('not served in verify') })
  })
  return summary(await verify(app, { examples: 5 }))
}

/** Each line with its quantity renamed and passed through `value`. */
const renamedIn = (value: (quantity: number) => number) => (lines: Array<Record<string, unknown>>, from: string, to: string): unknown[] =>
  lines.map(({ [from]: quantity, ...line }) => ({ ...line, [to]: value(quantity as number) }))

test('one way, a 0 in a list\'s items replaced by a default is found; a list sorted, filtered or converted item by item is not', async (t) => {
  const Count = Type.Integer({ minimum: 0, maximum: 100 })
  const request = 'POST /orders 2000-01-01 request lost body/lines/*/qty after QtyBecameQuantity (2001-01-01) by QtyBecameQuantity.up'
  const response = 'GET /orders 2000-01-01 response lost response 200/lines/*/quantity after QtyBecameQuantity (2001-01-01) by QtyBecameQuantity.down'
  t.same(await orderLines(t, { type: Count }, renamedIn((quantity) => quantity || 10)), [request, response], '|| 10')
  t.same(await orderLines(t, { type: Type.Number() }, renamedIn((quantity) => quantity || 25)), [request, response], '|| 25, a number')
  t.same(await orderLines(t, { type: Count }, renamedIn((quantity) => quantity || 1)), [request, response], '|| 1: its twin in a request, in a response\'s integer field too')
  const correct: Array<[string, TSchema, (lines: Array<Record<string, unknown>>, from: string, to: string) => unknown[]]> = [
    ['carried', Count, renamedIn((quantity) => quantity)],
    ['sorted by quantity, the largest first', Count, (lines, from, to) => (renamedIn((quantity) => quantity)(lines, from, to) as Array<Record<string, number>>).sort((a, b) => b[to] - a[to])],
    ['Celsius to Fahrenheit in each line', Type.Number(), renamedIn((quantity) => quantity * 1.8 + 32)],
    ['an offset of one in each line', Type.Integer({ minimum: 0 }), renamedIn((quantity) => quantity + 1)]
  ]
  for (const [name, type, convert] of correct) t.same(await orderLines(t, { type }, convert), [], name)
  // Lines of 0 left out: their skus are lost (a list filtered), not a 0 made another number.
  const filtered = (lines: Array<Record<string, unknown>>, from: string, to: string): unknown[] => (renamedIn((quantity) => quantity)(lines, from, to) as Array<Record<string, number>>).filter((line) => line[to] > 0)
  t.same(await orderLines(t, { type: Count }, filtered), [request.replace('/qty', '/sku'), response.replace('/quantity', '/sku')], 'filtered')
})
