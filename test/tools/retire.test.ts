// `fastify-versioner retire`: what retiring a version and every older one removes, the app built again without
// them and proven by check and verify, and the refusals (sunsetAt not passed, traffic inside --quiet-days, bad flags
// and files). The example app (examples/users) through the real command once, the rest in this process.
import t, { test } from 'tap'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { inProcess, scratch, type Run } from '../helpers/cli'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { bundleWithout, retirementPlan } from '../../lib/tools/retire-plan'
import { versionerStateOf } from '../../lib/tools/versioned-apis'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, endpoint, enumeration, fastifyVersioner, schema,
  versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'

const root = resolve(__dirname, '..', '..')
const bin = join(root, 'lib', 'tools', 'bin.ts')
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')
const plugin = JSON.stringify(join(root, 'plugin'))
const example = 'examples/users/app.ts'
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', _TAPJS_PROCESSINFO_COVERAGE_: '0' }
const DAY = 86_400_000

// Each run builds the app twice and verifies what remains.
t.setTimeout(300_000)

function cli (args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', tsx, bin, ...args], { cwd: root, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
    })
  })
}

const NO_SUNSET = (version: string): string => `note: ${version} has no sunsetAt: its clients were never told when it ends (no Sunset header); retire does not refuse it for that.\n`

// The examples replayed: 20 random ones and the boundary ones (verify's boundaries come first) per route, version and direction.
test('retire 2000-01-01 on the example: its Version, its change and both converters; check and verify at 0 on 2002 + 2001', async (t) => {
  const result = await cli(['retire', example, '--version', '2000-01-01', '--examples', '20'])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stderr, '')
  t.equal(result.stdout, [
    'retire 2000-01-01 removes:\n',
    '  version 2000-01-01 (no sunsetAt)\n',
    '  change ReplaceUserAddressWithListOfAddresses (in Version(\'2001-01-01\'))\n',
    '  converter ReplaceUserAddressWithListOfAddresses.addressToList\n',
    '  converter ReplaceUserAddressWithListOfAddresses.addressesToSingleItem\n',
    'retire: the application without them serves 2002-01-01, 2001-01-01.\n',
    NO_SUNSET('2000-01-01'),
    'check: no breaking change in 3 remaining version(s) (2002-01-01, 2001-01-01, unversioned); 0 note(s).\n'
  ].join('') + 'verify: every remaining version of every versioned route migrates cleanly (2 version(s), 173 examples).\n')
})

test('retire 2001-01-01 on the example: 2000 goes too, and the HEAD fields kept only for them', async (t) => {
  const result = await inProcess(['retire', example, '--version', '2001-01-01', '--examples', '20'])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stderr, '')
  t.equal(result.stdout, [
    'retire 2001-01-01 and every older version removes:',
    '  version 2001-01-01 (no sunsetAt)',
    '  version 2000-01-01 (no sunsetAt)',
    '  change MoveUserAddressesToTheirOwnEndpoint (in Version(\'2002-01-01\'))',
    '  change ReplaceUserAddressWithListOfAddresses (in Version(\'2001-01-01\'))',
    '  converter MoveUserAddressesToTheirOwnEndpoint.addressesToDefaultAddress',
    '  converter MoveUserAddressesToTheirOwnEndpoint.addressesInline',
    '  converter ReplaceUserAddressWithListOfAddresses.addressToList',
    '  converter ReplaceUserAddressWithListOfAddresses.addressesToSingleItem',
    '  field UserCreateRequest.addressesToCreate: ' +
      'no version shows it; a removed converter can read its schema (HEAD kept it for that converter, or keeps it for a version not yet released: check which); delete its instruction in HideInternalUserFields (HeadVersion) too',
    '  field UserResource.prefetchedAddresses: ' +
      'no version shows it; a removed converter can read its schema (HEAD kept it for that converter, or keeps it for a version not yet released: check which); delete its instruction in HideInternalUserFields (HeadVersion) too',
    'retire: the application without them serves 2002-01-01.',
    NO_SUNSET('2001-01-01').trim(),
    NO_SUNSET('2000-01-01').trim(),
    'check: no breaking change in 2 remaining version(s) (2002-01-01, unversioned); 0 note(s).',
    'verify: every remaining version of every versioned route migrates cleanly (1 version(s), 85 examples).',
    ''
  ].join('\n'))
})

