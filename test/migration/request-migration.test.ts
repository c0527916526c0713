import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import Fastify, { type FastifyInstance, type FastifySchemaValidationError, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import { fastifyRequestContext, requestContext } from '@fastify/request-context'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, currentDependencySolver, fastifyVersioner,
  schema, versioned, type RequestInfo, type ResponseInfo, type FormValue, type VersionChangeClass
} from '../../plugin'
import { captureLogs, v } from '../helpers/request-pipeline'
import { versionedApp } from '../helpers/apps'
import fastifyFormbody from '@fastify/formbody'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'

test('a request is validated against the schemas of its version (body, querystring, params, headers) before any converter runs', async (t) => {
  const Body = Type.Object({ addresses: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) })
  const Query = Type.Object({ perPage: Type.Integer({ minimum: 1 }) })
  const Params = Type.Object({ id: Type.String() })
  const Headers = Type.Object({ 'x-client': Type.String() })
  const calls: string[] = []
  class ReplaceAddressAndPaging extends VersionChange {
    description = 'Users have several addresses; paging is spelled perPage; ids and clients are less constrained.'
    instructionsToMigrateToPreviousVersion = [
      schema(Body).field('addresses').had({ name: 'address', type: Type.String({ minLength: 1 }) }),
      schema(Query).field('perPage').had({ name: 'per_page' }),
      schema(Params).field('id').had({ pattern: '^[0-9]+$' }),
      schema(Headers).field('x-client').had({ minLength: 5 })
    ]

    @ConvertRequestToNextVersionFor(Body)
    addressToList (request: RequestInfo) {
      calls.push('body')
      request.body.addresses = [request.body.address]
      delete request.body.address
    }

    @ConvertRequestToNextVersionFor('/orgs/:id/users', ['POST'])
    renamePaging (request: RequestInfo) {
      calls.push('query')
      request.queryParams.perPage = request.queryParams.per_page
      delete request.queryParams.per_page
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', ReplaceAddressAndPaging), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/orgs/:id/users', { schema: { body: Body, querystring: Query, params: Params, headers: Headers } }, async (request) => ({
      id: request.params.id, perPage: request.query.perPage, client: request.headers['x-client'], addresses: request.body.addresses
    }))
  }))

  const send = (version: string, url: string, client: string, payload: unknown) =>
    app.inject({ method: 'POST', url, headers: v(version, { 'x-client': client }), payload: payload as object })

  let response = await send('2000-01-01', '/orgs/42/users?per_page=5', 'abcde', { address: 'Main St' })
  t.equal(response.statusCode, 200, 'a valid 2000-01-01 request is served')
  t.same(response.json(), { id: '42', perPage: 5, client: 'abcde', addresses: ['Main St'] }, 'the handler sees HEAD data')
  t.same(calls, ['body', 'query'], 'both converters ran, in declaration order')

  calls.length = 0
  const failures: Array<[string, string, string, unknown, string]> = [
    ['/orgs/42/users?per_page=5', 'abcde', 'body', { addresses: ['Main St'] }, "body must have required property 'address'"],
    ['/orgs/42/users?perPage=5', 'abcde', 'querystring', { address: 'Main St' }, "querystring must have required property 'per_page'"],
    ['/orgs/abc/users?per_page=5', 'abcde', 'params', { address: 'Main St' }, 'params/id must match pattern "^[0-9]+$"'],
    ['/orgs/42/users?per_page=5', 'abc', 'headers', { address: 'Main St' }, 'headers/x-client must NOT have fewer than 5 characters']
  ]
  for (const [url, client, part, payload, message] of failures) {
    response = await send('2000-01-01', url, client, payload)
    t.equal(response.statusCode, 400, `an invalid 2000-01-01 ${part} is a 400`)
    t.same(response.json(), { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message }, `Fastify's error for the ${part}`)
  }
  t.same(calls, [], 'no converter ran for requests invalid in their own version')

  response = await send('2001-01-01', '/orgs/abc/users?perPage=5', 'abc', { addresses: ['Main St'] })
  t.equal(response.statusCode, 200, 'the latest version has none of the old constraints')
  t.same(response.json(), { id: 'abc', perPage: 5, client: 'abc', addresses: ['Main St'] })
  response = await send('2001-01-01', '/orgs/42/users?perPage=5', 'abcde', { address: 'Main St' })
  t.equal(response.statusCode, 400)
  t.equal(response.json().message, "body must have required property 'addresses'", 'the latest version validates against its own schema')
  t.same(calls, [], 'no converter runs for the latest version')
})

test('header schemas with upper-case names are matched case-insensitively in older versions too, as Fastify does', async (t) => {
  const Headers = Type.Object({ 'X-Client-Id': Type.String() })
  class LongerClientIds extends VersionChange {
    description = 'Client ids may be shorter than 3 characters.'
    instructionsToMigrateToPreviousVersion = [schema(Headers).field('X-Client-Id').had({ minLength: 3 })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', LongerClientIds), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.get('/me', { schema: { headers: Headers } }, async (request) => ({ client: request.headers['x-client-id'] }))
  }))

  let response = await app.inject({ method: 'GET', url: '/me', headers: v('2001-01-01', { 'X-Client-Id': 'ab' }) })
  t.equal(response.statusCode, 200, 'the latest version (validated by Fastify) accepts the header')
  t.same(response.json(), { client: 'ab' })
  response = await app.inject({ method: 'GET', url: '/me', headers: v('2000-01-01', { 'X-Client-Id': 'abcd' }) })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { client: 'abcd' })
  response = await app.inject({ method: 'GET', url: '/me', headers: v('2000-01-01', { 'X-Client-Id': 'ab' }) })
  t.equal(response.statusCode, 400, 'a header too short for 2000-01-01 is a 400')
  t.equal(response.json().message, 'headers/x-client-id must NOT have fewer than 3 characters')
})

test('regression: a headers schema composed of others (Type.Intersect: allOf) with upper-case names refused every old client\'s request as missing its header', async (t) => {
  const Client = Type.Object({ 'X-Client-Id': Type.String() })
  const Trace = Type.Object({ 'X-Trace': Type.Optional(Type.String()) })
  class RenamedClientHeader extends VersionChange {
    description = 'The client header was X-Client.'
    instructionsToMigrateToPreviousVersion = [schema(Client).field('X-Client-Id').had({ name: 'X-Client' })]

    @ConvertRequestToNextVersionFor('/me', ['GET'])
    renameHeader (request: RequestInfo) {
      request.headers['x-client-id'] = request.headers['x-client']
      delete request.headers['x-client']
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenamedClientHeader), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.get('/me', { schema: { headers: Type.Intersect([Client, Trace]) } }, async (request) => ({ client: request.headers['x-client-id'] }))
  }))

  let response = await app.inject({ method: 'GET', url: '/me', headers: v('2001-01-01', { 'X-Client-Id': 'ab' }) })
  t.equal(response.statusCode, 200, 'the latest version (validated by Fastify, names lower-cased at any depth) accepts the header')
  response = await app.inject({ method: 'GET', url: '/me', headers: v('2000-01-01', { 'X-Client': 'ab' }) })
  t.equal(response.statusCode, 200, 'an old client sending its version\'s header is served')
  t.same(response.json(), { client: 'ab' })
  response = await app.inject({ method: 'GET', url: '/me', headers: v('2000-01-01') })
  t.equal(response.statusCode, 400)
  t.equal(response.json().message, "headers must have required property 'x-client'", 'a missing header is named as Fastify names it, in the version\'s name')
})

test('versioned routes format validation errors with the route\'s or the application\'s schemaErrorFormatter, like other routes', async (t) => {
  const Body = Type.Object({ addresses: Type.Array(Type.String(), { minItems: 1 }) })
  class ListAddresses extends VersionChange {
    description = 'Users have several addresses.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('addresses').had({ name: 'address', type: Type.String() })]

    @ConvertRequestToNextVersionFor(Body)
    toList (request: RequestInfo) {
      request.body.addresses = [request.body.address]
      delete request.body.address
    }
  }
  const app = Fastify({ schemaErrorFormatter: (errors, dataVar) => new Error(`app formatter: ${dataVar} (${errors.length})`) })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', ListAddresses), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: Body } }, async (request) => request.body)
    api.post('/members', {
      schema: { body: Body },
      schemaErrorFormatter: (errors, dataVar) => new Error(`route formatter: ${dataVar} (${errors.length})`)
    }, async (request) => request.body)
  }))
  app.post('/plain', { schema: { body: Body } }, async (request) => request.body)
  const message = async (url: string, version: string, payload: object) => {
    const response = await app.inject({ method: 'POST', url, headers: v(version), payload })
    t.equal(response.statusCode, 400, `${version} POST ${url} is a 400`)
    return response.json().message
  }

  t.equal(await message('/plain', '2001-01-01', {}), 'app formatter: body (1)', 'an unversioned route uses the application\'s formatter')
  t.equal(await message('/members', '2001-01-01', {}), 'route formatter: body (1)', 'a versioned route\'s own formatter, latest version')
  t.equal(await message('/members', '2000-01-01', {}), 'route formatter: body (1)', 'and in an older version')
  t.equal(await message('/users', '2001-01-01', {}), 'app formatter: body (1)')
  t.equal(await message('/users', '2000-01-01', {}), 'app formatter: body (1)')
})

