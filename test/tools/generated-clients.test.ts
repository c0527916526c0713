/**
 * A client generated per version of the users example works as a client author would use it: for each
 * version, `openapi-typescript` (its programmatic API) turns the document `GET /openapi.json?version=V` serves
 * into types, a small client program written against them is type-checked with the TypeScript compiler API
 * (strict; each program also holds `@ts-expect-error` lines for what its version lacks, so the types must
 * differ per version), then run with `openapi-fetch` against the example app over real HTTP on 127.0.0.1.
 * The programs pass no version on any call: each client sends it from its default headers (see
 * docs/generated-clients.md), and a client without them gets the documented 400.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'tap'
import ts from 'typescript'
import openapiTS, { astToString } from 'openapi-typescript'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { buildApp } from '../../examples/users/app'
import { fastifyVersioner, versioned, Version as ApiVersion, VersionBundle } from '../../plugin'
import { typesModule } from '../../tools'

type Version = '2002-01-01' | '2001-01-01' | '2000-01-01'

/** The client program of each version: `run(baseUrl)` creates a user, reads it back, and makes the plugin answer 400. */
const PROGRAMS: Record<Version, string> = {
  '2002-01-01': `
    export async function run (baseUrl: string) {
      const client = createClient<paths>({ baseUrl, headers: { 'x-api-version': '2002-01-01' } })
      const created = await client.POST('/users', { body: { defaultAddress: '1 Main St' } })
      if (created.data === undefined) throw new Error('not created: ' + JSON.stringify(created.error))
      const id: string = created.data.id
      // @ts-expect-error 2002-01-01 returns no addresses with the user
      void created.data.addresses
      const addresses = await client.GET('/users/{userId}/addresses', { params: { path: { userId: id } } })
      const values: string[] | undefined = addresses.data?.data.map((address) => address.value)
      return { created: created.data, status: created.response.status, addresses: values, ...await problems(baseUrl, id) }
    }
    // @ts-expect-error 2002-01-01 creates a user with its default address only
    export const oldBody: paths['/users']['post']['requestBody']['content']['application/json'] = { addresses: ['1 Main St'] }
  `,
  '2001-01-01': `
    export async function run (baseUrl: string) {
      const client = createClient<paths>({ baseUrl, headers: { 'x-api-version': '2001-01-01' } })
      const created = await client.POST('/users', { body: { addresses: ['1 Main St', '2 Side St'] } })
      if (created.data === undefined) throw new Error('not created: ' + JSON.stringify(created.error))
      const addresses: string[] = created.data.addresses
      const fetched = await client.GET('/users/{userId}', { params: { path: { userId: created.data.id } } })
      return { created: created.data, status: created.response.status, addresses, fetched: fetched.data, ...await problems(baseUrl, created.data.id) }
    }
    // @ts-expect-error 2001-01-01 has no addresses endpoint
    export type Absent = paths['/users/{userId}/addresses']
  `,
  '2000-01-01': `
    export async function run (baseUrl: string) {
      const client = createClient<paths>({ baseUrl, headers: { 'x-api-version': '2000-01-01' } })
      const created = await client.POST('/users', { body: { address: '1 Main St' } })
      if (created.data === undefined) throw new Error('not created: ' + JSON.stringify(created.error))
      const address: string = created.data.address
      const fetched = await client.GET('/users/{userId}', { params: { path: { userId: created.data.id } } })
      return { created: created.data, status: created.response.status, addresses: [address], fetched: fetched.data, ...await problems(baseUrl, created.data.id) }
    }
    // @ts-expect-error 2000-01-01 has one address, not a list
    export const newBody: paths['/users']['post']['requestBody']['content']['application/json'] = { addresses: ['1 Main St'] }
  `
}

/** The same in every program: the plugin's own answers, typed by the document's shared 400 response. */
const PROBLEMS = `
  async function problems (baseUrl: string, userId: string) {
    // No default headers: the server gets no version.
    const bare = createClient<paths>({ baseUrl })
    const missing = await bare.GET('/users/{userId}', { params: { path: { userId } } })
    const invalid = await createClient<paths>({ baseUrl, headers: { 'x-api-version': '1999-01-01' } }).POST('/users', { body: {} as never })
    const error: { statusCode: number, code?: string, error: string, message: string } | undefined = invalid.error
    return {
      missing: { status: missing.response.status, message: missing.error?.message },
      invalid: { status: invalid.response.status, code: error?.code }
    }
  }
`

interface Outcome {
  created: Record<string, unknown>
  status: number
  addresses?: string[]
  fetched?: Record<string, unknown>
  missing: { status: number, message?: string }
  invalid: { status: number, code?: string }
}

