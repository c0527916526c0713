/**
 * A customers API as a team grows it over twelve monthly releases (2025-01-01 … 2025-12-01): `yearApp(t, n)` is the
 * application as it stood at release `n` (1…12), its HEAD schemas and handlers those of that release, its version
 * changes the ones written until then. Used by the long-chain tests (test/migration/long-chains.test.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, fastifyVersioner, schema,
  versioned, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import type { Teardown } from './apps'

/** The release dates, oldest first. */
export const RELEASES = Array.from({ length: 12 }, (_, index) => `2025-${String(index + 1).padStart(2, '0')}-01`)

type Body = Record<string, unknown>
type Changes = VersionChangeClass[]

/** HEAD of release `n`: what its handlers store and answer. */
function headSchemas (n: number): { Customer: TSchema, CreateCustomer: TSchema, Plan: TSchema, Address: TSchema, Problem: TSchema } {
  const Address = Type.Object({ street: Type.String(), ...(n >= 8 ? { city: Type.String() } : {}) }, { $id: 'Address' })
  // An enum keyword, not a union of literals: fast-json-stringify cannot serialize a union beside a `$ref` relative to
  // a nested `$id` in a list (plain Fastify answers 500 "can't resolve reference Address from id Customer").
  const Plan = Type.Unsafe<string>({ type: 'string', enum: ['free', 'pro', ...(n === 4 ? ['team'] : n >= 5 ? ['business'] : [])] })
  const nameField = n >= 3 ? 'displayName' : n >= 2 ? 'fullName' : 'name'
  const fields = {
    [nameField]: Type.String(),
    plan: Plan,
    address: Type.Ref(Address),
    ...(n < 6 ? { nickname: Type.Optional(Type.String()) } : {}),
    ...(n >= 9 ? { nickname: Type.Optional(Type.Array(Type.String())) } : {}),
    ...(n >= 2 ? { email: n >= 7 ? Type.String() : Type.Optional(Type.String()) } : {}),
    ...(n >= 6 ? { [n >= 9 ? 'rating' : 'score']: n >= 12 ? Type.String({ pattern: '^[0-9]{1,6}$' }) : Type.Integer({ minimum: 0, maximum: 999999 }) } : {}),
    ...(n >= 8 ? { tags: Type.Array(Type.String()) } : {})
  }
  const CreateCustomer = Type.Object(fields, { $id: 'CreateCustomer', additionalProperties: false })
  const Customer = Type.Object({ id: Type.String(), ...fields }, { $id: 'Customer' })
  const Problem = n >= 8 ? Type.Object({ code: Type.String(), detail: Type.String() }, { $id: 'Problem' }) : Type.Object({ error: Type.String() }, { $id: 'Problem' })
  return { Customer, CreateCustomer, Plan, Address, Problem }
}

