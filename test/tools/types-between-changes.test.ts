/**
 * `types` for a version holding two changes that edit one schema (decision 0297): a change's converters read the
 * body its sibling has converted already (requests from the change listed last, responses from the one listed
 * first), so `Conversion` types each side by the shape between the changes. The right converter compiles, a converter
 * written against the versions' shapes fails, and the bodies the runtime feeds are assignable to their sides.
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

/**
 * HEAD's User `{ fullName, addresses }` (held by Team); version 2001-01-01 lists `Rename` (fullName was name) then
 * `ToList` (addresses was address), or only `Rename` and a `Tag` change of another schema with `apart`. Every body a
 * converter receives is recorded.
 */
async function teamsApp (apart = false) {
  const User = Type.Object({ fullName: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
  const Tag = Type.Object({ label: Type.String() }, { $id: 'Tag' })
  const Team = Type.Object({ lead: User, size: Type.Integer(), tag: Tag }, { $id: 'Team' })
  const seen: Array<{ change: string, direction: 'request' | 'response', body: unknown }> = []
  const note = (change: string, direction: 'request' | 'response', body: unknown): void => { seen.push({ change, direction, body: structuredClone(body) }) }
  class Rename extends VersionChange {
    description = 'fullName was name'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]
    @ConvertRequestToNextVersionFor(User) up (r: RequestInfo) { note('Rename', 'request', r.body); const { name, ...rest } = r.body as Body; r.body = { ...rest, fullName: name } }
    @ConvertResponseToPreviousVersionFor(User) down (r: ResponseInfo) { note('Rename', 'response', r.body); const { fullName, ...rest } = r.body as Body; r.body = { ...rest, name: fullName } }
  }
  class ToList extends VersionChange {
    description = 'addresses was address'
    instructionsToMigrateToPreviousVersion = [schema(User).field('addresses').didntExist, schema(User).formerField('address').existedAs({ type: Type.String() })]
    @ConvertRequestToNextVersionFor(User) up (r: RequestInfo) { note('ToList', 'request', r.body); const { address, ...rest } = r.body as Body; r.body = { ...rest, addresses: [address] } }
    @ConvertResponseToPreviousVersionFor(User) down (r: ResponseInfo) { note('ToList', 'response', r.body); const { addresses, ...rest } = r.body as Body; r.body = { ...rest, address: addresses[0] } }
  }
  class TagName extends VersionChange {
    description = 'label was name'
    instructionsToMigrateToPreviousVersion = [schema(Tag).field('label').had({ name: 'name' })]
    @ConvertRequestToNextVersionFor(Tag) up (r: RequestInfo) { note('TagName', 'request', r.body); r.body.label = r.body.name; delete r.body.name }
    @ConvertResponseToPreviousVersionFor(Tag) down (r: ResponseInfo) { note('TagName', 'response', r.body); r.body.name = r.body.label; delete r.body.label }
  }
  const changes: VersionChangeClass[] = apart ? [Rename, TagName] : [Rename, ToList]
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', ...changes), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/teams', { schema: { body: Team, response: { 200: Team } } }, async (request) => request.body)
  }))
  await app.ready()
  return { app, seen }
}

/** A module of converters typed with the generated `Conversion`, `body` the request converters' (Rename's then ToList's). */
function converters (rename: string, toList: string): string {
  return `import type { RequestInfo } from ${literal(join(root, 'lib', 'describe', 'converter-info'))}
import type { Conversion } from './api-types'
type R = Conversion<'Rename', 'User'>
type L = Conversion<'ToList', 'User'>
export function rename (request: RequestInfo<R['older'], R['newer']>): void {
${rename}
}
export function toList (request: RequestInfo<L['older'], L['newer']>): void {
${toList}
}
`
}

test('two changes of one version edit User: each converter is typed by the shape between them, as the runtime feeds it', async (t) => {
  const dir = await scratch(t)
  const { app, seen } = await teamsApp()
  t.teardown(() => app.close())
  const types = await typesModule(app)
  await writeFile(join(dir, 'api-types.ts'), types)
  t.match(types, /export interface Between \{\n {2}'2001-01-01 \(between Rename and ToList\)': \{\n {4}User: \{\n {6}name: string\n {6}addresses: Array<string>\n {4}\}/,
    'the shape between the changes: renamed back, still a list')

  // Requests run ToList (listed last) first: it reads { name, address } and writes { name, addresses } for Rename.
  const cases: Record<string, string> = {
    'right.ts': converters('  const { name, ...rest } = request.body\n  request.body = { ...rest, fullName: name }',
      '  const { address, ...rest } = request.body\n  request.body = { ...rest, addresses: [address] }'),
    'rename-reads-address.ts': converters('  request.body = { fullName: request.body.name, addresses: [request.body.address] }', '  request.body = { name: request.body.name, addresses: [request.body.address] }'),
    'to-list-writes-full-name.ts': converters('  request.body = { fullName: request.body.name, addresses: request.body.addresses }', '  request.body = { fullName: request.body.name, addresses: [request.body.address] }')
  }
  // What the runtime fed each converter, in both directions: assignable to the side it reads.
  const res = await app.inject({ method: 'POST', url: '/teams', headers: { 'x-api-version': '2000-01-01' }, payload: { lead: { name: 'Ann', address: '1 Main St' }, size: 2, tag: { label: 'x' } } })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { lead: { name: 'Ann', address: '1 Main St' }, size: 2, tag: { label: 'x' } }, 'the old client gets its body back')
  t.same(seen.map(({ change, direction }) => `${direction} ${change}`), ['request ToList', 'request Rename', 'response Rename', 'response ToList'])
  cases['fed.ts'] = `import type { Conversion } from './api-types'\n${seen.map(({ change, direction, body }, index) =>
    `export const fed${index}: Conversion<${literal(change)}, 'User'>[${literal(direction === 'request' ? 'older' : 'newer')}] = ${JSON.stringify(body)}`).join('\n')}\n`
  for (const [file, text] of Object.entries(cases)) await writeFile(join(dir, file), text)
  const errors = compileErrors(dir, ['api-types.ts', ...Object.keys(cases)])
  const of = (file: string): string[] => errors.filter((error) => error.startsWith(`${file}(`))
  t.same(of('right.ts'), [], 'the converters as the runtime runs them compile')
  t.same(of('fed.ts'), [], 'every body a converter was fed is assignable to the side it reads')
  t.match(of('rename-reads-address.ts').join('\n'), /Property 'address' does not exist on type/, "Rename reading the older version's address fails")
  t.match(of('to-list-writes-full-name.ts').join('\n'), /'fullName' does not exist in type|Property 'name' is missing/, "ToList writing the newer version's fullName fails")
  t.same(errors.filter((error) => error.startsWith('api-types.ts(')), [], 'the module compiles')
})

test('a version whose two changes edit different schemas: the module is the one the versions type (no Between)', async (t) => {
  const { app } = await teamsApp(true)
  t.teardown(() => app.close())
  const types = await typesModule(app)
  t.notMatch(types, /Between|ChangeSides|Side</, 'no shape between changes is printed')
  t.match(types, /export type Conversion<C extends DocumentedChange, Name extends keyof Schemas\[Older<C>\] & keyof Schemas\[Newer<C>\]> = \{\n {2}older: Schemas\[Older<C>\]\[Name\]\n {2}newer: Schemas\[Newer<C>\]\[Name\]\n\}/)
})
