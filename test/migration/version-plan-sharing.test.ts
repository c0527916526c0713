import { test } from 'tap'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import type { RouteOptions } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, enumeration, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type Instruction, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { buildBehaviour, hasWork, type VersionBehaviour } from '../../lib/routes/version-plan'
import { ConverterPlanner, type ConverterStep } from '../../lib/routes/converter-steps'
import { generationSteps } from '../../lib/describe/versions'
import type { RegisteredRoute } from '../../lib/routes/versioner-state'
import type { SchemaGeneration } from '../../lib/schemas/generation'
import { kVersionedRoute } from '../../lib/core/symbols'
import { versionedApp } from '../helpers/apps'

// Registration builds a route's newest behaviour, tells without planning them which versions after it do the same
// (from the seeds the route depends on: their requests hold HEAD data from the start), and builds every other
// behaviour on first use. Whatever the versions, every behaviour must be the one a full, fresh planning of that
// version gives, and every version registration knows to have nothing to do must have nothing to do in a fresh planning.

type Target = 'Address' | 'Person' | 'Report'
type ConverterKind = 'none' | 'request Person' | 'response Report' | 'response Address'

interface Step { edits: Array<{ target: Target, value: number }>, converter: ConverterKind }

const FIELD: Record<Target, string> = { Address: 'street', Person: 'name', Report: 'title' }

function schemas (): Record<Target, TSchema> {
  const Address = Type.Object({ street: Type.String({ maxLength: 10 }) }, { $id: 'Address' })
  const Person = Type.Object({ name: Type.String({ maxLength: 10 }), address: Address }, { $id: 'Person' })
  const Report = Type.Object({ title: Type.String({ maxLength: 10 }), lines: Type.Array(Type.String()) }, { $id: 'Report' })
  return { Address, Person, Report }
}

/** A fresh change class: its instructions, and one converter of the kind asked for (a converter that changes nothing). */
function change (name: string, instructions: Instruction[], kind: ConverterKind, heads: Record<Target, TSchema>): VersionChangeClass {
  const description = `${name}: test change.`
  if (kind === 'none') {
    class Plain extends VersionChange {
      description = description
      instructionsToMigrateToPreviousVersion = instructions
    }
    return Plain
  }
  const [direction, target] = kind.split(' ') as ['request' | 'response', Target]
  const convert = direction === 'request' ? ConvertRequestToNextVersionFor : ConvertResponseToPreviousVersionFor
  const field = FIELD[target]
  class WithConverter extends VersionChange {
    description = description
    instructionsToMigrateToPreviousVersion = instructions
    @convert(heads[target])
    convert (info: RequestInfo | ResponseInfo) { info.body[field] = String(info.body[field]) }
  }
  return WithConverter
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  edits: fc.uniqueArray(fc.record({ target: fc.constantFrom<Target>('Address', 'Person', 'Report'), value: fc.integer({ min: 11, max: 99 }) }),
    { selector: (edit) => edit.target, maxLength: 2 }),
  converter: fc.constantFrom<ConverterKind>('none', 'none', 'request Person', 'response Report', 'response Address')
})

const same = (a: readonly ConverterStep[] | undefined, b: readonly ConverterStep[] | undefined): boolean =>
  a !== undefined && b !== undefined && a.length === b.length && a.every((step, index) => step.converter === b[index].converter &&
    (step.findOccurrences === undefined) === (b[index].findOccurrences === undefined) && step.errorsOnly === b[index].errorsOnly)

/** The differences between a behaviour from registration and one planned from scratch. */
function differences (actual: VersionBehaviour, fresh: VersionBehaviour): string[] {
  const found: string[] = []
  const check = (name: string, ok: boolean): void => { if (!ok) found.push(name) }
  check('version', actual.version === fresh.version)
  check('level', actual.level === fresh.level)
  check('validate', actual.validate.length === fresh.validate.length &&
    actual.validate.every(([part, form], index) => part === fresh.validate[index][0] && form === fresh.validate[index][1]))
  check('cleaners', actual.cleaners.map(([part]) => part).join() === fresh.cleaners.map(([part]) => part).join())
  check('requestSteps', same(actual.requestSteps, fresh.requestSteps))
  check('responseSteps', [...fresh.responseSteps.keys()].join() === [...actual.responseSteps.keys()].join() &&
    [...fresh.responseSteps].every(([key, steps]) => same(actual.responseSteps.get(key), steps)))
  check('responseForms', [...fresh.responseForms].every(([key, form]) => actual.responseForms.get(key) === form) &&
    actual.responseForms.size === fresh.responseForms.size)
  check('ownSuccessSerializers', [...actual.ownSuccessSerializers].join() === [...fresh.ownSuccessSerializers].join())
  check('statusCode', actual.statusCode === fresh.statusCode)
  check('successWork', actual.successWork === fresh.successWork)
  check('errorWork', actual.errorWork === fresh.errorWork)
  check('rawSteps', same(actual.rawSteps, fresh.rawSteps))
  check('state', actual.state === fresh.state)
  check('hasWork', hasWork(actual) === hasWork(fresh))
  return found
}