test('a migrated request invalid for HEAD is a 500 FST_VERSIONER_LATEST_REQUEST_VALIDATION with a generic body; the details are logged', async (t) => {
  const Body = Type.Object({ addresses: Type.Array(Type.String(), { minItems: 1 }) })
  const Query = Type.Object({ limit: Type.Integer({ maximum: 100 }) })
  class SplitAddresses extends VersionChange {
    description = 'Users have a list of addresses instead of one comma-separated address; limit replaces pageSize.'
    instructionsToMigrateToPreviousVersion = [
      schema(Body).field('addresses').had({ name: 'address', type: Type.String() }),
      schema(Query).field('limit').had({ name: 'pageSize', maximum: 1000 })
    ]

    @ConvertRequestToNextVersionFor(Body)
    split (request: RequestInfo) {
      request.body.addresses = (request.body.address as string).split(',').filter((part) => part !== '')
      delete request.body.address
    }

    @ConvertRequestToNextVersionFor('/users', ['POST'])
    renameLimit (request: RequestInfo) {
      request.queryParams.limit = request.queryParams.pageSize
      delete request.queryParams.pageSize
    }
  }
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', SplitAddresses), new Version('2000-01-01'))
  })
  let handled = 0
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: Body, querystring: Query } }, async (request) => {
      handled++
      return { addresses: request.body.addresses, limit: request.query.limit }
    })
  }))

  let response = await app.inject({ method: 'POST', url: '/users?pageSize=10', headers: v('2000-01-01'), payload: { address: 'a,b' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { addresses: ['a', 'b'], limit: 10 })
  t.same(entries, [], 'nothing logged for a good request')

  response = await app.inject({ method: 'POST', url: '/users?pageSize=10', headers: v('2000-01-01'), payload: { address: ',' } })
  t.equal(response.statusCode, 500, 'an empty list of addresses fails HEAD validation after migration')
  t.same(response.json(), {
    statusCode: 500,
    code: 'FST_VERSIONER_LATEST_REQUEST_VALIDATION',
    error: 'Internal Server Error',
    message: 'The request could not be migrated from API version 2000-01-01 to the latest version. This is a server error; it has been logged.'
  }, 'a generic body')
  t.notMatch(response.body, /addresses|minItems|fewer|must/, 'no schema detail reaches the client')
  t.equal(handled, 1, 'the handler did not run')
  const bodyEntry = entries.find((entry) => entry.apiVersion === '2000-01-01')
  t.ok(bodyEntry, 'an error log entry names the version')
  t.equal(bodyEntry?.level, 50, 'logged at error level')
  t.equal(bodyEntry?.route, 'POST /users', 'the entry names the route')
  t.equal(bodyEntry?.part, 'body')
  t.match(bodyEntry?.validation, [{ instancePath: '/addresses', keyword: 'minItems', message: 'must NOT have fewer than 1 items' }],
    'the entry carries the validation errors')
  t.equal(bodyEntry?.err?.code, 'FST_VERSIONER_LATEST_REQUEST_VALIDATION')
  t.match(bodyEntry?.msg, /API version 2000-01-01 to POST \/users failed HEAD validation/)

  entries.length = 0
  response = await app.inject({ method: 'POST', url: '/users?pageSize=500', headers: v('2000-01-01'), payload: { address: 'a' } })
  t.equal(response.statusCode, 500, 'a migrated querystring over HEAD maximum is a 500 too')
  t.equal(response.json().code, 'FST_VERSIONER_LATEST_REQUEST_VALIDATION')
  const queryEntry = entries.find((entry) => entry.apiVersion === '2000-01-01')
  t.equal(queryEntry?.part, 'querystring')
  t.match(queryEntry?.validation, [{ instancePath: '/limit', keyword: 'maximum' }])

  response = await app.inject({ method: 'POST', url: '/users?limit=10', headers: v('2001-01-01'), payload: { addresses: [] } })
  t.equal(response.statusCode, 400, 'the same data sent to the latest version is the client\'s error')
  t.same(response.json(), {
    statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: 'body/addresses must NOT have fewer than 1 items'
  })
  t.equal(handled, 1)
})

test('@fastify/request-context: what an onRequest hook sets is read by the request\'s own async converters (success and error) and handler, with requests in flight together', async (t) => {
  const Body = Type.Object({ fullName: Type.String() })
  const seen: string[] = []
  const tenant = (): string => String(requestContext.get('tenant' as never))
  class RenameName extends VersionChange {
    description = 'The user name field is called fullName instead of name.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Body)
    async up (request: RequestInfo) {
      await sleep(Number(request.body.name.length))
      seen.push(`up ${request.body.name} ${tenant()}`)
      request.body.fullName = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor('/users', ['POST'], { migrateHttpErrors: true })
    async down (response: ResponseInfo) {
      await sleep(1)
      response.headers['x-tenant'] = tenant()
      if (response.statusCode === 201) {
        response.body.name = response.body.fullName
        delete response.body.fullName
      }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyRequestContext)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', RenameName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.addHook('onRequest', async (request) => { requestContext.set('tenant' as never, request.headers['x-tenant'] as never) })
    api.post('/users', { schema: { body: Body } }, async (request, reply) => {
      await sleep(1)
      seen.push(`handler ${request.body.fullName} ${tenant()}`)
      if (request.body.fullName === 'Eve') throw Object.assign(new Error('No Eves'), { statusCode: 409 })
      return reply.code(201).send({ fullName: request.body.fullName })
    })
  }))
  const names = ['Ada Lovelace', 'Bo', 'Eve', 'Grace Hopper']
  const answers = await Promise.all(names.map((name, i) => app.inject({
    method: 'POST', url: '/users', payload: { name }, headers: { 'x-api-version': '2000-01-01', 'x-tenant': `t${i}` }
  })))
  t.same(answers.map((answer) => [answer.statusCode, answer.headers['x-tenant']]), [[201, 't0'], [201, 't1'], [409, 't2'], [201, 't3']], 'each response converter read its own request\'s value')
  t.same(answers[0].json(), { name: 'Ada Lovelace' })
  for (const [i, name] of names.entries()) {
    t.ok(seen.includes(`up ${name} t${i}`), `${name}: the request converter read its request's value`)
    t.ok(seen.includes(`handler ${name} t${i}`), `${name}: so did the handler`)
  }
})