/** A usage file whose 2000-01-01 was last seen `daysAgo` days ago by acct_1 (and 2001-01-01 today by acct_2). */
async function usageFile (dir: string, daysAgo: number): Promise<string> {
  const file = join(dir, `usage-${daysAgo}.json`)
  const seen = new Date(Date.now() - daysAgo * DAY).toISOString()
  await writeFile(file, JSON.stringify({
    versions: {
      '2000-01-01': { lastSeen: seen, clients: { acct_1: seen, acct_0: new Date(Date.now() - 90 * DAY).toISOString() } },
      '2001-01-01': { lastSeen: new Date().toISOString(), clients: { acct_2: new Date().toISOString() } }
    }
  }))
  return file
}

test('--usage with --quiet-days 30: 2000-01-01 seen three days ago exits 1 naming the client; 40 days ago passes', async (t) => {
  const dir = await scratch(t)
  const busy = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', await usageFile(dir, 3), '--quiet-days', '30', '--examples', '5'])
  t.equal(busy.code, 1)
  t.equal(busy.stderr, 'retire: 2000-01-01 had traffic inside the last 30 day(s) (--quiet-days 30), last 3 days ago; clients: acct_1 (3 days ago). ' +
    'Ask them to upgrade, or wait.\n', 'acct_0, seen 90 days ago, is not named')
  t.match(busy.stdout, /^usage: 2000-01-01 last seen \S+ \(3 days ago\); clients: acct_1 \(\S+\), acct_0 \(\S+\)$/m)
  t.match(busy.stdout, /^check: no breaking change in 3 remaining version\(s\)/m, 'the plan is still checked')

  const quiet = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', await usageFile(dir, 40), '--quiet-days', '30', '--examples', '5'])
  t.equal(quiet.code, 0, quiet.stderr)
  t.match(quiet.stdout, /^usage: 2000-01-01 last seen \S+ \(40 days ago\)/m)
  const unwindowed = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', await usageFile(dir, 3), '--examples', '5'])
  t.equal(unwindowed.code, 0, 'without --quiet-days the usage is only printed')
})

/** A TypeScript app module: 2001-01-01 and 2000-01-01 (sunset `sunsetAt`), an enum member, a route and a webhook only 2000 has. */
async function lifecycleApp (dir: string, sunsetAt: string | undefined): Promise<string> {
  const file = join(dir, `app-${sunsetAt ?? 'none'}.ts`)
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, endpoint, enumeration } from ${plugin}

const Status = Type.Union([Type.Literal('open'), Type.Literal('closed')], { $id: 'Status' })
const Order = Type.Object({ id: Type.String(), status: Status }, { $id: 'Order' })
class HideClosed extends VersionChange {
  description = 'closed is kept for 2000-01-01 only.'
  instructionsToMigrateToPreviousVersion = [enumeration(Status).didntHave('closed')]
}
class DropClosedAndLegacySearch extends VersionChange {
  description = 'Orders can no longer be closed; the legacy search is gone.'
  instructionsToMigrateToPreviousVersion = [enumeration(Status).had({ closed: 'closed' }), endpoint('/legacy-search', ['GET']).existed,
    endpoint('order.closed', ['POST']).existed]
}
const versions = new VersionBundle(new HeadVersion(HideClosed), new Version('2001-01-01', DropClosedAndLegacySearch),
  new Version('2000-01-01'${sunsetAt === undefined ? '' : `, { sunsetAt: '${sunsetAt}' }`}))

