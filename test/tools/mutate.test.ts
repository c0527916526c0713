// `fastify-versioner mutate <app> [--traffic <file>] [--min-score N]`: the converters of the example apps mutated by
// their effect on bodies (skipped, a field dropped, a value reverted, a string truncated, a number rounded, a mapping
// swapped); the share verify and the replayed traffic kill, the survivors, the equivalent mutants left out.
import { test } from 'tap'
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { recordTraffic } from '../../examples/traffic'
import { buildBillingApp } from '../../examples/billing/app'
import { mutateConverters, readTraffic } from '../../tools'
import { inProcess, scratch } from '../helpers/cli'

const USERS = resolve(__dirname, '..', '..', 'examples', 'users', 'app.ts')

test('mutate: on the users example verify alone lets two truncated strings survive, below --min-score; recorded traffic kills them', async (t) => {
  const alone = await inProcess(['mutate', USERS, '--min-score', '95'])
  t.equal(alone.code, 1)
  t.match(alone.stdout, /^survivor: MoveUserAddressesToTheirOwnEndpoint \(2002-01-01\) MoveUserAddressesToTheirOwnEndpoint\.addressesToDefaultAddress: string truncated at body\/defaultAddress$/m)
  t.match(alone.stdout, /^survivor: ReplaceUserAddressWithListOfAddresses \(2001-01-01\) ReplaceUserAddressWithListOfAddresses\.addressesToSingleItem: string truncated at body\/address$/m)
  t.match(alone.stdout, /^mutate: score 81\.8 % \(9 of 11 mutants killed: verify 9, replay 0; 0 equivalent, left out\) in [\d.]+ s\.$/m)
  t.match(alone.stderr, 'mutate: the score 81.8 % is below --min-score 95.')

  const dir = await scratch(t)
  const file = join(dir, 'users.ndjson')
  await writeFile(file, `${(await recordTraffic('users', 6)).join('\n')}\n`)
  const withTraffic = await inProcess(['mutate', USERS, '--traffic', file, '--min-score', '95'])
  t.equal(withTraffic.code, 0, withTraffic.stdout)
  t.match(withTraffic.stdout, /^mutate: score 100 % \(11 of 11 mutants killed: verify \d+, replay \d+; 0 equivalent, left out\)/m)
  t.notMatch(withTraffic.stdout, /survivor:/)
})

test('mutate: the billing example gets every kind of mutant; a rounding converter rounded again is equivalent and left out; with traffic at least 95 % are killed', async (t) => {
  const app = await buildBillingApp()
  t.teardown(() => app.close())
  await app.ready()
  const traffic = readTraffic((await recordTraffic('billing', 10)).join('\n'))
  const report = await mutateConverters(app, { traffic: traffic.exchanges, examples: 5 })
  t.same(new Set(report.mutants.map((mutant) => mutant.operator)), new Set(['skipped', 'field dropped', 'value reverted', 'string truncated', 'number rounded', 'mapping swapped']))
  t.same(report.mutants.filter((mutant) => mutant.verdict === 'equivalent').map((mutant) => mutant.description), ['AmountsInCents.unitAmountToCents: number rounded at body/unitAmount'])
  const swapped = report.mutants.find((mutant) => mutant.description === 'AddUncollectibleAndRefundedInvoices.newStatusesAsOldOnes: mapping swapped at body/status')
  t.equal(swapped?.verdict, 'killed')
  t.equal(swapped?.killedBy, 'replay', 'verify cannot tell which old member is right; the recorded answers can')
  t.ok((report.score ?? 0) >= 95, `score ${String(report.score)} %`)
  t.equal(report.killed + report.survived + report.equivalent, report.mutants.length)
  t.same(report.baseline, { verify: 0, replay: 0 })

  const alone = await mutateConverters(app, { examples: 5 })
  t.same(alone.mutants.filter((mutant) => mutant.verdict === 'survived').map((mutant) => mutant.description).sort(), [
    'AddUncollectibleAndRefundedInvoices.newStatusesAsOldOnes: mapping swapped at body/status'
  ], 'without traffic, what the corpus of mistakes misses too (docs/ci-check-and-verify.md)')
})

test('mutate: recorded webhook renders are rendered again by each mutant of the event\'s converters, and kill it where the subscribers received otherwise', async (t) => {
  const app = await buildBillingApp()
  t.teardown(() => app.close())
  await app.ready()
  const traffic = readTraffic((await recordTraffic('billing', 2, {}, { subscribers: true })).join('\n'))
  t.ok(traffic.deliveries.length > 0, 'the recording holds renders')
  const report = await mutateConverters(app, { deliveries: traffic.deliveries, examples: 5 })
  t.same(report.baseline, { verify: 0, replay: 0 }, 'the converters as they are render what was recorded')
  const rounded = report.mutants.find((mutant) => mutant.description === 'AmountsInCents.totalFromCents: number rounded at body/total')
  t.equal(rounded?.killedBy, 'replay')
  t.match(rounded?.detail, /webhook invoice\.paid \(2023-10-16\): delivery body\/data\/object\/total: the subscribers received 19\.99, the converters now give 20;/)
})

