/**
 * `fastify-versioner types` and `check --types`: the TypeScript types of every version, written from the served
 * documents; the example app's committed file is current; the compiler checks converters typed with them.
 */
import { test } from 'tap'
import fc from 'fast-check'
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import ts from 'typescript'
import { inProcess as cli, scratch } from '../helpers/cli'
import { loadApp, typesModule } from '../../tools'
import { literal, printType } from '../../lib/tools/type-printer'

const root = resolve(__dirname, '..', '..')
const exampleApp = join(root, 'examples', 'users', 'app.ts')
const committed = join(root, 'examples', 'users', 'api-types.ts')

/** The project's strict options, for every program of this file. */
const OPTIONS: ts.CompilerOptions = {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, experimentalDecorators: true, skipLibCheck: true, types: ['node']
}

/**
 * The declarations under node_modules (TypeScript's lib files, @types/node) as parsed by the first program: the
 * programs of this file share options, so they share these source files, as TypeScript's own watch mode does, instead
 * of parsing and binding them once a program.
 */
const declarations = new Map<string, ts.SourceFile>()
const host = ts.createCompilerHost(OPTIONS)
const readSourceFile = host.getSourceFile.bind(host)
host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
  if (!fileName.includes('/node_modules/')) return readSourceFile(fileName, languageVersion, onError, shouldCreate)
  const parsed = declarations.get(fileName) ?? readSourceFile(fileName, languageVersion, onError, shouldCreate)
  if (parsed !== undefined) declarations.set(fileName, parsed)
  return parsed
}

/** The TypeScript errors of a program of `files` (in `dir`), with the project's strict options, as `file(line): message`. */
function compileErrors (dir: string, files: string[]): string[] {
  const program = ts.createProgram(files.map((file) => join(dir, file)), OPTIONS, host)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file === undefined || diagnostic.start === undefined
      ? ''
      : `${diagnostic.file.fileName.slice(dir.length + 1)}(${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1}): `
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  })
}