export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  app.versioner.webhooks.add({ name: 'order.closed', body: Order, onlyExistsInOlderVersions: true })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
    api.get('/legacy-search', { onlyExistsInOlderVersions: true, schema: { response: { 200: Type.Object({ results: Type.Array(Type.String()) }) } } },
      async () => ({ results: [] }))
  }))
  return app
}
`)
  return file
}

test('an onlyExistsInOlderVersions route and webhook and an enum member kept only for 2000-01-01; a sunsetAt passed', async (t) => {
  const dir = await scratch(t)
  const result = await inProcess(['retire', await lifecycleApp(dir, '2020-01-01'), '--version', '2000-01-01', '--examples', '5'])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stderr, '')
  t.match(result.stdout, [
    'retire 2000-01-01 removes:',
    '  version 2000-01-01 (sunsetAt 2020-01-01T00:00:00.000Z)',
    '  change DropClosedAndLegacySearch (in Version(\'2001-01-01\'))',
    '  route GET /legacy-search (onlyExistsInOlderVersions): no remaining version serves it',
    '  webhook order.closed (POST) (onlyExistsInOlderVersions): no remaining version sends it',
    '  enum member Status "closed": kept in HEAD only for retired versions (every remaining version lacks it); delete its instruction in ' +
      'HideClosed (HeadVersion) too',
    'retire: the application without them serves 2001-01-01.',
    'check: no breaking change in 2 remaining version(s) (2001-01-01, unversioned); 0 note(s).',
    ''
  ].join('\n'))
})

test('a sunsetAt that has not passed exits 1 and says so', async (t) => {
  const dir = await scratch(t)
  const result = await inProcess(['retire', await lifecycleApp(dir, '2999-01-01'), '--version', '2000-01-01', '--examples', '5'])
  t.equal(result.code, 1)
  t.equal(result.stderr, 'retire: 2000-01-01\'s sunsetAt (2999-01-01T00:00:00.000Z) has not passed: its clients were told it is served until then. ' +
    'Retire it after that date, or name a version whose sunset has passed.\n')
})

test('bad flags are usage errors (2) saying what is accepted', async (t) => {
  const cases: Array<[string[], string]> = [
    [['retire', example], 'retire needs --version <V>: the newest version to retire (every older one goes too).'],
    [['retire', example, '--version', '2000-01-01', '--quiet-days', '30'], '--quiet-days needs --usage <file>: the last-seen times it is checked against.'],
    [['retire', example, '--version', '2000-01-01', '--usage', 'u.json', '--quiet-days', 'soon'], '--quiet-days must be a whole number of days, 1 or more; got \'soon\'.'],
    [['retire', example, '--version', '2000-01-01', '--usage', ''], '--usage needs a file: the JSON usage file (see docs/retiring-and-upgrading.md).'],
    [['verify', example, '--version', '2000-01-01'], '--version applies to retire only.'],
    [['check', example, '--against', 'x', '--usage', 'u.json'], '--usage applies to retire only.']
  ]
  for (const [args, message] of cases) {
    const result = await inProcess(args)
    t.equal(result.code, 2, args.join(' '))
    t.equal(result.stderr.split('\n')[0], `fastify-versioner: ${message}`)
  }
})

test('versions the API cannot retire, and usage files it cannot read, exit 1 saying why', async (t) => {
  const dir = await scratch(t)
  const unknown = await inProcess(['retire', example, '--version', '1999-01-01'])
  t.equal(unknown.code, 1)
  t.equal(unknown.stderr, 'fastify-versioner retire: --version \'1999-01-01\' is not a version of this API; its versions (newest first): 2002-01-01, 2001-01-01, 2000-01-01.\n')
  const newest = await inProcess(['retire', example, '--version', '2002-01-01'])
  t.equal(newest.code, 1)
  t.match(newest.stderr, 'is the newest version: retiring it would leave no version (an API keeps at least one). Name an older one: 2001-01-01, 2000-01-01.')
  const accepted = 'accepted: { "versions": { "<version>": { "lastSeen": "<ISO date-time>", "clients": { "<client id>": "<ISO date-time>" }, ' +
    '"webhooks": { "<subscriber id>": "<ISO date-time>" } } } }'
  const files: Array<[string, string]> = [
    ['not json', 'is not JSON'],
    ['[]', 'must be an object with either "versions" or "apis"'],
    ['{"versions":{"2000-01-01":{"lastSeen":"yesterday"}}}', '/versions/2000-01-01/lastSeen is "yesterday", not an ISO 8601 date-time with a time zone'],
    ['{"versions":{"2000-01-01":{"clients":{"a":1700000000}}}}', '/versions/2000-01-01/clients/a is 1700000000, not an ISO 8601 date-time'],
    ['{"versions":{"2000-01-01":{}}}', '/versions/2000-01-01 has neither lastSeen, clients nor webhooks']
  ]
  for (const [text, message] of files) {
    const file = join(dir, 'usage.json')
    await writeFile(file, text)
    const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', file])
    t.equal(result.code, 1, text)
    t.match(result.stderr, `fastify-versioner retire: The usage file '${file}': ${message}`)
    t.match(result.stderr, accepted)
    t.equal(result.stdout, '', 'nothing is built')
  }
  const missing = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', join(dir, 'none.json')])
  t.match(missing.stderr, `The usage file '${join(dir, 'none.json')}': cannot be read`)
})

test('an app module exporting an instance cannot be built again: exit 1 saying what retire needs', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'instance.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${plugin}
const app = Fastify()
app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
export default app
`)
  const result = await inProcess(['retire', file, '--version', '2000-01-01'])
  t.equal(result.code, 1)
  t.match(result.stderr, 'exports an application instance: retire builds the application a second time, without the retired versions, so the module must export a function')
})

