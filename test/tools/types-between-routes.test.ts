/**
 * `types` for by-path converters of a version holding two changes that edit one route: a change's by-path converter
 * reads the request or response its sibling has converted already (requests from the change listed last, responses
 * from the one listed first), so `RouteConversion` types each side by the route between the changes, as `Conversion`
 * types by-schema converters (decision 0297). The right converter compiles, one written against the versions fails,
 * and every body the runtime feeds is assignable to its side.
 */
import { test } from 'tap'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, Version, VersionBundle, VersionChange, fastifyVersioner, schema,
  versioned, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { typesModule } from '../../tools'
import { literal } from '../../lib/tools/type-printer'
import { scratch } from '../helpers/cli'
import { compileErrors } from '../helpers/type-programs'

const root = resolve(__dirname, '..', '..')
type Body = Record<string, any>

type Fed = Array<{ change: string, direction: 'request' | 'response', body: unknown }>

/**
 * HEAD's `POST /teams?q=` takes `{ lead: User, size }` (User `{ fullName, addresses }`) and answers it. Version
 * 2001-01-01 lists two changes with by-path converters of the route: `Rename` (fullName was name) and `ToList`
 * (addresses was address), or `Search` (the query's q was search) and `Rename`; `apart` gives `Search` another route
 * (and query schema). With `location: 'path'`, the version is the first segment of the path.
 */
async function teamsApp (changes: 'rename, to list' | 'search, rename' | 'apart', location: 'header' | 'path' = 'header') {
  const User = Type.Object({ fullName: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
  const Query = Type.Object({ q: Type.Optional(Type.String()) })
  const OtherQuery = Type.Object({ q: Type.Optional(Type.String()) })
  const seen: Fed = []
  const note = (change: string, direction: 'request' | 'response', body: unknown): void => { seen.push({ change, direction, body: structuredClone(body) }) }
  class Rename extends VersionChange {
    description = 'fullName was name'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]
    @ConvertRequestToNextVersionFor('/teams', ['POST']) up (r: RequestInfo) {
      note('Rename', 'request', r.body); const { name, ...rest } = r.body.lead as Body; r.body.lead = { ...rest, fullName: name }
    }

    @ConvertResponseToPreviousVersionFor('/teams', ['POST']) down (r: ResponseInfo) {
      note('Rename', 'response', r.body); const { fullName, ...rest } = r.body.lead as Body; r.body.lead = { ...rest, name: fullName }
    }
  }
  class ToList extends VersionChange {
    description = 'addresses was address'
    instructionsToMigrateToPreviousVersion = [schema(User).field('addresses').didntExist, schema(User).formerField('address').existedAs({ type: Type.String() })]
    @ConvertRequestToNextVersionFor('/teams', ['POST']) up (r: RequestInfo) {
      note('ToList', 'request', r.body); const { address, ...rest } = r.body.lead as Body; r.body.lead = { ...rest, addresses: [address] }
    }

    @ConvertResponseToPreviousVersionFor('/teams', ['POST']) down (r: ResponseInfo) {
      note('ToList', 'response', r.body); const { addresses, ...rest } = r.body.lead as Body; r.body.lead = { ...rest, address: addresses[0] }
    }
  }
  class Search extends VersionChange {
    description = 'q was search'
    instructionsToMigrateToPreviousVersion = [schema(changes === 'apart' ? OtherQuery : Query).field('q').had({ name: 'search' })]
    @ConvertRequestToNextVersionFor(changes === 'apart' ? '/other' : '/teams', ['POST']) up (r: RequestInfo) {
      note('Search', 'request', r.body); r.queryParams.q = r.queryParams.search; delete r.queryParams.search
    }
  }
  const listed: VersionChangeClass[] = changes === 'rename, to list' ? [Rename, ToList] : [Search, Rename]
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', ...listed), new Version('2000-01-01')), apiVersionLocation: location })
  await app.register(versioned(async (api) => {
    const Team = Type.Object({ lead: User, size: Type.Integer() })
    api.post('/teams', { schema: { querystring: Query, body: Team, response: { 200: Team } } }, async (request) => request.body)
    api.post('/other', { schema: { querystring: OtherQuery } }, async (request) => request.query)
  }))
  await app.ready()
  return { app, seen }
}

/** What the runtime fed each by-path converter, as constants typed by its `RouteConversion` side (requests: older body; responses: newer 200). */
function fedModule (seen: Fed): string {
  return `import type { RouteConversion } from './api-types'\n${seen.map(({ change, direction, body }, index) => {
    const side = direction === 'request' ? "['older']['body']" : "['newer']['responses'][200]"
    return `export const fed${index}: RouteConversion<${literal(change)}, 'POST /teams'>${side} = ${JSON.stringify(body)}`
  }).join('\n')}\n`
}

/** A module of request converters typed by `RouteConversion`, one per change. */
function converters (bodies: Record<string, string>): string {
  return `import type { RequestInfo } from ${literal(join(root, 'lib', 'describe', 'converter-info'))}
import type { RouteConversion } from './api-types'
${Object.entries(bodies).map(([change, body]) => `type ${change}Sides = RouteConversion<${literal(change)}, 'POST /teams'>
export function ${change.toLowerCase()} (request: RequestInfo<${change}Sides['older']['body'], ${change}Sides['newer']['body']>): void {
${body}
}`).join('\n')}
`
}

test('two changes of one version convert one route by path: each converter is typed by the route between them', async (t) => {
  const dir = await scratch(t)
  const { app, seen } = await teamsApp('rename, to list')
  t.teardown(() => app.close())
  const types = await typesModule(app)
  await writeFile(join(dir, 'api-types.ts'), types)
  const res = await app.inject({ method: 'POST', url: '/teams', headers: { 'x-api-version': '2000-01-01' }, payload: { lead: { name: 'Ann', address: '1 Main St' }, size: 2 } })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { lead: { name: 'Ann', address: '1 Main St' }, size: 2 }, 'the old client gets its body back')
  t.same(seen.map(({ change, direction }) => `${direction} ${change}`), ['request ToList', 'request Rename', 'response Rename', 'response ToList'])
  // Requests run ToList (listed last) first: it reads { name, address } and writes { name, addresses } for Rename.
  const cases: Record<string, string> = {
    'right.ts': converters({
      Rename: '  const { name, ...rest } = request.body.lead\n  request.body = { ...request.body, lead: { ...rest, fullName: name } }',
      ToList: '  const { address, ...rest } = request.body.lead\n  request.body = { ...request.body, lead: { ...rest, addresses: [address] } }'
    }),
    'rename-reads-address.ts': converters({
      Rename: '  request.body = { size: 1, lead: { fullName: request.body.lead.name, addresses: [request.body.lead.address] } }',
      ToList: '  request.body = { size: 1, lead: { name: request.body.lead.name, addresses: [request.body.lead.address] } }'
    }),
    'to-list-writes-full-name.ts': converters({
      Rename: '  request.body = { size: 1, lead: { fullName: request.body.lead.name, addresses: request.body.lead.addresses } }',
      ToList: '  request.body = { size: 1, lead: { fullName: request.body.lead.name, addresses: [request.body.lead.address] } }'
    }),
    'fed.ts': fedModule(seen)
  }
  for (const [file, text] of Object.entries(cases)) await writeFile(join(dir, file), text)
  const errors = compileErrors(dir, ['api-types.ts', ...Object.keys(cases)])
  const of = (file: string): string[] => errors.filter((error) => error.startsWith(`${file}(`))
  t.same(of('right.ts'), [], 'the converters as the runtime runs them compile')
  t.same(of('fed.ts'), [], 'every body a converter was fed is assignable to the side it reads')
  t.match(of('rename-reads-address.ts').join('\n'), /Property 'address' does not exist on type/, "Rename reading the older version's address fails")
  t.match(of('to-list-writes-full-name.ts').join('\n'), /'fullName' does not exist in type|Property 'name' is missing/, "ToList writing the newer version's fullName fails")
  t.same(errors.filter((error) => error.startsWith('api-types.ts(')), [], 'the module compiles')
})

