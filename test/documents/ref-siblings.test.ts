/**
 * A `$ref` with keywords of its own beside it (`Type.Ref(Name, { maxLength: 20 })`, which Ajv applies with the schema
 * it names) in each version's document: in a body, a query parameter, a response (in a shared schema), a webhook
 * payload, and changed for an old version by `field(...).had(...)`. Each document states what its version enforces,
 * and `check` sees the keyword change.
 */
import { test } from 'tap'
import fc from 'fast-check'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { checkDocuments, exportDocuments } from '../../tools'
import { HeadVersion, schema, Version, VersionBundle, type VersionChangeClass } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { bodyChecker, documentOf, validationError } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']
const SEED = Number(process.env.FC_SEED ?? 20261201)

/** The application, with HEAD's `maxLength`s beside the `$ref`s as given. */
async function app (t: Teardown, limits = { body: 20, query: 10 }): Promise<ReturnType<typeof versionedApp>> {
  const Name = Type.String({ $id: 'Name', minLength: 1 })
  const Customer = Type.Object({ id: Type.String(), name: Type.Ref(Name, { maxLength: 20, description: 'Their name.' }) }, { $id: 'Customer' })
  const CustomerCreate = Type.Object({ name: Type.Ref(Name, { maxLength: limits.body }) })
  const Search = Type.Object({ q: Type.Ref(Name, { maxLength: limits.query }) })
  const created = await versionedApp(t, new VersionBundle(
    new HeadVersion(),
    // Names were shorter before 2002-01-01.
    new Version('2002-01-01', changeClass('LongerNames', [schema(CustomerCreate).field('name').had({ maxLength: 10 }), schema(Search).field('q').had({ maxLength: 5 })])),
    // And the shared schema the $refs name had another form before 2001-01-01 (2000-01-01 documents its own).
    new Version('2001-01-01', changeClass('NamesDescribed', [schema(Name).had({ description: 'A name.' })])),
    new Version('2000-01-01')
  ), async (api) => {
    api.addSchema(Name)
    api.addSchema(Customer)
    api.post('/customers', { schema: { body: CustomerCreate, response: { 200: Type.Ref(Customer) } } }, async (request) => ({ id: 'c1', name: request.body.name }))
    api.get('/customers', { schema: { querystring: Search, response: { 200: Type.Array(Type.Ref(Customer)) } } }, async () => [])
  }, { beforeRoutes: (fastify) => { fastify.versioner.webhooks.add({ name: 'customer.created', body: Type.Object({ name: Type.Ref(Name, { maxLength: 20 }) }) }) } })
  await created.ready()
  return created
}

test("regression: a $ref's own maxLength was missing from every document (body, query, response, webhook), and an old version's own from its document", async (t) => {
  const served = await app(t)
  for (const version of VERSIONS) {
    const document = documentOf(served, version)
    t.equal(await validationError(document), undefined, `${version}: a valid document`)
    const check = bodyChecker(document)
    const operation = document.paths['/customers']
    const body = operation.post.requestBody.content['application/json'].schema
    const query = operation.get.parameters.find((parameter: { name: string }) => parameter.name === 'q').schema
    const webhook = document.webhooks['customer.created'].post.requestBody.content['application/json'].schema
    // The response's Customer: a component, or inline where a version rebuilt it.
    const customer = operation.post.responses['200'].content['application/json'].schema
    for (const length of [1, 5, 6, 10, 11, 20, 21]) {
      const name = 'n'.repeat(length)
      const posted = await served.inject({ method: 'POST', url: '/customers', headers: { 'x-api-version': version }, payload: { name } })
      t.equal(check(body, { name }) === undefined, posted.statusCode === 200, `${version}: a name of ${length}: the body's schema agrees with the answer ${posted.statusCode}`)
      const searched = await served.inject({ method: 'GET', url: `/customers?q=${name}`, headers: { 'x-api-version': version } })
      t.equal(check(query, name) === undefined, searched.statusCode === 200, `${version}: a q of ${length}: the parameter's schema agrees with the answer ${searched.statusCode}`)
      t.equal(check(webhook, { name }) === undefined, length <= 20, `${version}: a name of ${length} in the webhook's payload`)
      t.equal(check(customer, { id: 'c1', name }) === undefined, length <= 20, `${version}: a name of ${length} in the response`)
    }
    t.not(check(customer, { id: 'c1', name: '' }), undefined, `${version}: the minLength of the schema the $ref names holds too`)
    t.not(check(body, { name: '' }), undefined)
    const named = typeof customer.$ref === 'string' ? document.components.schemas[String(customer.$ref.split('/').pop())] : customer
    t.match(named.properties.name, { description: 'Their name.' },
      `${version}: the description beside the $ref`)
  }
})