test('several APIs: --api picks one (its bundle alone is cut); without it, an API lacking the version is named', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'apis.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${plugin}
export default async function build () {
  const app = Fastify()
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
    await api.register(versioned(async (routes) => { routes.get('/items', async () => ({ ok: true })) }))
  }, { prefix: '/public' })
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: new VersionBundle(new Version('v2'), new Version('v1')), apiVersionFormat: 'string' })
    await api.register(versioned(async (routes) => { routes.get('/orders', async () => ({ ok: true })) }))
  }, { prefix: '/partner' })
  return app
}
`)
  const picked = await inProcess(['retire', file, '--api', 'public', '--version', '2000-01-01', '--examples', '5'])
  t.equal(picked.code, 0, picked.stderr)
  t.match(picked.stdout, /^retire: the application without them serves 2001-01-01\.$/m)
  t.match(picked.stdout, /^check: no breaking change in \d remaining version\(s\) \(2001-01-01(, unversioned)?\); 0 note\(s\)\.$/m)
  const usage = join(dir, 'usage.json')
  const recent = new Date(Date.now() - DAY).toISOString()
  await writeFile(usage, JSON.stringify({ apis: { public: { versions: { '2000-01-01': { clients: { acct_9: recent } } } }, partner: { versions: { v1: { lastSeen: recent } } } } }))
  const busy = await inProcess(['retire', file, '--api', 'public', '--version', '2000-01-01', '--usage', usage, '--quiet-days', '7', '--examples', '5'])
  t.equal(busy.code, 1)
  t.equal(busy.stderr, 'retire: 2000-01-01 had traffic inside the last 7 day(s) (--quiet-days 7), last 24 hours ago; clients: acct_9 (24 hours ago). Ask them to upgrade, or wait.\n',
    'the API\'s own entry of "apis"')
  const partner = await inProcess(['retire', file, '--api', 'partner', '--version', 'v1', '--examples', '5'])
  t.equal(partner.code, 0, partner.stderr)
  t.match(partner.stdout, /^retire: the application without them serves v2\.$/m)
  const both = await inProcess(['retire', file, '--version', '2000-01-01'])
  t.equal(both.code, 1)
  t.equal(both.stderr, 'fastify-versioner retire: API \'partner\': --version \'2000-01-01\' is not a version of this API; its versions (newest first): v2, v1. ' +
    'Pick the API to retire a version of with --api <name>.\n')
})

test('--version 2024-06-01 names 2024-06-01.acacia as the other tools read it; a date only served by an older version is refused', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'named.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${plugin}
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2025-01-01.cedar'), new Version('2024-06-01.acacia'), new Version('2024-01-01.birch')) })
  await app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
  return app
}
`)
  const plain = await inProcess(['retire', file, '--version', '2024-06-01', '--examples', '5'])
  t.equal(plain.code, 0, plain.stderr)
  t.match(plain.stdout, /^retire 2024-06-01\.acacia and every older version removes:\n {2}version 2024-06-01\.acacia \(no sunsetAt\)\n {2}version 2024-01-01\.birch \(no sunsetAt\)\n/)
  t.match(plain.stdout, /^retire: the application without them serves 2025-01-01\.cedar\.$/m)
  const between = await inProcess(['retire', file, '--version', '2024-09-01'])
  t.equal(between.code, 1)
  t.equal(between.stderr, "fastify-versioner retire: --version '2024-09-01' is not a version of this API: a request naming it is served 2024-06-01.acacia, " +
    'the closest older version. Name that one (--version 2024-06-01.acacia) to retire it and every older version.\n')
})