test('a client generated per version with openapi-typescript type-checks and works with openapi-fetch over real HTTP', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('the app listens on no port')
  const baseUrl = `http://127.0.0.1:${address.port}`

  // The documents as a client author fetches them (the latest one also without a version).
  const dir = t.testdir({})
  const files: string[] = []
  for (const version of Object.keys(PROGRAMS) as Version[]) {
    const document = await (await fetch(`${baseUrl}/openapi.json?version=${version}`)).json() as Record<string, unknown>
    writeFileSync(join(dir, `api-${version}.ts`), astToString(await openapiTS(document as never)))
    const file = join(dir, `client-${version}.ts`)
    writeFileSync(file, `import createClient from 'openapi-fetch'\nimport type { paths } from './api-${version}'\n${PROBLEMS}\n${PROGRAMS[version]}\n`)
    files.push(file)
  }
  const latest = await fetch(`${baseUrl}/openapi.json`)
  t.equal(((await latest.json()) as { info: { version: string } }).info.version, '2002-01-01', 'GET /openapi.json: the latest version')
  t.equal(latest.headers.get('vary'), 'x-api-version')

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true
  }
  const program = ts.createProgram(files, options)
  const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) =>
    `${diagnostic.file === undefined ? '' : `${diagnostic.file.fileName.slice(dir.length + 1)}: `}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`)
  t.same(diagnostics, [], 'every client program type-checks against its version (and its @ts-expect-error lines are errors)')

  const outcomes = {} as Record<Version, Outcome>
  for (const [index, version] of (Object.keys(PROGRAMS) as Version[]).entries()) {
    const source = ts.transpileModule(ts.sys.readFile(files[index]) ?? '', { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    const output = join(dir, `client-${version}.mjs`)
    writeFileSync(output, source.outputText)
    const client = await import(pathToFileURL(output).href) as { run: (baseUrl: string) => Promise<Outcome> }
    outcomes[version] = await client.run(baseUrl)
  }

  const latestOutcome = outcomes['2002-01-01']
  t.equal(latestOutcome.status, 200)
  t.same(Object.keys(latestOutcome.created), ['id'], '2002-01-01: a user is its id')
  t.same(latestOutcome.addresses, ['1 Main St'], '2002-01-01: the addresses endpoint lists the default address')
  t.same(outcomes['2001-01-01'].created.addresses, ['1 Main St', '2 Side St'], '2001-01-01: addresses inline')
  t.same(outcomes['2001-01-01'].fetched, outcomes['2001-01-01'].created, '2001-01-01: read back as created')
  t.same(Object.keys(outcomes['2000-01-01'].created).sort(), ['address', 'id'], '2000-01-01: one address')
  t.equal(outcomes['2000-01-01'].created.address, '1 Main St')
  t.same(outcomes['2000-01-01'].fetched, outcomes['2000-01-01'].created, '2000-01-01: read back as created')
  for (const [version, outcome] of Object.entries(outcomes)) {
    t.equal(outcome.missing.status, 400, `${version}: a client without the default header gets the documented 400`)
    t.match(outcome.missing.message, /x-api-version/, `${version}: which names the header to send`)
    t.same(outcome.invalid, { status: 400, code: 'FST_VERSIONER_INVALID_API_VERSION' }, `${version}: an unknown version is the documented 400`)
  }
})

// A query or header parameter with a default was documented `required: true`: the generated client and the types
// module demanded it, though the server fills it in when a request leaves it out.
/** An app whose `GET /items` has a query and a header parameter with a default, with the given Ajv options. */
async function defaultsApp (t: { teardown: (fn: () => unknown) => void }, customOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify({ ajv: { customOptions } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new ApiVersion('2001-01-01'), new ApiVersion('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/items', {
      schema: {
        querystring: Type.Object({ limit: Type.Integer({ default: 10 }), q: Type.String() }),
        headers: Type.Object({ 'x-region': Type.String({ default: 'eu' }) }),
        response: { 200: Type.Object({ limit: Type.Integer(), region: Type.String() }) }
      }
    }, async (request) => ({ limit: request.query.limit, region: request.headers['x-region'] }))
  }))
  return app
}

type ParametersDocument = { paths: Record<string, { get: { parameters: Array<{ name: string, required: boolean }> } }> }
function requiredOf (document: ParametersDocument): Record<string, boolean> {
  return Object.fromEntries(document.paths['/items'].get.parameters.map((parameter) => [parameter.name, parameter.required]))
}

test('regression: a parameter with a default is optional in the document, the generated client and the types module', async (t) => {
  const app = await defaultsApp(t)
  const left = await app.inject({ method: 'GET', url: '/items?q=a', headers: { 'x-api-version': '2000-01-01' } })
  t.same(left.json(), { limit: 10, region: 'eu' }, 'the server fills in the defaults of a request that leaves them out')

  const document = app.versioner.openapi('2000-01-01') as ParametersDocument
  t.same(requiredOf(document), { limit: false, q: true, 'x-region': false, 'x-api-version': false })
  const client = astToString(await openapiTS(document as never))
  t.match(client, /limit\?: number;\n\s+q: string;/, 'openapi-typescript: limit may be left out, q not')
  t.match(client, /"x-region"\?: string;/)
  const types = await typesModule(app)
  t.match(types, /'GET \/items': \{\n\s+query: \{\n\s+limit\?: number\n\s+q: string\n\s+\}\n\s+headers: \{\n\s+'x-region'\?: string/, 'the types module too')
})

test('a parameter with a default stays required when the application turns Ajv\'s useDefaults off', async (t) => {
  const app = await defaultsApp(t, { useDefaults: false })
  const left = await app.inject({ method: 'GET', url: '/items?q=a', headers: { 'x-api-version': '2000-01-01', 'x-region': 'us' } })
  t.equal(left.statusCode, 400, 'nothing fills in the default: the request needs limit')
  t.same(requiredOf(app.versioner.openapi('2000-01-01') as ParametersDocument), { limit: true, q: true, 'x-region': true, 'x-api-version': false })
})
