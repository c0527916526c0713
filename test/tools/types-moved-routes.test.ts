/**
 * `types` for a by-path converter of a route its version moves (`endpoint(...).had({ path })`): the route has one key
 * in each version, so `RouteConversion` names it by its key in the newer version (the path the converter names) and
 * types the older side by the route under its older key. The right converter compiles, one written against the
 * wrong side fails, and every body the runtime feeds is assignable to its side.
 */
import { test } from 'tap'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, Version, VersionBundle, VersionChange, endpoint, fastifyVersioner, schema,
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
 * HEAD's `POST /organizations` takes and answers `{ name, size }`; version 2001-01-01 moved it from `/teams`
 * (`Move`). Alone, `Move` also renames `name` (it was `title`); with `both`, `Move` renames `size` (it was
 * `members`) and a second change listed after it, `Rename`, renames `name`, each converting the route by path.
 */
async function organizationsApp (changes: 'move' | 'both') {
  const Organization = Type.Object({ name: Type.String(), size: Type.Integer() })
  const seen: Fed = []
  const note = (change: string, direction: 'request' | 'response', body: unknown): void => { seen.push({ change, direction, body: structuredClone(body) }) }
  const [from, to] = changes === 'move' ? ['name', 'title'] : ['size', 'members']
  class Move extends VersionChange {
    description = `/organizations was /teams; ${from} was ${to}`
    instructionsToMigrateToPreviousVersion = [endpoint('/organizations', ['POST']).had({ path: '/teams' }), schema(Organization).field(from as 'name').had({ name: to })]
    @ConvertRequestToNextVersionFor('/organizations', ['POST']) up (r: RequestInfo) {
      note('Move', 'request', r.body); const { [to]: value, ...rest } = r.body as Body; r.body = { ...rest, [from]: value }
    }

    @ConvertResponseToPreviousVersionFor('/organizations', ['POST']) down (r: ResponseInfo) {
      note('Move', 'response', r.body); const { [from]: value, ...rest } = r.body as Body; r.body = { ...rest, [to]: value }
    }
  }
  class Rename extends VersionChange {
    description = 'name was title'
    instructionsToMigrateToPreviousVersion = [schema(Organization).field('name').had({ name: 'title' })]
    @ConvertRequestToNextVersionFor('/organizations', ['POST']) up (r: RequestInfo) {
      note('Rename', 'request', r.body); const { title, ...rest } = r.body as Body; r.body = { ...rest, name: title }
    }

    @ConvertResponseToPreviousVersionFor('/organizations', ['POST']) down (r: ResponseInfo) {
      note('Rename', 'response', r.body); const { name, ...rest } = r.body as Body; r.body = { ...rest, title: name }
    }
  }
  const listed: VersionChangeClass[] = changes === 'move' ? [Move] : [Move, Rename]
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', ...listed), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/organizations', { schema: { body: Organization, response: { 200: Organization } } }, async (request) => request.body)
  }))
  await app.ready()
  return { app, seen }
}

/** What the runtime fed each by-path converter, as constants typed by its `RouteConversion` side (requests: older body; responses: newer 200). */
function fedModule (seen: Fed): string {
  return `import type { RouteConversion } from './api-types'\n${seen.map(({ change, direction, body }, index) => {
    const side = direction === 'request' ? "['older']['body']" : "['newer']['responses'][200]"
    return `export const fed${index}: RouteConversion<${literal(change)}, 'POST /organizations'>${side} = ${JSON.stringify(body)}`
  }).join('\n')}\n`
}

/** A module of request converters typed by `RouteConversion` (by the route's newer key), one per change. */
function converters (bodies: Record<string, string>): string {
  return `import type { RequestInfo } from ${literal(join(root, 'lib', 'describe', 'converter-info'))}
import type { RouteConversion } from './api-types'
${Object.entries(bodies).map(([change, body]) => `type ${change}Sides = RouteConversion<${literal(change)}, 'POST /organizations'>
export function ${change.toLowerCase()} (request: RequestInfo<${change}Sides['older']['body'], ${change}Sides['newer']['body']>): void {
${body}
}`).join('\n')}
`
}

