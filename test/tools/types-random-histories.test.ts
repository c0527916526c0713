/**
 * The generated types against random histories (test/helpers/random-histories.ts): for each version, values built from
 * its own document (each union member, optional fields present and absent, null where allowed) compile as its
 * `Schemas`, `Routes` and `Webhooks` types, and values its document refuses in a way types can see (a required field
 * missing, a value of another JSON type, the same place's value in another version: a renamed field, another literal)
 * fail to compile; and where one version lists two changes of one schema, each body the runtime feeds a converter compiles as
 * its `Conversion` side. One program for every history: tsc is slow.
 */
import { test } from 'tap'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import Ajv from 'ajv'
import ts from 'typescript'
import { scratch } from '../helpers/cli'
import { buildApp, gen, pool, randomHistory, rng, type History, type PoolItem } from '../helpers/random-histories'
import { typesModule } from '../../tools'
import { servedDocuments } from '../../lib/tools/export'
import { versionerStateOf } from '../../lib/tools/versioned-apis'
import { literal } from '../../lib/tools/type-printer'

type Schema = any
/**
 * Histories of two to four versions with renames, retypes, a moved path, webhooks; 17 names versions in the path. Two
 * keep the suite's time (4 cost about 24 CPU-s, most of it tsc); the hunt that wrote this ran 180 (seeds 1–180).
 */
const SEEDS = [8, 17]

function resolve (document: Schema, schema: Schema): Schema {
  while (schema?.$ref !== undefined) {
    let at = document
    for (const part of schema.$ref.slice(2).split('/')) at = at?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')]
    schema = at
  }
  return schema
}

/** A few valid values: each union member and literal, every optional field present and none, each field's variants. */
function variants (document: Schema, schema: Schema, depth = 0): unknown[] {
  const s = resolve(document, schema)
  if (s === true || s === undefined || depth > 8) return ['anything']
  if (s.const !== undefined) return [s.const]
  if (Array.isArray(s.enum)) return [...s.enum]
  if (s.anyOf ?? s.oneOf) return (s.anyOf ?? s.oneOf).flatMap((member: Schema) => variants(document, member, depth + 1)).slice(0, 16)
  const types: string[] = Array.isArray(s.type) ? s.type : [s.type ?? 'object']
  return types.flatMap((type) => {
    if (type === 'null') return [null]
    if (type === 'integer' || type === 'number') return [typeof s.minimum === 'number' ? s.minimum : 3]
    if (type === 'boolean') return [true, false]
    if (type === 'string') return [/^\^(\[0-9\]|\(0\|)/.test(s.pattern ?? '') ? '12' : (s.pattern ?? '').includes('\\|') ? 'a1|z2' : 'abc']
    if (type === 'array') return [[], ...variants(document, s.items, depth + 1).slice(0, 4).map((item) => [item])]
    const properties: Record<string, Schema> = s.properties ?? {}
    const each = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, variants(document, value, depth + 1)]))
    const full = Object.fromEntries(Object.keys(properties).map((key) => [key, each[key][0]]))
    const least = Object.fromEntries((s.required ?? []).map((key: string) => [key, each[key][0]]))
    const out: unknown[] = [full, least]
    for (const key of Object.keys(properties)) for (const value of each[key].slice(1)) out.push({ ...full, [key]: value })
    const others = s.patternProperties !== undefined ? Object.values(s.patternProperties)[0] : typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined
    if (others !== undefined) for (const value of variants(document, others, depth + 1).slice(0, 3)) out.push({ ...full, k1: value })
    return out.slice(0, 24)
  })
}

/** The schema as types see it: no patterns, bounds or formats; integers are numbers. */
function visible (schema: Schema): Schema {
  if (Array.isArray(schema)) return schema.map(visible)
  if (schema === null || typeof schema !== 'object') return schema
  const unseen = ['pattern', 'minimum', 'maximum', 'format', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default']
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !unseen.includes(key)).map(([key, value]) =>
    [key, key === 'type' ? JSON.parse(JSON.stringify(value).replace(/"integer"/g, '"number"')) : visible(value)]))
}

/**
 * Each field left out, and each leaf given another JSON type, anywhere in the value; where `base` is given, only in
 * the parts that differ from it (a variant of the first value is mutated where it varies).
 */
