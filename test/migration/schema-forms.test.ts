// Every schema form Fastify accepts is versioned: a response in the `content` form, with `description` and `headers`,
// under `default` or `2xx`, a body in the `content` form, two media types in one content map (issue 30).
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, enumeration, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'
import { assertDocumentsValid, documentOf } from '../helpers/openapi-documents'

const OLD = '2000-01-01'
const NEW = '2001-01-01'

/** HEAD schemas: a user, the body creating one, a summary sent under its own media type, a problem, a sort order. */
function schemas () {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  const UserCreate = Type.Object({ fullName: Type.String() }, { $id: 'UserCreate' })
  const Summary = Type.Object({ label: Type.String() }, { $id: 'Summary' })
  const Problem = Type.Object({ detail: Type.String() }, { $id: 'Problem' })
  const Sort = Type.Union([Type.Literal('asc'), Type.Literal('desc'), Type.Literal('random')], { $id: 'Sort' })
  return { User, UserCreate, Summary, Problem, Sort }
}

type Schemas = ReturnType<typeof schemas>

/** Before 2001-01-01: `fullName` was `name`, a summary's `label` was `title`, a problem's `detail` was `message`, no random order. */
function bundle ({ User, UserCreate, Summary, Problem, Sort }: Schemas, converters = true): VersionBundle {
  class RenamedFields extends VersionChange {
    description = 'fullName was name; label was title; detail was message; sort had no random order.'
    instructionsToMigrateToPreviousVersion = [
      schema(User).field('fullName').had({ name: 'name' }),
      schema(UserCreate).field('fullName').had({ name: 'name' }),
      schema(Summary).field('label').had({ name: 'title' }),
      schema(Problem).field('detail').had({ name: 'message' }),
      enumeration(Sort).didntHave('random')
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    nameUp (request: RequestInfo) {
      request.body.fullName = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(Summary)
    labelDown (response: ResponseInfo) {
      response.body.title = response.body.label
      delete response.body.label
    }

    @ConvertResponseToPreviousVersionFor(Problem, { migrateHttpErrors: true })
    detailDown (response: ResponseInfo) {
      response.body.message = response.body.detail
      delete response.body.detail
    }
  }
  class UserDown extends VersionChange {
    description = 'The user converter.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  return new VersionBundle(new HeadVersion(), new Version(NEW, ...(converters ? [RenamedFields, UserDown] : [RenamedFields])), new Version(OLD))
}

const ADA = { id: 'u1', fullName: 'Ada Lovelace' }
const HEADERS = { 'x-request-id': { type: 'string', description: 'The request id.' } }

type Api = Parameters<Parameters<typeof versionedApp>[2] & object>[0]

/** Routes declaring their schemas in every form Fastify accepts, by name. */
const ROUTES = {
  content: (api: Api, s: Schemas) => api.get('/content', {
    schema: { response: { 200: { description: 'The user', headers: HEADERS, content: { 'application/json': { schema: s.User } } } } }
  }, async () => ADA),
  beside: (api: Api, s: Schemas) => api.get('/beside', { schema: { response: { 200: { ...s.User, description: 'The user', headers: HEADERS } } } }, async () => ADA),
  default: (api: Api, s: Schemas) => api.get('/default', { schema: { response: { default: s.User } } }, async () => ADA),
  range: (api: Api, s: Schemas) => api.get('/range', { schema: { response: { '2xx': s.User } } }, async (_request, reply) => reply.code(201).send(ADA)),
  media: (api: Api, s: Schemas) => api.get('/media', {
    schema: {
      response: {
        200: { description: 'The user, or its summary', content: { 'application/json': { schema: s.User }, 'application/vnd.summary+json': { schema: s.Summary } } }
      }
    }
  }, async (request, reply) => request.headers.accept === 'application/vnd.summary+json' ? reply.type('application/vnd.summary+json').send({ label: 'Ada' }) : ADA),
  users: (api: Api, s: Schemas) => api.post('/users', {
    schema: {
      body: { content: { 'application/json': { schema: s.UserCreate }, 'application/x-www-form-urlencoded': { schema: s.UserCreate } } },
      response: { 201: { description: 'Created', content: { 'application/json': { schema: s.User } } } }
    }
  }, async (request, reply) => reply.code(201).send({ id: 'u2', fullName: (request.body as { fullName: string }).fullName })),
  problem: (api: Api, s: Schemas) => api.get('/problem', { schema: { response: { 200: s.User, default: s.Problem } } }, async (_request, reply) => reply.code(409).send({ detail: 'taken' })),
  sorted: (api: Api, s: Schemas) => api.get('/sorted', { schema: { query: Type.Object({ sort: Type.Optional(s.Sort) }) } as never }, async (request) => request.query)
}

/** A ready application serving the routes named (every one when none is), with the converters or without the user's. */
async function formsApp (t: Teardown, names: ReadonlyArray<keyof typeof ROUTES> = [], converters = true): Promise<FastifyInstance> {
  const s = schemas()
  const chosen = names.length === 0 ? Object.values(ROUTES) : names.map((name) => ROUTES[name])
  // partialApp: an application of one route leaves the other schemas' converters unused.
  const app = await versionedApp(t, bundle(s, converters), async (api) => { for (const route of chosen) route(api, s) }, {
    beforeVersioner: async (instance) => { await instance.register(formbody) },
    versioner: { partialApp: names.length > 0 }
  })
  await app.ready()
  return app
}

test('a response in the content form, with description and headers, is converted: an old client gets its shape, a new one HEAD\'s', async (t) => {
  const app = await formsApp(t, ['content'])
  t.same(jsonOf(await call(app, OLD, '/content')), { id: 'u1', name: 'Ada Lovelace' }, 'the old version\'s shape')
  t.same(jsonOf(await call(app, NEW, '/content')), ADA, 'HEAD\'s shape')
})

test('a short-form response with description and headers beside its schema is converted', async (t) => {
  const app = await formsApp(t, ['beside'])
  t.same(jsonOf(await call(app, OLD, '/beside')), { id: 'u1', name: 'Ada Lovelace' })
  t.same(jsonOf(await call(app, NEW, '/beside')), ADA)
})

test('a success answered under default is converted as a success', async (t) => {
  const app = await formsApp(t, ['default'])
  t.same(jsonOf(await call(app, OLD, '/default')), { id: 'u1', name: 'Ada Lovelace' }, 'the old version\'s shape, not HEAD\'s')
  t.same(jsonOf(await call(app, NEW, '/default')), ADA)
})

test('an error answered under default reaches the converters declared with migrateHttpErrors', async (t) => {
  const app = await formsApp(t, ['problem'])
  const old = await call(app, OLD, '/problem')
  t.equal(old.statusCode, 409)
  t.same(jsonOf(old), { message: 'taken' })
  t.same(jsonOf(await call(app, NEW, '/problem')), { detail: 'taken' })
})

test('a success answered under 2xx is converted', async (t) => {
  const app = await formsApp(t, ['range'])
  const old = await call(app, OLD, '/range')
  t.equal(old.statusCode, 201)
  t.same(jsonOf(old), { id: 'u1', name: 'Ada Lovelace' })
  t.same(jsonOf(await call(app, NEW, '/range')), ADA)
})

test('two media types in one response content map: the reply\'s media type picks the schema, as Fastify picks it', async (t) => {
  const app = await formsApp(t, ['media'])
  t.same(jsonOf(await call(app, OLD, '/media')), { id: 'u1', name: 'Ada Lovelace' }, 'application/json: the user')
  const summary = await call(app, OLD, '/media', { headers: { accept: 'application/vnd.summary+json' } })
  t.match(summary.headers['content-type'], /^application\/vnd\.summary\+json/)
  t.same(jsonOf(summary), { title: 'Ada' }, 'application/vnd.summary+json: the summary, by its own converter')
  t.same(jsonOf(await call(app, NEW, '/media', { headers: { accept: 'application/vnd.summary+json' } })), { label: 'Ada' })
})

test('a converted success in a content map reads the reply\'s media type once: its schema is chosen once, not again to serialize it', async (t) => {
  const s = schemas()
  const app = await versionedApp(t, bundle(s), async (api) => { ROUTES.media(api, s) }, { versioner: { partialApp: true } })
  let reads = 0
  // Fastify reads it once itself, before the preSerialization hooks; the count starts with them.
  app.addHook('preSerialization', async (_request, _reply, payload) => {
    reads = 0
    return payload
  })
  app.addHook('onRequest', async (_request, reply) => {
    const getHeader = reply.getHeader.bind(reply)
    reply.getHeader = (name: string) => {
      if (name === 'content-type') reads++
      return getHeader(name)
    }
  })
  await app.ready()
  t.same(jsonOf(await call(app, OLD, '/media')), { id: 'u1', name: 'Ada Lovelace' })
  t.equal(reads, 1, 'one slot lookup for the steps and the serializer')
})

test('a converter that changes a success\'s media type in a content map: serialized with that media type\'s schema', async (t) => {
  // Two cases: the user's slot changed in 2000-01-01 too; or only the summary's did (the user's slot is HEAD's, so
  // Fastify's own serializer fits it, and once the converter sets the summary's media type, Fastify's serializer for it,
  // HEAD's summary with label, answered a 500: regression).
  for (const userChanged of [true, false]) {
    const s = schemas()
    class UserAsSummary extends VersionChange {
      description = 'Old clients got a summary for a user; its label was title.'
      instructionsToMigrateToPreviousVersion = [
        schema(s.Summary).field('label').had({ name: 'title' }),
        ...(userChanged ? [schema(s.User).field('fullName').had({ name: 'name' })] : [])
      ]

      @ConvertResponseToPreviousVersionFor(s.User)
      summarise (response: ResponseInfo) {
        response.headers['content-type'] = 'application/vnd.summary+json'
        response.body = { title: response.body.fullName, extra: 'dropped by the summary schema' }
      }
    }
    const versions = new VersionBundle(new HeadVersion(), new Version(NEW, UserAsSummary), new Version(OLD))
    const app = await versionedApp(t, versions, async (api) => { ROUTES.media(api, s) }, { versioner: { partialApp: true } })
    await app.ready()
    const old = await call(app, OLD, '/media')
    t.match(old.headers['content-type'], /^application\/vnd\.summary\+json/, `user changed: ${userChanged}`)
    t.same(jsonOf(old), { title: 'Ada Lovelace' }, 'the old summary schema serialized it')
    t.same(jsonOf(await call(app, NEW, '/media')), ADA)
  }
})

test('a body in the content form is validated and converted for every media type it declares', async (t) => {
  const app = await formsApp(t, ['users'])
  const json = await call(app, OLD, '/users', { method: 'POST', payload: { name: 'Ada' } })
  t.equal(json.statusCode, 201, 'an old client\'s JSON body is converted, not refused for lacking HEAD\'s field')
  t.same(jsonOf(json), { id: 'u2', name: 'Ada' })
  const form = await call(app, OLD, '/users', { method: 'POST', payload: 'name=Grace', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(form.statusCode, 201, 'and its form body')
  t.same(jsonOf(form), { id: 'u2', name: 'Grace' })
  const refused = await call(app, OLD, '/users', { method: 'POST', payload: { fullName: 'Ada' } })
  t.equal(refused.statusCode, 400, 'validated against the old version\'s schema')
  t.match(jsonOf(refused).message, /name/)
  const head = await call(app, NEW, '/users', { method: 'POST', payload: 'fullName=Ada', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.same(jsonOf(head), { id: 'u2', fullName: 'Ada' }, 'a new client sends HEAD\'s shape')
})

test('regression: a body in the content form is converted on Fastify 5.0 to 5.8, which have no request.mediaType', async (t) => {
  const s = schemas()
  // A business rule reported as Fastify reports validation: HEAD's validator accepts the body, so it stays a 400.
  const taken = (): Error => Object.assign(new Error('body/fullName is already taken'), {
    statusCode: 400, code: 'FST_ERR_VALIDATION', validationContext: 'body', validation: [{ instancePath: '/fullName', keyword: 'unique', message: 'is already taken' }]
  })
  const app = await versionedApp(t, bundle(s), async (api) => {
    api.post('/users', {
      schema: { body: { content: { 'application/json': { schema: s.UserCreate } } }, response: { 201: s.User } }
    }, async (request, reply) => {
      const { fullName } = request.body as { fullName: string }
      if (fullName === 'Taken') throw taken()
      return await reply.code(201).send({ id: 'u2', fullName })
    })
  }, {
    // Fastify before 5.9 has no request.mediaType (it read the Content-Type header itself): hidden, as there.
    beforeVersioner: (instance) => {
      instance.addHook('onRequest', async (request) => { Object.defineProperty(request, 'mediaType', { value: undefined }) })
    },
    versioner: { partialApp: true }
  })
  const old = await call(app, OLD, '/users', { method: 'POST', payload: { name: 'Ada' }, headers: { 'content-type': 'application/json; charset=utf-8' } })
  t.equal(old.statusCode, 201, 'an old client\'s body is converted up to HEAD\'s shape')
  t.same(jsonOf(old), { id: 'u2', name: 'Ada' })
  const refused = await call(app, OLD, '/users', { method: 'POST', payload: { name: 'Taken' } })
  t.equal(refused.statusCode, 400, 'a validation error the handler throws stays the client\'s 400, not a converter\'s 500')
  t.equal(jsonOf(refused).message, 'body/fullName is already taken')
})

test('a query string declared as query (Fastify\'s alias of querystring) is validated against the version', async (t) => {
  const app = await formsApp(t, ['sorted'])
  t.equal((await call(app, OLD, '/sorted?sort=random')).statusCode, 400, 'the old version has no random order')
  t.equal((await call(app, NEW, '/sorted?sort=random')).statusCode, 200)
})

test('the documents and app.versioner.routes show each version\'s schemas in the forms HEAD gave them', async (t) => {
  const app = await formsApp(t)
  await assertDocumentsValid(t, app)
  const old = documentOf(app, OLD)
  const userOf = (document: Record<string, any>, schema: Record<string, any>): Record<string, any> =>
    typeof schema.$ref === 'string' ? document.components.schemas[schema.$ref.split('/').at(-1) as string] : schema
  const content = old.paths['/content'].get.responses['200']
  t.equal(content.description, 'The user')
  t.same(Object.keys(content.headers), ['x-request-id'])
  t.same(Object.keys(userOf(old, content.content['application/json'].schema).properties), ['id', 'name'], 'the old version\'s user')
  const beside = old.paths['/beside'].get.responses['200']
  t.equal(beside.description, 'The user')
  t.same(Object.keys(beside.headers), ['x-request-id'])
  t.same(Object.keys(userOf(old, beside.content['application/json'].schema).properties), ['id', 'name'])
  t.same(Object.keys(userOf(old, old.paths['/default'].get.responses.default.content['application/json'].schema).properties), ['id', 'name'])
  t.same(Object.keys(userOf(old, old.paths['/range'].get.responses['2XX'].content['application/json'].schema).properties), ['id', 'name'])
  const media = old.paths['/media'].get.responses['200'].content
  t.same(Object.keys(userOf(old, media['application/vnd.summary+json'].schema).properties), ['title'])
  const body = old.paths['/users'].post.requestBody.content
  t.same(Object.keys(body), ['application/json', 'application/x-www-form-urlencoded'])
  t.same(Object.keys(userOf(old, body['application/x-www-form-urlencoded'].schema).properties), ['name'])
  const head = documentOf(app, NEW)
  t.same(Object.keys(userOf(head, head.paths['/content'].get.responses['200'].content['application/json'].schema).properties), ['id', 'fullName'])

  const route = app.versioner.routes.get(OLD)?.find((info) => info.path === '/users')
  const schemaOf = (value: unknown): Record<string, any> => value as Record<string, any>
  t.same(Object.keys(schemaOf(route?.schema.body).content['application/json'].schema.properties), ['name'], 'the body in the content form')
  t.same(Object.keys(schemaOf(route?.schema.response?.['201']).content['application/json'].schema.properties), ['id', 'name'])
})

test('verify replays every form, and finds the forms a version would answer in HEAD\'s shape', async (t) => {
  const correct = await formsApp(t)
  t.same((await verify(correct, { examples: 20 })).map((finding) => finding.text), [], 'a correct application verifies cleanly')
  const missing = await formsApp(t, [], false)
  const findings = await verify(missing, { examples: 20 })
  const parts = new Set(findings.filter((finding) => finding.route !== 'document').map((finding) => `${finding.route} ${finding.part}`))
  t.same([...parts].sort(), [
    'GET /beside response 200',
    'GET /content response 200 application/json',
    'GET /default response default',
    'GET /media response 200 application/json',
    'GET /problem response 200',
    'GET /range response 2xx',
    'POST /users response 201 application/json'
  ], 'without the user converter, every response holding a user is a finding')
})

test('a schema the versioner cannot read (a custom object, for a custom validator compiler) is a start-up error naming the route and place', async (t) => {
  class JoiLike { type = 'object' }
  const s = schemas()
  for (const [name, route] of [
    ['response', { response: { 200: { description: 'x', content: { 'application/json': { schema: new JoiLike() } } } } }],
    ['body', { body: new JoiLike() }]
  ] as const) {
    const app = await versionedApp(t, bundle(s), async (api) => {
      api.post('/users', { schema: route as never }, async () => ADA)
    })
    await t.rejects(async () => { await app.ready() }, {
      code: 'FST_VERSIONER_ROUTER_GENERATION',
      message: name === 'body' ? /POST \/users: the body schema is a JoiLike object/ : /POST \/users: the response schema of 200 for application\/json is a JoiLike object/
    }, name)
  }
})

test('regression: a content map media type Fastify never matches (capitals, parameters) is a start-up error, not an old client answered in HEAD\'s shape', async (t) => {
  const s = schemas()
  for (const [name, route, message] of [
    ['response', { response: { 200: { content: { 'Application/JSON': { schema: s.User } } } } }, /POST \/users: the response schema of 200 for Application\/JSON is declared for a media type Fastify never matches.*Write 'application\/json'/],
    ['body', { body: { content: { 'application/json; charset=utf-8': { schema: s.UserCreate } } } }, /POST \/users: the body schema of application\/json; charset=utf-8 is declared for a media type Fastify never matches.*Write 'application\/json'/]
  ] as const) {
    const app = await versionedApp(t, bundle(s), async (api) => {
      api.post('/users', { schema: route as never }, async () => ADA)
    })
    await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_ROUTER_GENERATION', message }, name)
  }
  const app = await versionedApp(t, bundle(s), async (api) => {
    api.post('/users', { schema: { body: s.UserCreate, response: { 200: { content: { '*/*': { schema: s.User }, 'application/vnd.api+json': { schema: s.User } } } } } }, async () => ADA)
  }, { versioner: { partialApp: true } })
  await t.resolves(async () => { await app.ready() }, 'lower-case media types and the */* wildcard are taken')
})

test('a fluent schema is versioned from its JSON Schema, as Fastify reads it', async (t) => {
  const s = schemas()
  const fluent = { isFluentSchema: true, valueOf: () => ({ type: 'object', properties: { user: s.User } }) }
  const app = await versionedApp(t, bundle(s), async (api) => {
    api.get('/fluent', { schema: { response: { 200: fluent as never } } }, async () => ({ user: ADA }))
  }, { versioner: { partialApp: true } })
  t.same(jsonOf(await call(app, OLD, '/fluent')), { user: { id: 'u1', name: 'Ada Lovelace' } })
  t.same(jsonOf(await call(app, NEW, '/fluent')), { user: ADA })
})

test('regression: verify gives a response converter the media type of the content map entry it replays, as serving does (response.headers[\'content-type\'])', async (t) => {
  const User = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'CsvUser' })
  class NameWasTitle extends VersionChange {
    description = 'A user\'s title is now its name, in JSON and in CSV.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ name: 'title' })]

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'])
    titleDown (response: ResponseInfo) {
      if (String(response.headers['content-type']).startsWith('text/csv')) {
        response.body = String(response.body).replace(/^id,name/, 'id,title') as never
        return
      }
      response.body.title = response.body.name
      delete response.body.name
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(NEW, NameWasTitle), new Version(OLD)) })
  await app.register(versioned(async (api) => {
    const content = { 'application/json': { schema: User }, 'text/csv': { schema: Type.String() } }
    api.get('/users/:id', { schema: { response: { 200: { content } } } }, async (request, reply) =>
      String(request.headers.accept).includes('csv') ? reply.type('text/csv').send('id,name\n1,Ada\n') : { id: '1', name: 'Ada' })
  }))
  await app.ready()
  const csv = await app.inject({ url: '/users/1', headers: { 'x-api-version': OLD, accept: 'text/csv' } })
  t.equal(csv.body, 'id,title\n1,Ada\n', 'served, the converter reads the media type')
  t.same((await verify(app, { examples: 5 })).map((finding) => finding.text), [], 'no "converter failed" for the text/csv entry replayed as JSON')
})

test('regression: an old version\'s converted response goes to the route\'s serializer compiler with the status key and media type, as Fastify gives HEAD\'s', async (t) => {
  const { User } = schemas()
  class FullNameWasName extends VersionChange {
    description = 'A user\'s name is now fullName.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const asked: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(NEW, FullNameWasName), new Version(OLD)) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', {
      schema: { response: { '2xx': { content: { 'application/json': { schema: User }, 'application/vnd.api+json': { schema: User } } } } },
      // A compiler that wraps the JSON:API media type's documents in { data }, as a team serving both writes one.
      serializerCompiler: ({ httpStatus, contentType }) => {
        asked.push(`${String(httpStatus)} ${String(contentType)}`)
        return contentType === 'application/vnd.api+json' ? (data: unknown) => JSON.stringify({ data }) : (data: unknown) => JSON.stringify(data)
      }
    }, async (request, reply) => {
      if (request.headers.accept === 'application/vnd.api+json') reply.type('application/vnd.api+json')
      return { id: 'u1', fullName: 'Ada' }
    })
  }))
  const get = (version: string, accept: string) => app.inject({ url: '/users/u1', headers: { 'x-api-version': version, accept } })
  t.same((await get(NEW, 'application/vnd.api+json')).json(), { data: { id: 'u1', fullName: 'Ada' } })
  t.same((await get(OLD, 'application/vnd.api+json')).json(), { data: { id: 'u1', name: 'Ada' } }, 'the old client gets the envelope too')
  t.same((await get(OLD, 'application/json')).json(), { id: 'u1', name: 'Ada' })
  t.notOk(asked.some((given) => !given.startsWith('2xx application/')), `every compile was given its key and media type: ${asked.join('; ')}`)
})
