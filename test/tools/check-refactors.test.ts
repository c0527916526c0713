// Refactors between releases that change no API: `check` against the documents saved before stays green (notes at
// most), and the served answers of every version are the same; real breaks hidden in such refactors stay red. Driven
// on copies of the example apps in test/.tmp, edited as a team would, and the command run on them in this process.
import t, { test } from 'tap'
import { cp, readdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema as TSchemaLike } from '@sinclair/typebox'
import { compareDocuments, exportDocuments, checkDocuments } from '../../tools'
import { fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { inProcess, scratch } from '../helpers/cli'
import { componentNameNotes } from '../../lib/tools/named-components'

// Each variant loads a copy of an example app and runs `check` on it: a few seconds each on a loaded machine.
t.setTimeout(300_000)

const root = resolve(__dirname, '..', '..')
type Json = Record<string, any>
type Edit = (files: Record<string, string>) => void

/** Replaces `from` (which must be there) by `to` in one file of the copy. */
function replace (files: Record<string, string>, file: string, from: string, to: string): void {
  if (!files[file].includes(from)) throw new Error(`${file} does not hold ${from}`)
  files[file] = files[file].replace(from, () => to)
}

/** A copy of an example app (its sources and saved documents) under `dir`, edited by `edit`; its app module's path. */
async function editedCopy (dir: string, example: 'users' | 'billing', edit: Edit): Promise<string> {
  const source = join(root, 'examples', example)
  const files: Record<string, string> = {}
  for (const name of (await readdir(source)).filter((file) => file.endsWith('.ts'))) files[name] = await readFile(join(source, name), 'utf8')
  edit(files)
  // The copy lives in test/.tmp/cli-…, as deep as the example.
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text.split("'../../plugin'").join("'../../../plugin'"))
  await cp(join(source, 'openapi'), join(dir, 'openapi'), { recursive: true })
  return join(dir, 'app.ts')
}

/** What every version answers to one session of requests, ids numbered by first appearance (each app makes its own). */
async function answers (module: string, session: (send: (version: string, method: string, url: string, payload?: unknown) => Promise<Json>) => Promise<void>): Promise<string[]> {
  // Compiled to CommonJS, the module's default export is under `default` again.
  const loaded = await import(module) as { default: { default?: () => Promise<FastifyInstance> } & (() => Promise<FastifyInstance>) }
  const app = await (loaded.default.default ?? loaded.default)()
  const seen: string[] = []
  const numbered = (text: string): string => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    if (!seen.includes(id)) seen.push(id)
    return `id-${seen.indexOf(id)}`
  })
  const lines: string[] = []
  await session(async (version, method, url, payload) => {
    const response = await app.inject({ method: method as 'GET', url: url.replace(/id-(\d+)/g, (_, index: string) => seen[Number(index)] ?? 'none'), headers: { 'x-api-version': version }, payload: payload as Json })
    lines.push(`${version} ${method} ${url} ${response.statusCode} ${numbered(response.body)}`)
    return { id: numbered(String(response.json().id ?? '')) }
  })
  await app.close()
  return lines
}

const billingVersions = ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']
async function billingSession (send: (version: string, method: string, url: string, payload?: unknown) => Promise<Json>): Promise<void> {
  for (const version of billingVersions) {
    const name = version < '2024-04-10' ? { name: 'Ada King Lovelace', description: 'first' } : { givenName: 'Ada', familyName: 'King Lovelace', memo: 'first' }
    const customer = await send(version, 'POST', '/customers', { ...name, email: 'ada@example.com' })
    await send(version, 'GET', `/customers/${customer.id}`)
    const unitAmount = version < '2024-09-30' ? 12.5 : 1250
    const invoice = await send(version, 'POST', '/invoices', { customerId: customer.id, currency: 'USD', lines: [{ description: 'Tea', quantity: 2, unitAmount }] })
    await send(version, 'POST', `/invoices/${invoice.id}/pay`, { paymentMethod: version < '2024-09-30' ? { object: 'card', brand: 'visa', last4: '4242' } : { type: 'card', brand: 'visa', last4: '4242' } })
    await send(version, 'QUERY', '/invoices/search', {})
  }
}

