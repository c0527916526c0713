// replaceFromEveryVersion: a stored resource read and sent back unchanged by a client of every version stays as it was,
// and a replace leaving out an optional field clears it; the handlers run.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, fieldsTheVersionLacks, schema, versioned, Version,
  VersionBundle, VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { replaceFromEveryVersion, type ReplaceFromVersionFinding } from '../../tools'

const Customer = Type.Object({
  name: Type.String(),
  memo: Type.Optional(Type.String()),
  nickname: Type.Optional(Type.String()),
  amountCents: Type.Optional(Type.Integer()),
  updatedAt: Type.Optional(Type.String())
}, { $id: 'ReplacedCustomer' })
type Stored = Static<typeof Customer>
const NullableMemo = Type.Object({ name: Type.String(), memo: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })) }, { $id: 'NullableMemo' })

class Nickname extends VersionChange {
  description = 'Customers have a nickname.'
  instructionsToMigrateToPreviousVersion = [schema(Customer).field('nickname').didntExist]
}

/** 2000-01-01 sends and reads `amount` in units; the request converter given floors it (a lossy one) or rounds it. */
function amountInUnits (toCents: (amount: number) => number): VersionChangeClass {
  class AmountInUnits extends VersionChange {
    description = 'Amounts are in cents.'
    instructionsToMigrateToPreviousVersion = [schema(Customer).field('amountCents').had({ name: 'amount', type: Type.Number() })]

    @ConvertRequestToNextVersionFor(Customer)
    up (request: RequestInfo): void {
      const body = request.body as Record<string, unknown>
      if (typeof body.amount === 'number') body.amountCents = toCents(body.amount)
      delete body.amount
    }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo): void {
      const body = response.body as Record<string, unknown>
      if (typeof body.amountCents === 'number') body.amount = body.amountCents / 100
      delete body.amountCents
    }
  }
  return AmountInUnits
}

/** What PUT does: keep what the version lacks, erase it, merge, or keep and stamp the time of each write. */
type Handler = 'keeps' | 'erases' | 'merges' | 'stamps'

interface Built { readonly app: FastifyInstance, readonly stored: Map<string, Stored> }

/**
 * An app whose PUT /customers/:id does what `handler` says; customer `c1` stored with `first`. With `password`, the
 * replace also takes the customer's password (never read back), and refuses any but `'secret'`.
 */
async function customersApp (t: { teardown: (fn: () => unknown) => void }, handler: Handler, options: { first?: Stored, toCents?: (amount: number) => number, password?: boolean } = {}): Promise<Built> {
  const stored = new Map<string, Stored>([['c1', options.first ?? { name: 'Ada', memo: 'VIP', nickname: 'ada', amountCents: 1999 }]])
  const app = Fastify()
  t.teardown(() => app.close())
  const body = options.password === true ? Type.Intersect([Customer, Type.Object({ password: Type.String() })]) : Customer
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new Version('2002-01-01', Nickname), new Version('2001-01-01', amountInUnits(options.toCents ?? ((amount) => Math.round(amount * 100)))), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    const params = Type.Object({ id: Type.String() })
    api.get<{ Params: Static<typeof params> }>('/customers/:id', { schema: { params, response: { 200: Customer } } }, async (request, reply) =>
      stored.get(request.params.id) ?? reply.code(404).send())
    let writes = 0
    api.put<{ Params: Static<typeof params>, Body: Stored & { password?: string } }>('/customers/:id', { schema: { params, body, response: { 200: Customer } } }, async (request, reply) => {
      const existing = stored.get(request.params.id) ?? { name: '' }
      const { password, ...sent } = request.body
      if (options.password === true && password !== 'secret') return reply.code(422).send({ message: 'wrong password' })
      let customer: Stored = handler === 'merges' ? { ...existing, ...sent } : { ...sent }
      if (handler === 'keeps' || handler === 'stamps') {
        for (const pointer of fieldsTheVersionLacks(request)) {
          const key = pointer.slice(1) as keyof Stored
          if (existing[key] !== undefined) customer = { ...customer, [key]: existing[key] }
        }
      }
      if (handler === 'stamps') customer = { ...customer, updatedAt: new Date(Date.UTC(2026, 0, 1) + 1000 * ++writes).toISOString() }
      stored.set(request.params.id, customer)
      return customer
    })
  }))
  await app.ready()
  return { app, stored }
}