test('the example app: its committed types are current (check --types exits 0), and two runs write the same bytes', async (t) => {
  const current = await cli(['check', exampleApp, '--types', committed])
  t.equal(current.code, 0, current.stderr)
  t.match(current.stdout, /api-types\.ts is current/)

  const app = await loadApp(exampleApp)
  t.teardown(() => app.close())
  const first = await typesModule(app)
  const second = await typesModule(app)
  t.equal(first, second, 'the same application gives the same text')
  t.equal(first, await readFile(committed, 'utf8'), 'the committed file is what types writes')
  t.match(first, /export type Version = '2002-01-01' \| '2001-01-01' \| '2000-01-01'/)
  // Components in sorted order since issue 35: the schema is found inside the version's block, wherever it is in it.
  t.match(first, /'2000-01-01': \{(?:\n {4,}.*)*?\n {4}UserCreateRequest: \{\n {6}address: string\n {4}\}/, 'Schemas: the 2000-01-01 form of a HEAD schema')
  t.match(first, /'GET \/users\/:userId': \{\n {6}params: \{\n {8}userId: string/, "Routes: by 'METHOD /path', with the request parts")
  t.match(first, /ReplaceUserAddressWithListOfAddresses: \{ older: '2000-01-01', newer: '2001-01-01' \}/, 'Changes: the two versions of a change')
  t.match(first, /HideInternalUserFields: \{ older: '2002-01-01', newer: 'HEAD' \}/, "HeadVersion's changes give HEAD")
})

test('types --out writes the file; check --types exits 1 on a stale or missing file, naming the command to run', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'api-types.ts')
  const written = await cli(['types', exampleApp, '--out', file])
  t.equal(written.code, 0, written.stderr)
  t.equal(await readFile(file, 'utf8'), await readFile(committed, 'utf8'))

  await writeFile(file, (await readFile(file, 'utf8')).replace('address: string\n', 'address: number\n'))
  const stale = await cli(['check', exampleApp, '--types', file])
  t.equal(stale.code, 1)
  t.match(stale.stderr, /api-types\.ts is stale; run fastify-versioner types <app> --out .*api-types\.ts and commit it/)

  const missing = await cli(['check', exampleApp, '--types', join(dir, 'none.ts')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /none\.ts is missing/)

  const both = await cli(['check', exampleApp, '--against', join(root, 'examples', 'users', 'openapi'), '--types', file])
  t.equal(both.code, 1, 'with --against too: the documents pass, the stale types fail the check')
  t.match(both.stdout, /no breaking change/)

  // A checkout with Windows line endings (git's core.autocrlf) holds the same types: it was reported stale.
  await writeFile(file, (await readFile(committed, 'utf8')).replaceAll('\n', '\r\n'))
  const crlf = await cli(['check', exampleApp, '--types', file])
  t.equal(crlf.code, 0, 'CRLF line endings: current')
  t.match(crlf.stdout, /api-types\.ts is current/)
  // A Windows editor's byte order mark: the same types too (it was reported stale).
  await writeFile(file, `\uFEFF${(await readFile(committed, 'utf8')).replaceAll('\n', '\r\n')}`)
  const bom = await cli(['check', exampleApp, '--types', file])
  t.equal(bom.code, 0, 'a byte order mark: current')
  t.match(bom.stdout, /api-types\.ts is current/)

  for (const [args, message] of [
    [['types', exampleApp], /types needs --out <file>/],
    [['verify', exampleApp, '--types', file], /--types applies to check only/],
    [['check', exampleApp, '--types', ''], /check needs --types <file>/],
    // A folder was Node's bare EISDIR (types), or 'missing' with a fix command that failed the same way (check).
    [['types', exampleApp, '--out', dir], /--out names the types file \(such as .*api-types\.ts\); .* is a folder/],
    [['check', exampleApp, '--types', dir], /--types names the types file \(such as .*api-types\.ts\); .* is a folder/],
    // A path through a file: an uncaught ENOTDIR and its stack (exit 1), before the app was even loaded.
    [['types', exampleApp, '--out', join(file, 'api-types.ts')], /^fastify-versioner: --out .*api-types\.ts\/api-types\.ts is inside .*api-types\.ts, which is a file, not a folder\.$/m],
    [['check', exampleApp, '--types', join(file, 'types', 'api-types.ts')], /^fastify-versioner: --types .* is inside .*api-types\.ts, which is a file, not a folder\.$/m]
  ] as const) {
    const refused = await cli([...args])
    t.equal(refused.code, 2, args.join(' '))
    t.match(refused.stderr, message)
  }
})

test('converters typed with the generated types: the compiler refuses a wrong field or type, accepts a correct converter', async (t) => {
  const dir = await scratch(t)
  await writeFile(join(dir, 'api-types.ts'), await readFile(committed, 'utf8'))
  // RequestInfo and ResponseInfo from their own module (the package exports them from it): it imports nothing, so
  // the program stays small.
  const info = literal(join(root, 'lib', 'describe', 'converter-info'))
  const converter = (body: string): string => `import type { RequestInfo, ResponseInfo } from ${info}
import type { Conversion, Routes, Schemas } from './api-types'
type Create = Conversion<'ReplaceUserAddressWithListOfAddresses', 'UserCreateRequest'>
type User = Conversion<'ReplaceUserAddressWithListOfAddresses', 'UserResource'>
export function up (request: RequestInfo<Create['older'], Create['newer']>): void {
${body}
}
export function down (response: ResponseInfo<User['newer'], User['older']>): void {
  const { addresses, ...rest } = response.body
  response.body = { ...rest, address: addresses[0] }
}
export type Old = Schemas['2000-01-01']['UserResource']
export type Created = Routes['2001-01-01']['POST /users']['responses'][200]
`
  const cases = {
    'correct.ts': '  const { address, ...rest } = request.body\n  request.body = { ...rest, addresses: [address] }',
    'reads-newer-field.ts': '  request.body = { addresses: request.body.addresses }',
    'writes-wrong-type.ts': '  request.body = { addresses: request.body.address }',
    'writes-older-body.ts': '  request.body = { address: request.body.address }',
    'changes-in-place.ts': "  request.body.address = 'changed'"
  }
  for (const [file, body] of Object.entries(cases)) await writeFile(join(dir, file), converter(body))
  // One program for every case (each file is a module of its own); its errors, by file.
  const errors = compileErrors(dir, Object.keys(cases))
  const of = (file: string): string => errors.filter((error) => error.startsWith(`${file}(`)).join('\n')
  t.equal(of('correct.ts'), '', 'a correct converter compiles, without casts or any')
  t.match(of('reads-newer-field.ts'), /Property 'addresses' does not exist on type/, 'reading a field the older version lacks')
  t.match(of('writes-wrong-type.ts'), /Type 'string' is not assignable to type 'string\[\]'/, 'writing a wrong type into the newer version')
  t.match(of('writes-older-body.ts'), /'address' does not exist in type|Property 'addresses' is missing/, "assigning the older version's body")
  t.match(of('changes-in-place.ts'), /read-only property/, 'changing the read body in place')
  t.equal(errors.filter((error) => !Object.keys(cases).some((file) => error.startsWith(`${file}(`))).length, 0, 'no error elsewhere (api-types.ts, converter-info.ts)')
})

test('literal: any string prints as a single-quoted TypeScript literal that evaluates back to it', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (value) => {
    const printed = literal(value)
    // eslint-disable-next-line no-new-func
    return printed.startsWith("'") && new Function(`return ${printed}`)() === value
  }), { numRuns: 500 })
  t.pass('500 strings round-trip')
  t.equal(literal(3), '3')
  t.equal(literal(null), 'null')
})