test('check: a maxLength beside a $ref tightened at HEAD without a version change breaks every version that takes it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-ref-siblings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await exportDocuments(await app(t), dir)
  const same = await checkDocuments(await app(t), dir)
  t.strictSame([same.breaks, same.notes], [[], []], 'the same application: nothing to report')
  const { breaks } = await checkDocuments(await app(t, { body: 15, query: 10 }), dir)
  t.same(breaks.map((entry) => entry.text), ['2002-01-01 POST /customers: request body /name: maxLength 20 → 15'],
    'the latest version only: the older ones take their own maxLength')
})

test('generated: limits beside a $ref at HEAD and in each older version, the named schema changed or not: each document refuses what its version refuses', async (t) => {
  const limit = fc.integer({ min: 1, max: 12 })
  const history = fc.record({ head: limit, older: fc.array(fc.option(limit, { nil: undefined }), { minLength: 2, maxLength: 2 }), renamedAt: fc.integer({ min: 0, max: 2 }) })
  await fc.assert(fc.asyncProperty(history, async ({ head, older, renamedAt }) => {
    const Word = Type.String({ $id: 'Word', pattern: '^[a-z]*$' })
    const Body = Type.Object({ word: Type.Ref(Word, { maxLength: head }) })
    // Each change: the maxLength the versions before it had (none, or the same: unchanged), and whether the named schema differs.
    const before = (index: number): number => (index < 0 ? head : older[index] ?? before(index - 1))
    const change = (index: number): VersionChangeClass => changeClass(`Change${index}`, [
      ...(before(index) === before(index - 1) ? [] : [schema(Body).field('word').had({ maxLength: before(index) })]),
      ...(renamedAt === index ? [schema(Word).had({ description: 'Before.' })] : [])
    ])
    const served = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01', change(0)), new Version('2001-01-01', change(1)), new Version('2000-01-01')), async (api) => {
      api.addSchema(Word)
      api.post('/words', { schema: { body: Body } }, async () => ({}))
      api.get('/words', { schema: { querystring: Body } }, async () => ({}))
    })
    await served.ready()
    for (const version of VERSIONS) {
      const document = documentOf(served, version)
      const check = bodyChecker(document)
      const body = document.paths['/words'].post.requestBody.content['application/json'].schema
      const query = document.paths['/words'].get.parameters.find((parameter: { name: string }) => parameter.name === 'word').schema
      for (let length = 0; length <= 13; length++) {
        const word = 'w'.repeat(length)
        const posted = await served.inject({ method: 'POST', url: '/words', headers: { 'x-api-version': version }, payload: { word } })
        const searched = await served.inject({ method: 'GET', url: `/words?word=${word}`, headers: { 'x-api-version': version } })
        // A 500: the version accepts a word HEAD refuses, and no converter shortens it; the document says the version's.
        if (posted.statusCode !== 500 && (check(body, { word }) === undefined) !== (posted.statusCode === 200)) return false
        if (searched.statusCode !== 500 && (check(query, word) === undefined) !== (searched.statusCode === 200)) return false
      }
    }
    await served.close()
    return true
  }), { seed: SEED, numRuns: 12 })
})

