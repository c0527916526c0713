import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, migrateResponseBody, schema, Version, VersionBundle, VersionChange, type ResponseInfo, fastifyVersioner, versioned } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'
import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { captureLogs, v } from '../helpers/request-pipeline'
import { changeClass, fullNameWasNameInResponses, nameWasTitleInResponses } from '../helpers/version-changes'
import { buildSeededApp } from '../fixtures/seeded-app'

test('successful payloads go from HEAD down to the requested version and are serialized with its schema', async (t) => {
  const UserResource = Type.Object({
    id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    internalNote: Type.Optional(Type.String())
  })

  class HideInternalNote extends VersionChange {
    description = 'internalNote is internal.'
    instructionsToMigrateToPreviousVersion = [schema(UserResource).field('internalNote').didntExist]
  }
  class AddEmail extends VersionChange {
    description = 'Users have an email.'
    instructionsToMigrateToPreviousVersion = [schema(UserResource).field('email').didntExist]
  }
  class RenameFullName extends VersionChange {
    description = 'fullName became name; note is gone.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserResource).field('name').had({ name: 'fullName' }),
      schema(UserResource).formerField('note').existedAs({ type: Type.String() })
    ]

    @ConvertResponseToPreviousVersionFor(UserResource)
    nameToFullName (response: ResponseInfo) {
      response.body.fullName = response.body.name
      delete response.body.name
      response.body.note = `note: ${String(response.body.internalNote)}`
    }
  }

  const versions = new VersionBundle(
    new HeadVersion(HideInternalNote),
    new Version('2002-01-01', AddEmail),
    new Version('2001-01-01', RenameFullName),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: UserResource } } },
      async (request) => ({ id: request.params.id, name: 'Ada', email: 'ada@example.com', internalNote: 'vip', debug: true } as never))
  })

  const latest = await call(app, '2002-01-01', '/users/u1')
  t.equal(latest.statusCode, 200)
  t.equal(latest.headers['x-api-version'], '2002-01-01')
  t.same(jsonOf(latest), { id: 'u1', name: 'Ada', email: 'ada@example.com' }, 'the HEAD-only field and unknown fields are stripped from latest')

  const middle = await call(app, '2001-01-01', '/users/u1')
  t.equal(middle.statusCode, 200)
  t.equal(middle.headers['x-api-version'], '2001-01-01')
  t.same(jsonOf(middle), { id: 'u1', name: 'Ada' }, 'a field the version lacks is stripped, with no converter')

  const oldest = await call(app, '2000-01-01', '/users/u1')
  t.equal(oldest.statusCode, 200)
  t.same(jsonOf(oldest), { id: 'u1', fullName: 'Ada', note: 'note: vip' }, 'the converter used the HEAD-only field; leftovers are stripped')

  const between = await call(app, '2001-06-15', '/users/u1')
  t.equal(between.headers['x-api-version'], '2001-01-01', 'a date between versions is served as the older one')
  t.same(jsonOf(between), { id: 'u1', name: 'Ada' })

  t.equal(latest.headers['content-type'], 'application/json; charset=utf-8')
})

test('response converters run from latest down, versions in order, changes as listed, converters as declared', async (t) => {
  const Trail = Type.Object({ trail: Type.Array(Type.String()) })
  const calls: string[] = []
  const mark = (response: ResponseInfo, name: string): void => {
    calls.push(name)
    response.body.trail = [...response.body.trail, name]
  }

  class A extends VersionChange {
    description = 'A'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Trail)
    a1 (response: ResponseInfo) { mark(response, 'A.a1') }

    @ConvertResponseToPreviousVersionFor('/trail', ['GET'])
    a2 (response: ResponseInfo) { mark(response, 'A.a2') }
  }
  class B extends VersionChange {
    description = 'B'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/trail', ['GET'])
    b1 (response: ResponseInfo) { mark(response, 'B.b1') }

    @ConvertResponseToPreviousVersionFor(Trail)
    b2 (response: ResponseInfo) { mark(response, 'B.b2') }
  }
  class C extends VersionChange {
    description = 'C'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Trail)
    c1 (response: ResponseInfo) { mark(response, 'C.c1') }
  }
  class D extends VersionChange {
    description = 'D'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/trail', ['GET'])
    d1 (response: ResponseInfo) { mark(response, 'D.d1') }

    @ConvertResponseToPreviousVersionFor(Trail)
    d2 (response: ResponseInfo) { mark(response, 'D.d2') }
  }

  const versions = new VersionBundle(
    new Version('2003-01-01', A, B),
    new Version('2002-01-01', C),
    new Version('2001-01-01', D),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/trail', { schema: { response: { 200: Trail } } }, async () => ({ trail: ['head'] }))
  })

  const expected: Record<string, string[]> = {
    '2003-01-01': [],
    '2002-01-01': ['A.a1', 'A.a2', 'B.b1', 'B.b2'],
    '2001-01-01': ['A.a1', 'A.a2', 'B.b1', 'B.b2', 'C.c1'],
    '2000-01-01': ['A.a1', 'A.a2', 'B.b1', 'B.b2', 'C.c1', 'D.d1', 'D.d2']
  }
  for (const [version, order] of Object.entries(expected)) {
    calls.length = 0
    const response = await call(app, version, '/trail')
    t.equal(response.statusCode, 200, `${version}: 200`)
    t.same(jsonOf(response), { trail: ['head', ...order] }, `${version}: body records the order`)
    t.same(calls, order, `${version}: converters called in order, once each`)
  }
})

test('by-schema converters apply at every occurrence of the schema, once each, with body set to it', async (t) => {
  const Item = Type.Object({ id: Type.String(), label: Type.String() })
  const Other = Type.Object({ kind: Type.Literal('other'), size: Type.Number() })
  const Page = Type.Object({
    main: Item,
    items: Type.Array(Item),
    byKey: Type.Record(Type.String(), Item),
    mixed: Type.Array(Type.Union([Other, Item])),
    deep: Type.Object({ inner: Type.Object({ item: Item }) })
  })
  const Unrelated = Type.Object({ id: Type.String(), label: Type.String(), note: Type.String() })
  const seen: unknown[] = []

  class RenameLabel extends VersionChange {
    description = 'Item.label was title.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('label').had({ name: 'title' })]

    @ConvertResponseToPreviousVersionFor(Item)
    labelToTitle (response: ResponseInfo) {
      seen.push(structuredClone(response.body))
      response.body.title = `${String(response.body.label)}!`
      delete response.body.label
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', RenameLabel), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/item', { schema: { response: { 200: Item } } }, async () => ({ id: 'root', label: 'r' }))
    api.get('/items', { schema: { response: { 200: Type.Array(Item) } } }, async () => [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }])
    api.get('/page', { schema: { response: { 200: Page } } }, async () => ({
      main: { id: 'm', label: 'M' },
      items: [{ id: 'i1', label: 'I1' }, { id: 'i2', label: 'I2' }],
      byKey: { k1: { id: 'r1', label: 'R1' } },
      mixed: [{ kind: 'other' as const, size: 3 }, { id: 'u1', label: 'U1' }],
      deep: { inner: { item: { id: 'd', label: 'D' } } }
    }))
    api.get('/unrelated', { schema: { response: { 200: Unrelated } } }, async () => ({ id: 'x', label: 'X', note: 'n' }))
  })

  seen.length = 0
  const root = await call(app, '2000-01-01', '/item')
  t.same(jsonOf(root), { id: 'root', title: 'r!' }, 'root')
  t.same(seen, [{ id: 'root', label: 'r' }], 'once, with the whole body')

  seen.length = 0
  const list = await call(app, '2000-01-01', '/items')
  t.same(jsonOf(list), [{ id: 'a', title: 'A!' }, { id: 'b', title: 'B!' }], 'an array of the schema as the response')
  t.same(seen, [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }], 'once per item, with body set to the item')

  seen.length = 0
  const page = await call(app, '2000-01-01', '/page')
  t.equal(page.statusCode, 200)
  t.same(jsonOf(page), {
    main: { id: 'm', title: 'M!' },
    items: [{ id: 'i1', title: 'I1!' }, { id: 'i2', title: 'I2!' }],
    byKey: { k1: { id: 'r1', title: 'R1!' } },
    mixed: [{ kind: 'other', size: 3 }, { id: 'u1', title: 'U1!' }],
    deep: { inner: { item: { id: 'd', title: 'D!' } } }
  }, 'nested property, array items, record values, the union member the data belongs to, deep nesting')
  t.equal(seen.length, 6, 'six occurrences, six calls (not the union member of another schema)')
  t.same(new Set(seen.map((body) => (body as { id: string }).id)), new Set(['m', 'i1', 'i2', 'r1', 'u1', 'd']))

  seen.length = 0
  const latestPage = await call(app, '2001-01-01', '/page')
  t.same((jsonOf(latestPage) as { main: unknown }).main, { id: 'm', label: 'M' }, 'latest is not converted')
  t.same(seen, [], 'no converter runs for the latest version')

  seen.length = 0
  const unrelated = await call(app, '2000-01-01', '/unrelated')
  t.same(jsonOf(unrelated), { id: 'x', label: 'X', note: 'n' }, 'a schema with the same fields is not the converter\'s schema')
  t.same(seen, [])
})