test('preHandler hooks and the handler see HEAD data only; currentDependencySolver tells versioned data from HEAD data', async (t) => {
  const Body = Type.Object({ fullName: Type.String() })
  class RenameName extends VersionChange {
    description = 'The user name field is called fullName instead of name.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Body)
    rename (request: RequestInfo) {
      seen.push(`converter:${currentDependencySolver(fastifyRequestOf(request))}`)
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  // The converter has no Fastify request; the phase it runs in is checked through the last hook seen.
  let lastRequest: unknown
  const fastifyRequestOf = (_info: RequestInfo) => lastRequest as never
  const seen: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameName), new Version('2000-01-01'))
  })
  app.addHook('onRequest', async (request) => { seen.push(`onRequest:${currentDependencySolver(request)}`) })
  app.addHook('preValidation', async (request) => {
    lastRequest = request
    seen.push(`app preValidation:${currentDependencySolver(request)}:${JSON.stringify(request.body ?? null)}`)
  })
  app.addHook('preHandler', async (request) => {
    seen.push(`app preHandler:${currentDependencySolver(request)}:${JSON.stringify(request.body ?? null)}`)
  })
  await app.register(versioned(async (api) => {
    api.post('/users', {
      schema: { body: Body },
      preValidation: async (request) => { seen.push(`route preValidation:${currentDependencySolver(request)}:${JSON.stringify(request.body)}`) },
      preHandler: async (request) => { seen.push(`route preHandler:${currentDependencySolver(request)}:${JSON.stringify(request.body)}`) }
    }, async (request) => {
      seen.push(`handler:${currentDependencySolver(request)}:${JSON.stringify(request.body)}`)
      return { fullName: request.body.fullName }
    })
  }))
  app.post('/echo', async (request) => {
    seen.push(`unversioned handler:${currentDependencySolver(request)}:${JSON.stringify(request.body)}`)
    return request.body
  })

  let response = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { name: 'Ada' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { fullName: 'Ada' })
  t.same(seen, [
    'onRequest:fastify',
    'app preValidation:fastify:{"name":"Ada"}',
    'route preValidation:fastify:{"name":"Ada"}',
    'converter:fastify',
    'app preHandler:versioner:{"fullName":"Ada"}',
    'route preHandler:versioner:{"fullName":"Ada"}',
    'handler:versioner:{"fullName":"Ada"}'
  ], 'versioned data before migration, HEAD data after it')

  seen.length = 0
  response = await app.inject({ method: 'POST', url: '/users', headers: v('2001-01-01'), payload: { fullName: 'Bob' } })
  t.equal(response.statusCode, 200)
  t.same(seen, [
    'onRequest:versioner',
    'app preValidation:versioner:{"fullName":"Bob"}',
    'route preValidation:versioner:{"fullName":"Bob"}',
    'app preHandler:versioner:{"fullName":"Bob"}',
    'route preHandler:versioner:{"fullName":"Bob"}',
    'handler:versioner:{"fullName":"Bob"}'
  ], 'the latest version is HEAD as it is: no migration, HEAD data in every hook (and the same hooks run)')

  seen.length = 0
  response = await app.inject({ method: 'POST', url: '/echo', headers: v('2000-01-01'), payload: { name: 'Cy' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { name: 'Cy' }, 'an unversioned route is untouched')
  t.same(seen, [
    'onRequest:fastify',
    'app preValidation:fastify:{"name":"Cy"}',
    'app preHandler:fastify:{"name":"Cy"}',
    'unversioned handler:fastify:{"name":"Cy"}'
  ], 'an unversioned route is always in the fastify phase')
})

test('converters change headers, query parameters and cookies (without @fastify/cookie); the changes reach HEAD validation, hooks and the handler', async (t) => {
  const Headers = Type.Object({ 'x-tenant': Type.String({ minLength: 1 }) })
  const Query = Type.Object({ search: Type.String() })
  class RenameTenantHeaderAndSearch extends VersionChange {
    description = 'The tenant header is x-tenant (was x-org); the search parameter is search (was q); the session cookie is session (was sid).'
    instructionsToMigrateToPreviousVersion = [
      schema(Headers).field('x-tenant').had({ name: 'x-org' }),
      schema(Query).field('search').had({ name: 'q' })
    ]

    @ConvertRequestToNextVersionFor('/search', ['GET'])
    renameAll (request: RequestInfo) {
      request.headers['x-tenant'] = request.headers['x-org']
      delete request.headers['x-org']
      delete request.headers['x-legacy-debug']
      request.queryParams.search = request.queryParams.q
      delete request.queryParams.q
      request.cookies.session = request.cookies.sid
      delete request.cookies.sid
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameTenantHeaderAndSearch), new Version('2000-01-01'))
  })
  const hookSaw: unknown[] = []
  app.addHook('preHandler', async (request) => {
    hookSaw.push({ tenant: request.headers['x-tenant'], org: request.headers['x-org'], debug: request.headers['x-legacy-debug'], query: request.query })
  })
  await app.register(versioned(async (api) => {
    api.get('/search', { schema: { headers: Headers, querystring: Query } }, async (request) => ({
      tenant: request.headers['x-tenant'],
      hasOrg: 'x-org' in request.headers,
      hasDebug: 'x-legacy-debug' in request.headers,
      search: request.query.search,
      query: request.query,
      cookie: request.headers.cookie ?? null
    }))
  }))

  const response = await app.inject({
    method: 'GET',
    url: '/search?q=shoes',
    headers: v('2000-01-01', { 'x-org': 'acme', 'x-legacy-debug': '1', cookie: 'sid=abc123; theme=dark' })
  })
  t.equal(response.statusCode, 200, 'HEAD validation saw the renamed header and query parameter')
  t.same(response.json(), {
    tenant: 'acme',
    hasOrg: false,
    hasDebug: false,
    search: 'shoes',
    query: { search: 'shoes' },
    cookie: 'theme=dark; session=abc123'
  }, 'the handler sees the converted headers, query and cookie header; deleted headers stay deleted')
  t.same(hookSaw, [{ tenant: 'acme', org: undefined, debug: undefined, query: { search: 'shoes' } }], 'so does a preHandler hook')

  const latest = await app.inject({ method: 'GET', url: '/search?search=hats', headers: v('2001-01-01', { 'x-tenant': 'acme', cookie: 'sid=zzz' }) })
  t.equal(latest.statusCode, 200)
  t.same(latest.json().cookie, 'sid=zzz', 'no converter in the latest version: the cookie header is untouched')
  const missing = await app.inject({ method: 'GET', url: '/search?q=shoes', headers: v('2000-01-01', { 'x-tenant': 'acme' }) })
  t.equal(missing.statusCode, 400, 'x-org is required in 2000-01-01')
  t.equal(missing.json().message, "headers must have required property 'x-org'")
})

test('with @fastify/cookie, converters read and change request.cookies; hooks and the handler see the new cookies', async (t) => {
  const Body = Type.Object({ amount: Type.Integer() })
  class RenameSessionCookie extends VersionChange {
    description = 'The session cookie is called session instead of sid; amounts are in cents.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('amount').had({ type: Type.Number() })]

    @ConvertRequestToNextVersionFor(Body)
    toCents (request: RequestInfo) {
      request.body.amount = Math.round(request.body.amount * 100)
      request.cookies.session = `${request.cookies.sid} v2`
      delete request.cookies.sid
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyCookie)
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameSessionCookie), new Version('2000-01-01'))
  })
  const hookCookies: unknown[] = []
  app.addHook('preHandler', async (request) => { hookCookies.push({ ...request.cookies }) })
  await app.register(versioned(async (api) => {
    api.post('/payments', { schema: { body: Body } }, async (request) => ({
      amount: request.body.amount, cookies: request.cookies, header: request.headers.cookie
    }))
  }))

  const response = await app.inject({
    method: 'POST', url: '/payments', headers: v('2000-01-01', { cookie: 'sid=s1; lang=en' }), payload: { amount: 12.5 }
  })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { amount: 1250, cookies: { lang: 'en', session: 's1 v2' }, header: 'lang=en; session=s1%20v2' })
  t.same(hookCookies, [{ lang: 'en', session: 's1 v2' }])

  const latest = await app.inject({ method: 'POST', url: '/payments', headers: v('2001-01-01', { cookie: 'sid=s1' }), payload: { amount: 12 } })
  t.same(latest.json(), { amount: 12, cookies: { sid: 's1' }, header: 'sid=s1' }, 'the latest version keeps its cookies')
})

test('converters may replace request.body, and async converters are awaited before the next converter and the handler', async (t) => {
  const Body = Type.Object({ givenName: Type.String(), familyName: Type.String() })
  const steps: string[] = []
  class SplitName extends VersionChange {
    description = 'A user name is split into givenName and familyName.'
    instructionsToMigrateToPreviousVersion = [
      schema(Body).field('givenName').didntExist,
      schema(Body).field('familyName').didntExist,
      schema(Body).formerField('name').existedAs({ type: Type.String() })
    ]

    @ConvertRequestToNextVersionFor(Body)
    split (request: RequestInfo) {
      steps.push(`split sees ${JSON.stringify(request.body)}`)
      const [givenName, ...rest] = (request.body.name as string).split(' ')
      request.body = { givenName, familyName: rest.join(' ') }
    }
  }
  class RenameFullName extends VersionChange {
    description = 'fullName is called name.'
    instructionsToMigrateToPreviousVersion = [schema(Body).formerField('name').had({ name: 'fullName' })]

    // Typed `unknown`: an `async` method (returning Promise<void>) does not typecheck under experimentalDecorators.
    @ConvertRequestToNextVersionFor(Body)
    rename (request: RequestInfo): unknown {
      steps.push('rename starts')
      return sleep(20).then(() => {
        request.body = { name: (request.body.fullName as string).trim() }
        steps.push('rename ends')
      })
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2002-01-01', SplitName), new Version('2001-01-01', RenameFullName),
      new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: Body } }, async (request) => {
      steps.push('handler')
      return request.body
    })
  }))

  let response = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { fullName: '  Ada King Lovelace ' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { givenName: 'Ada', familyName: 'King Lovelace' })
  t.same(steps, ['rename starts', 'rename ends', 'split sees {"name":"Ada King Lovelace"}', 'handler'])

  steps.length = 0
  response = await app.inject({ method: 'POST', url: '/users', headers: v('2001-01-01'), payload: { name: 'Grace Hopper' } })
  t.same(response.json(), { givenName: 'Grace', familyName: 'Hopper' })
  t.same(steps, ['split sees {"name":"Grace Hopper"}', 'handler'], 'the async converter of 2001-01-01 does not run for 2001-01-01')
})

