// An old client's answer never changes another's: the objects a handler hands to every request (a cached record, a
// store's row) reach response converters as a copy, whatever the order in which versions read them (decision 0313).
import { test } from 'tap'
import fc from 'fast-check'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, type ResponseInfo } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'

const Plan = Type.Object({ tier: Type.String(), seats: Type.Integer() })
const Account = Type.Object({ id: Type.String(), plan: Plan, tags: Type.Array(Type.String()) })

class TierWasName extends VersionChange {
  description = "A plan's tier was its name."
  instructionsToMigrateToPreviousVersion = [schema(Plan).field('tier').had({ name: 'name' })]

  @ConvertResponseToPreviousVersionFor(Plan)
  tierToName (response: ResponseInfo) {
    // In place, on the object the converter was given.
    response.body.name = response.body.tier
    delete response.body.tier
  }
}

class SeatsWereText extends VersionChange {
  description = 'Seats were text; every account was tagged legacy.'
  instructionsToMigrateToPreviousVersion = [schema(Plan).field('seats').had({ type: Type.String() })]

  @ConvertResponseToPreviousVersionFor(Account)
  seatsToText (response: ResponseInfo) {
    response.body.plan.seats = String(response.body.plan.seats)
    response.body.tags.push('legacy')
    response.body.tags.sort()
  }
}

const VERSIONS = ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'] as const

function bundle (): VersionBundle {
  return new VersionBundle(new Version('2003-01-01'), new Version('2002-01-01', SeatsWereText), new Version('2001-01-01', TierWasName), new Version('2000-01-01'))
}

test("a handler's cached record read by versions in any order: each answer is its version's alone, and the store is unchanged", async (t) => {
  const store = new Map([['a1', { id: 'a1', plan: { tier: 'team', seats: 5 }, tags: ['beta', 'admin'] }]])
  const snapshot = JSON.stringify([...store])
  // Each version's answer from an app of its own that served nothing before.
  const alone = new Map<string, unknown>()
  for (const version of VERSIONS) {
    const fresh = await versionedApp(t, bundle(), async (api) => {
      api.get('/accounts/a1', { schema: { response: { 200: Account } } }, async () => structuredClone(store.get('a1')))
    })
    alone.set(version, jsonOf(await call(fresh, version, '/accounts/a1')))
  }
  t.same(alone.get('2000-01-01'), { id: 'a1', plan: { name: 'team', seats: '5' }, tags: ['admin', 'beta', 'legacy'] }, 'the oldest version reads the old shape')

  const app = await versionedApp(t, bundle(), async (api) => {
    // The same object to every request, as a cache gives it.
    api.get('/accounts/a1', { schema: { response: { 200: Account } } }, async () => store.get('a1'))
  })
  await fc.assert(fc.asyncProperty(fc.array(fc.constantFrom(...VERSIONS), { minLength: 1, maxLength: 8 }), async (order) => {
    for (const version of order) {
      const answer = await call(app, version, '/accounts/a1')
      if (answer.statusCode !== 200) return false
      if (JSON.stringify(jsonOf(answer)) !== JSON.stringify(alone.get(version))) return false
    }
    return JSON.stringify([...store]) === snapshot
  }), { numRuns: 30, seed: 313 })
  t.equal(JSON.stringify([...store]), snapshot, "the store's record, nested plan and tags included, is as the handler wrote it")
})