// Preview versions come first in a bundle: the version after them is the newest release. Retiring it (or a preview)
// was accepted, and the cut bundle made the preview a release: exit 0, every released client left without a version.
test('regression: retiring the newest release, or a preview, is refused when only preview versions would remain', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'preview.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${plugin}
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2003-01-01.next', { channel: 'preview' }), new Version('2002-01-01'), new Version('2001-01-01')) })
  await app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
  return app
}
`)
  const release = await inProcess(['retire', file, '--version', '2002-01-01'])
  t.equal(release.code, 1)
  t.equal(release.stderr, "fastify-versioner retire: --version '2002-01-01' is the newest released version: retiring it would leave no released " +
    'version (an API keeps at least one). Name an older one: 2001-01-01.\n')
  t.equal(release.stdout, '', 'nothing is built')
  const preview = await inProcess(['retire', file, '--version', '2003-01-01.next'])
  t.equal(preview.code, 1)
  t.match(preview.stderr, "--version '2003-01-01.next' is a preview version, newer than every release: retiring it would leave no version")
  const older = await inProcess(['retire', file, '--version', '2001-01-01', '--examples', '5'])
  t.equal(older.code, 0, older.stderr)
  t.match(older.stdout, /^retire: the application without them serves 2003-01-01\.next, 2002-01-01\.$/m)
})

test('bundleWithout keeps the oldest remaining version\'s whole lifecycle (releasedAt and brownouts were dropped)', async (t) => {
  const brownouts = [{ start: '2030-02-01T00:00:00Z', end: '2030-02-01T01:00:00Z' }]
  const kept = new Version('2001-01-01', { releasedAt: '2001-01-01T00:00:00Z', deprecatedAt: '2029-01-01', sunsetAt: '2031-01-01', afterSunset: 'gone', brownouts })
  const cut = bundleWithout(new VersionBundle(new Version('2002-01-01', { releasedAt: '2002-01-01T00:00:00Z' }), kept, new Version('2000-01-01')), '2000-01-01')
  const oldest = cut.versions[cut.versions.length - 1]
  t.same(oldest.changes, [])
  t.same({ releasedAt: oldest.releasedAt, brownouts: oldest.brownouts, sunsetAt: oldest.sunsetAt, afterSunset: oldest.afterSunset, channel: oldest.channel },
    { releasedAt: kept.releasedAt, brownouts: kept.brownouts, sunsetAt: kept.sunsetAt, afterSunset: kept.afterSunset, channel: 'release' })
})

// The usage file of several APIs read by its API name: an entry named otherwise (a typo, another API's) was read as
// "no traffic recorded" for every retired version, and --quiet-days passed: a false "safe to retire".
test('regression: a usage file without an entry for the API is refused, not read as no traffic', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'usage.json')
  const recent = new Date(Date.now() - DAY).toISOString()
  await writeFile(file, JSON.stringify({ apis: { publik: { versions: { '2000-01-01': { lastSeen: recent } } } } }))
  const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', file, '--quiet-days', '30', '--examples', '5'])
  t.equal(result.code, 1)
  t.equal(result.stdout, '', 'nothing is built')
  t.equal(result.stderr, `fastify-versioner retire: The usage file(s) ${file} hold no entry for the API 'root' (they name: publik): ` +
    'name its entry as the tools name the API (its apiName option, else its prefix; root without one), under "apis", or give one API\'s "versions".\n')
})

// `--usage` given twice (one file per instance) read the last file only: the traffic of the first was never seen.
test('regression: several --usage files (one per instance) are read together, each time the latest', async (t) => {
  const dir = await scratch(t)
  const [first, second] = [join(dir, 'a.json'), join(dir, 'b.json')]
  const [old, recent] = [new Date(Date.now() - 60 * DAY).toISOString(), new Date(Date.now() - 3 * DAY).toISOString()]
  await writeFile(first, JSON.stringify({ versions: { '2000-01-01': { clients: { acct_1: recent, acct_0: old } } } }))
  await writeFile(second, JSON.stringify({ apis: { root: { versions: { '2000-01-01': { clients: { acct_1: old } }, '2001-01-01': { lastSeen: recent } } } } }))
  const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', first, '--usage', second, '--quiet-days', '30', '--examples', '5'])
  t.equal(result.code, 1)
  t.equal(result.stderr, 'retire: 2000-01-01 had traffic inside the last 30 day(s) (--quiet-days 30), last 3 days ago; clients: acct_1 (3 days ago). ' +
    'Ask them to upgrade, or wait.\n')
  t.match(result.stdout, `usage: 2000-01-01 last seen ${recent} (3 days ago); clients: acct_1 (${recent}), acct_0 (${old})\n`)
})

// The billing example serves requests naming no version as its first version (apiVersionDefaultValue '2023-10-16'):
// retiring it failed building the app again, with the option's start-up error and a stack, saying nothing of what
// to do; the clients sending no version are that version's clients too.
test('regression: retiring the version apiVersionDefaultValue serves is refused, saying to move the default first', async (t) => {
  const result = await inProcess(['retire', 'examples/billing/app.ts', '--version', '2024-04-10'])
  t.equal(result.code, 1)
  t.equal(result.stdout, '', 'nothing is built')
  t.equal(result.stderr, "fastify-versioner retire: apiVersionDefaultValue '2023-10-16' is served 2023-10-16, which retiring 2024-04-10 removes: " +
    'requests naming no version are served it. Set apiVersionDefaultValue to a remaining version (the oldest is 2024-09-30) or remove it, tell the ' +
    'clients that send no version (their served events have no requested), then retire.\n')
})

// A usage file exported by a query that matched nothing (`{ "versions": {} }`), or with version labels the
// application does not have, read as "no traffic" for every retired version: exit 0 under --quiet-days.
test('regression: a usage file naming no version of the API is refused, not read as no traffic', async (t) => {
  const dir = await scratch(t)
  const recent = new Date(Date.now() - DAY).toISOString()
  const cases: Array<[unknown, string]> = [
    [{ versions: {} }, 'none'],
    [{ versions: { 'v2000-01-01': { lastSeen: recent }, '2000-01-01.old': { lastSeen: recent } } }, 'v2000-01-01, 2000-01-01.old']
  ]
  for (const [content, named] of cases) {
    const file = join(dir, 'usage.json')
    await writeFile(file, JSON.stringify(content))
    const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', file, '--quiet-days', '30', '--examples', '5'])
    t.equal(result.code, 1, JSON.stringify(content))
    t.equal(result.stdout, '', 'nothing is built')
    t.equal(result.stderr, `fastify-versioner retire: The usage file(s) ${file} record no traffic for any version of the API 'root' ` +
      `(its versions: 2002-01-01, 2001-01-01, 2000-01-01; the files name: ${named}): a file exported from its traffic names the versions ` +
      'still used. Check the query and labels that made it.\n')
  }
})

// Only a release whose releasedAt has not come remained: the app built without the retired versions failed its
// start-up ("no version is served at start-up"), with a stack, rather than saying when the version can go.
test('regression: retiring every version served before a release instant is refused, naming the instant', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'pending.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { fastifyVersioner, versioned, VersionBundle, Version } from ${plugin}
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2999-01-01', { releasedAt: '2999-01-01T09:00:00Z' }), new Version('2002-01-01'), new Version('2001-01-01')) })
  await app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
  return app
}
`)
  const result = await inProcess(['retire', file, '--version', '2002-01-01'])
  t.equal(result.code, 1)
  t.equal(result.stdout, '', 'nothing is built')
  t.equal(result.stderr, "fastify-versioner retire: --version '2002-01-01' is the newest version served now: 2999-01-01 is served from its releasedAt " +
    '(2999-01-01T09:00:00.000Z). Retire 2002-01-01 after that instant, or name an older one: 2001-01-01.\n')
  const older = await inProcess(['retire', file, '--version', '2001-01-01', '--examples', '5'])
  t.equal(older.code, 0, older.stderr)
})