test('regression: a handler that keeps what each version lacks: no finding, and the resource is left as stored, without the example values of the fill', async (t) => {
  const { app, stored } = await customersApp(t, 'keeps')
  t.same(await replaceFromEveryVersion(app, { url: '/customers/c1' }), [])
  t.same(stored.get('c1'), { name: 'Ada', memo: 'VIP', nickname: 'ada', amountCents: 1999 }, 'put back after each step, and as stored at the end')
})

test('a handler that replaces everything: a client of 2000-01-01 or 2001-01-01 sending back what it read erases the nickname', async (t) => {
  const { app } = await customersApp(t, 'erases')
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1' })
  t.same(findings.map(({ version, kind, pointer, before, after }) => ({ version, kind, pointer, before, after })), [
    { version: '2001-01-01', kind: 'changed', pointer: '/nickname', before: 'ada', after: undefined },
    { version: '2000-01-01', kind: 'changed', pointer: '/nickname', before: 'ada', after: undefined }
  ])
  t.match(findings[0].message, /a client of 2001-01-01 replacing the resource with what it read changed \/nickname .*"ada" before, nothing after.*fieldsTheVersionLacks\(request\)/)
})

test('a handler that merges: no client can clear an optional field by leaving it out', async (t) => {
  const { app } = await customersApp(t, 'merges')
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1' })
  const notCleared = findings.filter((finding) => finding.kind === 'not cleared').map(({ version, pointer }) => `${version} ${pointer}`)
  t.same(notCleared, ['2002-01-01 /memo', '2002-01-01 /nickname', '2002-01-01 /amountCents', '2002-01-01 /updatedAt', '2001-01-01 /memo',
    '2001-01-01 /amountCents', '2001-01-01 /updatedAt', '2000-01-01 /memo', '2000-01-01 /amount', '2000-01-01 /updatedAt'])
  t.same(findings.filter((finding) => finding.kind !== 'not cleared'), [], 'a merge erases nothing')
  t.match(findings[0].message, /leaves out \/memo kept it: the route merges/)
})

test('a request converter that loses cents on the way to the handler is found through it', async (t) => {
  const { app } = await customersApp(t, 'keeps', { toCents: (amount) => Math.floor(amount) * 100 })
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1' })
  t.same(findings.map(({ version, kind, pointer, before, after }) => ({ version, kind, pointer, before, after })), [
    { version: '2000-01-01', kind: 'changed', pointer: '/amountCents', before: 1999, after: 1900 }
  ])
  t.match(findings[0].message, /A converter on the way loses or changes it/)
})

test('a field every replace changes is named in ignore', async (t) => {
  const { app } = await customersApp(t, 'stamps')
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false })
  t.ok(findings.length > 0 && findings.every((finding) => finding.pointer === '/updatedAt' && finding.kind === 'changed'), 'each replace moves the time')
  t.match(findings[0].message, /goes in the ignore option/)
  t.same(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false, ignore: ['/updatedAt'] }), [])
})

test('a field the route takes and no read shows: each version is refused until the body option adds it', async (t) => {
  const { app } = await customersApp(t, 'keeps', { password: true })
  t.match(await replaceFromEveryVersion(app, { url: '/customers/c1' }).catch((error: unknown) => error), {
    code: 'FST_VERSIONER_TOOL',
    message: /the newest version \(2002-01-01\) refused the resource with every field set to an example value \(422 .*wrong password.*\): store a resource with every field set, and pass fill: false/
  })
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false })
  t.same(findings.map(({ version, kind }) => `${version} ${kind}`), ['2002-01-01 refused', '2001-01-01 refused', '2000-01-01 refused'])
  t.match(findings[0], { after: { statusCode: 400 }, message: /answered 400: the version reads a shape its replace does not take\. Give the body option/ })
  const body = (read: unknown): unknown => ({ ...(read as object), password: 'secret' })
  t.same(await replaceFromEveryVersion(app, { url: '/customers/c1', body }), [])
})