const usersVersions = ['2000-01-01', '2001-01-01', '2002-01-01']
async function usersSession (send: (version: string, method: string, url: string, payload?: unknown) => Promise<Json>): Promise<void> {
  for (const version of usersVersions) {
    const user = await send(version, 'POST', '/users', { '2000-01-01': { address: '1 Main St' }, '2001-01-01': { addresses: ['1 Main St', '2 Side St'] } }[version] ?? { defaultAddress: '1 Main St' })
    await send(version, 'GET', `/users/${user.id}`)
    await send(version, 'GET', `/users/${user.id}/addresses`)
    await send(version, 'POST', '/users', { nothing: true })
  }
}

/** The customer resource as one object of its fields and an internal part, served as their intersection. */
const intersected: Edit = (files) => {
  replace(files, 'schemas.ts', "  memo: Type.Optional(Type.String({ maxLength: 500, description: 'A note for your own records.' })),\n  // Internal",
    "  memo: Type.Optional(Type.String({ maxLength: 500, description: 'A note for your own records.' }))\n}, { $id: 'CustomerFields' })\nexport const CustomerInternals = Type.Object({\n  // Internal")
  replace(files, 'schemas.ts', "  riskScore: Type.Integer({ minimum: 0, maximum: 100 })\n}, { $id: 'Customer' })",
    "  riskScore: Type.Integer({ minimum: 0, maximum: 100 })\n})\nexport const Customer = Type.Intersect([CustomerFields, CustomerInternals], { $id: 'Customer' })")
  replace(files, 'schemas.ts', 'export const Customer = Type.Object({', 'export const CustomerFields = Type.Object({')
  files['versions.ts'] = files['versions.ts'].split("schema(Customer).field('riskScore')").join("schema(CustomerInternals).field('riskScore')")
    .split('schema(Customer)').join('schema(CustomerFields)').replace('Customer, CustomerInput,', 'Customer, CustomerFields, CustomerInternals, CustomerInput,')
}

/** A change renamed, its converters merged into one method for both schemas, and a version's changes reordered. */
const reorganised: Edit = (files) => {
  files['versions.ts'] = files['versions.ts'].split('AmountsInCents').join('AmountsAreWholeCents')
  replace(files, 'versions.ts', `  @ConvertResponseToPreviousVersionFor(InvoiceLine)
  unitAmountFromCents (response: ResponseInfo) {
    response.body.unitAmount = response.body.unitAmount / 100
  }

  @ConvertResponseToPreviousVersionFor(Invoice)
  totalFromCents (response: ResponseInfo) {
    response.body.total = response.body.total / 100
  }`, `  @ConvertResponseToPreviousVersionFor(Invoice, InvoiceLine)
  amountsFromCents (response: ResponseInfo) {
    if ('total' in response.body) response.body.total = response.body.total / 100
    else response.body.unitAmount = response.body.unitAmount / 100
  }`)
  replace(files, 'versions.ts', 'SplitCustomerName, RenameDescriptionToMemo, ReplaceCustomersWithPut', 'ReplaceCustomersWithPut, RenameDescriptionToMemo, SplitCustomerName')
  replace(files, 'schemas.ts', "{ $id: 'InvoiceLine' }", "{ $id: 'LineItem' }")
}

/** The users routes moved into a prefix, `POST /users` now the prefix's root route `post('/')`. */
const prefixed: Edit = (files) => {
  replace(files, 'app.ts', "  await app.register(versioned(async (api) => {\n    api.post('/users', {", "  await app.register(versioned(async (api) => { await api.register(async (scope) => {\n    scope.post('/', {")
  replace(files, 'app.ts', "    api.get('/users/:userId', {", "    scope.get('/:userId', {")
  replace(files, 'app.ts', "    api.get('/users/:userId/addresses', {", "    scope.get('/:userId/addresses', {")
  replace(files, 'app.ts', '  }))\n\n  app.get(\'/health\'', "  }, { prefix: '/users' }) }))\n\n  app.get('/health'")
}

