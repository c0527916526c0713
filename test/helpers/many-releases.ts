/**
 * A customers API released every month for years: `manyReleasesApp(t, n)` is the application at release `n` (1…),
 * with `n` versions (2019-01-01 onwards, monthly). Each release after the first makes one change of the kinds a team
 * makes, in turn (those of test/helpers/release-year.ts): renames the name field, renames a plan, adds or removes a
 * field, retypes the score (integer or digits), moves the create status (201 or 202), adds or removes the address's
 * city (a nested schema), makes the email required or optional, adds or removes a plan, renames the error's field
 * (an error converter), moves the memos' path; each with its converters. The application does not grow with the
 * releases: only its history does. Used by the test of `verify`'s cost per version (test/verify/verify-many-versions.test.ts)
 * and the benchmark `benchmarks/verify-versions.ts`.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, fastifyVersioner, schema,
  versioned, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import type { Teardown } from './apps'

/** The date of release `k` (1…): monthly from 2019-01-01. */
export function releaseDate (k: number): string {
  return `${2019 + Math.floor((k - 1) / 12)}-${String(((k - 1) % 12) + 1).padStart(2, '0')}-01`
}

/** The kinds of change (0…9), in turn: release k (≥ 2) makes `order[(k - 2) % order.length]`. */
type Order = readonly number[]

/** Every kind, in turn. */
export const EVERY_KIND: Order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]

/** The kind of change release `k` (≥ 2) makes. */
const kindOf = (order: Order, k: number): number => order[(k - 2) % order.length]

/** How many changes of `kind` releases 2…k made. */
function made (order: Order, k: number, kind: number): number {
  let count = 0
  for (let release = 2; release <= k; release++) if (kindOf(order, release) === kind) count++
  return count
}

const score = (d: number): TSchema => d % 2 === 0 ? Type.Integer({ minimum: 0, maximum: 999999 }) : Type.String({ pattern: '^(0|[1-9][0-9]{0,5})$' })

/** HEAD at release `k`. */
function schemasAt (order: Order, k: number): Record<'Customer' | 'CreateCustomer' | 'Plan' | 'Address' | 'Problem', TSchema> {
  const Address = Type.Object({ street: Type.String(), ...(made(order, k, 5) % 2 === 1 ? { city: Type.String() } : {}) }, { $id: 'Address' })
  const Plan = Type.Unsafe<string>({ type: 'string', enum: ['free', `tier${made(order, k, 1)}`, ...(made(order, k, 7) % 2 === 1 ? ['vip'] : [])] })
  const Problem = Type.Object({ [made(order, k, 8) % 2 === 1 ? 'detail' : 'error']: Type.String() }, { $id: 'Problem' })
  const fields = {
    [`name${made(order, k, 0)}`]: Type.String(),
    plan: Plan,
    address: Type.Ref(Address),
    tags: Type.Array(Type.String()),
    email: made(order, k, 6) % 2 === 1 ? Type.String() : Type.Optional(Type.String()),
    score: score(made(order, k, 3)),
    ...(made(order, k, 2) % 2 === 1 ? { extra: Type.String() } : {})
  }
  return {
    Plan,
    Address,
    Problem,
    CreateCustomer: Type.Object(fields, { $id: 'CreateCustomer', additionalProperties: false }),
    Customer: Type.Object({ id: Type.String(), ...fields }, { $id: 'Customer' })
  }
}

type Body = Record<string, unknown>