test('without fill, a field the resource does not hold is not there to lose', async (t) => {
  const { app } = await customersApp(t, 'erases', { first: { name: 'Ada' } })
  t.same(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false }), [], 'nothing stored: nothing erased')
  t.same((await replaceFromEveryVersion(app, { url: '/customers/c1' })).map(({ version, pointer }) => `${version} ${pointer}`),
    ['2001-01-01 /nickname', '2000-01-01 /nickname'], 'filled first: the erased nickname is found')
})

test('versions narrows the versions replaced from; the newest version still reads and puts back', async (t) => {
  const { app } = await customersApp(t, 'erases')
  t.same((await replaceFromEveryVersion(app, { url: '/customers/c1', versions: ['2000-06-01'] })).map(({ version, pointer }) => `${version} ${pointer}`),
    ['2000-01-01 /nickname'], 'a date between versions is the version served then')
})

test('a URL no version reads, or a resource not stored, is FST_VERSIONER_TOOL saying what to give', async (t) => {
  const { app } = await customersApp(t, 'keeps')
  t.match(await replaceFromEveryVersion(app, { url: '/customers/c1', method: 'POST' }).catch((error: unknown) => error),
    { code: 'FST_VERSIONER_TOOL', message: 'replaceFromEveryVersion: no version both reads (GET) and replaces (POST) /customers/c1.' })
  t.match(await replaceFromEveryVersion(app, { url: '/customers/nobody' }).catch((error: unknown) => error),
    { code: 'FST_VERSIONER_TOOL', message: /GET \/customers\/nobody answered 404 in 2002-01-01: give the URL of a resource stored before the call/ })
})

/** A shared schema's route pair: GET reads `c1`, PUT takes `body` (default the schema) and `merges` or stores what it is sent. */
/** A change the shared schema's apps hold (Nickname's schema is no route's there: FST_VERSIONER_INSTRUCTION_UNUSED). */
class SharedUnchanged extends VersionChange {
  description = 'Nothing the shared customers show changed.'
  instructionsToMigrateToPreviousVersion = []
}

async function sharedApp (t: { teardown: (fn: () => unknown) => void }, make: (shared: TObject) => { body?: unknown, stored: Record<string, unknown>, merges: boolean, versions?: VersionBundle }, fields: TProperties = {}): Promise<Built> {
  const Shared = Type.Object({ name: Type.String(), memo: Type.Optional(Type.String()), ...fields }, { $id: 'SharedCustomer' })
  const { body, stored: first, merges, versions } = make(Shared)
  const stored = new Map<string, Stored>([['c1', first as Stored]])
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(Shared)
  await app.register(fastifyVersioner, { versions: versions ?? new VersionBundle(new Version('2001-01-01', SharedUnchanged), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    const params = Type.Object({ id: Type.String() })
    api.get<{ Params: Static<typeof params> }>('/customers/:id', { schema: { params, response: { 200: Shared } } }, async (request) => stored.get(request.params.id))
    api.put<{ Params: Static<typeof params>, Body: Stored }>('/customers/:id', { schema: { params, body: (body ?? Shared) as TObject, response: { 200: Shared } } }, async (request) => {
      const customer = merges ? { ...stored.get(request.params.id), ...request.body } : { ...request.body, id: request.params.id }
      stored.set(request.params.id, customer)
      return customer
    })
  }))
  await app.ready()
  return { app, stored }
}
const summary = (findings: readonly ReplaceFromVersionFinding[]): string[] => findings.map(({ version, kind, pointer }) => `${version} ${kind} ${pointer}`)

test('regression: a readOnly field of the replace body (an id the handler sets) was reported not cleared', async (t) => {
  const { app } = await sharedApp(t, () => ({ stored: { id: 'c1', name: 'Ada', memo: 'VIP' }, merges: false }), { id: Type.Optional(Type.String({ readOnly: true })) })
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1' })), [], 'no client sets it, so none clears it')
})