test('regression: survivors print in the same order on every machine (they followed the locale: Estonian sorts Z before T)', async (t) => {
  // The users example with its two version changes renamed so that code points and Estonian collation disagree.
  const dir = await scratch(t)
  const examples = resolve(__dirname, '..', '..', 'examples', 'users')
  for (const file of ['app.ts', 'schemas.ts', 'versions.ts']) {
    const text = (await readFile(join(examples, file), 'utf8')).replaceAll("'../../plugin'", JSON.stringify(resolve(__dirname, '..', '..', 'plugin')))
      .replaceAll('MoveUserAddressesToTheirOwnEndpoint', 'TakeAddressesToTheirOwnEndpoint').replaceAll('ReplaceUserAddressWithListOfAddresses', 'ZipAddressesIntoAList')
    await writeFile(join(dir, file), text)
  }
  const tsx = resolve(__dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')
  const bin = resolve(__dirname, '..', '..', 'lib', 'tools', 'bin.ts')
  const survivors = async (locale: string): Promise<string[]> => await new Promise((resolve) => {
    const env = { ...process.env, LANG: locale, LC_ALL: locale, NO_COLOR: '1', _TAPJS_PROCESSINFO_COVERAGE_: '0' }
    execFile(process.execPath, ['--import', tsx, bin, 'mutate', join(dir, 'app.ts')], { env, timeout: 120_000 }, (_, stdout) => {
      resolve(stdout.split('\n').filter((line) => line.startsWith('survivor: ')).map((line) => line.split(' ')[1]))
    })
  })
  const expected = ['TakeAddressesToTheirOwnEndpoint', 'ZipAddressesIntoAList']
  t.same(await survivors('C.UTF-8'), expected)
  t.same(await survivors('et_EE.UTF-8'), expected, 'the order of the code points, not of the machine\'s language')
})

test('regression: mutateConverters refuses an examples option of 0 or NaN with FST_VERSIONER_TOOL (it mutated with a few boundary examples)', async (t) => {
  const app = await buildBillingApp()
  t.teardown(() => app.close())
  await app.ready()
  for (const examples of [0, Number.NaN]) {
    await t.rejects(mutateConverters(app, { examples }), { code: 'FST_VERSIONER_TOOL', message: `The examples option of mutateConverters must be a whole number of 1 or more (examples per route, version, direction and part); got ${examples}.` })
  }
  await t.rejects(mutateConverters(app, { seed: Number.NaN }), { code: 'FST_VERSIONER_TOOL', message: 'The seed option of mutateConverters must be a whole number; got NaN.' })
})

test('regression: mutate on an app whose version changes have no converter says there is none to mutate (it said every mutant is equivalent, of 0)', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'app.cjs')
  await writeFile(file, `const Fastify = require(${JSON.stringify(require.resolve('fastify'))})
const { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, endpoint } = require(${JSON.stringify(resolve(__dirname, '..', '..', 'plugin.ts'))})
class AddReports extends VersionChange {
  description = 'GET /reports is new.'
  instructionsToMigrateToPreviousVersion = [endpoint('/reports', ['GET']).didntExist]
}
module.exports = async () => {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', AddReports), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => { api.get('/reports', async () => ({ ok: true })) }))
  return app
}
`)
  const result = await inProcess(['mutate', file, '--examples', '2'])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stderr, '')
  t.match(result.stdout, /^mutate: no score \(no converter to mutate\) \(0 of 0 mutants killed: verify 0, replay 0; 0 equivalent, left out\) in [\d.]+ s\.$/m)
})

test('regression: mutateConverters given readTraffic\'s answer or the file\'s text as its traffic rejects with FST_VERSIONER_TOOL (a bare TypeError)', async (t) => {
  const app = await buildBillingApp()
  t.teardown(() => app.close())
  await app.ready()
  const text = (await recordTraffic('billing', 1)).join('\n')
  await t.rejects(mutateConverters(app, { traffic: readTraffic(text) as never }), { code: 'FST_VERSIONER_TOOL', message: 'The traffic option of mutateConverters takes readTraffic(text).exchanges (a list); got an object.' })
  await t.rejects(mutateConverters(app, { traffic: text as never }), { code: 'FST_VERSIONER_TOOL', message: /^The traffic option of mutateConverters takes .* got a string \(the file's text\?\)\.$/ })
  await t.rejects(mutateConverters(app, { deliveries: readTraffic(text) as never }), { code: 'FST_VERSIONER_TOOL', message: 'The deliveries option of mutateConverters takes readTraffic(text).deliveries (a list); got an object.' })
})

test('regression: mutate --traffic of an empty file says the score is verify\'s alone (it said nothing: the traffic seemed to take part)', async (t) => {
  const dir = await scratch(t)
  const empty = join(dir, 'empty.ndjson')
  await writeFile(empty, '')
  const result = await inProcess(['mutate', USERS, '--traffic', empty, '--examples', '2'])
  t.equal(result.code, 0, 'a note: the score stands on verify')
  t.equal(result.stderr, `note: ${empty} holds no exchange or webhook render: the score is verify's alone; record traffic with the captureExchanges option and point --traffic at it.\n`)
  t.match(result.stdout, /^mutate: score [\d.]+ % \(\d+ of \d+ mutants killed: verify \d+, replay 0;/m)
})
