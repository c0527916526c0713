/**
 * What `ready()` does for an API grown by many versions over many routes, counted (never timed): work that grows with
 * the routes times the schemas the versions change is work a deploy or a cold start pays for nothing
 * (`BENCH_STARTUP=shared npm run bench -- startup` measures the time).
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import ajvCompiler from '@fastify/ajv-compiler'
import serializerCompiler from '@fastify/fast-json-stringify-compiler'
import * as jsonSchema from '../../lib/core/json-schema'
import { HeadVersion, schema, Version, VersionBundle } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { recordWarnings } from '../helpers/changelog-lifecycle'
import { changeClass } from '../helpers/version-changes'

/** Counts the calls of one function of `lib/core/json-schema.ts` while `work` runs (the lib's modules call it through the module). */
async function callsOf (name: 'propertiesOf', work: () => Promise<unknown>): Promise<number> {
  const module = jsonSchema as { propertiesOf: typeof jsonSchema.propertiesOf }
  const original = module[name]
  let calls = 0
  module[name] = (...args) => { calls++; return original(...args) }
  try {
    await work()
  } finally {
    module[name] = original
  }
  return calls
}

/**
 * `resources` resources, each a `GET /r<k>/:id` (params `{ id }`) and a `POST /r<k>` (a body and a response of the
 * same fields, each its own schema), over `versions` versions: each version change renames the `name` of one resource's
 * body and response.
 */
async function app (t: Teardown, resources: number, versions: number, fastify: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const fields = () => ({ id: Type.String(), name: Type.String(), email: Type.String({ maxLength: 200 }), tags: Type.Array(Type.String()) })
  const pairs = Array.from({ length: resources }, (_, k) => ({ body: Type.Object(fields(), { $id: `Body${k}` }), response: Type.Object(fields(), { $id: `Thing${k}` }) }))
  const current = pairs.map(() => 'name')
  const bundle = new VersionBundle(new HeadVersion(), ...Array.from({ length: versions }, (_, index) => {
    const date = `20${String(40 - index).padStart(2, '0')}-01-01`
    if (index === versions - 1) return new Version(date)
    const k = index % resources
    const [newer, older] = [current[k], `name${index}`]
    current[k] = older
    return new Version(date, changeClass(`Rename${index}`, [pairs[k].body, pairs[k].response].map((target) => schema(target).field(newer as 'name').had({ name: older }))))
  }))
  const thing = { id: '1', name: 'n', email: 'e', tags: [] }
  return await versionedApp(t, bundle, async (api) => {
    pairs.forEach(({ body, response }, k) => {
      api.get(`/r${k}/:id`, { schema: { params: Type.Object({ id: Type.String() }), response: { 200: response } } }, async () => thing)
      api.post(`/r${k}`, { schema: { body, response: { 200: response } } }, async () => thing)
    })
  }, { fastify })
}

test('regression: the check for copies of changed schemas (FSTVRS003) listed the fields of every changed schema once per object schema of the app; it lists them only for a likely copy', async (t) => {
  const warnings = recordWarnings(t)
  const at = async (resources: number, versions: number): Promise<number> => {
    return await callsOf('propertiesOf', async () => { await (await app(t, resources, versions)).ready() })
  }
  const [small, moreRoutes, moreVersions] = [await at(10, 10), await at(40, 10), await at(10, 40)]
  // Before: once per (object schema, renamed schema) pair, 246 → 1,956 calls for 4× the routes.
  t.ok(moreRoutes <= small * 4, `4× the routes: ${small} → ${moreRoutes} calls`)
  t.ok(moreVersions <= small * 4, `4× the versions: ${small} → ${moreVersions} calls`)
  t.strictSame(warnings.filter((warning) => warning.code === 'FSTVRS003'), [], 'look-alike schemas written by hand are no copies')
})

test('ready() compiles the validators and serializers of HEAD\'s routes once, whatever the versions: older versions compile theirs on first use', async (t) => {
  const compiled = async (versions: number): Promise<[number, number]> => {
    const counts: [number, number] = [0, 0]
    const counting = <T extends (...args: any[]) => (route: any) => unknown>(factory: T, index: 0 | 1): T =>
      ((...args: Parameters<T>) => { const compile = factory(...args); return (route: unknown) => { counts[index]++; return compile(route) } }) as T
    const compilersFactory = { buildValidator: counting(ajvCompiler(), 0), buildSerializer: counting(serializerCompiler(), 1) }
    await (await app(t, 10, versions, { schemaController: { compilersFactory } })).ready()
    return counts
  }
  const [few, many] = [await compiled(3), await compiled(30)]
  t.strictSame(many, few, `validators and serializers at 3 and at 30 versions: ${few.join(' and ')}`)
  t.ok(few[0] >= 20 && few[1] >= 20, 'every HEAD route\'s own')
})