test('by-path converters follow their HEAD route: renamed paths and method filters', async (t) => {
  const Thing = Type.Object({ id: Type.String(), method: Type.String(), tag: Type.Optional(Type.String()) })
  const seen: string[] = []

  class RenameThings extends VersionChange {
    description = '/things/:id was /stuff/:id.'
    instructionsToMigrateToPreviousVersion = [endpoint('/things/:id', ['GET']).had({ path: '/stuff/:id' })]

    @ConvertResponseToPreviousVersionFor('/things/:id', ['GET'])
    tagThing (response: ResponseInfo) {
      seen.push('tagThing')
      response.body.tag = 'from-2001-change'
    }

    @ConvertResponseToPreviousVersionFor('/both', ['POST'])
    onlyPost (response: ResponseInfo) {
      seen.push('onlyPost')
      response.body.tag = 'post-only'
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', RenameThings), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/things/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Thing } } },
      async (request) => ({ id: request.params.id, method: request.method }))
    api.route({
      method: ['GET', 'POST'],
      url: '/both',
      schema: { response: { 200: Thing } },
      handler: async (request) => ({ id: 'both', method: request.method })
    })
  })

  const renamed = await call(app, '2000-01-01', '/stuff/7')
  t.equal(renamed.statusCode, 200)
  t.same(jsonOf(renamed), { id: '7', method: 'GET', tag: 'from-2001-change' }, 'the old path runs the converter of the HEAD route')
  t.same(seen, ['tagThing'])

  const goneInOld = await call(app, '2000-01-01', '/things/7')
  t.equal(goneInOld.statusCode, 404, 'the HEAD path does not exist in 2000-01-01')

  seen.length = 0
  const latest = await call(app, '2001-01-01', '/things/7')
  t.same(jsonOf(latest), { id: '7', method: 'GET' }, 'latest: no converter')
  const oldPathInLatest = await call(app, '2001-01-01', '/stuff/7')
  t.equal(oldPathInLatest.statusCode, 404, 'the old path does not exist in latest')

  const post = await call(app, '2000-01-01', '/both', { method: 'POST' })
  t.same(jsonOf(post), { id: 'both', method: 'POST', tag: 'post-only' }, 'the POST of a GET+POST route is converted')
  const get = await call(app, '2000-01-01', '/both')
  t.same(jsonOf(get), { id: 'both', method: 'GET' }, 'its GET is not')
  t.same(seen, ['onlyPost'])
})

test('a JSON text payload sent by the handler is converted too, and async converters are awaited', async (t) => {
  const Note = Type.Object({ text: Type.String() })

  class CountWords extends VersionChange {
    description = 'words was removed.'
    instructionsToMigrateToPreviousVersion = [schema(Note).formerField('words').existedAs({ type: Type.Integer() })]

    // An async converter; `async` methods do not type-check with the decorator under experimentalDecorators.
    @ConvertResponseToPreviousVersionFor(Note)
    countWords (response: ResponseInfo): unknown {
      return new Promise((resolve) => setTimeout(resolve, 5)).then(() => {
        response.body.words = String(response.body.text).split(' ').length
      })
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', CountWords), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/text', { schema: { response: { 200: Note } } }, async (_request, reply) => {
      return reply.type('application/json; charset=utf-8').send(JSON.stringify({ text: 'one two three', extra: 1 }) as never)
    })
    api.get('/object', { schema: { response: { 200: Note } } }, async () => ({ text: 'a b' }))
  })

  const text = await call(app, '2000-01-01', '/text')
  t.equal(text.statusCode, 200)
  t.same(jsonOf(text), { text: 'one two three', words: 3 }, 'parsed, converted, serialized with the version schema')
  t.notOk(JSON.parse(text.body).extra, 'fields no schema has are stripped')
  const object = await call(app, '2000-01-01', '/object')
  t.same(jsonOf(object), { text: 'a b', words: 2 })
  const latest = await call(app, '2001-01-01', '/object')
  t.same(jsonOf(latest), { text: 'a b' })
})

test('regression: JSON text a handler sent went out unchanged to versions with nothing to convert, with the fields a HeadVersion hides', async (t) => {
  // Found by fuzzing handlers' bodies: `reply.send(cachedJson)` of a HEAD row gave the newest version's clients the
  // internal field a HeadVersion hides, which the returned object never showed, and which older versions did not get.
  const User = Type.Object({ id: Type.String(), name: Type.String(), passwordHash: Type.Optional(Type.String()) })
  class HideHash extends VersionChange {
    description = 'passwordHash is internal.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('passwordHash').didntExist]
  }
  const Tag = Type.Object({ name: Type.String() })
  const row = { id: 'u1', name: 'Ann', passwordHash: 'secret', extra: 1 }
  const versions = new VersionBundle(new HeadVersion(HideHash), new Version('2001-01-01', nameWasTitleInResponses(Tag)), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/text', { schema: { response: { 200: User } } }, async (_request, reply) => reply.type('application/json').send(JSON.stringify(row) as never))
    api.get('/object', { schema: { response: { 200: User } } }, async () => row)
    // A schema the HeadVersion does not touch: its text is sent to the newest version as it is, byte for byte.
    api.get('/tag', { schema: { response: { 200: Tag } } }, async (_request, reply) => reply.type('application/json').send('{"name":"a", "more":1}' as never))
  })
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.same(jsonOf(await call(app, version, '/text')), { id: 'u1', name: 'Ann' }, `${version}: the text's hidden and undeclared fields are not sent`)
    t.same(jsonOf(await call(app, version, '/object')), { id: 'u1', name: 'Ann' }, `${version}: as for the object`)
  }
  t.equal((await call(app, '2001-01-01', '/tag')).body, '{"name":"a", "more":1}')
})