test('refactors of the example apps that change no API: check exits 0, every version answers the same', async (t) => {
  const cases: Array<{ name: string, example: 'users' | 'billing', edit: Edit, notes: RegExp[] }> = [
    { name: 'Type.Intersect for one object (was "response 200 /: type \'object\' → (none)")', example: 'billing', edit: intersected, notes: [] },
    { name: 'a change renamed, converters merged, changes reordered, an $id renamed', example: 'billing', edit: reorganised, notes: [/^note: 2023-10-16 schema InvoiceLine: renamed to LineItem: the name of its type in generated clients$/m] },
    { name: 'routes moved into a prefix (was "POST /users: endpoint removed")', example: 'users', edit: prefixed, notes: [/^note: 2000-01-01 \/users: path now documented as \/users\/ \(the application answers at both\)$/m] }
  ]
  for (const { name, example, edit, notes } of cases) {
    const dir = await scratch(t)
    const module = await editedCopy(dir, example, edit)
    const checked = await inProcess(['check', module, '--against', join(dir, 'openapi')])
    t.equal(checked.code, 0, `${name}: ${checked.stderr}`)
    t.equal(checked.stderr, '', name)
    for (const note of notes) t.match(checked.stdout, note, name)
    const session = example === 'users' ? usersSession : billingSession
    t.same(await answers(module, session), await answers(join(root, 'examples', example, 'app.ts'), session), `${name}: the same answers`)
  }
})

test('real breaks hidden in refactors stay red, named where they are', async (t) => {
  const cases: Array<{ name: string, example: 'users' | 'billing', edit: Edit, breaks: string }> = [{
    name: 'a field dropped while splitting an intersection',
    example: 'billing',
    edit: (files) => {
      intersected(files)
      replace(files, 'schemas.ts', "  email: Type.String({ format: 'email' }),\n  memo: Type.Optional(Type.String({ maxLength: 500, description: 'A note for your own records.' }))\n}, { $id: 'CustomerFields' })",
        "  email: Type.String({ format: 'email' })\n}, { $id: 'CustomerFields' })")
      replace(files, 'versions.ts', ",\n    schema(CustomerFields).field('memo').had({ name: 'description' })", '')
    },
    breaks: 'break: 2023-10-16 POST /customers: response 200 /description: removed\n'
  }, {
    name: 'a required field added while inlining a shared schema',
    example: 'billing',
    edit: (files) => replace(files, 'schemas.ts', "  lines: Type.Array(InvoiceLine, { minItems: 1 })\n}, { $id: 'InvoiceCreate' })", '  lines: Type.Array(InvoiceLine, { minItems: 1 }),\n  dueInDays: Type.Integer()\n})'),
    breaks: 'break: 2023-10-16 POST /invoices: request body /dueInDays: new required field\n'
  }, {
    name: 'a field renamed while extracting a sub-schema',
    example: 'billing',
    edit: (files) => {
      replace(files, 'schemas.ts', '  data: Type.Object({ object: Invoice })', '  data: InvoicePaidEventData')
      replace(files, 'schemas.ts', '/** The payload of the `invoice.paid` webhook. */', "export const InvoicePaidEventData = Type.Object({ invoice: Invoice }, { $id: 'InvoicePaidEventData' })\n")
      replace(files, 'app.ts', 'data: { object: invoice } }', 'data: { invoice } }')
    },
    breaks: 'break: 2023-10-16 webhook invoice.paid: payload /data/object: renamed to invoice\n'
  }]
  for (const { name, example, edit, breaks } of cases) {
    const dir = await scratch(t)
    const checked = await inProcess(['check', await editedCopy(dir, example, edit), '--against', join(dir, 'openapi')])
    t.equal(checked.code, 1, name)
    t.ok(checked.stderr.startsWith(breaks), `${name}: ${checked.stderr}`)
  }
})