/**
 * HEAD's State keeps 'gone' for old versions (HeadVersion hides it; 2000-01-01 has it), and 2001-01-01's clients
 * archive an order with `archived: true`, which 2002-01-01's converter turns into HEAD's state 'gone'. With
 * `converter: false`, no converter of a remaining change can reach 'gone'.
 */
async function archivedApp (converter: boolean) {
  const State = Type.Union([Type.Literal('open'), Type.Literal('gone')], { $id: 'State' })
  const OrderCreate = Type.Object({ id: Type.String(), state: Type.Optional(State) }, { $id: 'OrderCreate' })
  class HideGone extends VersionChange {
    description = 'gone is kept for older versions only'
    instructionsToMigrateToPreviousVersion = [enumeration(State).didntHave('gone')]
  }
  class ArchivedFlagWithConverter extends VersionChange {
    description = 'an order was archived with archived: true'
    instructionsToMigrateToPreviousVersion = [schema(OrderCreate).formerField('archived').existedAs({ type: Type.Boolean(), optional: true })]
    @ConvertRequestToNextVersionFor(OrderCreate) up (request: RequestInfo) {
      if (request.body.archived === true) request.body.state = 'gone'
      delete request.body.archived
    }
  }
  class ArchivedFlag extends VersionChange {
    description = 'orders had an archived flag, ignored (HEAD drops fields it lacks)'
    instructionsToMigrateToPreviousVersion = [schema(OrderCreate).formerField('archived').existedAs({ type: Type.Boolean(), optional: true })]
  }
  class GoneBack extends VersionChange {
    description = 'gone was a state'
    instructionsToMigrateToPreviousVersion = [enumeration(State).had({ gone: 'gone' })]
  }
  const app = Fastify()
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(HideGone), new Version('2002-01-01', converter ? ArchivedFlagWithConverter : ArchivedFlag),
      new Version('2001-01-01', GoneBack), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 200: Type.Object({ archived: Type.Boolean() }) } } },
      async (request) => ({ archived: request.body.state === 'gone' }))
  }))
  await app.ready()
  t.teardown(async () => { await app.close() })
  return app
}