test('regression: FSTVRS001: once per route, version and status, for successes too, with by-schema converters at the root or nested', async (t) => {
  const Item = Type.Object({ sku: Type.String() })
  const Wrapped = Type.Object({ item: Item })
  const warnings: Array<{ code: string, message: string }> = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push({ code: String(warning.code), message: warning.message }) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  class SkuWasCode extends VersionChange {
    description = 'sku was code.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('sku').had({ name: 'code' })]

    @ConvertResponseToPreviousVersionFor(Item)
    toCode (response: ResponseInfo) {
      response.body.code = response.body.sku
      delete response.body.sku
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', SkuWasCode), new Version('2000-01-01')) })
  // Streams where the schema expects objects: the type provider does not know streams are sent as they are.
  const streamed = (text: string): never => Readable.from([text]) as never
  await app.register(versioned(async (api) => {
    api.get('/wrapped', { schema: { response: { 200: Wrapped } } }, async (_request, reply) => reply.type('application/json').send(streamed('{"item":{"sku":"a"}}')))
    api.get('/item', { schema: { response: { 200: Item } } }, async (_request, reply) => reply.type('application/json').send(streamed('{"sku":"a"}')))
  }))

  for (let round = 0; round < 3; round++) {
    const wrapped = await app.inject({ method: 'GET', url: '/wrapped', headers: v('2000-01-01') })
    t.equal(wrapped.body, '{"item":{"sku":"a"}}', 'the stream is untouched')
    await app.inject({ method: 'GET', url: '/item', headers: v('2000-01-01') })
    await app.inject({ method: 'GET', url: '/item', headers: v('2001-01-01') })
  }
  await new Promise((resolve) => setImmediate(resolve))
  const ours = warnings.filter((warning) => warning.code === 'FSTVRS001')
  t.equal(ours.length, 2, 'one warning per route (version 2000-01-01, status 200), not one per request; none for the latest version')
  t.match(ours[0]?.message, /^A response of status 200 could not be migrated to API version '2000-01-01'/)
})

test('regression: a success of a status the route declares no schema for reached old versions as HEAD\'s body, and nothing said so (FSTVRS006)', async (t) => {
  // Found by fuzzing handlers' bodies: `reply.code(201)` on a route declaring only 200 is written as plain JSON, so a
  // 2000-01-01 client read `name` where its document promises `title`, and every client the hidden `passwordHash`.
  const User = Type.Object({ id: Type.String(), name: Type.String(), passwordHash: Type.Optional(Type.String()) })
  class HideHash extends VersionChange {
    description = 'passwordHash is internal.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('passwordHash').didntExist]
  }
  const warnings: Array<{ code: string, message: string }> = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push({ code: String(warning.code), message: warning.message }) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  const Plain = Type.Object({ id: Type.String() })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(HideHash), new Version('2001-01-01', nameWasTitleInResponses(User)), new Version('2000-01-01')), async (api) => {
    api.post('/users', { schema: { response: { 200: User } } }, async (_request, reply) => reply.code(201 as never).send({ id: 'u1', name: 'Ann', passwordHash: 'x' } as never))
    api.post('/text', { schema: { response: { 200: User } } }, async (_request, reply) => reply.code(201 as never).type('application/json').send('{"id":"u1","name":"Ann"}' as never))
    api.post('/wide', { schema: { response: { '2xx': User } } }, async (_request, reply) => reply.code(201).send({ id: 'u1', name: 'Ann', passwordHash: 'x' }))
    // A schema no version changes: its undeclared statuses are Fastify's business alone.
    api.post('/plain', { schema: { response: { 200: Plain } } }, async (_request, reply) => reply.code(201 as never).send({ id: 'p' } as never))
  })
  for (let round = 0; round < 2; round++) {
    for (const version of ['2001-01-01', '2000-01-01']) {
      for (const url of ['/users', '/text', '/plain']) t.equal((await call(app, version, url, { method: 'POST' })).statusCode, 201)
      t.same(jsonOf(await call(app, version, '/wide', { method: 'POST' })), version === '2000-01-01' ? { id: 'u1', title: 'Ann' } : { id: 'u1', name: 'Ann' }, `${version}: 2xx declares it`)
    }
  }
  await new Promise((resolve) => setImmediate(resolve))
  const ours = warnings.filter((warning) => warning.code === 'FSTVRS006').map((warning) => /status (\d+) on (\S+ \S+) .* API version '([^']+)'/.exec(warning.message)?.slice(1).join(' '))
  t.same(ours.sort(), ['201 POST /text 2000-01-01', '201 POST /text 2001-01-01', '201 POST /users 2000-01-01', '201 POST /users 2001-01-01'], 'once per route, version and status; none where 2xx answers it, nor for a schema no version changes')
  t.match(warnings.find((warning) => warning.code === 'FSTVRS006')?.message, /API version '20\d\d-01-01' got it as HEAD's body/)
})

test('converters saw class instances (a Date, not its JSON): they see plain JSON data, toJSON applied, on routes and in migrateResponseBody', async (t) => {
  const Event = Type.Object({ at: Type.String() })
  const seen: unknown[] = []
  class EventsHadYears extends VersionChange {
    description = 'Events carried their year.'
    instructionsToMigrateToPreviousVersion = [schema(Event).formerField('year').existedAs({ type: Type.String() })]

    @ConvertResponseToPreviousVersionFor(Event)
    addYear (response: ResponseInfo) {
      seen.push(response.body.at)
      response.body.year = String(response.body.at).slice(0, 4)
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', EventsHadYears), new Version('2000-01-01'))
  const at = new Date('2020-05-06T07:08:09.000Z')
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/event', { schema: { response: { 200: Event } } }, async () => ({ at }) as unknown as { at: string })
  })
  const response = await call(app, '2000-01-01', '/event')
  t.equal(response.statusCode, 200)
  t.same(jsonOf(response), { at: '2020-05-06T07:08:09.000Z', year: '2020' }, 'the converter read the ISO string')
  t.same(seen, ['2020-05-06T07:08:09.000Z'], 'it saw the string JSON.stringify sends')

  seen.length = 0
  const migrated = migrateResponseBody(versions, Event, { latestBody: { at } as unknown as { at: string }, version: '2000-01-01' })
  t.same(migrated, { at: '2020-05-06T07:08:09.000Z', year: '2020' }, 'migrateResponseBody too')
  t.same(seen, ['2020-05-06T07:08:09.000Z'])
})

test('text payloads were hidden from by-path converters: a string payload is their body (streams and buffers stay on raw)', async (t) => {
  const seen: Array<{ body: unknown, raw: unknown }> = []
  class GreetingsWereShouted extends VersionChange {
    description = 'Greetings were in capitals.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/greeting', ['GET'])
    shout (response: ResponseInfo) {
      seen.push({ body: response.body, raw: typeof response.raw })
      const body: unknown = response.body
      if (typeof body === 'string') response.body = body.toUpperCase() as never
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', GreetingsWereShouted), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/greeting', async (_request, reply) => reply.type('text/plain').send('hello'))
  })
  const old = await call(app, '2000-01-01', '/greeting')
  t.equal(old.statusCode, 200)
  t.equal(old.body, 'HELLO', 'the converter changed the text')
  t.same(seen, [{ body: 'hello', raw: 'string' }], 'it saw the text as its body')
  const latest = await call(app, '2001-01-01', '/greeting')
  t.equal(latest.body, 'hello')
})