test('an object written as an allOf of objects (Type.Intersect) compares as the one object of their fields', async (t) => {
  const fields = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] }
  const document = (schema: Json, components: Json = {}): Json => ({
    openapi: '3.1.0',
    info: { title: 'API', version: '2000-01-01' },
    components: { schemas: components },
    paths: { '/users': { get: { responses: { 200: { description: 'A user', content: { 'application/json': { schema } } } } } } }
  })
  const intersection = (name: Json): Json => document({ $ref: '#/components/schemas/User' }, {
    UserId: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    User: { type: 'object', allOf: [{ $ref: '#/components/schemas/UserId' }, { type: 'object', properties: { name }, required: ['name'] }] }
  })
  const texts = (changes: Array<{ text: string, breaking: boolean }>): string[] => changes.map((found) => `${found.breaking ? 'break' : 'note'}: ${found.text}`)
  t.same(texts(compareDocuments('2000-01-01', document(fields), intersection({ type: 'string' }))), [], 'flat saved, intersection now')
  t.same(texts(compareDocuments('2000-01-01', intersection({ type: 'string' }), document(fields))), [], 'intersection saved, flat now')
  t.same(texts(compareDocuments('2000-01-01', document(fields), intersection({ type: 'integer' }))), ["break: 2000-01-01 GET /users: response 200 /name: type 'string' → 'integer'"],
    'a change inside a member is named where it is')
  // A member closed to other fields (`additionalProperties: false`) does not take the other member's: not one object.
  const closed = intersection({ type: 'string' })
  closed.components.schemas.UserId.additionalProperties = false
  t.not(texts(compareDocuments('2000-01-01', document(fields), closed)).length, 0, 'a closed member is compared as written')
})

test('a path now documented with a final slash is the same path where the app answers at both; where it does not, the endpoint is removed', async (t) => {
  const versions = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))
  const User = Type.Object({ id: Type.String() }, { $id: 'User' })
  const build = async (prefixed: boolean, slash: boolean): Promise<FastifyInstance> => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions })
    await app.register(versioned(async (api) => {
      const routes = async (scope: typeof api, url: string): Promise<void> => { scope.post(url, { schema: { response: { 200: User } } }, async () => ({ id: 'u1' })) }
      if (prefixed) await api.register(async (scope) => routes(scope, slash ? '/' : ''), { prefix: '/users' })
      else await routes(api, slash ? '/users/' : '/users')
    }))
    await app.ready()
    return app
  }
  const saved = async (app: FastifyInstance): Promise<string> => {
    const dir = await scratch(t)
    await exportDocuments(app, dir)
    return dir
  }
  const plain = await saved(await build(false, false))
  const prefixedRoot = await build(true, true)
  t.same((await checkDocuments(prefixedRoot, plain)).breaks, [], 'post(\'/users\') saved, a prefix\'s post(\'/\') now: /users still answers')
  t.same((await checkDocuments(prefixedRoot, plain)).notes.map((found) => found.text), [
    '2000-01-01 /users: path now documented as /users/ (the application answers at both)', '2001-01-01 /users: path now documented as /users/ (the application answers at both)'
  ])
  const slashOnly = await build(false, true)
  t.same((await checkDocuments(slashOnly, plain)).breaks.map((found) => found.text), ['2000-01-01 POST /users: endpoint removed', '2001-01-01 POST /users: endpoint removed'],
    "post('/users/') answers at /users/ alone: /users is gone")
  t.same((await checkDocuments(await build(false, false), await saved(prefixedRoot))).breaks.map((found) => found.text),
    ['2000-01-01 POST /users/: endpoint removed', '2001-01-01 POST /users/: endpoint removed'], 'a prefix\'s root saved, post(\'/users\') now: /users/ is gone')
})