test('a converter that throws (or rejects) is a 500 for that request only', async (t) => {
  const Body = Type.Object({ addresses: Type.Array(Type.String()) })
  class ListAddresses extends VersionChange {
    description = 'Users have several addresses.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('addresses').had({ name: 'address', type: Type.String() })]

    @ConvertRequestToNextVersionFor(Body)
    toList (request: RequestInfo): unknown {
      if (request.body.address === 'throw') throw new Error('converter exploded')
      if (request.body.address === 'reject') return sleep(5).then(() => { throw new Error('converter rejected') })
      if (request.body.address.startsWith('slow')) {
        return sleep(10).then(() => {
          request.body.addresses = [request.body.address]
          delete request.body.address
        })
      }
      request.body.addresses = [request.body.address]
      delete request.body.address
    }
  }
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', ListAddresses), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: Body } }, async (request) => ({ addresses: request.body.addresses }))
  }))

  const addresses = ['a', 'throw', 'slow b', 'reject', 'c', 'slow d']
  const responses = await Promise.all(addresses.map((address) =>
    app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address } })))
  t.same(responses.map((response) => response.statusCode), [200, 500, 200, 500, 200, 200])
  t.same(responses[0].json(), { addresses: ['a'] })
  t.same(responses[1].json(), { statusCode: 500, code: 'FST_VERSIONER_CONVERTER_FAILED', error: 'Internal Server Error', message: 'A converter failed while migrating this request or response of API version 2000-01-01. This is a server error; it has been logged.' }, 'a generic body: the failure\'s detail stays in the log')
  t.same(responses[2].json(), { addresses: ['slow b'] })
  t.same(responses[3].json(), { statusCode: 500, code: 'FST_VERSIONER_CONVERTER_FAILED', error: 'Internal Server Error', message: 'A converter failed while migrating this request or response of API version 2000-01-01. This is a server error; it has been logged.' })
  t.same(responses[4].json(), { addresses: ['c'] })
  t.same(responses[5].json(), { addresses: ['slow d'] })
  t.same(entries.filter((entry) => entry.converter === 'ListAddresses.toList').map((entry) => entry.err?.message).sort(), ['converter exploded', 'converter rejected'],
    'both failures logged as errors naming the converter')

  const after = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'e' } })
  t.equal(after.statusCode, 200, 'the route keeps working afterwards')
  t.same(after.json(), { addresses: ['e'] })
})

test('request converters run from the requested version up to latest: versions in order, a version\'s changes last listed first, converters as declared', async (t) => {
  const Body = Type.Object({ trail: Type.Array(Type.String()) })
  const calls: string[] = []
  const mark = (name: string) => (request: RequestInfo) => {
    calls.push(name)
    request.body.trail.push(name)
  }
  class B1 extends VersionChange {
    description = 'B1.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/trail', ['POST']) byPath (request: RequestInfo) { mark('B1.byPath')(request) }
    @ConvertRequestToNextVersionFor(Body) bySchema (request: RequestInfo) { mark('B1.bySchema')(request) }
  }
  class B2 extends VersionChange {
    description = 'B2.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Body) first (request: RequestInfo) { mark('B2.first')(request) }
    @ConvertRequestToNextVersionFor(Body) second (request: RequestInfo) { mark('B2.second')(request) }
  }
  class C1 extends VersionChange {
    description = 'C1.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Body) only (request: RequestInfo) { mark('C1.only')(request) }
  }
  class D1 extends VersionChange {
    description = 'D1.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Body) bySchema (request: RequestInfo) { mark('D1.bySchema')(request) }
    @ConvertRequestToNextVersionFor('/trail', ['POST']) byPath (request: RequestInfo) { mark('D1.byPath')(request) }
  }
  class D2 extends VersionChange {
    description = 'D2.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/trail', 'post') only (request: RequestInfo) { mark('D2.only')(request) }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2003-01-01', D1, D2), new Version('2002-01-01', C1),
      new Version('2001-01-01', B1, B2), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/trail', { schema: { body: Body } }, async (request) => ({ trail: request.body.trail }))
  }))

  const expected: Array<[string, string[]]> = [
    ['2000-01-01', ['B2.first', 'B2.second', 'B1.byPath', 'B1.bySchema', 'C1.only', 'D2.only', 'D1.bySchema', 'D1.byPath']],
    ['2001-01-01', ['C1.only', 'D2.only', 'D1.bySchema', 'D1.byPath']],
    ['2001-06-15', ['C1.only', 'D2.only', 'D1.bySchema', 'D1.byPath']],
    ['2002-01-01', ['D2.only', 'D1.bySchema', 'D1.byPath']],
    ['2003-01-01', []],
    ['2010-01-01', []]
  ]
  for (const [version, trail] of expected) {
    calls.length = 0
    const response = await app.inject({ method: 'POST', url: '/trail', headers: v(version), payload: { trail: ['client'] } })
    t.equal(response.statusCode, 200, `${version} is served`)
    t.same(response.json(), { trail: ['client', ...trail] }, `${version}: the body went through ${trail.length} converters in order`)
    t.same(calls, trail, `${version}: the record of calls`)
  }
})

const URLENCODED = { 'content-type': 'application/x-www-form-urlencoded' }

/** Injects, failing instead of hanging when no response comes. */
async function injectOrTimeout (app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse | 'timeout'> {
  const timer = sleep(2000, 'timeout' as const)
  return await Promise.race([app.inject(options), timer])
}

test('regression: an intersection body: a member rebuilt by a version keeps the fields of the other members', async (t) => {
  const Person = Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String()) })
  const Contact = Type.Object({ email: Type.String() })
  const Body = Type.Intersect([Person, Contact])
  class NoNickname extends VersionChange {
    description = 'People had no nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('nickname').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NoNickname), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/people', { schema: { body: Body } }, async (request) => request.body)
  }))

  const response = await app.inject({
    method: 'POST', url: '/people', headers: v('2000-01-01'), payload: { name: 'Ada', email: 'ada@example.com', nickname: 'A', internal: true }
  })
  t.equal(response.statusCode, 200, 'the other member\'s required field survives cleaning (it used to fail HEAD validation: 500)')
  t.same(response.json(), { name: 'Ada', email: 'ada@example.com' }, 'only the fields no member declares in that version are removed')

  const latest = await app.inject({ method: 'POST', url: '/people', headers: v('2001-01-01'), payload: { name: 'Ada', email: 'e', nickname: 'A' } })
  t.same(latest.json(), { name: 'Ada', email: 'e', nickname: 'A' })
})

test('regression: a union body: when several members plausibly match, fields of any of them are kept', async (t) => {
  const Card = Type.Object({ cardNumber: Type.Optional(Type.String()), wallet: Type.Optional(Type.String()) })
  const Transfer = Type.Object({ iban: Type.Optional(Type.String()) })
  const Payment = Type.Union([Card, Transfer])
  class NoWallets extends VersionChange {
    description = 'Cards had no wallet.'
    instructionsToMigrateToPreviousVersion = [schema(Card).field('wallet').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NoWallets), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/payments', { schema: { body: Payment } }, async (request) => request.body)
  }))

  const transfer = await app.inject({ method: 'POST', url: '/payments', headers: v('2000-01-01'), payload: { iban: 'DE00' } })
  t.equal(transfer.statusCode, 200)
  t.same(transfer.json(), { iban: 'DE00' }, 'the second member\'s field is not removed by the first member\'s cleaner')

  const withWallet = await app.inject({ method: 'POST', url: '/payments', headers: v('2000-01-01'), payload: { iban: 'DE00', wallet: 'w' } })
  t.same(withWallet.json(), { iban: 'DE00' }, 'a field no plausible member declares in that version is still removed')
})