test('__proto__ crossed the response copy: with onProtoPoisoning "ignore", an echoed __proto__ key never becomes a prototype in any version', async (t) => {
  const Profile = Type.Object({ nickname: Type.String(), role: Type.Optional(Type.String()) })
  const Echo = Type.Object({ profile: Profile, note: Type.Optional(Type.String()) })
  class NotesWereMemos extends VersionChange {
    description = 'Echo notes were memos.'
    instructionsToMigrateToPreviousVersion = [schema(Echo).field('note').had({ name: 'memo' })]

    @ConvertResponseToPreviousVersionFor(Echo)
    rename (response: ResponseInfo) {
      response.body.memo = response.body.note
      delete response.body.note
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', NotesWereMemos), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/echo', { schema: { response: { 200: Echo } } }, async (request) => request.body as never)
  }, { fastify: { onProtoPoisoning: 'ignore' } })
  const payload = '{"profile":{"nickname":"n","__proto__":{"role":"admin"}},"note":"x"}'
  for (const version of ['2000-01-01', '2001-01-01']) {
    const response = await call(app, version, '/echo', { method: 'POST', payload, headers: { 'content-type': 'application/json' } })
    t.equal(response.statusCode, 200)
    t.same((jsonOf(response) as { profile: unknown }).profile, { nickname: 'n' }, `${version}: no role came from __proto__`)
  }
  t.equal(({} as Record<string, unknown>).role, undefined, 'Object.prototype is untouched')
})

test('a HEAD enum member no converter maps answers a logged 500 FST_VERSIONER_UNCONVERTIBLE_RESPONSE naming the change, never a serializer message', async (t) => {
  const { stream, entries } = captureLogs()
  const app = await buildSeededApp('enum', { logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  const latest = await app.inject({ url: '/orders', headers: v('2003-01-01') })
  t.same([latest.statusCode, latest.json()[0].status], [200, 'refunded'], 'the version that has the member serves it')
  for (const version of ['2002-01-01', '2000-01-01']) {
    const old = await app.inject({ url: '/orders', headers: v(version) })
    t.equal(old.statusCode, 500, `${version}: 500`)
    t.match(old.json(), { code: 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', message: `A value of this response cannot be expressed in API version ${version}. This is a server error; it has been logged.` })
    t.notMatch(old.body, /refunded|does not match|required/, `${version}: neither the value nor a serializer message reaches the client`)
    t.equal(old.headers['x-api-version'], version)
  }
  const logged = entries.filter((entry) => entry.schema === 'OrderStatus')
  t.equal(logged.length, 2, 'one log entry per request')
  t.match(logged[0], { level: 50, apiVersion: '2002-01-01', route: 'GET /orders', versionChange: 'AddOrdersProfilesTagsContacts', value: 'refunded' })
  t.match(logged[0].msg, /The value "refunded" of OrderStatus \(field 'status'\) cannot be expressed in API version 2002-01-01: version change AddOrdersProfilesTagsContacts removed it/)

  const fixed = await buildSeededApp(undefined)
  t.teardown(() => fixed.close())
  const converted = await fixed.inject({ url: '/orders', headers: v('2000-01-01') })
  t.same([converted.statusCode, converted.json()[0].status], [200, 'shipped'], 'with its converter, the member is mapped')
})

test('regression: a union member or a tag HEAD added, which no converter maps, was a 500 with the serializer\'s message and no code', async (t) => {
  // Before: Fastify's own 500, `The value of '#/properties/method' does not match schema definition.`, to the client,
  // and a log saying nothing of the version or what to add, where an enum member gives FST_VERSIONER_UNCONVERTIBLE_RESPONSE.
  const Card = Type.Object({ kind: Type.Literal('card'), holder: Type.String() })
  const Bank = Type.Object({ kind: Type.Literal('bank_account'), iban: Type.String() })
  const Wallet = Type.Object({ kind: Type.Literal('wallet'), provider: Type.String() })
  const Payment = Type.Object({ id: Type.String(), method: Type.Union([Card, Bank, Wallet]) })
  class WalletsAndBankAccounts extends VersionChange {
    description = 'A payment can be made with a wallet; bank became bank_account.'
    instructionsToMigrateToPreviousVersion = [
      schema(Payment).field('method').had({ type: Type.Union([Card, Bank]) }),
      schema(Bank).field('kind').had({ type: Type.Literal('bank') })
    ]
  }
  const methods: Record<string, unknown> = { card: { kind: 'card', holder: 'Ada' }, bank: { kind: 'bank_account', iban: 'DE1' }, wallet: { kind: 'wallet', provider: 'pay' } }
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', WalletsAndBankAccounts), new Version('2000-01-01')), async (api) => {
    api.get('/payments/:kind', { schema: { response: { 200: Payment } } }, async (request) => ({ id: 'p1', method: methods[(request.params as { kind: string }).kind] }) as never)
  }, { fastify: { logger: { level: 'error', stream } } })
  t.equal((await call(app, '2000-01-01', '/payments/card')).statusCode, 200, 'a member both versions have is served')
  for (const kind of ['bank', 'wallet']) {
    t.equal((await call(app, '2001-01-01', `/payments/${kind}`)).statusCode, 200, `the newest version serves the ${kind}`)
    const old = await call(app, '2000-01-01', `/payments/${kind}`)
    t.equal(old.statusCode, 500, `${kind}: 500`)
    t.match(old.json(), { code: 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', message: 'A response of this route cannot be expressed in API version 2000-01-01. This is a server error; it has been logged.' })
    t.notMatch(old.body, /properties|schema definition/, `${kind}: no serializer message reaches the client`)
    t.equal(old.headers['x-api-version'], '2000-01-01')
  }
  const logged = entries.filter((entry) => /does not fit/.test(String(entry.msg)))
  t.equal(logged.length, 2, 'one log entry per request')
  t.match(logged[0], { level: 50, apiVersion: '2000-01-01', route: 'GET /payments/:kind', err: { message: /does not match schema definition/ } })
  t.match(logged[0].msg, /API version 2000-01-01 to GET \/payments\/:kind does not fit that version's schema.*add a response converter/)
})

/** True where JSON.stringify writes data deeper than the call stack (Node.js 26), which older ones refuse. */
const JSON_WRITES_ANY_DEPTH = ((): boolean => {
  let deep: unknown = 1
  for (let level = 0; level < 10_000; level++) deep = { a: deep }
  try {
    JSON.stringify(deep)
    return true
  } catch {
    return false
  }
})()

test('regression: a response the newest version serves as HEAD (no converter, no other schema) that the serializer refuses (data too deep, a missing field) was FST_VERSIONER_UNCONVERTIBLE_RESPONSE, logged as a converter to add', async (t) => {
  // Plain Fastify answers both with its serializer's 500. The newest version (no HeadVersion) serves HEAD's schema with
  // HEAD's serializer and no hook's work: it was answered the versioner's 500, logged as "does not fit that version's
  // schema … add a response converter", which sent the developer to converters that do not exist.
  const Doc = Type.Object({ name: Type.String(), meta: Type.Unknown() }, { $id: 'Doc' })
  const TitleWasName = nameWasTitleInResponses(Doc)
  let deep: unknown = 1
  for (let level = 0; level < 10_000; level++) deep = { a: deep }
  const bodies: Record<string, unknown> = { deep: { name: 'n', meta: deep }, missing: { meta: 1 } }
  const routes = async (api: FastifyInstance): Promise<void> => {
    api.get('/docs/:kind', { schema: { response: { 200: Doc } } }, async (request) => bodies[(request.params as { kind: string }).kind] as never)
  }
  const plain = Fastify({ logger: { level: 'error', stream: captureLogs().stream } })
  t.teardown(() => plain.close())
  await plain.register(routes)
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', TitleWasName), new Version('2000-01-01')), routes, { fastify: { logger: { level: 'error', stream } } })
  let refused = 0
  for (const kind of ['deep', 'missing']) {
    const reference = await plain.inject({ url: `/docs/${kind}` })
    // Node.js 26's JSON.stringify writes data of any depth: there, plain Fastify sends the deep one.
    if (kind === 'missing' || !JSON_WRITES_ANY_DEPTH) t.equal(reference.statusCode, 500, `${kind}: plain Fastify's serializer refuses it (the reference)`)
    if (reference.statusCode === 500) refused++
    const newest = await call(app, '2001-01-01', `/docs/${kind}`)
    t.same([newest.statusCode, newest.body], [reference.statusCode, reference.body], `${kind}: the newest version answers as plain Fastify`)
    t.equal(newest.headers['x-api-version'], '2001-01-01')
  }
  t.same(entries.filter((entry) => /does not fit/.test(String(entry.msg))), [], 'no log entry blames a converter')
  t.equal(entries.filter((entry) => entry.level === 50).length, refused, 'each 500 is logged, as plain Fastify logs it')
})

test('regression: the newest version of a route whose response is a Type.Ref to a schema a child context added (addSchema) answered a serializer refusal with FST_VERSIONER_UNCONVERTIBLE_RESPONSE: the $ref made it do work', async (t) => {
  // A `$ref` was walked on every success of the newest version though the schema it names needs no walk: the newest
  // version was never idle, and its serializer's refusal was answered as a conversion's.
  const Doc = Type.Object({ name: Type.String(), kind: Type.String() }, { $id: 'Doc' })
  const TitleWasName = nameWasTitleInResponses(Doc)
  const routes = async (api: FastifyInstance): Promise<void> => {
    api.get('/docs', { schema: { response: { 200: Type.Ref(Doc) } } }, async () => ({ name: 'n' }) as never)
  }
  const plain = Fastify({ logger: { level: 'error', stream: captureLogs().stream } })
  t.teardown(() => plain.close())
  await plain.register(async (child) => { child.addSchema(Doc); await child.register(routes) }, { prefix: '/api' })
  const reference = await plain.inject({ url: '/api/docs' })
  t.equal(reference.statusCode, 500, 'plain Fastify\'s serializer refuses it (the reference)')

  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', TitleWasName), new Version('2000-01-01')) })
  await app.register(async (child) => { child.addSchema(Doc); await child.register(versioned(routes)) }, { prefix: '/api' })
  const newest = await call(app, '2001-01-01', '/api/docs')
  t.same([newest.statusCode, newest.json()], [500, reference.json()], 'the newest version answers as plain Fastify')
  t.same(entries.filter((entry) => /does not fit/.test(String(entry.msg))), [], 'no log entry blames a converter')
  const old = await call(app, '2000-01-01', '/api/docs')
  t.same([old.statusCode, old.json()], [500, reference.json()], 'the older version\'s refusal of what HEAD refuses too is HEAD\'s 500 (decision 0298)')
})

test("the handler's returned object is never changed by an old version's response converters: a cached object serves every version", async (t) => {
  const Address = Type.Object({ street: Type.String(), city: Type.String() })
  const Team = Type.Object({ id: Type.String(), title: Type.String(), address: Address, members: Type.Array(Type.Object({ fullName: Type.String() })) })
  class TitleWasName extends VersionChange {
    description = 'title was name; an address had one line; members had a name.'
    instructionsToMigrateToPreviousVersion = [
      schema(Team).field('title').had({ name: 'name' }),
      schema(Address).field('street').didntExist,
      schema(Address).field('city').didntExist,
      schema(Address).formerField('line').existedAs({ type: Type.String() })
    ]

    @ConvertResponseToPreviousVersionFor(Team)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
      response.body.members.push({ fullName: 'added by the converter' })
      for (const member of response.body.members) member.fullName = member.fullName.toUpperCase()
    }

    @ConvertResponseToPreviousVersionFor(Address)
    lineDown (response: ResponseInfo) {
      response.body.line = `${response.body.street as string}, ${response.body.city as string}`
      delete response.body.street
      delete response.body.city
    }
  }
  const cached = { id: 't1', title: 'Core', address: { street: '1 Main St', city: 'Springfield' }, members: [{ fullName: 'Ada' }] }
  const snapshot = JSON.stringify(cached)
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', TitleWasName), new Version('2000-01-01')), async (api) => {
    api.get('/team', { schema: { response: { 200: Team } } }, async () => cached)
  })
  for (let round = 0; round < 2; round++) {
    t.same(jsonOf(await call(app, '2000-01-01', '/team')), {
      id: 't1', name: 'Core', address: { line: '1 Main St, Springfield' }, members: [{ fullName: 'ADA' }, { fullName: 'ADDED BY THE CONVERTER' }]
    }, `the old shape, read ${round + 1}`)
    t.equal(JSON.stringify(cached), snapshot, 'the cached object, nested parts included, is as the handler left it')
  }
  t.same(jsonOf(await call(app, '2001-01-01', '/team')), cached, 'and the latest version reads it as it is')
})

test('regression: a serializer the handler sets with reply.serializer serializes the converted body of an old version', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() })
  const FullNameWasName = fullNameWasNameInResponses(User)
  const toCsv = (payload: Record<string, unknown>): string => `${Object.keys(payload).join(',')}\n${Object.values(payload).join(',')}\n`
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async (_request, reply) => {
      reply.type('text/csv').serializer(toCsv)
      return { id: 'u1', fullName: 'Ada' }
    })
  })
  const old = await call(app, '2000-01-01', '/users/u1')
  t.equal(old.statusCode, 200)
  t.equal(old.headers['content-type'], 'text/csv')
  t.equal(old.body, 'id,name\nu1,Ada\n', 'the handler\'s serializer, given the converted body')
  t.equal((await call(app, '2001-01-01', '/users/u1')).body, 'id,fullName\nu1,Ada\n')
})

