/**
 * `fastify-versioner types`: each route and webhook of each version is typed as its clients call it (regressions found by
 * comparing the printed types with what each version's validator accepts and its serializer answers).
 */
import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { typesModule } from '../../tools'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import ts from 'typescript'
import { inProcess as cli, scratch } from '../helpers/cli'
import { literal } from '../../lib/tools/type-printer'

// A QUERY route's operation is under its path item's `x-query` in the documents (OpenAPI 3.1 has no `query`): the
// types module read the eight OpenAPI methods only, so `Routes` had no QUERY route in any version.
test('regression: a QUERY route is in Routes, with its body and responses', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.route({
      method: 'QUERY',
      url: '/search',
      schema: { body: Type.Object({ term: Type.String() }), response: { 200: Type.Object({ hits: Type.Array(Type.String()) }) } },
      handler: async (request) => ({ hits: [request.body.term] })
    })
  }))
  const answer = await app.inject({ method: 'QUERY', url: '/search', headers: { 'x-api-version': '2000-01-01' }, payload: { term: 'a' } })
  t.same(answer.json(), { hits: ['a'] }, 'the route is served')
  const types = await typesModule(app)
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.match(types, new RegExp(`'${version}': \\{\\n {4}'QUERY /search': \\{\\n {6}headers: \\{\\n {8}'x-api-version'\\?: '${version}'\\n {6}\\}\\n` +
      ' {6}body: \\{\\n {8}term: string\\n {6}\\}\\n {6}responses: \\{\\n {8}200: \\{\\n {10}hits: Array<string>'), `${version}: QUERY /search`)
  }
})

// `@fastify/swagger` documents a wildcard as the path parameter `{*}`: the route's key was 'GET /files/:*', a path
// neither Fastify nor the document has.
test("regression: a wildcard route's key is its Fastify path ('GET /files/*')", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/files/*', { schema: { response: { 200: Type.String() } } }, async () => 'file')
  }))
  const types = await typesModule(app)
  t.match(types, /'GET \/files\/\*': \{\n {6}params: \{\n {8}'\*': string/)
  t.notMatch(types, /:\*/)
})