test('regression: an error while writing back after an async request converter is a 500, and the server goes on', async (t) => {
  const Signup = Type.Object({ name: Type.String() })
  let breakHeaders = true
  class AsyncRename extends VersionChange {
    description = 'name was full_name.'
    instructionsToMigrateToPreviousVersion = [schema(Signup).field('name').had({ name: 'full_name' })]

    @ConvertRequestToNextVersionFor(Signup)
    async rename (request: RequestInfo) {
      await sleep(1)
      if (request.form !== undefined) {
        const fields: Record<string, FormValue> = { name: String(request.form.full_name) }
        if (breakHeaders) Object.defineProperty(fields, 'broken', { enumerable: true, get () { throw new Error('form write-back failed') } })
        request.form = fields
        return
      }
      request.body.name = request.body.full_name
      delete request.body.full_name
      if (breakHeaders) request.headers = Object.defineProperty({}, 'x-broken', { enumerable: true, get () { throw new Error('header write-back failed') } })
    }
  }
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', AsyncRename), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/signups', { schema: { body: Signup } }, async (request) => request.body)
  }))

  const json = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01'), payload: { full_name: 'Ada' } })
  t.not(json, 'timeout', 'a JSON request gets an answer')
  if (json !== 'timeout') t.equal(json.statusCode, 500, 'the error is answered as a 500')
  const form = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=Ada' })
  t.not(form, 'timeout', 'a form request gets an answer')
  if (form !== 'timeout') t.equal(form.statusCode, 500)
  t.ok(entries.some((entry) => /write-back failed/.test(String(entry.err?.message))), 'the error is logged')

  breakHeaders = false
  const next = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=Grace' })
  t.not(next, 'timeout')
  if (next !== 'timeout') t.same([next.statusCode, next.json()], [200, { name: 'Grace' }], 'the next request is served')
})

test('deep data overflowed the stack: a tree as deep as plain Fastify serves (3,000 levels) under a recursive schema with converters is migrated both ways', async (t) => {
  const Tree = Type.Recursive((This) => Type.Object({ label: Type.String(), child: Type.Optional(This) }), { $id: 'Tree' })
  const Body = Type.Object({ tree: Tree })
  class LabelsWereNames extends VersionChange {
    description = 'Tree nodes were named, not labelled.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(Tree)
    up (request: RequestInfo) {
      request.body.label = `up ${String(request.body.label)}`
    }

    @ConvertResponseToPreviousVersionFor(Tree)
    down (response: ResponseInfo) {
      response.body.label = `down ${String(response.body.label)}`
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelsWereNames), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/trees', { schema: { body: Body, response: { 200: Body } } }, async (request) => request.body)
  }))
  const depth = 3000
  const payload = '{"tree":' + '{"label":"n","child":'.repeat(depth - 1) + '{"label":"leaf"}' + '}'.repeat(depth - 1) + '}'
  const plain = Fastify()
  t.teardown(() => plain.close())
  plain.post('/trees', { schema: { body: Body, response: { 200: Body } } }, async (request) => request.body)
  const reference = await plain.inject({ method: 'POST', url: '/trees', headers: { 'content-type': 'application/json' }, payload })
  t.equal(reference.statusCode, 200, `plain Fastify serves ${depth} levels (the reference)`)
  for (const version of ['2001-01-01', '2000-01-01']) {
    const response = await app.inject({ method: 'POST', url: '/trees', headers: v(version, { 'content-type': 'application/json' }), payload })
    t.equal(response.statusCode, 200, `${version}: ${depth} levels are served`)
    let node = response.json().tree
    let levels = 1
    let converted = 0
    const expected = version === '2000-01-01' ? 'down up ' : ''
    while (node.child !== undefined) {
      if (node.label === `${expected}n`) converted++
      node = node.child
      levels++
    }
    t.equal(levels, depth, `${version}: every level comes back`)
    t.equal(converted, depth - 1, `${version}: the converters ran on every node`)
    t.equal(node.label, `${expected}leaf`)
  }
})

test('regression: a recursive shared schema (app.addSchema, a Type.Ref to itself) as the body of an old version: every request was a 500 ("can\'t resolve reference")', async (t) => {
  const Node = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()), children: Type.Optional(Type.Array(Type.Ref('Node'))) }, { $id: 'Node' })
  class NodesHaveNotes extends VersionChange {
    description = 'Nodes have notes.'
    instructionsToMigrateToPreviousVersion = [schema(Node).field('note').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', NodesHaveNotes), new Version('2000-01-01')) })
  const received: unknown[] = []
  await app.register(versioned(async (api) => {
    api.addSchema(Node)
    api.put('/nodes', { schema: { body: Node } }, async (request) => { received.push(request.body); return {} })
    api.put('/refs', { schema: { body: Type.Ref('Node') } }, async (request) => { received.push(request.body); return {} })
  }))
  const payload = { name: 'a', note: 'x0', children: [{ name: 'b', note: 'x1', children: [{ name: 'c', note: 'x2' }] }] }
  for (const url of ['/nodes', '/refs']) {
    const old = await app.inject({ method: 'PUT', url, headers: v('2000-01-01'), payload })
    t.equal(old.statusCode, 200, `${url}: ${old.body}`)
    t.same(received.pop(), { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }, `${url}: no note the version lacks reaches the handler, at any depth`)
    const invalid = await app.inject({ method: 'PUT', url, headers: v('2000-01-01'), payload: { name: 'a', children: [{ name: {} }] } })
    t.equal(invalid.statusCode, 400, `${url}: a nested invalid value is refused`)
    t.match(invalid.json().message, 'body/children/0/name must be string')
  }
})