test('printType: JSON Schema to TypeScript, keyword by keyword', async (t) => {
  const print = (schema: unknown): string => printType(schema, (name) => `Ref<'${name}'>`, '')
  t.equal(print({ type: 'string' }), 'string')
  t.equal(print({ type: 'integer' }), 'number')
  t.equal(print({ type: ['string', 'null'] }), 'string | null')
  t.equal(print({ enum: ['a', 'b', 1] }), "'a' | 'b' | 1")
  t.equal(print({ const: "it's" }), "'it\\'s'")
  t.equal(print({ anyOf: [{ type: 'string' }, { type: 'number' }] }), 'string | number')
  t.equal(print({ allOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] }), "Ref<'A'> & Ref<'B'>")
  t.equal(print({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), 'Array<string | number>')
  // Members past minItems are optional (JSON Schema accepts [] for prefixItems alone): '[string, number]' before.
  t.equal(print({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false }), '[string?, number?]')
  t.equal(print({ type: 'array', prefixItems: [{ type: 'string' }, { type: ['number', 'null'] }], items: false, minItems: 1 }), '[string, (number | null)?]')
  t.equal(print({ type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' }, minItems: 1 }), '[string, ...Array<boolean>]')
  t.equal(print({ type: 'object', properties: { 'x-id': { type: 'string' }, n: { type: 'number', description: 'A number.', deprecated: true } }, required: ['x-id'] }),
    "{\n  'x-id': string\n  /**\n   * A number.\n   * @deprecated\n   */\n  n?: number\n}")
  t.equal(print({ type: 'object', additionalProperties: { type: 'boolean' } }), '{\n  [key: string]: boolean\n}')
  t.equal(print({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'], additionalProperties: { type: 'boolean' } }),
    '{\n  a: string\n  b?: number\n  [key: string]: boolean | string | number | undefined\n}', 'an index signature beside named properties admits them too')
  t.equal(print({ type: 'object', patternProperties: { '^x': { type: 'number' } } }), '{\n  [key: string]: unknown\n}', 'other keys than the pattern\'s hold anything')
  t.equal(print({ type: 'object', patternProperties: { '^x': { type: 'number' } }, additionalProperties: false }), '{\n  [key: string]: number\n}')
  t.equal(print({ type: 'object' }), 'Record<string, unknown>')
  t.equal(print({ type: 'object', additionalProperties: false }), 'Record<string, never>')
  t.equal(print({}), 'unknown')
  t.equal(print(true), 'unknown')
  t.equal(print(false), 'never')
  t.equal(print({ description: '*/ closes a comment', type: 'object', properties: { a: { description: 'ends */ here', type: 'string' } } }),
    '{\n  /** ends *\\/ here */\n  a?: string\n}', 'a description cannot close its comment early')
  let deep: unknown = { type: 'string' }
  for (let level = 0; level < 300; level++) deep = { type: 'array', items: deep }
  t.throws(() => print(deep), { code: 'FST_VERSIONER_TOOL', message: /nests more than 256 levels/ })
})

/** A module of an app whose schemas have unusual `$id`s (`X%41Y`, `a~b`, `https://example.com/s/y.json`), `inner` with or without `extra`. */
async function unusualIdsApp (dir: string, extra: boolean): Promise<string> {
  const file = join(dir, `unusual-${extra ? 'extra' : 'plain'}.ts`)
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${literal(join(root, 'plugin'))}
const Percent = Type.Object({ n: Type.Integer()${extra ? ', extra: Type.String()' : ''} }, { $id: 'X%41Y' })
const Tilde = Type.Object({ s: Type.String() }, { $id: 'a~b' })
const Urn = Type.Object({ inner: Percent, list: Type.Array(Tilde) }, { $id: 'https://example.com/s/y.json' })
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/things', { schema: { response: { 200: Urn } } }, async () => ({ inner: { n: 1, extra: 'e' }, list: [] }))
    api.post('/percent', { schema: { body: Percent, response: { 200: Tilde } } }, async () => ({ s: 'x' }))
  }))
  return app
}
`)
  return file
}

test('unusual $ids (X%41Y, a~b, a URL): valid component names whose $refs resolve, types that compile, check --types seeing them stale', async (t) => {
  const dir = await scratch(t)
  const app = await loadApp(await unusualIdsApp(dir, false))
  t.teardown(() => app.close())
  const document = app.versioner.openapi('2000-01-01') as { components: { schemas: Record<string, unknown> } }
  t.same(Object.keys(document.components.schemas).sort(), ['FastifyVersionerError', 'X_41Y', 'a_b', 'https___example.com_s_y.json'], 'each character OpenAPI disallows becomes _')
  const SwaggerParser = (await import('@apidevtools/swagger-parser')).default
  const dereferenced = await SwaggerParser.dereference(structuredClone(document) as never) as unknown as Record<string, any>
  t.same(dereferenced.components.schemas['https___example.com_s_y.json'].properties.inner.required, ['n'], 'the $refs resolve')
  await t.resolves(SwaggerParser.validate(structuredClone(document) as never), 'a valid OpenAPI 3.1 document')

  const file = join(dir, 'api-types.ts')
  t.equal((await cli(['types', join(dir, 'unusual-plain.ts'), '--out', file])).code, 0)
  const types = await readFile(file, 'utf8')
  t.match(types, /inner: Schemas\['2000-01-01'\]\['X_41Y'\]/)
  await writeFile(join(dir, 'use.ts'), `import type { Routes, Schemas } from './api-types'
export const thing: Routes['2000-01-01']['GET /things']['responses'][200] = { inner: { n: 1 }, list: [{ s: 'x' }] }
export const percent: Schemas['2001-01-01']['X_41Y'] = { n: 2 }
// @ts-expect-error n is a number
export const wrong: Schemas['2001-01-01']['https___example.com_s_y.json'] = { inner: { n: 'one' }, list: [] }
`)
  t.same(compileErrors(dir, ['api-types.ts', 'use.ts']), [], 'the module and its use compile')
  t.equal((await cli(['check', join(dir, 'unusual-plain.ts'), '--types', file])).code, 0, 'current')
  const stale = await cli(['check', await unusualIdsApp(dir, true), '--types', file])
  t.equal(stale.code, 1, 'a field added to X%41Y: the types are stale')
  t.match(stale.stderr, /api-types\.ts is stale/)
})

test('two $ids that become one component name are refused at start-up, naming both', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'clash.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${literal(join(root, 'plugin'))}
const Slash = Type.Object({ a: Type.String() }, { $id: 'a/b' })
const Tilde = Type.Object({ b: Type.String() }, { $id: 'a~b' })
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/things', { schema: { response: { 200: Type.Object({ slash: Slash, tilde: Tilde }) } } }, async () => ({ slash: { a: 'a' }, tilde: { b: 'b' } }))
  }))
  return app
}
`)
  const result = await cli(['types', file, '--out', join(dir, 'types.ts')])
  t.equal(result.code, 1)
  t.match(result.stderr, "In version '2001-01-01', two different schemas would both be named 'a_b' (the schemas named 'a/b' and 'a~b' in HEAD) " +
    "(a component name holds only letters, digits, '.', '_' and '-': the other characters of 'a/b' and 'a~b' become '_'). " +
    'A version documents each name once: give one of them another $id.')
})