test('regression: app.setReplySerializer was skipped on old versions whose schema differs: they got the version schema\'s JSON', async (t) => {
  const User = Type.Object({ id: Type.String(), createdAt: Type.String(), fullName: Type.String() })
  const FullNameWasName = fullNameWasNameInResponses(User)
  // A serializer a team sets for the whole app: snake_case keys.
  const snakeCase = (payload: unknown): string => JSON.stringify(payload, function (this: unknown, _key, value: unknown) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), inner]))
  })
  for (const where of ['root', 'scope'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    if (where === 'root') app.setReplySerializer(snakeCase)
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      if (where === 'scope') api.setReplySerializer(snakeCase)
      api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', createdAt: '2001-02-03', fullName: 'Ada' }))
    }))
    t.equal((await call(app, '2001-01-01', '/users/u1')).body, '{"id":"u1","created_at":"2001-02-03","full_name":"Ada"}', `${where}: the newest, as plain Fastify`)
    t.equal((await call(app, '2000-01-01', '/users/u1')).body, '{"id":"u1","created_at":"2001-02-03","name":"Ada"}', `${where}: the old version, converted, through the same serializer`)
  }
})

test('regression: a field of HEAD a version lacks was sent to it where its object accepts other fields (additionalProperties true or a schema)', async (t) => {
  const Account = Type.Object({ id: Type.String(), riskScore: Type.Optional(Type.Number()), nickname: Type.Optional(Type.String()) }, { additionalProperties: true })
  const Labels = Type.Object({ id: Type.String(), nickname: Type.Optional(Type.String()) }, { additionalProperties: Type.String() })
  const Problem = Type.Object({ message: Type.String(), traceId: Type.Optional(Type.String()) }, { additionalProperties: true })
  const versions = new VersionBundle(
    new HeadVersion(changeClass('RiskIsInternal', [schema(Account).field('riskScore').didntExist, schema(Problem).field('traceId').didntExist])),
    new Version('2001-01-01', changeClass('Nicknames', [schema(Account).field('nickname').didntExist, schema(Labels).field('nickname').didntExist])),
    new Version('2000-01-01')
  )
  const stored = { id: 'a1', riskScore: 0.9, nickname: 'Al', plan: 'pro' }
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/account', { schema: { response: { 200: Account, 404: Problem } } }, async (request, reply) => {
      if (request.headers['x-missing'] !== undefined) return await reply.code(404).send({ message: 'gone', traceId: 't1', hint: 'h' } as { message: string })
      return stored
    })
    api.get('/labels', { schema: { response: { 200: Labels } } }, async () => ({ id: 'l1', nickname: 'Al', color: 'red' }))
  })
  t.same(jsonOf(await call(app, '2001-01-01', '/account')), { id: 'a1', nickname: 'Al', plan: 'pro' }, 'the internal field is not sent to the latest version')
  t.same(jsonOf(await call(app, '2000-01-01', '/account')), { id: 'a1', plan: 'pro' }, 'nor a field added since to an older one; other fields still are')
  t.same(jsonOf(await call(app, '2000-01-01', '/labels')), { id: 'l1', color: 'red' }, 'additionalProperties as a schema alike')
  t.same(jsonOf(await call(app, '2001-01-01', '/labels')), { id: 'l1', nickname: 'Al', color: 'red' })
  const missing = await app.inject({ url: '/account', headers: { 'x-api-version': '2001-01-01', 'x-missing': '1' } })
  t.same(missing.json(), { message: 'gone', hint: 'h' }, 'an error body too')
  t.same(stored, { id: 'a1', riskScore: 0.9, nickname: 'Al', plan: 'pro' }, "the handler's object is not changed")
  t.same(migrateResponseBody(versions, Account, { latestBody: stored, version: '2000-01-01' }), { id: 'a1', plan: 'pro' }, 'migrateResponseBody alike')
})