/** The version changes written until release `n`, newest first (changes[i] belongs to release i + 2). */
function changesUntil (n: number, s: ReturnType<typeof headSchemas>): Changes {
  const { Customer, CreateCustomer, Plan, Address, Problem } = s
  const anyField = (target: TSchema, name: string): ReturnType<ReturnType<typeof schema>['formerField']> => schema(target).formerField(name)
  const both = (build: (target: TSchema) => unknown): never[] => [build(Customer), build(CreateCustomer)] as never[]
  class R2RenameNameToFullName extends VersionChange {
    description = 'R2: name is fullName; customers have an optional email.'
    instructionsToMigrateToPreviousVersion = [
      ...both((target) => anyField(target, 'fullName').had({ name: 'name' })),
      ...both((target) => anyField(target, 'email').didntExist)
    ]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { request.body.fullName = request.body.name; delete request.body.name }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { response.body.name = response.body.fullName; delete response.body.fullName }
  }
  class R3RenameFullNameToDisplayName extends VersionChange {
    description = 'R3: fullName is displayName; creating a customer answers 201.'
    instructionsToMigrateToPreviousVersion = [
      ...both((target) => anyField(target, 'displayName').had({ name: 'fullName' })),
      endpoint('/customers', ['POST']).had({ statusCode: 200 })
    ]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    async up (request: RequestInfo): Promise<void> { request.body.displayName = request.body.fullName; delete request.body.fullName }

    @ConvertResponseToPreviousVersionFor(Customer)
    async down (response: ResponseInfo): Promise<void> { response.body.fullName = response.body.displayName; delete response.body.displayName }
  }
  class R4AddTeamPlan extends VersionChange {
    description = 'R4: the team plan.'
    instructionsToMigrateToPreviousVersion = [
      enumeration(Plan).didntHave('team'),
      endpoint('/customers/:id/summary', ['GET'], { operationId: 'textSummary' }).existed
    ]

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { if (response.body.plan === 'team') response.body.plan = 'pro' }
  }
  class R5RenameTeamToBusiness extends VersionChange {
    description = 'R5: the team plan is the business plan.'
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).had({ business: 'team' })]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { if (request.body.plan === 'team') request.body.plan = 'business' }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { if (response.body.plan === 'business') response.body.plan = 'team' }
  }
  class R6RemoveNicknameAddScore extends VersionChange {
    description = 'R6: nickname removed; customers have a score; notes are memos.'
    instructionsToMigrateToPreviousVersion = [
      ...both((target) => anyField(target, 'nickname').existedAs({ type: Type.String(), optional: true })),
      ...both((target) => anyField(target, 'score').didntExist),
      endpoint('/customers/:id/memos', ['POST']).had({ path: '/customers/:id/notes' })
    ]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { delete request.body.nickname; request.body.score = 0 }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { delete response.body.nickname }
  }
  class R7EmailRequired extends VersionChange {
    description = 'R7: email is required.'
    instructionsToMigrateToPreviousVersion = [...both((target) => anyField(target, 'email').had({ optional: true }))]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { if (request.body.email === undefined) request.body.email = 'unknown@example.com' }
  }
  class R8TagsAndCity extends VersionChange {
    description = 'R8: customers have tags, addresses a city; errors are problems.'
    instructionsToMigrateToPreviousVersion = [
      ...both((target) => anyField(target, 'tags').didntExist),
      schema(Address).formerField('city').didntExist,
      schema(Problem).formerField('code').didntExist,
      schema(Problem).formerField('detail').had({ name: 'error' })
    ]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { request.body.tags = []; (request.body.address as Body).city = '' }

    @ConvertResponseToPreviousVersionFor(Problem, { migrateHttpErrors: true })
    down (response: ResponseInfo): void { response.body = { error: response.body.detail } }
  }
  class R9NicknamesAndRating extends VersionChange {
    description = 'R9: nicknames are back as a list; score is rating.'
    instructionsToMigrateToPreviousVersion = [
      ...both((target) => anyField(target, 'nickname').didntExist),
      ...both((target) => anyField(target, 'rating').had({ name: 'score' }))
    ]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { request.body.rating = request.body.score; delete request.body.score }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { response.body.score = response.body.rating; delete response.body.rating }
  }
  class R10CreateAccepted extends VersionChange {
    description = 'R10: creating a customer answers 202; a summary of counts.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/customers', ['POST']).had({ statusCode: 201 }),
      endpoint('/customers/:id/summary', ['GET'], { operationId: 'countSummary' }).didntExist
    ]
  }
  class R11MemosArePut extends VersionChange {
    description = 'R11: memos are written with PUT.'
    instructionsToMigrateToPreviousVersion = [endpoint('/customers/:id/memos', ['PUT']).had({ methods: ['POST'] })]
  }
  class R12RatingIsText extends VersionChange {
    description = 'R12: the rating is a string.'
    instructionsToMigrateToPreviousVersion = [...both((target) => anyField(target, 'rating').had({ type: Type.Integer({ minimum: 0, maximum: 999999 }) }))]

    @ConvertRequestToNextVersionFor(CreateCustomer)
    up (request: RequestInfo): void { request.body.rating = String(request.body.rating) }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void { response.body.rating = Number(response.body.rating) }
  }
  const all = [R2RenameNameToFullName, R3RenameFullNameToDisplayName, R4AddTeamPlan, R5RenameTeamToBusiness, R6RemoveNicknameAddScore,
    R7EmailRequired, R8TagsAndCity, R9NicknamesAndRating, R10CreateAccepted, R11MemosArePut, R12RatingIsText]
  return all.slice(0, n - 1)
}