// An enum member was listed when every remaining version lacked it, whatever the converters of the remaining
// changes wrote: deleting 'gone' as listed, a 2001-01-01 client archiving an order got a 500
// (FST_VERSIONER_LATEST_REQUEST_VALIDATION), after a green retire (the cut application keeps HEAD's schemas).
test('regression: an enum member a remaining change\'s converter can write is not listed', async (t) => {
  const app = await archivedApp(true)
  const archived = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2001-01-01' }, payload: { id: 'o1', archived: true } })
  t.same(archived.json(), { archived: true }, "2001-01-01's archived reaches HEAD as state 'gone'")
  const plan = retirementPlan(versionerStateOf(app), '2000-01-01')
  t.same(plan.changes, [{ name: 'GoneBack', holder: '2001-01-01' }])
  t.same(plan.members, [], "'gone' is kept: ArchivedFlagWithConverter.up writes it")
  const unread = await archivedApp(false)
  t.same(retirementPlan(versionerStateOf(unread), '2000-01-01').members, ['State "gone"'], 'listed when only converters of retired versions could reach it')
})

// Deleting what the list named left HeadVersion's instruction hiding it, naming a field, member or route HEAD no longer
// had: the application stopped at start-up. The list now names the change holding that instruction.
test('regression: a listed route hidden by HeadVersion names the change whose instruction goes with it', async (t) => {
  class HideOldSearch extends VersionChange {
    description = 'the old search is kept for 2000-01-01 only'
    instructionsToMigrateToPreviousVersion = [endpoint('/api/old-search', ['GET']).didntExist]
  }
  class RestoreOldSearch extends VersionChange {
    description = 'the old search was served'
    instructionsToMigrateToPreviousVersion = [endpoint('/api/old-search', ['GET']).existed]
  }
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(HideOldSearch), new Version('2001-01-01', RestoreOldSearch), new Version('2000-01-01')) })
  await app.register(async (api) => {
    await api.register(versioned(async (scope) => {
      scope.get('/old-search', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
    }))
  }, { prefix: '/api' })
  await app.ready()
  t.teardown(async () => { await app.close() })
  const plan = retirementPlan(versionerStateOf(app), '2000-01-01')
  t.same(plan.routes, ['GET /api/old-search'])
  t.same(plan.namedBy, { 'GET /api/old-search': ['HideOldSearch (HeadVersion)'] })
})