test('regression: an optional field removed since (existedAs), which the response converter fills, was reported not cleared', async (t) => {
  const Account = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()) }, { $id: 'Account' })
  // A client of 2000-01-01 reads a code made from the name and may send it; HEAD stores none, so no replace clears it.
  class CodeRemoved extends VersionChange {
    description = 'Accounts no longer have a code.'
    instructionsToMigrateToPreviousVersion = [schema(Account).formerField('code').existedAs({ type: Type.String(), optional: true })]

    @ConvertRequestToNextVersionFor(Account)
    up (request: RequestInfo): void { delete request.body.code }

    @ConvertResponseToPreviousVersionFor(Account)
    down (response: ResponseInfo): void { response.body.code = `A-${String(response.body.name)}` }
  }
  const stored = new Map<string, Static<typeof Account>>([['a1', { name: 'Ada', note: 'VIP' }]])
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', CodeRemoved), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    const params = Type.Object({ id: Type.String() })
    api.get<{ Params: Static<typeof params> }>('/accounts/:id', { schema: { params, response: { 200: Account } } }, async (request) => stored.get(request.params.id))
    api.put<{ Params: Static<typeof params>, Body: Static<typeof Account> }>('/accounts/:id', { schema: { params, body: Account, response: { 200: Account } } }, async (request) => {
      stored.set(request.params.id, request.body)
      return request.body
    })
  }))
  await app.ready()
  t.same(summary(await replaceFromEveryVersion(app, { url: '/accounts/a1' })), [], 'the code is no stored field: leaving it out clears nothing')
})

test('regression: a replace body given as a $ref, an allOf, a union or by media type hid a merge', async (t) => {
  const bodies: Record<string, (shared: TObject) => unknown> = {
    $ref: (shared) => Type.Ref(shared),
    allOf: (shared) => Type.Intersect([shared, Type.Object({ tag: Type.Optional(Type.String()) })]),
    union: (shared) => Type.Union([shared, Type.Object({ name: Type.String(), memo: Type.Optional(Type.String()), kind: Type.Literal('company') })]),
    content: (shared) => ({ content: { 'application/json': { schema: shared } } })
  }
  for (const [kind, body] of Object.entries(bodies)) {
    const { app } = await sharedApp(t, (shared) => ({ body: body(shared), stored: { name: 'Ada', memo: 'VIP' }, merges: true }))
    t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1' })).filter((line) => line.endsWith('/memo')),
      ['2001-01-01 not cleared /memo', '2000-01-01 not cleared /memo'], kind)
  }
})

test('regression: a field stored as null was neither filled (an erase went unseen) nor passed over (a false not cleared)', async (t) => {
  class Memo extends VersionChange {
    description = 'Customers have a memo.'
    instructionsToMigrateToPreviousVersion = [schema(NullableMemo).field('memo').didntExist]
  }
  // A database row: a field not sent is stored as null. 2000-01-01 cannot send the memo, and the handler erases it.
  const stored = new Map<string, Record<string, unknown>>([['c1', { name: 'Ada', memo: null }]])
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', Memo), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get<{ Params: { id: string } }>('/customers/:id', { schema: { response: { 200: NullableMemo } } }, async (request) => stored.get(request.params.id))
    api.put<{ Params: { id: string }, Body: Record<string, unknown> }>('/customers/:id', { schema: { body: NullableMemo, response: { 200: NullableMemo } } }, async (request) => {
      const customer = { name: request.body.name, memo: request.body.memo ?? null }
      stored.set(request.params.id, customer)
      return customer
    })
  }))
  await app.ready()
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1' })), ['2000-01-01 changed /memo'], 'filled first, the erase is found')
  t.same(stored.get('c1'), { name: 'Ada', memo: null }, 'and the resource is as stored')
  stored.set('c1', { name: 'Ada', memo: null })
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false, versions: ['2001-01-01'] })), [], 'a null is not a value to clear')
})

