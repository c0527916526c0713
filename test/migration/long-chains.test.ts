/**
 * A year of monthly releases (test/helpers/release-year.ts): a customers API whose fields are renamed twice, retyped,
 * removed and re-added with another type, made required, whose enum gains a member later renamed, whose nested schema
 * grows in the version its parent does, whose routes move twice and whose old path gets a new route. At each release,
 * what a team runs: the clients of every version, `export`, `check` against the previous release's snapshot; at the
 * last one `verify`, `types`, the changelog and the upgrade guide; and the edits to history `check` or start-up refuse.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { checkDocuments, exportDocuments, typesModule, verify } from '../../tools'
import { RELEASES, yearApp } from '../helpers/release-year'
import type { Teardown } from '../helpers/apps'
import type { UpgradeGuide } from '../../lib/docs/upgrade-guide'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

/** A create (variant 0) or full replace (variant 1) body as a client of release `k` writes it. */
function bodyOf (k: number, variant: 0 | 1): Record<string, unknown> {
  const body: Record<string, unknown> = {
    [k >= 3 ? 'displayName' : k >= 2 ? 'fullName' : 'name']: variant === 0 ? 'Ada' : 'Bea',
    plan: variant === 0 ? 'pro' : k === 4 ? 'team' : k >= 5 ? 'business' : 'free',
    address: { street: '1 Main St', ...(k >= 8 ? { city: 'Oslo' } : {}) }
  }
  if (k >= 2) body.email = 'ada@example.com'
  if (k >= 6) body[k >= 9 ? 'rating' : 'score'] = k >= 12 ? '7' : 7
  if (k >= 8) body.tags = variant === 0 ? [] : ['vip']
  if (k >= 9 && variant === 1) body.nickname = ['Bee']
  return body
}

/** What a client of release `k` sees of the application at release `n`: create, read, replace, list, errors, its webhook. */
async function session (t: Teardown, n: number, k: number): Promise<unknown[]> {
  const app = await yearApp(t, n)
  await app.ready()
  const headers = { 'x-api-version': RELEASES[k - 1] }
  const answers = [
    await app.inject({ method: 'POST', url: '/customers', headers, payload: bodyOf(k, 0) }),
    await app.inject({ url: '/customers/c1', headers }),
    await app.inject({ method: 'PUT', url: '/customers/c1', headers, payload: bodyOf(k, 1) }),
    await app.inject({ url: '/customers', headers }),
    await app.inject({ url: '/customers/none', headers }),
    await app.inject({ method: 'PUT', url: '/customers/none', headers, payload: bodyOf(k, 1) })
  ]
  const stored = (await app.inject({ url: '/customers/c1', headers: { 'x-api-version': RELEASES[n - 1] } })).json()
  const webhook = await app.versioner.webhooks.render('customer.created', stored, { subscribers: [{ id: 's', version: RELEASES[k - 1], secret: SECRET }] })
  await app.close()
  return [...answers.map((answer) => [answer.statusCode, answer.body]), webhook.deliveries.map((delivery) => JSON.parse(delivery.body)), webhook.failed.length]
}

test('a client of each version sees after twelve releases exactly what it saw when its version was the newest', async (t) => {
  for (let k = 1; k <= RELEASES.length; k++) {
    t.same(await session(t, RELEASES.length, k), await session(t, k, k), `a client of ${RELEASES[k - 1]}: the same answers at release 12 as at its own`)
  }
})

test('release by release, check against the previous release\'s snapshot finds no break; verify, types and documents at the last', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'versioner-year-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  let last: FastifyInstance | undefined
  for (let n = 1; n <= RELEASES.length; n++) {
    const app = await yearApp(t, n)
    await app.ready()
    if (n > 1) {
      const { breaks, compared } = await checkDocuments(app, join(dir, String(n - 1)))
      t.same(breaks.map((change) => change.text), [], `release ${n}: no break of the ${n - 1} released versions`)
      t.equal(compared.length, n, `release ${n}: every saved version compared`)
    }
    await exportDocuments(app, join(dir, String(n)))
    last = app
  }
  const app = last as FastifyInstance
  const findings = await verify(app, { examples: 20 })
  t.same(findings.map((finding) => finding.text), [], 'verify: every version migrates cleanly')
  const types = await typesModule(app)
  t.match(types, /'2025-01-01': \{\n {4}Address: \{\n {6}street: string\n {4}\}/, 'the oldest version\'s types: an address without a city')
  t.match(types, /name: string\n {6}plan: 'free' \| 'pro'\n/, 'the oldest version\'s name and plans')
})

test('the changelog and the upgrade guide across twelve versions: every change once, in order, each where it belongs', async (t) => {
  const app = await yearApp(t, RELEASES.length)
  await app.ready()
  const changelog = app.versioner.changelog()
  t.same(changelog.versions.map((version) => version.value), RELEASES.slice(1).reverse(), 'newest first, the oldest without changes left out')
  for (const version of changelog.versions) {
    t.same(version.changes.map((change) => change.description.split(':')[0]), [`R${Number(version.value.slice(5, 7))}`], `${version.value}: its own change only`)
  }
  const guide = (await app.inject(`/docs/upgrade?from=${RELEASES[0]}&to=${RELEASES[11]}&format=json`)).json<UpgradeGuide>()
  t.same(guide.changes.map((change) => change.version), RELEASES.slice(1), 'the guide: every change, oldest first')
  const team = guide.changes[2]
  t.same(team.examples.map((example) => example.shows), ['the enum value "team", which 2025-03-01 lacks'].flatMap((shows) => Array(team.examples.length).fill(shows)),
    'the plan added in R4 and renamed in R5 is shown as R4 named it')
  t.ok(team.examples.length > 0)
  t.match(team.examples.find((example) => example.operation === 'GET /customers/{id}'), { before: { plan: 'pro' }, after: { plan: 'team' } })
})

test('edits to released history: check refuses a change moved or a version removed, start-up refuses dates out of order', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'versioner-history-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const released = await yearApp(t, RELEASES.length)
  await released.ready()
  await exportDocuments(released, dir)
  const moved = await yearApp(t, RELEASES.length, {
    edit: (versions) => versions.map(([date, changes]) => [date, date === '2025-04-01' ? [...changes, ...versions[9][1]] : date === '2025-03-01' ? [] : changes])
  })
  await moved.ready()
  t.match((await checkDocuments(moved, dir)).breaks.map((change) => change.text), ['2025-03-01 GET /customers: response 200 /data/*/displayName: renamed to fullName'],
    'R3 moved from 2025-03-01 to 2025-04-01: 2025-03-01 changed')
  const removed = await yearApp(t, RELEASES.length, { edit: (versions) => versions.filter(([date]) => date !== '2025-06-01') })
  await removed.ready()
  t.ok((await checkDocuments(removed, dir)).breaks.some((change) => change.text === '2025-06-01: version removed'), 'a version removed from the middle')
  await t.rejects(yearApp(t, RELEASES.length, { edit: (versions) => [versions[0], versions[2], versions[1], ...versions.slice(3)] }), { code: 'FST_VERSIONER_STRUCTURE' })
})