// TypeBox's Type.Tuple writes `items: [...]` with `additionalItems: false` (draft-07), which the document keeps: the
// types printed Array<unknown>, so a converter could write [1, 'a'] into a [string, number].
test('regression: a Type.Tuple prints as a tuple type, and the compiler refuses a wrong member', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'tuple.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${literal(join(root, 'plugin'))}
const Point = Type.Object({ at: Type.Tuple([Type.String(), Type.Number()]), tag: Type.Const(['x']) })
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/points', { schema: { body: Point, response: { 200: Point } } }, async (request) => request.body)
  }))
  return app
}
`)
  const app = await loadApp(file)
  t.teardown(() => app.close())
  const types = await typesModule(app)
  t.match(types, /at: \[string, number\]\n\s+tag: \['x'\]/)
  await writeFile(join(dir, 'api-types.ts'), types)
  await writeFile(join(dir, 'use.ts'), `import type { Routes } from './api-types'
type Body = Routes['2000-01-01']['POST /points']['body']
export const right: Body = { at: ['a', 1], tag: ['x'] }
// @ts-expect-error the first member is a string
export const swapped: Body = { at: [1, 'a'], tag: ['x'] }
// @ts-expect-error two members, no more
export const longer: Body = { at: ['a', 1, 2], tag: ['x'] }
`)
  t.same(compileErrors(dir, ['api-types.ts', 'use.ts']), [], 'the module compiles, and each wrong tuple is refused')
})

// An object with named properties and `additionalProperties: <schema>` printed its index signature `unknown`: a
// converter could write a list where the version's schema takes only numbers, and tsc accepted it. (The index
// signature admits the named properties' types too: TypeScript cannot refuse a string there beside a string field.)
test('regression: other keys beside named properties are typed by additionalProperties, and the compiler refuses a wrong one', async (t) => {
  const dir = await scratch(t)
  const Counts = { type: 'object', properties: { label: { type: 'string' }, note: { type: 'string' } }, required: ['label'], additionalProperties: { type: 'integer' } }
  await writeFile(join(dir, 'counts.ts'), `export type Counts = ${printType(Counts, (name) => name, '')}