test('regression: versions naming a preview version found no version to replace from; errors named injectEveryVersion', async (t) => {
  class Preview extends VersionChange {
    description = 'A preview of nothing new.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new Version('2002-01-01.beta', Preview, { channel: 'preview' }), new Version('2001-01-01', SharedUnchanged), new Version('2000-01-01'))
  const { app } = await sharedApp(t, () => ({ stored: { name: 'Ada', memo: 'VIP' }, merges: true, versions }))
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', versions: ['2002-01-01.beta'] })), ['2002-01-01.beta not cleared /memo'])
  t.match(await replaceFromEveryVersion(app, { url: '/customers/c1', versions: ['1999-01-01'] }).catch((error: unknown) => error),
    { code: 'FST_VERSIONER_TOOL', message: /^replaceFromEveryVersion: '1999-01-01' is not a version this API serves/ })
})

test('regression: a route declared fullReplace: false, as the not cleared message advises, was still reported not cleared', async (t) => {
  const stored = new Map<string, Stored>([['c1', { name: 'Ada', memo: 'VIP' }]])
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', Nickname), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get<{ Params: { id: string } }>('/customers/:id', { schema: { response: { 200: Customer } } }, async (request) => stored.get(request.params.id))
    for (const [method, fullReplace] of [['PUT', false], ['POST', true]] as const) {
      api.route<{ Params: { id: string }, Body: Stored }>({
        method,
        url: '/customers/:id',
        fullReplace,
        schema: { body: Customer, response: { 200: Customer } },
        handler: async (request) => {
          const customer = { ...stored.get(request.params.id), ...request.body }
          stored.set(request.params.id, customer)
          return customer
        }
      })
    }
  }))
  await app.ready()
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false })), [], 'a partial update: leaving a field out keeps it')
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', method: 'POST', fill: false })),
    ['2001-01-01 not cleared /memo', '2000-01-01 not cleared /memo'], 'a POST declared fullReplace: true is checked')
})

/** An app whose PATCH /customers/:id merges what it is sent over customer `c1`; `change` makes 2001-01-01. */
async function mergingPatchApp (t: { teardown: (fn: () => unknown) => void }, change: VersionChangeClass): Promise<FastifyInstance> {
  const stored = new Map<string, Stored>([['c1', { name: 'Ada', memo: 'VIP' }]])
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', change), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get<{ Params: { id: string } }>('/customers/:id', { schema: { response: { 200: Customer } } }, async (request) => stored.get(request.params.id))
    api.patch<{ Params: { id: string }, Body: Stored }>('/customers/:id', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => {
      const customer = { ...stored.get(request.params.id), ...request.body }
      stored.set(request.params.id, customer)
      return customer
    })
  }))
  await app.ready()
  return app
}

test('a PATCH route that does not say fullReplace is a partial update: leaving a field out is not reported not cleared', async (t) => {
  const app = await mergingPatchApp(t, Nickname)
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', method: 'PATCH', fill: false })), [])
})

test('a version whose PUT became HEAD\'s PATCH (had({ methods })) replaces: a merging PATCH handler is not cleared there', async (t) => {
  class PatchNow extends VersionChange {
    description = 'Customers are updated with PATCH.'
    instructionsToMigrateToPreviousVersion = [endpoint('/customers/:id', ['PATCH']).had({ methods: ['PUT'] })]
  }
  const app = await mergingPatchApp(t, PatchNow)
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false })), ['2000-01-01 not cleared /memo'],
    'the PUT of 2000-01-01 reaches a handler that merges: its clients can no longer clear the memo')
})

test('regression: a version that moved the route (had({ path })) was left out; url by version reaches it', async (t) => {
  class Clients extends VersionChange {
    description = 'Customers were clients.'
    instructionsToMigrateToPreviousVersion = [endpoint('/customers/:id', ['GET', 'PUT']).had({ path: '/clients/:id' })]
  }
  const { app } = await sharedApp(t, () => ({ stored: { name: 'Ada', memo: 'VIP' }, merges: true, versions: new VersionBundle(new Version('2001-01-01', Clients), new Version('2000-01-01')) }))
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1' })).filter((line) => line.endsWith('/memo')), ['2001-01-01 not cleared /memo'], 'a URL: the versions it matches')
  t.same(summary(await replaceFromEveryVersion(app, { url: (version) => version === '2000-01-01' ? '/clients/c1' : '/customers/c1' })).filter((line) => line.endsWith('/memo')),
    ['2001-01-01 not cleared /memo', '2000-01-01 not cleared /memo'], 'a URL by version: every version')
})