function mutations (value: unknown, base?: unknown, set: (changed: unknown) => unknown = (changed) => changed): unknown[] {
  if (value === null || typeof value !== 'object') return [set(typeof value === 'string' ? 123 : 'wrong')]
  const within = (key: string | number): unknown => (base as Record<string, unknown> | undefined)?.[key]
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => mutations(item, within(index), (changed) => set(value.map((old, at) => at === index ? changed : old))))
  }
  const object = value as Record<string, unknown>
  return Object.keys(object).filter((key) => base === undefined || !isDeepStrictEqual(object[key], within(key))).flatMap((key) => {
    const { [key]: _left, ...rest } = object
    return [set(rest), ...mutations(object[key], within(key), (changed) => set({ ...object, [key]: changed }))]
  })
}

/** The typed places of a version's document, by a key alike in every version: named schemas, route parts, webhooks. */
function places (version: string, document: Schema): Map<string, { type: string, schema: Schema }> {
  const V = literal(version)
  const out = new Map<string, { type: string, schema: Schema }>()
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) out.set(`schema ${name}`, { type: `Schemas[${V}][${literal(name)}]`, schema })
  for (const [path, item] of Object.entries<Schema>(document.paths ?? {})) {
    for (const method of ['get', 'post']) {
      const operation = item[method]
      if (operation === undefined) continue
      const route = `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, (_, name: string) => `:${name}`)}`
      const R = `Routes[${V}][${literal(route)}]`
      const parameters = (operation.parameters ?? []).map((parameter: Schema) => resolve(document, parameter))
      for (const [where, part] of [['path', 'params'], ['query', 'query'], ['header', 'headers']]) {
        const own = parameters.filter((parameter: Schema) => parameter.in === where)
        const schema = { type: 'object', properties: Object.fromEntries(own.map((p: Schema) => [p.name, p.schema])), required: own.filter((p: Schema) => p.required === true).map((p: Schema) => p.name) }
        if (own.length > 0) out.set(`${method} ${part}`, { type: `${R}[${literal(part)}]`, schema })
      }
      const body = resolve(document, operation.requestBody)?.content?.['application/json']?.schema
      if (body !== undefined) out.set(`${path} ${method} body`, { type: `NonNullable<${R}['body']>`, schema: body })
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const schema = resolve(document, response)?.content?.['application/json']?.schema
        if (schema !== undefined) out.set(`${path} ${method} ${status}`, { type: `${R}['responses'][${status}]`, schema })
      }
    }
  }
  for (const [name, item] of Object.entries<Schema>(document.webhooks ?? {})) {
    out.set(`webhook ${name}`, { type: `Webhooks[${V}][${literal(`POST ${name}`)}]`, schema: item.post.requestBody.content['application/json'].schema })
  }
  return out
}