test('a schema component a version no longer names is a note: renamed where a new one holds the same schema, else gone', async (t) => {
  const document = (schemas: Json): Json => ({ openapi: '3.1.0', info: { title: 'API', version: '2000-01-01' }, components: { schemas }, paths: {} })
  const user = { type: 'object', properties: { id: { type: 'string' } } }
  t.same(componentNameNotes('2000-01-01', document({ UserResource: user, Address: { type: 'string' } }), document({ User: user, Extra: { type: 'number' } })).map((found) => [found.text, found.breaking]), [
    ['2000-01-01 schema UserResource: renamed to User: the name of its type in generated clients', false],
    ['2000-01-01 schema Address: no longer a named schema (renamed, inlined or unused): the name of its type in generated clients', false]
  ])
  t.same(componentNameNotes('2000-01-01', document({ User: user }), document({ User: user, Extra: user })), [], 'a new component is no note')
})

test("an enum written as a union of literals (TypeBox's Type.Union of Type.Literal) compares by its members, in any order", async (t) => {
  // Saved with the string-enum pattern (`Type.Unsafe({ type: 'string', enum })`), checked after a refactor to literals:
  // the diff library compares the enum as the union's first member, which was three false breaks.
  const app = async (request: TSchemaLike, response: TSchemaLike): Promise<FastifyInstance> => {
    const built = Fastify()
    await built.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
    await built.register(versioned(async (routes) => {
      routes.post('/orders', {
        schema: { body: Type.Object({ plan: request }), response: { 200: Type.Object({ status: response }) } }
      }, async () => ({ status: 'open' }))
    }))
    await built.ready()
    t.teardown(() => built.close())
    return built
  }
  const stringEnum = (members: string[]): TSchemaLike => Type.Unsafe<string>({ type: 'string', enum: members })
  const literals = (members: string[]): TSchemaLike => Type.Union(members.map((member) => Type.Literal(member)))
  const dir = await scratch(t)
  await exportDocuments(await app(stringEnum(['free', 'pro', 'team']), stringEnum(['open', 'paid', 'void'])), dir)
  const texts = async (request: TSchemaLike, response: TSchemaLike): Promise<string[]> => {
    const { breaks, notes } = await checkDocuments(await app(request, response), dir)
    return [...breaks.map((found) => `break: ${found.text}`), ...notes.map((found) => `note: ${found.text}`)]
  }
  t.same(await texts(literals(['free', 'pro', 'team']), literals(['open', 'paid', 'void'])), [], 'the same members: nothing')
  t.same(await texts(literals(['team', 'free', 'pro']), literals(['void', 'open', 'paid'])), [], 'in another order: nothing')
  t.same(await texts(literals(['free', 'team']), literals(['open', 'paid', 'void', 'late'])), [
    "break: 2000-01-01 POST /orders: request body /plan: enum member 'pro' removed",
    "break: 2000-01-01 POST /orders: response 200 /status: enum member 'late' added",
    "break: 2001-01-01 POST /orders: request body /plan: enum member 'pro' removed",
    "break: 2001-01-01 POST /orders: response 200 /status: enum member 'late' added"
  ], 'a member a request lost, or a response gained, still breaks, named alone')
  t.same(await texts(literals(['free', 'pro', 'team', 'max']), literals(['open', 'paid'])), [
    "note: 2000-01-01 POST /orders: request body /plan: enum member 'max' added",
    "note: 2000-01-01 POST /orders: response 200 /status: enum member 'void' removed",
    "note: 2001-01-01 POST /orders: request body /plan: enum member 'max' added",
    "note: 2001-01-01 POST /orders: response 200 /status: enum member 'void' removed"
  ], 'a member a request gained, or a response lost, is a note')
  const open = await texts(Type.Union([Type.Literal('free'), Type.String()]), Type.Union([Type.Literal('open'), Type.String()]))
  t.match(open, [
    /^break: 2000-01-01 POST \/orders: response 200 \/status: values \{"type":"string","enum":\["open","paid","void"\]\} → \{"anyOf":/,
    /^break: 2001-01-01 POST \/orders: response 200 \/status: values /,
    /^note: 2000-01-01 POST \/orders: request body \/plan: values .*\(what it took, it takes\)$/,
    /^note: 2001-01-01 POST \/orders: request body \/plan: values .*\(what it took, it takes\)$/
  ], 'a union that takes any string: a request widened (a note), a response that may send any string (a break)')
  t.equal(open.length, 4)
})

test('a nullable field written as a union with Type.Null() compares by its types: the same types are nothing, fewer still break', async (t) => {
  // `nullable: true` (written `type: ['string', 'null']`) saved, `Type.Union([Type.Null(), Type.String()])` now (the
  // union the serving docs advise): the diff library compared the list as the union's first member, two false breaks.
  const app = async (field: () => TSchemaLike): Promise<FastifyInstance> => {
    const built = Fastify()
    await built.register(fastifyVersioner, { versions: new VersionBundle(new Version('2000-01-01')) })
    await built.register(versioned(async (routes) => {
      routes.post('/orders', { schema: { body: Type.Object({ memo: field() }), response: { 200: Type.Object({ memo: field() }) } } }, async () => ({ memo: null }))
    }))
    await built.ready()
    t.teardown(() => built.close())
    return built
  }
  const variants: Record<string, () => TSchemaLike> = {
    nullable: () => Type.Unsafe({ type: 'string', nullable: true }),
    list: () => Type.Unsafe({ type: ['string', 'null'] }),
    union: () => Type.Union([Type.String(), Type.Null()]),
    nullFirst: () => Type.Union([Type.Null(), Type.String()])
  }
  for (const [saved, before] of Object.entries(variants)) {
    const dir = await scratch(t)
    await exportDocuments(await app(before), dir)
    for (const [now, after] of Object.entries(variants)) {
      const { breaks, notes } = await checkDocuments(await app(after), dir)
      t.same([...breaks, ...notes].map((found) => found.text), [], `${saved} saved, ${now} now: the same field`)
    }
    const narrowed = await checkDocuments(await app(() => Type.Union([Type.String(), Type.Integer()])), dir)
    t.match(narrowed.breaks.map((found) => found.text), [/^2000-01-01 POST \/orders: request body \/memo: type /, /^2000-01-01 POST \/orders: response 200 \/memo: type /],
      `${saved} saved, now a string or an integer: a request that no longer takes null, a response that may send an integer, break`)
  }
})

test('a saved document saying null by nullable: true compares with a type list or a union by its types (a false break)', async (t) => {
  // An OpenAPI 3.0 habit: `type: 'string', nullable: true` in a saved document written by hand or by an older tool,
  // where the application now writes `type: ['string', 'null']`; both take the same values.
  const app = async (memo: TSchemaLike): Promise<FastifyInstance> => {
    const built = Fastify()
    await built.register(fastifyVersioner, { versions: new VersionBundle(new Version('2000-01-01')) })
    await built.register(versioned(async (routes) => {
      routes.post('/orders', { schema: { body: Type.Object({ memo }), response: { 200: Type.Object({ memo }) } } }, async () => ({ memo: null }))
    }))
    await built.ready()
    t.teardown(() => built.close())
    return built
  }
  const dir = await scratch(t)
  await exportDocuments(await app(Type.Unsafe({ type: ['string', 'null'] })), dir)
  const file = join(dir, '2000-01-01.json')
  const text = await readFile(file, 'utf8')
  const edited = text.replace(/"type": \[\s*"string",\s*"null"\s*\]/g, '"type": "string", "nullable": true')
  t.equal(edited.match(/"nullable": true/g)?.length, 2, 'the request and the response field')
  await writeFile(file, edited)
  for (const now of [Type.Unsafe({ type: ['string', 'null'] }), Type.Union([Type.Null(), Type.String()]), Type.Unsafe({ type: 'string', nullable: true })]) {
    const { breaks } = await checkDocuments(await app(now), dir)
    t.same(breaks.map((found) => found.text), [], `${JSON.stringify(now)} now: the same field`)
  }
  const narrowed = await checkDocuments(await app(Type.String()), dir)
  t.match(narrowed.breaks.map((found) => found.text), [/^2000-01-01 POST \/orders: request body \/memo: nullable true → \(none\)$/],
    'a request that no longer takes null still breaks')
})