test('regression: a null the route stores as \'\' (Fastify coercing a nullable union) went unseen once the fill replaced it', async (t) => {
  const memo = Type.Optional(Type.Union([Type.String(), Type.Null()]))
  const { app, stored } = await sharedApp(t, () => ({ stored: { name: 'Ada', memo: null }, merges: false }), { memo })
  const findings = await replaceFromEveryVersion(app, { url: '/customers/c1' })
  t.same(summary(findings), ['2001-01-01 changed /memo'])
  t.match(findings, [
    { version: '2001-01-01', kind: 'changed', pointer: '/memo', before: null, after: '', message: /The route \(its validator, coercing a null or a number, or its handler\) does not store what it is sent/ }
  ])
  t.equal(stored.get('c1')?.memo, '', 'what the route made of the null put back')
})

test('regression: a route registered for [\'PUT\', \'PATCH\'] checked its PATCH requests as full replaces', async (t) => {
  const stored = new Map<string, Stored>([['c1', { name: 'Ada', memo: 'VIP' }]])
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', Nickname), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get<{ Params: { id: string } }>('/customers/:id', { schema: { response: { 200: Customer } } }, async (request) => stored.get(request.params.id))
    api.route<{ Params: { id: string }, Body: Stored }>({
      method: ['PUT', 'PATCH'],
      url: '/customers/:id',
      schema: { body: Customer, response: { 200: Customer } },
      handler: async (request) => {
        const customer = { ...stored.get(request.params.id), ...request.body }
        stored.set(request.params.id, customer)
        return customer
      }
    })
  }))
  await app.ready()
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', method: 'PATCH', fill: false })), [], 'its PATCH is a partial update')
  t.same(summary(await replaceFromEveryVersion(app, { url: '/customers/c1', fill: false })),
    ['2001-01-01 not cleared /memo', '2000-01-01 not cleared /memo'], 'its PUT is a replace')
})

test('a field moved into a nested object (derivedFrom { schema, field }): no finding with a keeping handler; one whose response converter forgets the move is found, and the message says so', async (t) => {
  const Place = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'MovedPlace' })
  const Client = Type.Object({ name: Type.String(), address: Place }, { $id: 'MovedClient' })
  const build = async (movesBack: boolean): Promise<FastifyInstance> => {
    class CityInAddress extends VersionChange {
      description = 'A customer\'s city is part of its address.'
      instructionsToMigrateToPreviousVersion = [
        schema(Client).formerField('city').existedAs({ type: Type.String(), optional: true }),
        schema(Place).field('city').derivedFrom({ schema: Client, field: 'city' })
      ]

      @ConvertRequestToNextVersionFor(Client)
      up (request: RequestInfo) {
        if ('city' in request.body) request.body.address.city = request.body.city
        delete request.body.city
      }

      @ConvertResponseToPreviousVersionFor(Client)
      down (response: ResponseInfo) {
        if (movesBack && 'city' in response.body.address) response.body.city = response.body.address.city
        delete response.body.address.city
      }
    }
    const stored = new Map<string, Static<typeof Client>>([['c1', { name: 'Ada', address: { line1: '1 Main St', city: 'London' } }]])
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', CityInAddress), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      const params = Type.Object({ id: Type.String() })
      api.get<{ Params: Static<typeof params> }>('/clients/:id', { schema: { params, response: { 200: Client } } }, async (request) => stored.get(request.params.id))
      api.put<{ Params: Static<typeof params>, Body: Static<typeof Client> }>('/clients/:id', { schema: { params, body: Client, response: { 200: Client } } }, async (request) => {
        const before = stored.get(request.params.id)
        const client = structuredClone(request.body)
        if (before !== undefined && fieldsTheVersionLacks(request).includes('/address/city') && before.address.city !== undefined) client.address.city = before.address.city
        stored.set(request.params.id, client)
        return client
      })
    }))
    await app.ready()
    return app
  }
  t.same(await replaceFromEveryVersion(await build(true), { url: '/clients/c1' }), [], 'the old client\'s city goes up into the address and comes back down')
  const forgot = await replaceFromEveryVersion(await build(false), { url: '/clients/c1' })
  t.same(forgot.map(({ version, kind, pointer }) => `${version} ${kind} ${pointer}`), ['2000-01-01 changed /address/city'])
  t.match(forgot[0]?.message, /or one its response converters do not give back/)
})