test('random histories: values a version\'s document takes compile as its types, values it refuses do not', async (t) => {
  const dir = await scratch(t)
  const files: string[] = []
  const statements = new Map<string, string[]>()
  for (const seed of SEEDS) {
    const { app } = await buildApp(randomHistory(rng(seed)))
    await app.ready()
    const types = await typesModule(app)
    t.equal(await typesModule(app), types, `seed ${seed}: the same bytes twice`)
    const documents = new Map((await servedDocuments(app)).filter((served) => served.version !== 'unversioned')
      .map((served) => [served.version, JSON.parse(served.body.toString('utf8'))]))
    await app.close()
    await writeFile(join(dir, `types-${seed}.ts`), types)
    files.push(join(dir, `types-${seed}.ts`))
    const placesOf = new Map([...documents].map(([version, document]) => [version, places(version, document)]))
    for (const [version, document] of documents) {
      const ajv = new Ajv({ strict: false, logger: false })
      const lines = [`import type { Schemas, Routes, Webhooks } from './types-${seed}'`, 'export {}']
      for (const [key, { type, schema }] of placesOf.get(version) ?? []) {
        const takes = ajv.compile({ ...schema, components: document.components })
        const sees = ajv.compile({ ...visible(schema), components: visible(document.components) })
        const good = variants(document, schema)
        t.ok(good.every((value) => takes(value)), `seed ${seed} ${version} ${key}: the values made are valid`)
        const refused = new Set(good.flatMap((value, index) => mutations(value, index < 2 ? undefined : good[0])).map((value) => JSON.stringify(value)))
        for (const [other, its] of placesOf) {
          const there = its.get(key)
          if (other !== version && there !== undefined) for (const value of variants(documents.get(other), there.schema)) refused.add(JSON.stringify(value))
        }
        for (const value of good) lines.push(`const v${lines.length}: ${type} = ${JSON.stringify(value)}`)
        for (const text of [...refused].filter((text) => !sees(JSON.parse(text))).slice(0, 80)) lines.push(`// @ts-expect-error\nconst v${lines.length}: ${type} = ${text}`)
      }
      const file = join(dir, `use-${seed}-${version}.ts`)
      await writeFile(file, `${lines.join('\n')}\n`)
      files.push(file)
      statements.set(file, lines.join('\n').split('\n'))
    }
  }
  // skipLibCheck: TypeScript's own lib files are not what is tested (checking them cost 1.2 CPU-seconds); every file
  // of `files` is a .ts file, checked whole.
  const program = ts.createProgram(files, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, types: [], skipLibCheck: true })
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? 0
    return `${diagnostic.file?.fileName.slice(dir.length + 1)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')} ${statements.get(diagnostic.file?.fileName ?? '')?.[line + (diagnostic.code === 2578 ? 1 : 0)] ?? ''}`
  })
  t.same(errors.slice(0, 10), [], 'every valid value compiles, every refused one fails')
  t.ok([...statements.values()].flat().filter((line) => line.startsWith('// @ts-expect-error')).length > 1000, 'refused values were tried')
})

/**
 * Pool changes whose converters name Order or convert POST /orders by path (PayBy's request converter, NoteMemo's
 * response one; ShipString conflicts with ShipTo), two or three of which one version lists below.
 */
const ORDER_CHANGES = ['LinesItems', 'NoteMemo', 'TagsLabels', 'GridMatrix', 'ShipTo', 'PriorityNew', 'PayBy']
/** Three histories keep the suite's time (tsc); seeds 1–40 were run once: typed by the versions, each one failed. */
const SIDED_SEEDS = [4, 9, 23]

/** A random history with two or three of ORDER_CHANGES moved into one of its versions, listed in random order. */
function twoOnOrder (r: () => number): History {
  const h = randomHistory(r)
  const picked = ORDER_CHANGES.filter(() => r() < 0.4)
  for (const key of ORDER_CHANGES) if (picked.length < 2 && !picked.includes(key)) picked.push(key)
  const gone = [...picked, ...picked.flatMap((key) => pool.find((item) => item.key === key)?.conflicts ?? [])]
  const versions = h.versions.map((version) => ({ ...version, changes: version.changes.filter((key) => !gone.includes(key)) }))
  const released = versions.filter((version) => version.value !== 'head')
  if (released.length === 0) {
    const added = { value: '2003-01-01', changes: [] as string[] }
    versions.push(added)
    released.push(added)
  }
  const into = released[Math.floor(r() * released.length)]
  into.changes.push(...picked)
  into.changes.sort(() => r() - 0.5)
  return { ...h, versions: versions.filter((version) => version.changes.length > 0) }
}