test("regression: keywords beside a $ref that is a route's whole querystring, headers or params: a parameter was dropped or documented optional, an assertion lost", async (t) => {
  for (const location of ['header', 'path'] as const) {
    for (const changed of [false, true]) {
      const Search = Type.Object({ q: Type.Optional(Type.String()), page: Type.Optional(Type.String()) }, { $id: 'Search' })
      const Account = Type.Object({ id: Type.String() }, { $id: 'Account' })
      const Caller = Type.Object({ 'x-caller': Type.Optional(Type.String()) }, { $id: 'Caller' })
      const served = await versionedApp(t, new VersionBundle(
        new HeadVersion(),
        new Version('2001-01-01', changeClass('Pages', changed ? [schema(Search).field('page').didntExist, schema(Account).had({ description: 'Before.' }), schema(Caller).had({ description: 'Before.' })] : [])),
        new Version('2000-01-01')
      ), async (api) => {
        api.addSchema(Search)
        api.addSchema(Account)
        api.addSchema(Caller)
        api.get('/accounts/:id', {
          schema: {
            querystring: Type.Ref(Search, { required: ['q'], minProperties: 1, description: 'What to look for.' }),
            params: Type.Ref(Account, { description: 'The account.' }),
            headers: Type.Ref(Caller, { required: ['x-caller'], description: 'Who calls.' })
          }
        }, async () => ({}))
      }, { versioner: { apiVersionLocation: location } })
      await served.ready()
      for (const version of ['2001-01-01', '2000-01-01']) {
        const where = `${location}, the named schemas ${changed ? '' : 'not '}changed, ${version}`
        const document = documentOf(served, version)
        t.equal(await validationError(document), undefined, `${where}: a valid document`)
        const [path, operation] = Object.entries(document.paths as Record<string, { get: Record<string, any> }>)[0]
        const parameters = new Map<string, { required: boolean }>(operation.get.parameters.map((parameter: { in: string, name: string, required: boolean }) => [`${parameter.in} ${parameter.name}`, parameter]))
        const page = !changed || version === '2001-01-01'
        t.same([...parameters.keys()].filter((key) => !key.includes('version')).sort(),
          ['header x-caller', 'path id', ...(page ? ['query page'] : []), 'query q'], `${where}: every parameter of the schemas named`)
        // Each parameter documented as required where the version answers 400 without it, optional where it answers 200.
        const url = (query: string): string => `${path.replace(/\{[^}]*version[^}]*\}/, version).replace('{id}', 'a1')}${query}`
        const headers = location === 'header' ? { 'x-api-version': version } : {}
        const full = await served.inject({ url: url('?q=x&page=2'), headers: { ...headers, 'x-caller': 'me' } })
        t.equal(full.statusCode, 200, `${where}: ${full.body}`)
        const withoutQ = await served.inject({ url: url('?page=2'), headers: { ...headers, 'x-caller': 'me' } })
        t.equal(parameters.get('query q')?.required, withoutQ.statusCode === 400, `${where}: q, answered ${withoutQ.statusCode} without it`)
        const withoutCaller = await served.inject({ url: url('?q=x'), headers })
        t.equal(parameters.get('header x-caller')?.required, withoutCaller.statusCode === 400, `${where}: x-caller, answered ${withoutCaller.statusCode} without it`)
        t.equal(parameters.get('query page')?.required, page ? false : undefined)
        // An assertion on the query as a whole, which no parameter can state, is the operation's rule for `check`.
        t.same(operation.get['x-parameter-rules'], { query: [{ minProperties: 1 }] }, `${where}: the minProperties beside the $ref`)
      }
    }
  }
})

test('regression: check, a keyword beside a $ref to a schema that itself refers to another (a list of Tags): added in a request was a note, the type removed a break', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-ref-siblings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  /** Notes whose `tags` are a shared list of shared `Tag`s, with `beside` the `$ref` to the list in the body and the response. */
  const notes = async (beside: Record<string, unknown> | undefined, colored = false): Promise<ReturnType<typeof versionedApp>> => {
    const Tag = Type.Object({ name: Type.String(), ...(colored ? { color: Type.Optional(Type.String()) } : {}) }, { $id: 'Tag' })
    const Tags = Type.Array(Type.Ref(Tag), { $id: 'Tags' })
    const tags = beside === undefined ? Type.Ref(Tags) : Type.Ref(Tags, beside)
    const served = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2000-01-01')), async (api) => {
      api.addSchema(Tag)
      api.addSchema(Tags)
      api.post('/notes', { schema: { body: Type.Object({ tags }), response: { 200: Type.Object({ tags }) } } }, async () => ({ tags: [] }))
    })
    await served.ready()
    return served
  }
  const cases: Array<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, string[], string[]]> = [
    ['the same', { maxItems: 5 }, { maxItems: 5 }, [], []],
    ['added', undefined, { maxItems: 5 }, ['request body /tags: maxItems (none) → 5'], ['response 200 /tags: maxItems (none) → 5']],
    ['removed', { maxItems: 5 }, undefined, ['response 200 /tags: maxItems 5 → (none)'], ['request body /tags: maxItems 5 → (none)']],
    ['tightened', { maxItems: 5 }, { maxItems: 3 }, ['request body /tags: maxItems 5 → 3'], ['response 200 /tags: maxItems 5 → 3']],
    ['a description added', undefined, { description: 'Its tags.' }, [], ['request body /tags: description added (text)', 'response 200 /tags: description added (text)']]
  ]
  const texts = (found: Array<{ text: string }>): string[] => found.map((entry) => entry.text.replace('2000-01-01 POST /notes: ', '')).sort()
  for (const [name, before, after, breaks, notesSeen] of cases) {
    await rm(dir, { recursive: true, force: true })
    await exportDocuments(await notes(before), dir)
    const result = await checkDocuments(await notes(after), dir)
    t.same([texts(result.breaks), texts(result.notes)], [breaks, notesSeen], `${name}: the maxItems, not the list's type and items`)
  }
  // The schema referred to changed beside it: seen through the keyword beside the $ref.
  await rm(dir, { recursive: true, force: true })
  await exportDocuments(await notes({ maxItems: 5 }), dir)
  const colored = await checkDocuments(await notes({ maxItems: 5 }, true), dir)
  t.same([texts(colored.breaks), texts(colored.notes)], [[], ['request body /tags/*/color: new optional field', 'response 200 /tags/*/color: new field']])
})