/** The version change of release `k` (≥ 2), written against HEAD's schemas `s`. */
function changeOf (order: Order, k: number, s: ReturnType<typeof schemasAt>): VersionChangeClass {
  const { Customer, CreateCustomer, Plan } = s
  const both = (build: (target: TSchema) => unknown): never[] => [build(Customer), build(CreateCustomer)] as never[]
  const kind = kindOf(order, k)
  const count = made(order, k, kind)
  if (kind === 0) {
    const [from, to] = [`name${count - 1}`, `name${count}`]
    class Rename extends VersionChange {
      description = `R${k}: ${from} is ${to}.`
      instructionsToMigrateToPreviousVersion = both((target) => schema(target).formerField(to).had({ name: from }))
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { request.body[to] = request.body[from]; delete request.body[from] }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { response.body[from] = response.body[to]; delete response.body[to] }
    }
    return Object.defineProperty(Rename, 'name', { value: `R${k}Rename` })
  }
  if (kind === 1) {
    const [from, to] = [`tier${count - 1}`, `tier${count}`]
    class RenamePlan extends VersionChange {
      description = `R${k}: the ${from} plan is ${to}.`
      instructionsToMigrateToPreviousVersion = [enumeration(Plan).had({ [to]: from })]
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { if (request.body.plan === from) request.body.plan = to }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { if (response.body.plan === to) response.body.plan = from }
    }
    return Object.defineProperty(RenamePlan, 'name', { value: `R${k}RenamePlan` })
  }
  if (kind === 2) {
    const added = count % 2 === 1
    class Extra extends VersionChange {
      description = `R${k}: customers ${added ? 'have' : 'no longer have'} an extra.`
      instructionsToMigrateToPreviousVersion = both((target) => added
        ? schema(target).formerField('extra').didntExist
        : schema(target).formerField('extra').existedAs({ type: Type.String() }))

      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { if (added) request.body.extra = ''; else delete request.body.extra }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { if (!added) response.body.extra = '' }
    }
    return Object.defineProperty(Extra, 'name', { value: `R${k}${added ? 'Add' : 'Remove'}Extra` })
  }
  if (kind === 3) {
    const toText = count % 2 === 1
    class Retype extends VersionChange {
      description = `R${k}: the score is ${toText ? 'digits' : 'an integer'}.`
      instructionsToMigrateToPreviousVersion = both((target) => schema(target).formerField('score').had({ type: score(count - 1) }))
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { request.body.score = toText ? String(request.body.score) : Number(request.body.score) }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { response.body.score = toText ? Number(response.body.score) : String(response.body.score) }
    }
    return Object.defineProperty(Retype, 'name', { value: `R${k}RetypeScore` })
  }
  if (kind >= 5) return laterChangeOf(order, k, s)
  class MoveStatus extends VersionChange {
    description = `R${k}: creating a customer answers ${count % 2 === 1 ? 202 : 201}.`
    instructionsToMigrateToPreviousVersion = [endpoint('/customers', ['POST']).had({ statusCode: count % 2 === 1 ? 201 : 202 })]
  }
  return Object.defineProperty(MoveStatus, 'name', { value: `R${k}MoveStatus` })
}

/** The version change of release `k` of kinds 5 and up. */
function laterChangeOf (order: Order, k: number, s: ReturnType<typeof schemasAt>): VersionChangeClass {
  const { Customer, CreateCustomer, Plan, Address, Problem } = s
  const both = (build: (target: TSchema) => unknown): never[] => [build(Customer), build(CreateCustomer)] as never[]
  const kind = kindOf(order, k)
  const odd = made(order, k, kind) % 2 === 1
  const named = (change: VersionChangeClass, name: string): VersionChangeClass => Object.defineProperty(change, 'name', { value: `R${k}${name}` })
  if (kind === 5) {
    class City extends VersionChange {
      description = `R${k}: addresses ${odd ? 'have' : 'no longer have'} a city.`
      instructionsToMigrateToPreviousVersion = [odd ? schema(Address).formerField('city').didntExist : schema(Address).formerField('city').existedAs({ type: Type.String() })]
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { const address = request.body.address as Body; if (odd) address.city = ''; else delete address.city }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { if (!odd) (response.body.address as Body).city = '' }
    }
    return named(City, odd ? 'AddCity' : 'RemoveCity')
  }
  if (kind === 6) {
    class Email extends VersionChange {
      description = `R${k}: the email is ${odd ? 'required' : 'optional'}.`
      instructionsToMigrateToPreviousVersion = both((target) => schema(target).formerField('email').had({ optional: odd }))
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { if (odd && request.body.email === undefined) request.body.email = 'unknown@example.com' }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { if (!odd && response.body.email === undefined) response.body.email = 'unknown@example.com' }
    }
    return named(Email, odd ? 'EmailRequired' : 'EmailOptional')
  }
  if (kind === 7) {
    class Vip extends VersionChange {
      description = `R${k}: the vip plan ${odd ? 'is new' : 'is gone'}.`
      instructionsToMigrateToPreviousVersion = [odd ? enumeration(Plan).didntHave('vip') : enumeration(Plan).had({ vip: 'vip' })]
      @ConvertRequestToNextVersionFor(CreateCustomer)
      up (request: RequestInfo): void { if (!odd && request.body.plan === 'vip') request.body.plan = 'free' }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo): void { if (odd && response.body.plan === 'vip') response.body.plan = 'free' }
    }
    return named(Vip, odd ? 'AddVip' : 'RemoveVip')
  }
  const [from, to] = odd ? ['error', 'detail'] : ['detail', 'error']
  if (kind === 8) {
    class ProblemField extends VersionChange {
      description = `R${k}: an error's ${from} is its ${to}.`
      instructionsToMigrateToPreviousVersion = [schema(Problem).formerField(to).had({ name: from })]
      @ConvertResponseToPreviousVersionFor(Problem, { migrateHttpErrors: true })
      down (response: ResponseInfo): void { response.body = { [from]: response.body[to] } }
    }
    return named(ProblemField, 'RenameProblemField')
  }
  class MovePath extends VersionChange {
    description = `R${k}: memos are at ${odd ? 'memos' : 'notes'}.`
    instructionsToMigrateToPreviousVersion = [endpoint(`/customers/:id/${odd ? 'memos' : 'notes'}`, ['POST']).had({ path: `/customers/:id/${odd ? 'notes' : 'memos'}` })]
  }
  return named(MovePath, 'MoveMemos')
}