test("a query parameter renamed by one change, a body field by the other: the query change's converter reads the renamed body", async (t) => {
  const dir = await scratch(t)
  const { app, seen } = await teamsApp('search, rename')
  t.teardown(() => app.close())
  const types = await typesModule(app)
  await writeFile(join(dir, 'api-types.ts'), types)
  const res = await app.inject({ method: 'POST', url: '/teams?search=x', headers: { 'x-api-version': '2000-01-01' }, payload: { lead: { name: 'Ann', addresses: [] }, size: 2 } })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { lead: { name: 'Ann', addresses: [] }, size: 2 })
  t.same(seen.map(({ change, direction }) => `${direction} ${change}`), ['request Rename', 'request Search', 'response Rename'])
  const cases: Record<string, string> = {
    'right.ts': converters({ Search: '  const fullName: string = request.body.lead.fullName\n  request.body = { ...request.body, lead: { ...request.body.lead, fullName } }' }),
    'search-reads-name.ts': converters({ Search: '  const name: string = request.body.lead.name\n  request.body = { ...request.body, lead: { fullName: name, addresses: [] } }' }),
    'fed.ts': fedModule(seen)
  }
  for (const [file, text] of Object.entries(cases)) await writeFile(join(dir, file), text)
  const errors = compileErrors(dir, ['api-types.ts', ...Object.keys(cases)])
  const of = (file: string): string[] => errors.filter((error) => error.startsWith(`${file}(`))
  t.same(of('right.ts'), [], "Search's converter reading the body Rename left compiles")
  t.same(of('fed.ts'), [], 'every body a converter was fed is assignable to the side it reads')
  t.match(of('search-reads-name.ts').join('\n'), /Property 'name' does not exist on type/, "Search reading the older version's name fails")
  t.same(errors.filter((error) => error.startsWith('api-types.ts(')), [], 'the module compiles')
})

test('two changes of one version converting different routes: the module is the one the versions type', async (t) => {
  const { app } = await teamsApp('apart')
  t.teardown(() => app.close())
  const types = await typesModule(app)
  t.notMatch(types, /Between|ChangeSides|Side</, 'no route between changes is printed')
  t.match(types, /export type RouteConversion<C extends DocumentedChange, Route extends keyof Routes\[Older<C>\] & keyof Routes\[Newer<C>\]> = \{\n {2}older: Routes\[Older<C>\]\[Route\]\n {2}newer: Routes\[Newer<C>\]\[Route\]\n\}/)
})

test('versions in the path: the route between the changes is keyed as Routes keys it', async (t) => {
  const { app, seen } = await teamsApp('rename, to list', 'path')
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/2000-01-01/teams', payload: { lead: { name: 'Ann', address: '1 Main St' }, size: 2 } })
  t.same(res.json(), { lead: { name: 'Ann', address: '1 Main St' }, size: 2 }, 'the old client gets its body back')
  t.equal(seen.length, 4)
  const types = await typesModule(app)
  t.match(types, /Rename: \{\n {4}older: \{\n {6}'POST \/:x_api_version\/teams': Between\['2001-01-01 \(between Rename and ToList\)'\]\['POST \/:x_api_version\/teams'\]/)
  t.match(types, /ToList: \{\n {4}newer: \{\n {6}'POST \/:x_api_version\/teams': Between/)
})