/** Options of {@link yearApp}: edits to history, for the tests that must see them refused. */
interface YearOptions {
  /** Rearranges the versions (newest first, each with its changes) before the bundle is built. */
  readonly edit?: (versions: Array<[string, Changes]>) => Array<[string, Changes]>
}

/** The application at release `n`: its versions, routes and webhook; the store starts empty, ids count from 1. */
export async function yearApp (t: Teardown, n: number, options: YearOptions = {}): Promise<FastifyInstance> {
  const s = headSchemas(n)
  const changes = changesUntil(n, s)
  let versions: Array<[string, Changes]> = RELEASES.slice(0, n).map((date, index) => [date, index === 0 ? [] : [changes[index - 1]]])
  versions.reverse()
  if (options.edit !== undefined) versions = options.edit(versions)
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(s.Address)
  await app.register(fastifyVersioner, { versions: new VersionBundle(...versions.map(([date, list]) => new Version(date, ...list))) })
  app.versioner.webhooks.add({ name: 'customer.created', body: s.Customer })
  const store = new Map<string, Body>()
  const notFound = n >= 8 ? { code: 'not_found', detail: 'no such customer' } : { error: 'no such customer' }
  const created = n >= 10 ? 202 : n >= 3 ? 201 : 200
  await app.register(versioned(async (api) => {
    const params = Type.Object({ id: Type.String() })
    api.post('/customers', { schema: { body: s.CreateCustomer, response: { [created]: s.Customer } } }, async (request, reply) => {
      const customer = { id: `c${store.size + 1}`, ...(request.body as Body) }
      store.set(customer.id, customer)
      return await reply.code(created).send(customer)
    })
    api.get('/customers/:id', { schema: { params, response: { 200: s.Customer, 404: s.Problem } } }, async (request, reply) => {
      const customer = store.get((request.params as { id: string }).id)
      return customer ?? await reply.code(404).send(notFound)
    })
    api.put('/customers/:id', { schema: { params, body: s.CreateCustomer, response: { 200: s.Customer, 404: s.Problem } }, fullReplace: false }, async (request, reply) => {
      const id = (request.params as { id: string }).id
      if (!store.has(id)) return await reply.code(404).send(notFound)
      const customer = { id, ...(request.body as Body) }
      store.set(id, customer)
      return customer
    })
    api.get('/customers', { schema: { response: { 200: Type.Object({ data: Type.Array(s.Customer) }) } } }, async () => ({ data: [...store.values()] }))
    const memoPath = n >= 6 ? '/customers/:id/memos' : '/customers/:id/notes'
    api.route({
      method: n >= 11 ? 'PUT' : 'POST',
      url: memoPath,
      schema: { params, body: Type.Object({ text: Type.String() }), response: { 200: Type.Object({ saved: Type.String() }) } },
      handler: async (request) => ({ saved: request.body.text })
    })
    api.get('/customers/:id/summary', { schema: { operationId: 'textSummary', params, response: { 200: Type.Object({ text: Type.String() }) } }, ...(n >= 4 ? { onlyExistsInOlderVersions: true } : {}) },
      async () => ({ text: 'a summary' }))
    if (n >= 10) {
      api.get('/customers/:id/summary', { schema: { operationId: 'countSummary', params, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => ({ count: store.size }))
    }
  }))
  return app
}