// A webhook's payload schemas are put in the document by the plugin, not by `@fastify/swagger`, which turns
// OpenAPI 3.0's `nullable: true` into a `null` type for routes: the component kept `nullable`, which OpenAPI 3.1
// does not have, so the types (and generated clients) said `string` where the server sends null, for the route
// sharing the schema too.
test('regression: a nullable field (nullable: true) of a webhook payload is string | null, in the webhook and a route sharing it', async (t) => {
  // A field named nullable (and one named type) is a field, not the keyword.
  const Paid = Type.Object({ id: Type.String(), note: Type.Unsafe<string | null>({ type: 'string', nullable: true }), nullable: Type.Boolean(), type: Type.String() }, { $id: 'Paid' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  app.versioner.webhooks.add({ name: 'invoice.paid', body: Paid })
  await app.register(versioned(async (api) => {
    api.get('/paid', { schema: { response: { 200: Paid } } }, async () => ({ id: 'in_1', note: null, nullable: true, type: 't' }))
  }))
  const answer = await app.inject({ method: 'GET', url: '/paid', headers: { 'x-api-version': '2000-01-01' } })
  t.same(answer.json(), { id: 'in_1', note: null, nullable: true, type: 't' }, 'the server sends null')
  const document = app.versioner.openapi('2000-01-01') as { components: { schemas: { Paid: { properties: { note: unknown } } } } }
  t.same(document.components.schemas.Paid.properties.note, { type: ['string', 'null'] }, 'OpenAPI 3.1: null among the types')
  const types = await typesModule(app)
  t.match(types, /'2000-01-01': \{(?:\n {4,}.*)*?\n {4}Paid: \{\n {6}id: string\n {6}note: string \| null\n {6}nullable: boolean\n {6}type: string\n/)
  t.match(types, /'POST invoice\.paid': Schemas\['2000-01-01'\]\['Paid'\]/)
})

// A description with Windows line endings printed its lines with their '\r': check --types reads a saved file's CRLF
// as LF, so the file `types` had just written was stale.
test('regression: a description with CRLF line endings: the file types writes is current for check --types', async (t) => {
  const dir = await scratch(t)
  const app = join(dir, 'crlf-app.ts')
  await writeFile(app, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${literal(join(__dirname, '..', '..', 'plugin'))}
const User = Type.Object({ name: Type.String({ description: 'The name.\\r\\nShown to others.' }) }, { $id: 'User' })
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/users', { schema: { summary: 'List users.\\r\\nNewest first.', response: { 200: User } } }, async () => ({ name: 'Ada' }))
  }))
  return app
}
`)
  const file = join(dir, 'api-types.ts')
  t.equal((await cli(['types', app, '--out', file])).code, 0)
  const written = await readFile(file, 'utf8')
  t.notMatch(written, /\r/, 'no carriage return in the file')
  t.match(written, / {6}\/\*\*\n {7}\* The name\.\n {7}\* Shown to others\.\n {7}\*\/\n {6}name: string/)
  const checked = await cli(['check', app, '--types', file])
  t.equal(checked.code, 0, checked.stderr)
})

// TypeBox's Type.Intersect writes `{ type: 'object', allOf: [...] }`: the bare `type: 'object'` printed as
// `Record<string, unknown>` beside the members, an index signature through which reading any field compiled.
test('regression: a Type.Intersect prints its members only, so reading a field it lacks fails tsc', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  const Both = Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.Number() })], { $id: 'Both' })
  await app.register(versioned(async (api) => {
    api.get('/both', { schema: { response: { 200: Both } } }, async () => ({ a: 'a', b: 1 }))
  }))
  const types = await typesModule(app)
  t.match(types, /Both: \(+\{\n {6}a: string\n {4}\}\)+ & \(+\{\n {6}b: number\n {4}\}\)+\n/)
  t.notMatch(types, /Record<string, unknown>/)
  const dir = await scratch(t)
  await writeFile(join(dir, 'api-types.ts'), types)
  await writeFile(join(dir, 'use.ts'), `import type { Schemas } from './api-types'
export function read (both: Schemas['2000-01-01']['Both']): unknown {
  // @ts-expect-error Both has no field c
  return [both.a, both.b, both.c]
}
`)
  const program = ts.createProgram([join(dir, 'api-types.ts'), join(dir, 'use.ts')], { strict: true, noEmit: true, skipLibCheck: true, types: [] })
  t.same(ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')), [],
    'reading both.c is an error (its @ts-expect-error is used), both.a and both.b are not')
})

// A route's body or response by media type: the types took `application/json`, else the first media type's, so a
// `text/csv` then `application/vnd.acme+json` body was typed `string`, and a second JSON response was left out.
test('regression: a route\'s JSON media types (a `+json` one too) are its body\'s and responses\' type, several as their union', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.addContentTypeParser(['text/csv', 'application/vnd.acme+json'], { parseAs: 'string' }, (_request, body, done) => {
    done(null, String(body).startsWith('{') ? JSON.parse(String(body)) : body)
  })
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  const Rows = Type.Object({ rows: Type.Array(Type.String()) })
  const Summary = Type.Object({ count: Type.Integer() })
  const Detail = Type.Object({ count: Type.Integer(), skipped: Type.Array(Type.String()) })
  await app.register(versioned(async (api) => {
    api.post('/imports', {
      schema: {
        body: { content: { 'text/csv': { schema: Type.String() }, 'application/vnd.acme+json': { schema: Rows } } },
        response: { 200: { content: { 'application/json': { schema: Summary }, 'application/vnd.acme.detail+json': { schema: Detail }, 'text/csv': { schema: Type.String() } } } }
      }
    }, async () => ({ count: 1 }))
    api.put('/imports', { schema: { body: { content: { 'text/csv': { schema: Type.String() }, 'text/plain': { schema: Type.String() } } } } }, async () => ({}))
  }))
  const answer = await app.inject({ method: 'POST', url: '/imports', headers: { 'x-api-version': '2000-01-01', 'content-type': 'application/vnd.acme+json' }, payload: '{"rows":["a"]}' })
  t.equal(answer.statusCode, 200, answer.body)
  const types = await typesModule(app)
  t.match(types, /'POST \/imports': \{\n(?: {6}headers: \{[^}]*\}\n)? {6}body\??: \{\n {8}rows: Array<string>\n {6}\}\n/, 'the body is the +json one\'s, not the text/csv one\'s string')
  t.match(types, / {8}200: \{\n {10}count: number\n {8}\} \| \{\n {10}count: number\n {10}skipped: Array<string>\n {8}\}\n/, 'the 200 is either JSON response')
  t.match(types, /'PUT \/imports': \{\n(?: {6}headers: \{[^}]*\}\n)? {6}body\??: string\n/, 'without a JSON media type, the first one\'s')
  const dir = await scratch(t)
  await writeFile(join(dir, 'api-types.ts'), types)
  await writeFile(join(dir, 'use.ts'), `import type { Routes } from './api-types'
type Import = Routes['2000-01-01']['POST /imports']
export const body: NonNullable<Import['body']> = { rows: ['a,b'] }
export function count (answer: Import['responses'][200]): number {
  return 'skipped' in answer ? answer.count - answer.skipped.length : answer.count
}
`)
  const program = ts.createProgram([join(dir, 'api-types.ts'), join(dir, 'use.ts')], { strict: true, noEmit: true, skipLibCheck: true, types: [] })
  t.same(ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')), [])
})