/**
 * Unversioned routes (outside `versioned(...)`) beside a versioned one: `POST /auth/token` whose body holds `Name`
 * with a `maxLength` beside the `$ref` and the shared `Login` (which holds one too), and `GET /health` whose whole
 * querystring is `Probe` with a `required` beside the `$ref`.
 */
async function unversionedApp (t: Teardown, limits: { body?: number, shared?: number, required?: string[] }): Promise<ReturnType<typeof versionedApp>> {
  const Name = Type.String({ $id: 'Name' })
  const Login = Type.Object({ user: Type.Ref(Name, limits.shared === undefined ? {} : { maxLength: limits.shared }) }, { $id: 'Login' })
  const Probe = Type.Object({ deep: Type.Optional(Type.String()) }, { $id: 'Probe' })
  const served = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')), async (api) => {
    api.get('/ping', async () => ({ ok: true }))
  }, {
    beforeRoutes: (fastify) => {
      fastify.addSchema(Name)
      fastify.addSchema(Login)
      fastify.addSchema(Probe)
      const user = Type.Ref(Name, limits.body === undefined ? {} : { maxLength: limits.body })
      fastify.post('/auth/token', { schema: { body: Type.Object({ user, login: Type.Ref(Login) }) } }, async () => ({ token: 't' }))
      fastify.get('/health', { schema: { querystring: limits.required === undefined ? Type.Ref(Probe) : Type.Ref(Probe, { required: limits.required }) } }, async () => ({ ok: true }))
    }
  })
  await served.ready()
  return served
}

test("regression: the unversioned document dropped the keywords beside a $ref (an unversioned route's or a shared schema's), and check was green when they were tightened", async (t) => {
  const tight = await unversionedApp(t, { body: 20, shared: 20, required: ['deep'] })
  const long = 'x'.repeat(21)
  t.equal((await tight.inject({ method: 'POST', url: '/auth/token', payload: { user: long, login: { user: 'a' } } })).statusCode, 400, 'a long user: 400')
  t.equal((await tight.inject({ method: 'POST', url: '/auth/token', payload: { user: 'a', login: { user: long } } })).statusCode, 400, "a long login's user: 400")
  t.equal((await tight.inject({ url: '/health' })).statusCode, 400, 'no deep: 400')
  const document = documentOf(tight, 'unversioned') as Record<string, any>
  t.equal(await validationError(document), undefined, 'a valid document')
  t.same(document.paths['/auth/token'].post.requestBody.content['application/json'].schema.properties.user, { maxLength: 20, allOf: [{ $ref: '#/components/schemas/Name' }] },
    "the route's maxLength, as the versions' documents write it")
  t.same(document.components.schemas.Login.properties.user, { maxLength: 20, allOf: [{ $ref: '#/components/schemas/Name' }] }, "the shared schema's")
  t.same(document.paths['/health'].get.parameters, [{ schema: { type: 'string' }, in: 'query', name: 'deep', required: true }], 'deep, a required parameter')
  const loose = await unversionedApp(t, {})
  const plain = documentOf(loose, 'unversioned') as Record<string, any>
  t.same(plain.paths['/health'].get.parameters, [{ schema: { type: 'string' }, in: 'query', name: 'deep', required: false }], 'without keywords: as @fastify/swagger writes it')

  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-ref-siblings-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await exportDocuments(loose, dir)
  const same = await checkDocuments(await unversionedApp(t, {}), dir)
  t.strictSame([same.breaks, same.notes], [[], []], 'the same application: nothing to report')
  const breaks = async (limits: { body?: number, shared?: number, required?: string[] }): Promise<string[]> =>
    (await checkDocuments(await unversionedApp(t, limits), dir)).breaks.map((entry) => entry.text).sort()
  t.same(await breaks({ body: 20 }), ['unversioned POST /auth/token: request body /user: maxLength (none) → 20'], "the route's maxLength: red")
  t.same(await breaks({ shared: 20 }), ['unversioned POST /auth/token: request body /login/user: maxLength (none) → 20'], "the shared schema's: red")
  t.match(await breaks({ required: ['deep'] }), [/unversioned GET \/health: .*deep/], 'a query parameter made required: red')
})