test('regression: a body a by-path converter gives an empty response (a 204 that was a 200 with a body, an empty 404) was dropped', async (t) => {
  const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() })
  const seen: unknown[] = []
  class DeletesAnsweredTheUser extends VersionChange {
    description = 'Deleting a user answered 200 with the deleted user; a missing one, 404 with a reason.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['DELETE'], { migrateHttpErrors: true })
    answerWithABody (response: ResponseInfo) {
      seen.push(response.body)
      if (response.statusCode === 204) {
        response.statusCode = 200
        response.body = { id: 'u1', deleted: true, internal: 'not in the 200 schema' }
      }
      if (response.statusCode === 404) response.body = { reason: 'No such user' }
      if (response.statusCode === 410) response.body = 'Gone for good' as never
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', DeletesAnsweredTheUser), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.delete('/users/:id', { schema: { response: { 200: Deleted } } }, async (request, reply) => {
      const { id } = request.params as { id: string }
      const empty = reply as FastifyReply
      return empty.code(id === 'missing' ? 404 : id === 'gone' ? 410 : 204).send()
    })
  })
  const deleted = await call(app, '2000-01-01', '/users/u1', { method: 'DELETE' })
  t.equal(deleted.statusCode, 200)
  t.same(jsonOf(deleted), { id: 'u1', deleted: true }, 'the converter\'s body, serialized with the version\'s 200 schema')
  t.match(deleted.headers['content-type'], /^application\/json/)
  const missing = await call(app, '2000-01-01', '/users/missing', { method: 'DELETE' })
  t.equal(missing.statusCode, 404)
  t.same(jsonOf(missing), { reason: 'No such user' })
  const gone = await call(app, '2000-01-01', '/users/gone', { method: 'DELETE' })
  t.equal(gone.body, 'Gone for good', 'a string body is sent as it is')
  t.match(gone.headers['content-type'], /^text\/plain/)
  t.same(seen, [undefined, undefined, undefined], 'the converter saw no body')
  const latest = await call(app, '2001-01-01', '/users/u1', { method: 'DELETE' })
  t.equal(latest.statusCode, 204)
  t.equal(latest.body, '')
})

test('regression: a body a by-path converter gives a 204 without giving a status with a body was dropped: the old client got an empty 204', async (t) => {
  class DeletesAnsweredTheUser extends VersionChange {
    description = 'Deleting a user answered with the deleted user.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['DELETE'])
    answerWithABody (response: ResponseInfo) {
      response.body = { id: 'u1', deleted: true } // the status left 204, which has no body
    }
  }
  const { stream, entries } = captureLogs()
  const versions = new VersionBundle(new Version('2001-01-01', DeletesAnsweredTheUser), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.delete('/users/:id', async (_request, reply) => reply.code(204).send())
  }, { fastify: { logger: { level: 'error', stream } } })
  const deleted = await call(app, '2000-01-01', '/users/u1', { method: 'DELETE' })
  t.equal(deleted.statusCode, 500, 'a logged 500, not an empty 204 in place of the body')
  t.equal(jsonOf(deleted).code, 'FST_VERSIONER_CONVERTER_FAILED')
  const entry = entries.find((logged) => /has no body/.test(String(logged.msg)))
  t.match(entry, { level: 50, apiVersion: '2000-01-01', route: 'DELETE /users/:id' }, 'the log entry names the version and the route')
  t.match(entry?.msg, /set the status the version answers with/)
  t.equal((await call(app, '2001-01-01', '/users/u1', { method: 'DELETE' })).statusCode, 204, 'HEAD\'s 204 is untouched')
})

test('a Date in a format date or time field reached old clients as a date-time: they get what HEAD writes, and converters see it', async (t) => {
  const Line = Type.Object({ on: Type.String({ format: 'date' }) })
  const Invoice = Type.Object({
    issuedAt: Type.String({ format: 'date-time' }),
    dueOn: Type.String({ format: 'date' }),
    cutOff: Type.Optional(Type.String({ format: 'time' })),
    lines: Type.Array(Line),
    memo: Type.Optional(Type.String())
  })
  const seen: unknown[] = []
  class MemoAdded extends VersionChange {
    description = 'Invoices gained a memo.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('memo').didntExist]

    @ConvertResponseToPreviousVersionFor(Invoice)
    look (response: ResponseInfo) {
      seen.push(structuredClone(response.body)) // as it is now: the Dates no converter changed are put back for the serializer
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', MemoAdded), new Version('2000-01-01'))
  // One instant at a date-time place and a date place: each is written by its own format.
  const issued = new Date('2024-03-05T10:20:30.000Z')
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({
      issuedAt: issued, dueOn: issued, cutOff: new Date('2024-03-05T17:00:00.000Z'), lines: [{ on: new Date('2024-04-01T00:00:00.000Z') }], memo: 'm'
    }) as never)
  })
  const latest = jsonOf(await call(app, '2001-01-01', '/invoice'))
  t.match(latest.dueOn, /^\d{4}-\d{2}-\d{2}$/, 'HEAD writes a date')
  const old = await call(app, '2000-01-01', '/invoice')
  t.equal(old.statusCode, 200)
  const { memo, ...expected } = latest
  t.same(jsonOf(old), expected, 'the old client gets the dates and time HEAD writes')
  t.same(seen, [{ ...expected, memo }], 'the converter saw them as HEAD writes them')
})