export const right: Counts = { label: 'a', note: 'b', apples: 3 }
// @ts-expect-error another key holds a number
export const wrong: Counts = { label: 'a', apples: [3] }
`)
  t.same(compileErrors(dir, ['counts.ts']), [], 'the type compiles under strict, and a list in another key is refused')
})

// TypeBox's Type.Record(Type.String(), T) writes `patternProperties: { '^(.*)$': T }` (1.x: '^.*$') without
// `additionalProperties`, which a named schema a webhook carries keeps in the document: the printer read the keys the
// pattern leaves to anything, and typed every key `unknown`, so `{ counts: { a: 'x' } }` compiled where the version
// takes only integers. A pattern of every key types every key.
test('regression: a Type.Record of string keys types its values, and the compiler refuses a wrong one', async (t) => {
  const print = (schema: unknown): string => printType(schema, (name) => name, '')
  for (const pattern of ['^(.*)$', '^.*$', '.*', '', '^[\\s\\S]*$']) {
    t.equal(print({ type: 'object', patternProperties: { [pattern]: { type: 'integer' } } }), '{\n  [key: string]: number\n}', `'${pattern}' holds every key`)
  }
  for (const pattern of ['^(0|[1-9][0-9]*)$', '^$', '^x.*$']) {
    t.equal(print({ type: 'object', patternProperties: { [pattern]: { type: 'integer' } } }), '{\n  [key: string]: unknown\n}', `'${pattern}': the other keys hold anything`)
  }
  const dir = await scratch(t)
  const file = join(dir, 'record.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${literal(join(root, 'plugin'))}
const Stock = Type.Object({ counts: Type.Record(Type.String(), Type.Integer()), items: Type.Record(Type.String(), Type.Object({ sku: Type.String() })) }, { $id: 'Stock' })
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/stock', { schema: { body: Stock, response: { 200: Stock } } }, async (request) => request.body)
  }))
  app.versioner.webhooks.add({ name: 'stock.changed', body: Stock })
  return app
}
`)
  const app = await loadApp(file)
  t.teardown(() => app.close())
  const types = await typesModule(app)
  t.notMatch(types, /\[key: string\]: unknown/, 'no record of this app holds anything')
  await writeFile(join(dir, 'api-types.ts'), types)
  await writeFile(join(dir, 'use.ts'), `import type { Routes, Webhooks } from './api-types'
type Body = Routes['2000-01-01']['POST /stock']['body']
export const right: Body = { counts: { a: 1 }, items: { b: { sku: 'x' } } }
// @ts-expect-error counts are integers
export const text: Body = { counts: { a: 'x' }, items: {} }
// @ts-expect-error an item has a sku
export const empty: Body = { counts: {}, items: { b: {} } }
// @ts-expect-error the webhook's counts are integers too
export const sent: Webhooks['2000-01-01']['POST stock.changed'] = { counts: { a: [1] }, items: {} }
`)
  t.same(compileErrors(dir, ['api-types.ts', 'use.ts']), [], 'the module compiles, and each wrong value is refused')
})