// A field of a schema without $id or title was listed as `schema.legacyNote`: no team could tell which schema to edit.
test('regression: a listed field of an unnamed schema names the schema by its fields', async (t) => {
  const Item = Type.Object({ sku: Type.String(), legacyNote: Type.Optional(Type.String()) })
  const Order = Type.Object({ id: Type.String(), lines: Type.Array(Item) }, { $id: 'Order' })
  class HideNote extends VersionChange {
    description = 'legacyNote is internal'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('legacyNote').didntExist]
  }
  class SkuWasCode extends VersionChange {
    description = 'sku was code'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('sku').had({ name: 'code' })]
    @ConvertResponseToPreviousVersionFor(Item) down (response: ResponseInfo) {
      response.body.code = response.body.sku
      delete response.body.sku
    }
  }
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(HideNote), new Version('2001-01-01', SkuWasCode), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/orders', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', lines: [] }))
  }))
  await app.ready()
  t.teardown(async () => { await app.close() })
  const plan = retirementPlan(versionerStateOf(app), '2000-01-01')
  t.same(plan.fields, ['{ sku, legacyNote }.legacyNote'])
  t.same(plan.headOnly, ['{ sku, legacyNote }.legacyNote'], 'no version shows it: kept for SkuWasCode.down, or for a version not yet released')
  t.same(plan.namedBy, { '{ sku, legacyNote }.legacyNote': ['HideNote (HeadVersion)'] })
})