test('regression: a Date in a nullable date field (a union with null) was a 500 for old clients: the union took it for neither member', async (t) => {
  const Task = Type.Object({
    dueOn: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
    startsOn: Type.Optional(Type.Union([Type.Null(), Type.String({ format: 'date' })])),
    memo: Type.Optional(Type.String())
  })
  const seen: unknown[] = []
  class MemoAdded extends VersionChange {
    description = 'Tasks gained a memo.'
    instructionsToMigrateToPreviousVersion = [schema(Task).field('memo').didntExist]
    @ConvertResponseToPreviousVersionFor(Task)
    look (response: ResponseInfo) { seen.push({ ...response.body }) }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', MemoAdded), new Version('2000-01-01')), async (api) => {
    api.get('/task', { schema: { response: { 200: Task } } }, async () => ({ dueOn: new Date('2024-03-05T10:20:30.000Z'), startsOn: new Date('2024-03-01T10:00:00.000Z'), memo: 'm' }) as never)
  })
  const latest = jsonOf(await call(app, '2001-01-01', '/task'))
  t.match(latest.dueOn, /^\d{4}-\d{2}-\d{2}$/, 'HEAD writes a date')
  const old = await call(app, '2000-01-01', '/task')
  t.equal(old.statusCode, 200, old.body)
  const { memo, ...expected } = latest
  t.same(jsonOf(old), expected, 'the old client gets the dates HEAD writes')
  t.same(seen, [{ ...expected, memo }], 'the converter saw them as HEAD writes them')
})

test('regression: a class instance in a nullable field (a union with null) whose required field is a getter was a 500 for old clients', async (t) => {
  const Person = Type.Object({ id: Type.String(), fullName: Type.String() })
  const Team = Type.Object({ owner: Type.Union([Type.Null(), Person]), memo: Type.Optional(Type.String()) })
  class PersonDto {
    constructor (readonly id: string) {}
    get fullName (): string { return 'Ada Lovelace' }
  }
  const seen: unknown[] = []
  class MemoAdded extends VersionChange {
    description = 'Teams gained a memo.'
    instructionsToMigrateToPreviousVersion = [schema(Team).field('memo').didntExist]
    @ConvertResponseToPreviousVersionFor(Person)
    look (response: ResponseInfo) { seen.push({ ...response.body }) }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', MemoAdded), new Version('2000-01-01')), async (api) => {
    api.get('/team', { schema: { response: { 200: Team } } }, async () => ({ owner: new PersonDto('p1'), memo: 'm' }) as never)
  })
  t.same(jsonOf(await call(app, '2001-01-01', '/team')), { owner: { id: 'p1', fullName: 'Ada Lovelace' }, memo: 'm' })
  const old = await call(app, '2000-01-01', '/team')
  t.equal(old.statusCode, 200, old.body)
  t.same(jsonOf(old), { owner: { id: 'p1', fullName: 'Ada Lovelace' } }, 'the getter\'s field, as HEAD writes it')
  t.same(seen, [{ id: 'p1', fullName: 'Ada Lovelace' }], 'the member\'s converter ran on it')
})

test('regression: a field behind a class getter, which Fastify\'s serializer writes, was lost for old clients (a 500 where required)', async (t) => {
  const Address = Type.Object({ line: Type.String(), label: Type.String() })
  const Person = Type.Object({ id: Type.String(), fullName: Type.String(), address: Address, tags: Type.Array(Type.String()) })
  class Place {
    constructor (readonly line: string) {}
    get label (): string { return `at ${this.line}` }
  }
  // A DTO class: fields of its own, one behind a getter; `secret` is a getter no schema declares (never read).
  let secretReads = 0
  class PersonDto {
    constructor (readonly id: string, readonly first: string, readonly last: string, readonly address: Place) {}
    get fullName (): string { return `${this.first} ${this.last}` }
    get tags (): string[] { return ['a', 'b'] }
    get secret (): string { secretReads++; return 'never' }
  }
  const versions = new VersionBundle(new Version('2001-01-01', fullNameWasNameInResponses(Person)), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/people/p1', { schema: { response: { 200: Person } } }, async () => new PersonDto('p1', 'Ada', 'Lovelace', new Place('1 Main St')) as never)
  })
  const latest = jsonOf(await call(app, '2001-01-01', '/people/p1'))
  t.same(latest, { id: 'p1', fullName: 'Ada Lovelace', address: { line: '1 Main St', label: 'at 1 Main St' }, tags: ['a', 'b'] }, 'HEAD writes the getters')
  const old = await call(app, '2000-01-01', '/people/p1')
  t.equal(old.statusCode, 200, old.body)
  t.same(jsonOf(old), { id: 'p1', name: 'Ada Lovelace', address: { line: '1 Main St', label: 'at 1 Main St' }, tags: ['a', 'b'] }, 'the old client gets what HEAD writes, renamed')
  t.equal(secretReads, 0, 'a getter no schema declares is not read')
  t.same(migrateResponseBody(versions, Person, { latestBody: new PersonDto('p2', 'Alan', 'Turing', new Place('2 High St')) as never, version: '2000-01-01' }),
    { id: 'p2', name: 'Alan Turing', address: { line: '2 High St', label: 'at 2 High St' }, tags: ['a', 'b'] }, 'migrateResponseBody alike')
})

test('regression: a cached body holding a BigInt (a Prisma BigInt id) was changed in place by an old version\'s converter, then every newest request failed', async (t) => {
  const Account = Type.Object({ id: Type.Integer(), name: Type.String() })
  const seen: unknown[] = []
  class NameWasFullName extends VersionChange {
    description = 'name was fullName.'
    instructionsToMigrateToPreviousVersion = [schema(Account).field('name').had({ name: 'fullName' })]

    @ConvertResponseToPreviousVersionFor(Account)
    rename (response: ResponseInfo) {
      seen.push(response.body.id)
      response.body.fullName = response.body.name
      delete response.body.name
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', NameWasFullName), new Version('2000-01-01'))
  const cached = { id: 9007199254740993n, name: 'Ada' }
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/account', { schema: { response: { 200: Account } } }, async () => cached as never)
  })
  const old = await call(app, '2000-01-01', '/account')
  t.equal(old.statusCode, 200)
  t.equal(old.body, '{"id":9007199254740993,"fullName":"Ada"}', 'the old client gets the integer Fastify writes')
  t.same(seen, [9007199254740993n], 'the converter saw the BigInt')
  t.same(cached, { id: 9007199254740993n, name: 'Ada' }, 'the handler\'s object is unchanged')
  const latest = await call(app, '2001-01-01', '/account')
  t.equal(latest.statusCode, 200)
  t.equal(latest.body, '{"id":9007199254740993,"name":"Ada"}')
})