/**
 * The application at release `n` (its changes of the kinds `order` takes in turn): `n` versions, its routes and webhook; the store starts empty.
 * `copies` more pairs of routes (`GET /accounts/:k/customers`, `POST /accounts/:k/customers`) share its schemas, for an API of 100+ routes.
 */
export async function manyReleasesApp (t: Teardown, n: number, order: Order = EVERY_KIND, copies = 0): Promise<FastifyInstance> {
  const s = schemasAt(order, n)
  const versions = Array.from({ length: n }, (_, index) => new Version(releaseDate(index + 1), ...(index === 0 ? [] : [changeOf(order, index + 1, s)]))).reverse()
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(s.Address)
  await app.register(fastifyVersioner, { versions: new VersionBundle(...versions) })
  app.versioner.webhooks.add({ name: 'customer.created', body: s.Customer })
  const store = new Map<string, Body>()
  const created = made(order, n, 4) % 2 === 1 ? 202 : 201
  await app.register(versioned(async (api) => {
    const params = Type.Object({ id: Type.String() })
    api.post('/customers', { schema: { body: s.CreateCustomer, response: { [created]: s.Customer } } }, async (request, reply) => {
      const customer = { id: `c${store.size + 1}`, ...(request.body as Body) }
      store.set(customer.id, customer)
      return await reply.code(created).send(customer)
    })
    const notFound = { [made(order, n, 8) % 2 === 1 ? 'detail' : 'error']: 'no such customer' }
    api.get('/customers/:id', { schema: { params, response: { 200: s.Customer, 404: s.Problem } } }, async (request, reply) =>
      store.get((request.params as { id: string }).id) ?? await reply.code(404).send(notFound))
    api.put('/customers/:id', { schema: { params, body: s.CreateCustomer, response: { 200: s.Customer, 404: s.Problem } }, fullReplace: false }, async (request) => {
      const customer = { id: (request.params as { id: string }).id, ...(request.body as Body) }
      store.set(customer.id, customer)
      return customer
    })
    api.post(`/customers/:id/${made(order, n, 9) % 2 === 1 ? 'memos' : 'notes'}`, { schema: { params, body: Type.Object({ text: Type.String() }), response: { 200: Type.Object({ saved: Type.String() }) } } },
      async (request) => ({ saved: (request.body as { text: string }).text }))
    api.get('/customers', { schema: { response: { 200: Type.Object({ data: Type.Array(s.Customer) }) } } }, async () => ({ data: [...store.values()] }))
    for (let k = 0; k < copies; k++) {
      api.get(`/accounts/${k}/customers`, { schema: { response: { 200: Type.Object({ data: Type.Array(s.Customer) }) } } }, async () => ({ data: [...store.values()] }))
      api.post(`/accounts/${k}/customers`, { schema: { body: s.CreateCustomer, response: { [created]: s.Customer } } }, async (request, reply) =>
        await reply.code(created).send({ id: 'c0', ...(request.body as Body) }))
    }
  }))
  return app
}