test('regression: a Type.Recursive a version changes: its requests were a 500 ("resolves to more than one schema"), and nested fields the version lacks reached the handler', async (t) => {
  const Tree = Type.Recursive((This) => Type.Object({ name: Type.String(), secret: Type.Optional(Type.String()), children: Type.Optional(Type.Array(This)) }), { $id: 'Tree' })
  const Address = Type.Object({ street: Type.String(), code: Type.Optional(Type.String()) }, { $id: 'Address' })
  // The schema held inline and named by a $ref in the same body.
  const Body = Type.Object({ tree: Tree, home: Address, work: Type.Ref('Address') })
  class SecretsAndCodesAdded extends VersionChange {
    description = 'Trees have secrets and addresses codes.'
    instructionsToMigrateToPreviousVersion = [schema(Tree).field('secret').didntExist, schema(Address).field('code').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(Address)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', SecretsAndCodesAdded), new Version('2000-01-01')) })
  const received: unknown[] = []
  await app.register(versioned(async (api) => {
    api.post('/trees', { schema: { body: Body, response: { 200: Body } } }, async (request) => {
      received.push(request.body)
      return { ...request.body, tree: { name: 'r', secret: 's0', children: [{ name: 'c', secret: 's1', children: [{ name: 'g', secret: 's2' }] }] } }
    })
  }))
  const payload = {
    tree: { name: 'a', secret: 'x0', children: [{ name: 'b', secret: 'x1', children: [{ name: 'c', secret: 'x2' }] }] },
    home: { street: 'h', code: 'x3' },
    work: { street: 'w', code: 'x4' }
  }
  const old = await app.inject({ method: 'POST', url: '/trees', headers: v('2000-01-01'), payload })
  t.equal(old.statusCode, 200, old.body)
  t.same(received[0], { tree: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }, home: { street: 'h' }, work: { street: 'w' } },
    'the handler gets no field the version lacks, at any depth, inline or behind a $ref')
  t.same(old.json().tree, { name: 'r', children: [{ name: 'c', children: [{ name: 'g' }] }] }, 'the old client gets no secret at any depth')
  const latest = await app.inject({ method: 'POST', url: '/trees', headers: v('2001-01-01'), payload })
  t.equal(latest.statusCode, 200)
  t.same(received[1], payload, 'the latest version keeps every field')
  t.equal(latest.json().tree.children[0].children[0].secret, 's2')
})

test('regression: two shared schemas referring to each other (Folder ↔ File) had the version\'s form at the first depth only: a 400 and a 500 deeper', async (t) => {
  const File = Type.Object({ title: Type.String(), folder: Type.Optional(Type.Ref('Folder')) }, { $id: 'File' })
  const Folder = Type.Object({ name: Type.String(), files: Type.Array(Type.Ref('File')) }, { $id: 'Folder' })
  class TitleWasName extends VersionChange {
    description = 'A file\'s name is now its title.'
    instructionsToMigrateToPreviousVersion = [schema(File).field('title').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(File)
    up (request: RequestInfo) {
      request.body.title = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(File)
    down (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(File)
  app.addSchema(Folder)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', TitleWasName), new Version('2000-01-01')) })
  const received: unknown[] = []
  await app.register(versioned(async (api) => {
    // Each schema of the cycle as a root: which one is generated first decides nothing.
    for (const [path, root] of [['/folders', 'Folder'], ['/files', 'File']] as const) {
      api.post(path, { schema: { body: Type.Ref(root), response: { 200: Type.Ref(root) } } }, async (request) => { received.push(request.body); return request.body })
    }
  }))
  const deep = (key: 'name' | 'title'): unknown => ({ name: 'f', files: [{ [key]: 'a', folder: { name: 'g', files: [{ [key]: 'b', folder: { name: 'h', files: [{ [key]: 'c' }] } }] } }] })
  for (const [path, wrap] of [['/folders', (folder: unknown) => folder], ['/files', (folder: unknown) => ({ [Object.keys((folder as { files: object[] }).files[0])[0]]: 'top', folder })]] as const) {
    for (const [version, key] of [['2000-01-01', 'name'], ['2002-01-01', 'title']] as const) {
      received.length = 0
      const reply = await app.inject({ method: 'POST', url: path, headers: v(version), payload: wrap(deep(key)) as object })
      t.equal(reply.statusCode, 200, `${path} ${version}: ${reply.body}`)
      t.same(received[0], wrap(deep('title')), `${path} ${version}: the handler gets HEAD's form at every depth`)
      t.same(reply.json(), wrap(deep(key)), `${path} ${version}: the client gets its version's form at every depth`)
    }
  }
  const document = (await app.inject({ url: '/openapi.json?version=2000-01-01' })).json()
  t.same(Object.keys(document.components.schemas.File.properties), ['name', 'folder'], 'the File component has the old field')
  t.equal(document.components.schemas.File.properties.folder.$ref, '#/components/schemas/Folder')
  t.equal(document.components.schemas.Folder.properties.files.items.$ref, '#/components/schemas/File')
})

/** A version change renaming `UserIn`'s `name` to `fullName`, whose request converter shows `convert` each body it reads. */
function fullNameWasName (UserIn: TSchema, convert: (body: unknown) => void): VersionChangeClass {
  class FullNameWasName extends VersionChange {
    description = 'A user\'s name is now fullName.'
    instructionsToMigrateToPreviousVersion = [schema(UserIn).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(UserIn)
    nameUp (request: RequestInfo) {
      convert(request.body)
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  return FullNameWasName
}

test('regression: attachValidation gives the handler the error of the request\'s version instead of a 400', async (t) => {
  const UserIn = Type.Object({ fullName: Type.String() })
  const converted: unknown[] = []
  const FullNameWasName = fullNameWasName(UserIn, (body) => { converted.push(body) })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/users', { attachValidation: true, schema: { body: UserIn } }, async (request, reply) => {
      if (request.validationError !== undefined) {
        return reply.code(422).send({ invalid: request.validationError.message, data: currentDependencySolver(request), body: request.body })
      }
      return { created: request.body.fullName }
    })
  }))
  const post = (version: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })

  const old = await post('2000-01-01', { nom: 'Ada' })
  t.equal(old.statusCode, 422, 'the handler answers, as it does for the latest version')
  t.same(old.json(), { invalid: 'body must have required property \'name\'', data: 'fastify', body: { nom: 'Ada' } },
    'the error names the version\'s field (not HEAD\'s), about the body as the client sent it')
  t.same(converted, [], 'no converter ran on the invalid body')
  t.equal(old.headers['x-api-version'], '2000-01-01')
  const latest = await post('2001-01-01', { nom: 'Ada' })
  t.same(latest.json(), { invalid: 'body must have required property \'fullName\'', data: 'versioner', body: { nom: 'Ada' } })
  const valid = await post('2000-01-01', { name: 'Ada' })
  t.equal(valid.statusCode, 200)
  t.same(valid.json(), { created: 'Ada' }, 'a valid body is converted as usual, with no error attached')
})

test('regression: on an attachValidation route, a converter that breaks a valid old request is a logged 500, not the handler\'s 422', async (t) => {
  const UserIn = Type.Object({ fullName: Type.String() })
  // The bug: the converter forgets the field it renames (HEAD then lacks fullName).
  const Forgetful = fullNameWasName(UserIn, (body) => { delete (body as Record<string, unknown>).name })
  const logs: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { logs.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', Forgetful), new Version('2000-01-01')) })
  const handled: unknown[] = []
  await app.register(versioned(async (api) => {
    api.post('/users', { attachValidation: true, schema: { body: UserIn }, preHandler: async () => { handled.push('preHandler') } }, async (request, reply) => {
      handled.push('handler')
      if (request.validationError !== undefined) return reply.code(422).send({ invalid: request.validationError.message })
      return { created: request.body.fullName }
    })
  }))
  const post = (version: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })

  const broken = await post('2000-01-01', { name: 'Ada' })
  t.equal(broken.statusCode, 500, 'the client sent a valid request: the server is at fault')
  t.equal(broken.json().code, 'FST_VERSIONER_LATEST_REQUEST_VALIDATION')
  t.same(handled, [], 'neither the route\'s preHandler nor the handler ran on the broken request')
  t.ok(logs.some((entry) => /failed HEAD validation after its migration/.test(String(entry.msg))), 'logged, naming the migration')
  const invalid = await post('2000-01-01', { nom: 'Ada' })
  t.equal(invalid.statusCode, 422, 'a request the version refuses is still the handler\'s to answer')
  const latest = await post('2001-01-01', { nom: 'Ada' })
  t.same(latest.json(), { invalid: 'body must have required property \'fullName\'' }, 'and so is one the newest version refuses')
  t.equal((await post('2001-01-01', { fullName: 'Ada' })).statusCode, 200)
})

test('regression: a custom validator compiler\'s { error } refuses an old version\'s request with a 400, and its { value } is what converters see', async (t) => {
  const UserIn = Type.Object({ fullName: Type.String() })
  const seen: unknown[] = []
  const FullNameWasName = fullNameWasName(UserIn, (body) => { seen.push(structuredClone(body)) })
  const app = Fastify()
  t.teardown(() => app.close())
  // TypeBoxValidatorCompiler answers { value } or { error: [...] }; this one also trims the body's strings, as its value.
  app.setValidatorCompiler((route) => {
    const check = TypeBoxValidatorCompiler(route as Parameters<typeof TypeBoxValidatorCompiler>[0])
    return (data: unknown) => {
      const outcome = check(data) as { value?: unknown, error?: FastifySchemaValidationError[] }
      if (outcome.error !== undefined || route.httpPart !== 'body') return outcome
      return { value: Object.fromEntries(Object.entries(outcome.value as object).map(([key, value]) => [key, typeof value === 'string' ? value.trim() : value])) }
    }
  })
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')),
    openapiUrl: null,
    docsUrl: null
  })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: UserIn } }, async (request) => ({ created: request.body.fullName }))
  }))
  const post = (version: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })

  const invalid = await post('2000-01-01', { nom: 'Ada' })
  t.equal(invalid.statusCode, 400, 'a client\'s mistake, not the 500 of a converter\'s bug')
  t.match(invalid.json(), { code: 'FST_ERR_VALIDATION', message: /body\/name Expected required property/ }, 'naming the version\'s field')
  t.same(seen, [], 'no converter ran on the invalid body')
  t.equal((await post('2001-01-01', { nom: 'Ada' })).statusCode, 400)

  const valid = await post('2000-01-01', { name: '  Ada  ' })
  t.same(valid.json(), { created: 'Ada' })
  t.same(seen, [{ name: 'Ada' }], 'the converter saw the validator\'s value')
})

test('regression: an $async schema refusing an old version\'s request is a 400, not an unhandled rejection and a 500', async (t) => {
  const UserIn = Type.Object({ fullName: Type.String() }, { $async: true })
  const seen: unknown[] = []
  const FullNameWasName = fullNameWasName(UserIn, (body) => { seen.push(structuredClone(body)) })
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => { process.off('unhandledRejection', onUnhandled) })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: UserIn } }, async (request) => ({ created: request.body.fullName }))
  }))
  const post = (version: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })

  const latest = await post('2001-01-01', { nom: 'Ada' })
  const old = await post('2000-01-01', { nom: 'Ada' })
  t.equal(old.statusCode, 400)
  t.same(old.json(), latest.json(), 'answered as the latest version answers it')
  t.same(seen, [], 'no converter ran on the invalid body')
  await sleep(10)
  t.same(unhandled, [], 'no rejection left unhandled')
  t.same((await post('2000-01-01', { name: 'Ada' })).json(), { created: 'Ada' })
  t.same(seen, [{ name: 'Ada' }])
})

test('regression: a request without a body is validated as null, as Fastify does: an optional (nullable) body may be left out in an old version too', async (t) => {
  const Options = Type.Object({ fullName: Type.Optional(Type.String()) })
  class FullNameWasName extends VersionChange {
    description = 'The option name is now fullName.'
    instructionsToMigrateToPreviousVersion = [schema(Options).field('fullName').had({ name: 'name' })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/exports', { schema: { body: Type.Union([Options, Type.Null()]) } }, async (request) => ({ options: request.body ?? 'none' }))
    api.post('/imports', { schema: { body: Options } }, async () => ({ ok: true }))
  }))
  for (const version of ['2000-01-01', '2001-01-01']) {
    const response = await app.inject({ method: 'POST', url: '/exports', headers: { 'x-api-version': version } })
    t.equal(response.statusCode, 200, `${version}: no body is accepted`)
    t.same(response.json(), { options: 'none' })
    const required = await app.inject({ method: 'POST', url: '/imports', headers: { 'x-api-version': version } })
    t.equal(required.statusCode, 400, `${version}: a body the schema requires is still required`)
  }
})