test('every behaviour built on first use is the one a fresh planning gives; idle versions have nothing to do', async (t) => {
  let compared = 0
  let idle = 0
  await fc.assert(fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 7 }), fc.boolean(), async (steps, askOldestFirst) => {
    const heads = schemas()
    const current: Record<Target, number> = { Address: 10, Person: 10, Report: 10 }
    const versions = steps.map((step, index) => {
      const instructions = step.edits.filter((edit) => current[edit.target] !== edit.value).map((edit) => {
        current[edit.target] = edit.value
        return schema(heads[edit.target]).field(FIELD[edit.target]).had({ maxLength: edit.value })
      })
      return new Version(`2000-01-${String(30 - index).padStart(2, '0')}`, change(`Change${index}`, instructions, step.converter, heads))
    })
    const bundle = new VersionBundle(new HeadVersion(), ...versions, new Version('1999-01-01'))
    const routes: RouteOptions[] = []
    const app = await versionedApp(t, bundle, async (api) => {
      api.post('/people', { schema: { body: heads.Person, response: { 200: heads.Report } } }, async () => ({ title: 't', lines: [] }))
      api.get('/reports', { schema: { response: { 200: heads.Report, '4xx': Type.Object({ message: Type.String() }) } } }, async () => ({ title: 't', lines: [] }))
      api.get('/addresses', { schema: { response: { 200: Type.Object({ home: heads.Address }) } } }, async () => ({ home: { street: 's' } }))
      api.get('/health', async () => ({ ok: true }))
    }, { beforeRoutes: (instance) => { instance.addHook('onRoute', (route) => { routes.push(route) }) } })
    // Unused converters are a start-up error: the property is about plans, so such bundles are skipped.
    const ready = await app.ready().then(() => true, () => false)
    fc.pre(ready)
    const generation = (app.versioner.schemas as unknown as { generation: SchemaGeneration }).generation
    const planner = new ConverterPlanner(generation, generationSteps(bundle))
    const registered = new Set(routes.map((route) => (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute])
      .filter((route): route is RegisteredRoute => route !== undefined))
    for (const route of registered) {
      for (const version of route.headData) {
        const level = generation.levelOf(version)
        const fresh = buildBehaviour(route.head, { level, version }, route.nativeResponse, planner)
        idle++
        if (hasWork(fresh)) {
          t.fail(`${route.display} in ${version}: known to have nothing to do, but a fresh planning has work`)
          return false
        }
      }
      const versionValues = [...bundle.versionValues]
      for (const version of askOldestFirst ? versionValues.reverse() : versionValues) {
        const actual = route.behaviours.get(version)
        if (actual === undefined) continue
        const fresh = buildBehaviour(route.head, { level: actual.level, version }, route.nativeResponse, planner)
        const found = differences(actual, fresh)
        compared++
        if (found.length > 0) {
          t.fail(`${route.display} in ${version}: ${found.join(', ')} differ`)
          return false
        }
      }
    }
    return true
  }), { numRuns: 60 })
  t.ok(compared > 100, `${compared} behaviours compared`)
  t.ok(idle > 50, `${idle} versions known to have nothing to do checked`)
})

test('where HEAD writes other than JSON, and the guards of narrowed enums, are built once a HEAD schema (and level), not once a route (memory grew with both)', async (t) => {
  const heads = schemas()
  const Plan = Type.Union([Type.Literal('free'), Type.Literal('vip')], { $id: 'Plan' })
  const Account = Type.Object({ plan: Plan, owner: heads.Person }, { $id: 'Account' })
  class NoVip extends VersionChange {
    description = 'Plans had no vip.'
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).didntHave('vip')]
  }
  const versions = [1, 2].map((index) => new Version(`2000-01-0${4 - index}`, change(`Change${index}`, [schema(heads.Address).field('street').had({ maxLength: 10 + index })], 'none', heads)))
  const bundle = new VersionBundle(new HeadVersion(), ...versions, new Version('2000-01-01', NoVip), new Version('1999-01-01'))
  const routes: RouteOptions[] = []
  const app = await versionedApp(t, bundle, async (api) => {
    for (const path of ['/a', '/b', '/c']) api.get(path, { schema: { response: { 200: Account, 404: heads.Report } } }, async () => ({ plan: 'free', owner: { name: 'n', address: { street: 's' } } }))
  }, { beforeRoutes: (instance) => { instance.addHook('onRoute', (route) => { routes.push(route) }) } })
  await app.ready()
  const registered = new Set(routes.map((route) => (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute])
    .filter((route): route is RegisteredRoute => route !== undefined))
  const written = new Set<unknown>()
  const guards = new Set<unknown>()
  let behaviours = 0
  for (const route of registered) {
    for (const behaviour of route.behaviours.values()) {
      behaviours++
      for (const places of behaviour.responseWritten.values()) written.add(places)
      for (const list of behaviour.responseGuards.values()) guards.add(list)
    }
  }
  t.equal(behaviours, 3 * 4, 'three routes in four versions')
  t.equal(written.size, 2, 'one for Account, one for Report')
  t.equal(guards.size, 1, 'one for Account in 1999-01-01, the version without vip')
  const old = await app.inject({ url: '/a', headers: { 'x-api-version': '1999-01-01' } })
  t.equal(old.statusCode, 200, 'a value the version can express is served')
})