/** The compile errors of `cases` beside the generated module, by file. */
async function compiled (dir: string, types: string, cases: Record<string, string>): Promise<(file: string) => string[]> {
  await writeFile(join(dir, 'api-types.ts'), types)
  for (const [file, text] of Object.entries(cases)) await writeFile(join(dir, file), text)
  const errors = compileErrors(dir, ['api-types.ts', ...Object.keys(cases)])
  return (file) => errors.filter((error) => error.startsWith(`${file}(`))
}

test('a route its version moves: RouteConversion names it by its newer path, the older side by its older path', async (t) => {
  const dir = await scratch(t)
  const { app, seen } = await organizationsApp('move')
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/teams', headers: { 'x-api-version': '2000-01-01' }, payload: { title: 'Acme', size: 2 } })
  t.same(res.json(), { title: 'Acme', size: 2 }, 'the old client gets its body back at its path')
  t.same(seen.map(({ change, direction }) => `${direction} ${change}`), ['request Move', 'response Move'])
  const types = await typesModule(app)
  t.match(types, /export interface MovedRoutes \{\n {2}'2001-01-01': \{\n {4}'POST \/organizations': 'POST \/teams'\n {2}\}\n\}/)
  const of = await compiled(dir, types, {
    'right.ts': converters({ Move: '  const { title, ...rest } = request.body\n  request.body = { ...rest, name: title }' }),
    'reads-name.ts': converters({ Move: '  request.body = { name: request.body.name, size: request.body.size }' }),
    'writes-title.ts': converters({ Move: '  request.body = { title: request.body.title, size: request.body.size }' }),
    'older-key.ts': "import type { RouteConversion } from './api-types'\nexport type Sides = RouteConversion<'Move', 'POST /teams'>\n",
    'fed.ts': fedModule(seen)
  })
  t.same(of('right.ts'), [], 'the converter the runtime runs compiles')
  t.same(of('fed.ts'), [], 'every body the converter was fed is assignable to its side')
  t.match(of('reads-name.ts').join('\n'), /Property 'name' does not exist on type/, "reading the newer version's name from the older body fails")
  t.match(of('writes-title.ts').join('\n'), /'title' does not exist in type|Property 'name' is missing/, "writing the older version's title fails")
  t.match(of('older-key.ts').join('\n'), /does not satisfy the constraint/, 'the route is named by the path the converter names')
  t.same(of('api-types.ts'), [], 'the module compiles')
})

test('a route one change moves and another edits: the sides between them are keyed by the newer path', async (t) => {
  const dir = await scratch(t)
  const { app, seen } = await organizationsApp('both')
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/teams', headers: { 'x-api-version': '2000-01-01' }, payload: { title: 'Acme', members: 2 } })
  t.same(res.json(), { title: 'Acme', members: 2 }, 'the old client gets its body back at its path')
  // Requests run Rename (listed last) first: it reads { title, members } and leaves { name, members } for Move.
  t.same(seen.map(({ change, direction }) => `${direction} ${change}`), ['request Rename', 'request Move', 'response Move', 'response Rename'])
  const types = await typesModule(app)
  t.match(types, /Move: \{\n {4}older: \{\n {6}'POST \/organizations': Between\['2001-01-01 \(between Move and Rename\)'\]\['POST \/organizations'\]/)
  const of = await compiled(dir, types, {
    'right.ts': converters({
      Move: '  const { members, ...rest } = request.body\n  request.body = { ...rest, size: members }',
      Rename: '  const { title, ...rest } = request.body\n  request.body = { ...rest, name: title }'
    }),
    'move-reads-title.ts': converters({ Move: '  request.body = { name: request.body.title, size: request.body.members }' }),
    'rename-writes-size.ts': converters({ Rename: '  request.body = { name: request.body.title, size: request.body.members }' }),
    'fed.ts': fedModule(seen)
  })
  t.same(of('right.ts'), [], 'the converters as the runtime runs them compile')
  t.same(of('fed.ts'), [], 'every body a converter was fed is assignable to the side it reads')
  t.match(of('move-reads-title.ts').join('\n'), /Property 'title' does not exist on type/, "Move reading the older version's title fails")
  t.match(of('rename-writes-size.ts').join('\n'), /'size' does not exist in type|Property 'members' is missing/, "Rename writing the newer version's size fails")
  t.same(of('api-types.ts'), [], 'the module compiles')
})