test('random histories with two changes of one version on Order: each body the runtime feeds a converter is assignable to its Conversion or RouteConversion side', async (t) => {
  const dir = await scratch(t)
  const files: string[] = []
  const lines = new Map<string, string[]>()
  let pathFed = 0
  for (const seed of SIDED_SEEDS) {
    const r = rng(seed)
    const history = twoOnOrder(r)
    // Every converter method records the body it is given (the reader takes the methods from an instance later).
    const fed: Array<{ change: string, method: string, body: unknown, status?: number }> = []
    const recording: PoolItem[] = pool.map((item) => ({
      ...item,
      make: (...args) => {
        const made = item.make(...args)
        for (const method of Object.getOwnPropertyNames(made.prototype).filter((name) => name !== 'constructor')) {
          const run = made.prototype[method] as (info: { body: unknown, statusCode?: number }) => unknown
          made.prototype[method] = function (this: unknown, info: { body: unknown, statusCode?: number }) {
            fed.push({ change: made.name, method, body: structuredClone(info.body), status: info.statusCode })
            return run.call(this, info)
          }
        }
        return made
      }
    }))
    const { app } = await buildApp(history, recording)
    await app.ready()
    const types = await typesModule(app)
    const documents = new Map((await servedDocuments(app)).filter((served) => served.version !== 'unversioned')
      .map((served) => [served.version, JSON.parse(served.body.toString('utf8'))]))
    for (const [version, document] of documents) {
      // With versions in the path, the document's path names its parameter (`/{version}/orders`).
      const [, item] = Object.entries<Schema>(document.paths).find(([path]) => path.endsWith('/orders')) as [string, Schema]
      const schema = item.post.requestBody.content['application/json'].schema
      for (let i = 0; i < 3; i++) {
        const body = gen(document, schema, r) as Record<string, unknown>
        body.id = `o${i}`
        const res = await app.inject({ method: 'POST', url: history.location === 'path' ? `/${version}/orders` : '/orders', headers: { 'x-api-version': version }, payload: body })
        t.equal(res.statusCode, 201, `seed ${seed} ${version}: ${res.body}`)
      }
    }
    // Each recorded body, typed by the side of the change it was fed: a request converter reads `older`, a response converter `newer`.
    const state = versionerStateOf(app)
    let byPath = 0
    const values = [...documents.keys()]
    const source = [`import type { Conversion, RouteConversion } from './sided-${seed}'`, 'export {}']
    for (const { change, method, body, status } of fed) {
      const versionAt = state.steps.findIndex((step) => step.changes.some((each) => each.name === change))
      const converters = state.steps[versionAt].changes.find((each) => each.name === change)?.converters ?? []
      const converter = converters.find((each) => each.methodName === method)
      const older = values[versionAt]
      const newer = values[versionAt - 1]
      if (versionAt === 0 || older === undefined || converter === undefined) continue
      // A change's converters run as declared: one declared after another of its direction reads what that one wrote, no side of the change.
      const declaredAfter = converters.slice(0, converters.indexOf(converter)).some((each) => each.direction === converter.direction)
      if (converter.target.kind === 'path') {
        if (declaredAfter) continue
        // A by-path converter of POST /orders: a request one reads the older side's body, a response one the newer side's answer.
        const side = converter.direction === 'request' ? "['older']['body']" : `['newer']['responses'][${status ?? 0}]`
        source.push(`export const fed${source.length}: RouteConversion<${literal(change)}, ${literal(`POST ${history.location === 'path' ? '/:version' : ''}/orders`)}>${side} = ${JSON.stringify(body)}`)
        byPath++
        continue
      }
      for (const name of converter.target.schemas.map((target) => (target as { $id?: string }).$id)) {
        if (name === undefined || !(name in documents.get(older).components.schemas) || !(name in documents.get(newer).components.schemas)) continue
        source.push(`export const fed${source.length}: Conversion<${literal(change)}, ${literal(name)}>[${literal(converter.direction === 'request' ? 'older' : 'newer')}] = ${JSON.stringify(body)}`)
      }
    }
    await app.close()
    t.ok(source.length > 12, `seed ${seed}: converters of Order were fed (${source.length - 2}, ${byPath} by path)`)
    pathFed += byPath
    await writeFile(join(dir, `sided-${seed}.ts`), types)
    await writeFile(join(dir, `fed-${seed}.ts`), `${source.join('\n')}\n`)
    files.push(join(dir, `sided-${seed}.ts`), join(dir, `fed-${seed}.ts`))
    lines.set(join(dir, `fed-${seed}.ts`), source)
  }
  const program = ts.createProgram(files, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, types: [], skipLibCheck: true })
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? 0
    return `${diagnostic.file?.fileName.slice(dir.length + 1)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')} ${lines.get(diagnostic.file?.fileName ?? '')?.[line] ?? ''}`
  })
  t.same(errors.slice(0, 6), [], 'every body fed to a converter is assignable to its side')
  t.ok(pathFed > 0, `by-path converters were fed (${pathFed})`)
})