test('regression: an infinite or NaN number reached old clients whose converters ran as 0, where the newest version writes null or fails', async (t) => {
  const Stats = Type.Object({ ratio: Type.Number(), count: Type.Optional(Type.Integer()) })
  class CountAdded extends VersionChange {
    description = 'Stats gained a count.'
    instructionsToMigrateToPreviousVersion = [schema(Stats).field('count').didntExist]

    @ConvertResponseToPreviousVersionFor(Stats)
    keep (_response: ResponseInfo) {}
  }
  const versions = new VersionBundle(new Version('2001-01-01', CountAdded), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/stats/:kind', { schema: { response: { 200: Stats } } }, async (request) =>
      ({ ratio: (request.params as { kind: string }).kind === 'nan' ? NaN : 1 / 0, count: 0 }))
  })
  const latest = await call(app, '2001-01-01', '/stats/infinite')
  const old = await call(app, '2000-01-01', '/stats/infinite')
  t.equal(latest.body, '{"ratio":null,"count":0}', 'Fastify writes an infinite number as null')
  t.equal(old.body, '{"ratio":null}', 'so does the old version, not 0')
  const latestNaN = await call(app, '2001-01-01', '/stats/nan')
  const oldNaN = await call(app, '2000-01-01', '/stats/nan')
  t.equal(latestNaN.statusCode, 500, 'Fastify refuses to write NaN as a number')
  t.equal(oldNaN.statusCode, 500, 'so does the old version, rather than answer 0')
})

test('regression: an undefined list item or an invalid Date, which Fastify refuses to write (a 500), reached old clients as 0 or an empty string', async (t) => {
  const Prices = Type.Object({ prices: Type.Array(Type.Number()), at: Type.Optional(Type.String({ format: 'date-time' })), note: Type.Optional(Type.String()) })
  class NoteAdded extends VersionChange {
    description = 'Prices gained a note.'
    instructionsToMigrateToPreviousVersion = [schema(Prices).field('note').didntExist]

    @ConvertResponseToPreviousVersionFor(Prices)
    keep (_response: ResponseInfo) {}
  }
  const versions = new VersionBundle(new Version('2001-01-01', NoteAdded), new Version('2000-01-01'))
  const bodies: Record<string, unknown> = { missing: { prices: [1, undefined] }, invalid: { prices: [], at: new Date('not a date') } }
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/prices/:kind', { schema: { response: { 200: Prices } } }, async (request) => bodies[(request.params as { kind: string }).kind] as never)
  })
  for (const kind of Object.keys(bodies)) {
    t.equal((await call(app, '2001-01-01', `/prices/${kind}`)).statusCode, 500, `Fastify refuses the ${kind} value`)
    t.equal((await call(app, '2000-01-01', `/prices/${kind}`)).statusCode, 500, `so does the old version, rather than invent one (${kind})`)
  }
})

test('a serializer the application chose writes a Date of a format date field by its own rules in every version, not as the schema\'s would', async (t) => {
  const Invoice = Type.Object({ dueOn: Type.String({ format: 'date' }), name: Type.String() })
  const seen: unknown[] = []
  const NameWasTitle = nameWasTitleInResponses(Invoice, (body) => { seen.push(body.dueOn) })
  const versions = new VersionBundle(new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.setReplySerializer((payload) => JSON.stringify(payload))
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ dueOn: new Date('2024-03-05T10:20:30.000Z'), name: 'Ada' }) as never)
  })
  t.same(jsonOf(await call(app, '2001-01-01', '/invoice')), { dueOn: '2024-03-05T10:20:30.000Z', name: 'Ada' }, 'the chosen serializer writes the instant')
  t.same(jsonOf(await call(app, '2000-01-01', '/invoice')), { dueOn: '2024-03-05T10:20:30.000Z', title: 'Ada' }, 'in the old version too')
  t.same(seen, ['2024-03-05T10:20:30.000Z'], 'the converter saw what the chosen serializer writes')
})

test('regression: a cached ORM entity with a back-reference (a cycle JSON cannot write, HEAD\'s serializer never reads) was changed in place by an old version\'s converter', async (t) => {
  const Post = Type.Object({ id: Type.String() })
  const Author = Type.Object({ id: Type.String(), name: Type.String(), posts: Type.Array(Post) })
  const seen: unknown[] = []
  const NameWasTitle = nameWasTitleInResponses(Author, (body) => { seen.push({ ...body }) })
  const versions = new VersionBundle(new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const author: Record<string, unknown> = { id: 'a1', name: 'Ada', posts: [] }
  ;(author.posts as unknown[]).push({ id: 'p1', author })
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/author', { schema: { response: { 200: Author } } }, async () => author as never)
  })
  const old = await call(app, '2000-01-01', '/author')
  t.equal(old.statusCode, 200)
  t.same(jsonOf(old), { id: 'a1', title: 'Ada', posts: [{ id: 'p1' }] })
  t.same(seen, [{ id: 'a1', name: 'Ada', posts: [{ id: 'p1' }] }], 'the converter saw what HEAD writes')
  t.equal(author.name, 'Ada', 'the handler\'s object is unchanged')
  t.same(jsonOf(await call(app, '2001-01-01', '/author')), { id: 'a1', name: 'Ada', posts: [{ id: 'p1' }] }, 'the next client is answered from it')
})

test('regression: a by-schema converter of a change newer than one giving the route another response (endpoint(...).had({ response })) looked for its schema where the older response has it', async (t) => {
  // A Stripe-like list: GET /invoices answered a bare array before 2001-01-01, a list object since; a newer change
  // renames a field of each invoice. Going down, the newer change meets the list object, not the array.
  const Invoice = Type.Object({ id: Type.String(), description: Type.String() }, { $id: 'Invoice' })
  const InvoiceList = Type.Object({ object: Type.Literal('list'), data: Type.Array(Invoice), has_more: Type.Boolean() }, { $id: 'InvoiceList' })
  class ListObject extends VersionChange {
    description = 'GET /invoices answers a list object, no longer a bare array.'
    instructionsToMigrateToPreviousVersion = [endpoint('/invoices', ['GET']).had({ response: { 200: Type.Array(Invoice) } })]
    @ConvertResponseToPreviousVersionFor('/invoices', ['GET']) unwrap (response: ResponseInfo) { response.body = response.body.data }
  }
  class DescriptionWasMemo extends VersionChange {
    description = 'An invoice\'s memo is now its description.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('description').had({ name: 'memo' })]
    @ConvertResponseToPreviousVersionFor(Invoice) memoDown (response: ResponseInfo) {
      response.body.memo = response.body.description
      delete response.body.description
    }
  }
  const routes = async (api: Parameters<Parameters<typeof versioned>[0]>[0]): Promise<void> => {
    api.get('/invoices', { schema: { response: { 200: InvoiceList } } },
      async () => ({ object: 'list' as const, data: [{ id: 'in_1', description: 'Tea' }, { id: 'in_2', description: 'Cake' }], has_more: false }))
  }
  const old = [{ id: 'in_1', memo: 'Tea' }, { id: 'in_2', memo: 'Cake' }]
  const newerRename = await versionedApp(t, new VersionBundle(new Version('2002-01-01', DescriptionWasMemo), new Version('2001-01-01', ListObject), new Version('2000-01-01')), routes)
  t.same((await newerRename.inject({ url: '/invoices', headers: v('2001-01-01') })).json(), { object: 'list', data: old, has_more: false })
  const response = await newerRename.inject({ url: '/invoices', headers: v('2000-01-01') })
  t.same([response.statusCode, response.json()], [200, old], 'the rename ran on the list object\'s items, then the list was unwrapped')
  const olderRename = await versionedApp(t, new VersionBundle(new Version('2002-01-01', ListObject), new Version('2001-01-01', DescriptionWasMemo), new Version('2000-01-01')), routes)
  t.same((await olderRename.inject({ url: '/invoices', headers: v('2000-01-01') })).json(), old, 'the list unwrapped, then the rename ran on the array\'s items')
})
