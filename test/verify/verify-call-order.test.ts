/**
 * What `verify` finds does not depend on what the application did before in the same process, and a verify run
 * changes nothing the application serves: a team's CI exports or checks the documents before verifying in one script,
 * a test or a plugin builds `app.versioner.openapi()` at `ready()`, a health check asks for a docs page, and a test
 * file verifies twice. For random version histories (test/helpers/random-histories.ts) and random orders of those
 * calls, the findings, the examples replayed and the parts unverified equal those of `verify` on a fresh application
 * of the same history, and the documents served after equal a fresh application's.
 */
import { deepStrictEqual } from 'node:assert'
import { test } from 'tap'
import fc from 'fast-check'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { checkDocuments, exportDocuments, servedDocuments, verify } from '../../tools'
import { buildApp, randomHistory, rng, type History } from '../helpers/random-histories'

const EXAMPLES = 8

/** What a team's process may do with the application before (or between) verify runs. */
type Call = 'openapi' | 'export' | 'check' | 'verify' | 'docs page'

/** What verify answered, as one comparable value. */
async function verified (app: FastifyInstance): Promise<unknown> {
  const findings = await verify(app, { examples: EXAMPLES, seed: 3 })
  return { findings: findings.map((finding) => finding.text), replayed: findings.replayed, unverified: findings.unverified.map((note) => note.text) }
}

/** Every document the application serves, as text. */
async function documents (app: FastifyInstance): Promise<string[]> {
  return (await servedDocuments(app)).map(({ version, body }) => `${version}: ${body.toString()}`)
}

/** A readied application of history `h`, or `undefined` when the history is refused at start-up (another test's concern). */
async function started (h: History): Promise<FastifyInstance | undefined> {
  const { app } = await buildApp(h)
  try {
    await app.ready()
    return app
  } catch {
    await app.close()
    return undefined
  }
}

async function call (app: FastifyInstance, what: Call, dir: string): Promise<void> {
  if (what === 'openapi') for (const version of app.versioner.versions.versionValues) app.versioner.openapi(version)
  if (what === 'export') await exportDocuments(app, dir)
  if (what === 'check') await checkDocuments(app, dir)
  if (what === 'verify') await verify(app, { examples: EXAMPLES, seed: 3 })
  if (what === 'docs page') await app.inject({ url: '/docs' })
}

test('verify finds the same after any calls of the documents, check or verify in one process, and changes no document', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'verify-order-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  let runs = 0
  const calls = fc.array(fc.constantFrom<Call>('openapi', 'export', 'check', 'verify', 'docs page'), { minLength: 1, maxLength: 3 })
  await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 1e6 }), calls, async (seed, before) => {
    const h = randomHistory(rng(seed))
    const fresh = await started(h)
    if (fresh === undefined) return
    let expected: unknown
    let served: string[]
    try {
      expected = await verified(fresh)
      // The snapshot check compares against, exported from an application that did nothing else.
      await exportDocuments(fresh, dir)
    } finally {
      await fresh.close()
    }
    const reference = await started(h)
    if (reference === undefined) throw new Error('the history started once and not twice')
    try {
      served = await documents(reference)
    } finally {
      await reference.close()
    }
    const app = await started(h)
    if (app === undefined) throw new Error('the history started once and not twice')
    try {
      for (const what of before) await call(app, what, dir)
      // Thrown, so that fast-check shrinks the history and the calls.
      deepStrictEqual(await verified(app), expected, `verify after ${before.join(', ')} finds what it finds on a fresh app`)
      deepStrictEqual(await documents(app), served, `the documents after ${before.join(', ')} and verify are a fresh app's`)
      runs++
    } finally {
      await app.close()
    }
  }), { numRuns: 10, seed: 20261201 })
  t.ok(runs >= 5, `${runs} histories started and compared`)
})