test('regression: a field of HEAD a version lacks reached the handler from its clients where its object accepts other fields (additionalProperties)', async (t) => {
  const Account = Type.Object({ name: Type.String(), verified: Type.Optional(Type.Boolean()), nickname: Type.Optional(Type.String()) }, { additionalProperties: true })
  const Filter = Type.Object({ q: Type.Optional(Type.String()), includeDeleted: Type.Optional(Type.Boolean()) }, { additionalProperties: Type.String() })
  class VerifiedIsInternal extends VersionChange {
    description = 'verified is set by the back office only.'
    instructionsToMigrateToPreviousVersion = [schema(Account).field('verified').didntExist, schema(Filter).field('includeDeleted').didntExist]
  }
  class Nicknames extends VersionChange {
    description = 'Accounts have a nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Account).field('nickname').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(VerifiedIsInternal), new Version('2001-01-01', Nicknames), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/accounts', { schema: { body: Account, querystring: Filter } }, async (request) => ({ body: request.body, query: request.query }))
  }))
  const sent = (version: string) => app.inject({ method: 'POST', url: '/accounts?q=a&includeDeleted=true&tag=x', headers: { 'x-api-version': version }, payload: { name: 'Ada', verified: true, nickname: 'Al', plan: 'pro' } })
  t.same((await sent('2001-01-01')).json(), { body: { name: 'Ada', nickname: 'Al', plan: 'pro' }, query: { q: 'a', tag: 'x' } }, 'a public client cannot set an internal field')
  t.same((await sent('2000-01-01')).json(), { body: { name: 'Ada', plan: 'pro' }, query: { q: 'a', tag: 'x' } }, 'nor an older one a field added since; other fields still reach the handler')
})

test('regression: a header HEAD declares and a version lacks reached the handler from its clients, and a value HEAD refuses was a 500', async (t) => {
  const Mode = Type.Union([Type.Literal('fast'), Type.Literal('slow')])
  const Headers = Type.Object({ 'x-tenant': Type.String(), 'X-Mode': Type.Optional(Mode), 'x-staff': Type.Optional(Type.String()) })
  class StaffIsInternal extends VersionChange {
    description = 'x-staff is set by the back office only.'
    instructionsToMigrateToPreviousVersion = [schema(Headers).field('x-staff').didntExist]
  }
  class Modes extends VersionChange {
    description = 'Requests may ask for a mode.'
    instructionsToMigrateToPreviousVersion = [schema(Headers).field('X-Mode').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(StaffIsInternal), new Version('2001-01-01', Modes), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/jobs', { schema: { headers: Headers } }, async (request) => {
      const { 'x-tenant': tenant, 'x-mode': mode, 'x-staff': staff, authorization } = request.headers
      return { tenant, mode: mode ?? null, staff: staff ?? null, authorization }
    })
  }))
  const sent = (version: string, mode: string) => app.inject({ url: '/jobs', headers: v(version, { 'x-tenant': 'acme', 'x-mode': mode, 'x-staff': 'eve', authorization: 'Bearer k' }) })
  const latest = await sent('2001-01-01', 'fast')
  t.same(latest.json(), { tenant: 'acme', mode: 'fast', staff: null, authorization: 'Bearer k' }, 'a public client cannot set an internal header; headers no schema declares still reach the handler')
  const old = await sent('2000-01-01', 'fast')
  t.same(old.json(), { tenant: 'acme', mode: null, staff: null, authorization: 'Bearer k' }, 'nor an older one a header added since')
  const refused = await sent('2000-01-01', 'turbo')
  t.equal(refused.statusCode, 200, 'a value of a header its version lacks is no server error: the header is not its version\'s')
  t.same(refused.json(), { tenant: 'acme', mode: null, staff: null, authorization: 'Bearer k' })
  t.equal((await sent('2001-01-01', 'turbo')).statusCode, 400, 'the version that has the header still refuses a wrong value')
})

test('regression: a validation error the handler or a preHandler hook throws in Fastify\'s shape stays the client\'s 400 in an old version, not FST_VERSIONER_LATEST_REQUEST_VALIDATION', async (t) => {
  const UserIn = Type.Object({ email: Type.String(), fullName: Type.String() })
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', fullNameWasName(UserIn, () => {})), new Version('2000-01-01')) })
  /** A business rule reported the way Fastify reports validation, so that one error handler formats both. */
  const taken = (): Error => Object.assign(new Error('body/email is already taken'), {
    statusCode: 400, code: 'FST_ERR_VALIDATION', validationContext: 'body', validation: [{ instancePath: '/email', keyword: 'unique', message: 'is already taken' }]
  })
  await app.register(versioned(async (api) => {
    api.post('/users', {
      schema: { body: UserIn },
      preHandler: async (request) => { if (request.body.email === 'hook@example.com') throw taken() }
    }, async (request) => {
      if (request.body.email === 'taken@example.com') throw taken()
      return { created: request.body.fullName }
    })
  }))
  const post = (version: string, payload: object): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })
  const refused = { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: 'body/email is already taken' }

  t.same((await post('2001-01-01', { email: 'taken@example.com', fullName: 'Ada' })).json(), refused, 'plain Fastify\'s answer, in the newest version')
  const old = await post('2000-01-01', { email: 'taken@example.com', name: 'Ada' })
  t.equal(old.statusCode, 400, 'the same answer in an old version: the request reached the handler, HEAD accepted it')
  t.same(old.json(), refused)
  const hook = await post('2000-01-01', { email: 'hook@example.com', name: 'Ada' })
  t.equal(hook.statusCode, 400, 'from a preHandler hook too')
  t.same(entries, [], 'nothing logged as a migration failure')
  t.equal((await post('2000-01-01', { email: 'new@example.com', name: 'Ada' })).statusCode, 200)
})

test('regression: two changes of one version run their request converters last listed first, as their instructions read the list (newest first)', async (t) => {
  // HEAD holds cents; the version's first change renamed amount to amountCents, its second (older) one moved amount from
  // units to cents. An old client's request must be moved to cents before it is renamed, its response the other way.
  const Item = Type.Object({ amountCents: Type.Integer() }, { $id: 'Item' })
  const calls: string[] = []
  class RenameAmount extends VersionChange {
    description = 'amount is amountCents.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('amountCents').had({ name: 'amount' })]
    @ConvertRequestToNextVersionFor(Item) up (request: RequestInfo) { calls.push('rename up'); request.body.amountCents = request.body.amount; delete request.body.amount }
    @ConvertResponseToPreviousVersionFor(Item) down (response: ResponseInfo) { calls.push('rename down'); response.body.amount = response.body.amountCents; delete response.body.amountCents }
  }
  class AmountInCents extends VersionChange {
    description = 'amounts are in cents.'
    instructionsToMigrateToPreviousVersion = [schema(Item).formerField('amount').had({ type: Type.Number() })]
    @ConvertRequestToNextVersionFor(Item) up (request: RequestInfo) { calls.push('cents up'); request.body.amount = Math.round(request.body.amount * 100) }
    @ConvertResponseToPreviousVersionFor(Item) down (response: ResponseInfo) { calls.push('cents down'); response.body.amount = response.body.amount / 100 }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', RenameAmount, AmountInCents), new Version('2000-01-01')) })
  const received: unknown[] = []
  await app.register(versioned(async (api) => {
    api.post('/items', { schema: { body: Item, response: { 200: Item } } }, async (request) => { received.push(request.body); return request.body })
  }))
  const response = await app.inject({ method: 'POST', url: '/items', headers: v('2000-01-01'), payload: { amount: 20 } })
  t.same(received, [{ amountCents: 2000 }], 'the handler gets 20 units as 2000 cents, and nothing else')
  t.same(response.json(), { amount: 20 })
  t.same(calls, ['cents up', 'rename up', 'rename down', 'cents down'])
})

test('regression: a $ref pointing into a shared schema a version changes (Customer#/properties/address) was validated and converted in HEAD\'s shape in that version', async (t) => {
  const Address = Type.Object({ town: Type.String() })
  const Customer = Type.Object({ name: Type.String(), address: Address }, { $id: 'Customer' })
  const Order = Type.Object({ shipTo: Type.Unsafe<{ town: string }>({ $ref: 'Customer#/properties/address' }) })
  class TownWasCity extends VersionChange {
    description = 'An address\'s city is now its town.'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('town').had({ name: 'city' })]

    @ConvertRequestToNextVersionFor(Address)
    cityUp (request: RequestInfo) {
      request.body.town = request.body.city
      delete request.body.city
    }

    @ConvertResponseToPreviousVersionFor(Address)
    townDown (response: ResponseInfo) {
      response.body.city = response.body.town
      delete response.body.town
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  app.addSchema(Customer)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', TownWasCity), new Version('2000-01-01')) })
  const received: unknown[] = []
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => { received.push(request.body); return request.body })
  }))
  const old = await app.inject({ method: 'POST', url: '/orders', headers: v('2000-01-01'), payload: { shipTo: { city: 'Paris' } } })
  t.equal(old.statusCode, 200, `the version's own shape is taken (its document says city): ${old.body}`)
  t.same(received, [{ shipTo: { town: 'Paris' } }], 'the handler gets HEAD\'s shape')
  t.same(old.json(), { shipTo: { city: 'Paris' } }, 'and the old client its own')
  const refused = await app.inject({ method: 'POST', url: '/orders', headers: v('2000-01-01'), payload: { shipTo: { town: 'Paris' } } })
  t.equal(refused.statusCode, 400)
  t.match(refused.json().message, 'body/shipTo must have required property \'city\'')
  const latest = await app.inject({ method: 'POST', url: '/orders', headers: v('2001-01-01'), payload: { shipTo: { town: 'Paris' } } })
  t.same(latest.json(), { shipTo: { town: 'Paris' } })
})

test('a query parameter a request converter leaves undefined is removed, as an optional body field is: the handler sees no key', async (t) => {
  const Query = Type.Object({ search: Type.Optional(Type.String()), limit: Type.Optional(Type.String()) })
  class RenameQ extends VersionChange {
    description = 'The search parameter is search (was q).'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('search').had({ name: 'q' })]

    @ConvertRequestToNextVersionFor('/search', ['GET'])
    renameQ (request: RequestInfo) {
      request.queryParams.search = request.queryParams.q
      delete request.queryParams.q
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameQ), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/search', { schema: { querystring: Query } }, async (request) => ({ keys: Object.keys(request.query) }))
  }))
  const without = await app.inject({ method: 'GET', url: '/search?limit=5', headers: v('2000-01-01') })
  t.same(without.json(), { keys: ['limit'] }, 'no search: undefined for a client that sent no q')
  const withQ = await app.inject({ method: 'GET', url: '/search?q=shoes', headers: v('2000-01-01') })
  t.same(withQ.json(), { keys: ['search'] })
})

test('regression: a header named like an Object.prototype member (constructor) that a converter deletes is deleted, request and response', async (t) => {
  const ODD: string = 'constructor'
  class DroppedOddHeaders extends VersionChange {
    description = 'Old clients sent a constructor header, which is no longer read; answers carried one.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/odd', ['GET'])
    up (request: RequestInfo) { delete request.headers[ODD] }

    @ConvertResponseToPreviousVersionFor('/odd', ['GET'])
    down (response: ResponseInfo) { delete response.headers[ODD] }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', DroppedOddHeaders), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/odd', async (request, reply) => {
      reply.header('constructor', 'head')
      return { sent: Object.hasOwn(request.headers, 'constructor') }
    })
  }))
  const old = await app.inject({ url: '/odd', headers: v('2000-01-01', { constructor: 'old' }) })
  t.same(old.json(), { sent: false }, 'the handler does not see the deleted header')
  t.notOk(Object.hasOwn(old.headers, 'constructor'), 'the answer does not carry the deleted header')
  const newest = await app.inject({ url: '/odd', headers: v('2001-01-01', { constructor: 'new' }) })
  t.same(newest.json(), { sent: true }, 'the newest version passes it through')
  t.equal(newest.headers.constructor, 'head')
})

test('regression: a tuple position (Type.Tuple) holding a rebuilt object kept the fields its version lacks, which HEAD then read as its own', async (t) => {
  const Person = Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String()) })
  class NoNickname extends VersionChange {
    description = 'People had no nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('nickname').didntExist]
  }
  const received: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NoNickname), new Version('2000-01-01')), async (api) => {
    api.post('/pairs', { schema: { body: Type.Object({ pair: Type.Tuple([Type.String(), Person]), people: Type.Array(Person) }) } }, async (request) => {
      received.push(request.body)
      return {}
    })
  })
  const payload = { pair: ['x', { name: 'Ada', nickname: 'A' }], people: [{ name: 'Bo', nickname: 'B' }] }
  t.equal((await app.inject({ method: 'POST', url: '/pairs', headers: v('2000-01-01'), payload })).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/pairs', headers: v('2001-01-01'), payload })).statusCode, 200)
  t.same(received, [{ pair: ['x', { name: 'Ada' }], people: [{ name: 'Bo' }] }, payload], 'a field the version lacks is removed at a tuple position as in a list')
})

test('a query key sent more than once, which an old version\'s converter renames: a list where that version takes one (an array), its 400 naming the key where it takes a single value, as plain Fastify', async (t) => {
  const Query = Type.Object({ statuses: Type.Optional(Type.Array(Type.String())), tags: Type.Optional(Type.Array(Type.String())) })
  const seen: unknown[] = []
  class OneStatusAndTag extends VersionChange {
    description = 'Orders are filtered by several statuses (was one status) and tags (was tag, a list too).'
    instructionsToMigrateToPreviousVersion = [
      schema(Query).field('statuses').had({ name: 'status', type: Type.String() }),
      schema(Query).field('tags').had({ name: 'tag' })
    ]

    @ConvertRequestToNextVersionFor('/orders', ['GET'])
    rename (request: RequestInfo) {
      seen.push({ ...request.queryParams })
      // Renamed only: HEAD's validation (Fastify's coerceTypes: 'array') makes a single status a list.
      request.queryParams.statuses = request.queryParams.status
      request.queryParams.tags = request.queryParams.tag
      delete request.queryParams.status
      delete request.queryParams.tag
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', OneStatusAndTag), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/orders', { schema: { querystring: Query } }, async (request) => request.query)
  }))
  const get = async (version: string, query: string) => await app.inject({ url: `/orders?${query}`, headers: v(version) })

  let response = await get('2000-01-01', 'status=open&tag=a&tag=b')
  t.equal(response.statusCode, 200)
  t.same(response.json(), { statuses: ['open'], tags: ['a', 'b'] }, 'one status becomes a list in HEAD; repeated tags stay a list')
  t.same(seen, [{ status: 'open', tag: ['a', 'b'] }], 'the converter sees the values as the version\'s schema took them')
  response = await get('2000-01-01', 'tag=a')
  t.same(response.json(), { tags: ['a'] }, 'one tag is a list of one, as the version\'s array type takes it')
  seen.length = 0
  response = await get('2000-01-01', 'status=open&status=held')
  t.equal(response.statusCode, 400, 'the version took one status: two are its client\'s mistake')
  t.same(response.json(), { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: 'querystring/status must be string' })
  t.same(seen, [], 'no converter ran')
  response = await get('2001-01-01', 'statuses=open&statuses=held')
  t.same(response.json(), { statuses: ['open', 'held'] }, 'the newest version takes several')
})

test('a route\'s bodyLimit is on the bytes its client sent: an old body a converter makes larger than the limit is served, one over it is Fastify\'s 413 before any converter', async (t) => {
  const Body = Type.Object({ fullName: Type.String(), notes: Type.String() })
  const seen: unknown[] = []
  class LongerBodies extends VersionChange {
    description = 'A user has a full name (was name) and notes, which old clients did not send.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('fullName').had({ name: 'name' }), schema(Body).field('notes').didntExist]

    @ConvertRequestToNextVersionFor(Body)
    grow (request: RequestInfo) {
      seen.push(request.body.name)
      request.body.fullName = request.body.name
      request.body.notes = 'n'.repeat(100)
      delete request.body.name
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', LongerBodies), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/users', { bodyLimit: 40, schema: { body: Body } }, async (request) => ({ bytes: JSON.stringify(request.body).length }))
  }))
  const post = async (payload: string) => await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01', { 'content-type': 'application/json' }), payload })
  const fits = JSON.stringify({ name: 'Ada Lovelace' })
  let response = await post(fits)
  t.ok(fits.length <= 40, 'the old body fits the limit')
  t.equal(response.statusCode, 200)
  t.ok(response.json().bytes > 40, 'HEAD\'s body is larger than the limit, and served')
  const over = JSON.stringify({ name: 'A'.repeat(40) })
  response = await post(over)
  t.equal(response.statusCode, 413)
  t.same(response.json(), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', error: 'Payload Too Large', message: 'Request body is too large' })
  t.same(seen, ['Ada Lovelace'], 'no converter ran for the body over the limit')
})
