// `fastify-versioner replay <app> --traffic <file>`: exchanges recorded from the billing example (captureExchanges)
// replay cleanly against it; a converter changed as a team would makes replay fail on exactly the exchanges it
// affects, and mutate score lower; malformed lines, redacted values, unknown routes and versions, usage errors.
import { test } from 'tap'
import { readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import diagnosticsChannel from 'node:diagnostics_channel'
import etag from '@fastify/etag'
import cookie from '@fastify/cookie'
import { randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, VersionChangeWithSideEffects,
  type CaptureExchangesOptions, type CapturedExchange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { loadApp, readTraffic, replayTraffic } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { recordTraffic } from '../../examples/traffic'
import { inProcess, scratch } from '../helpers/cli'
import { writeMutant } from '../helpers/mutation-harness'
import { nameWasTitleInResponses } from '../helpers/version-changes'
import { EMAIL_RENAMED } from '../fixtures/mutations/billing'
import { buildBillingApp } from '../../examples/billing/app'

const BILLING = resolve(__dirname, '..', '..', 'examples', 'billing', 'app.ts')

/** The traffic of `rounds` rounds of the billing example's clients, written to a file of a scratch folder. */
async function trafficFile (t: Teardown, rounds: number, capture: CaptureExchangesOptions = {}): Promise<{ dir: string, file: string, exchanges: CapturedExchange[] }> {
  const dir = await scratch(t)
  const lines = await recordTraffic('billing', rounds, capture)
  const file = join(dir, 'exchanges.ndjson')
  await writeFile(file, `${lines.join('\n')}\n`)
  return { dir, file, exchanges: lines.map((line) => JSON.parse(line) as CapturedExchange) }
}

/** The lines of a traffic file on which replaying it against an app module finds something, in order (every one: the command prints one per cause). */
async function findingLines (t: Teardown, appFile: string, file: string): Promise<number[]> {
  const app = await loadApp(appFile)
  t.teardown(() => app.close())
  const report = await replayTraffic(app, readTraffic(await readFile(file, 'utf8')))
  return report.findings.map((finding) => finding.line)
}

/** The lines (from 1) of the exchanges for which `affected` holds. */
function linesWhere (exchanges: readonly CapturedExchange[], affected: (exchange: CapturedExchange) => boolean): number[] {
  return exchanges.flatMap((exchange, index) => affected(exchange) ? [index + 1] : [])
}

/** The totals an answer shows (an invoice's, or each of a list's). */
function totalsOf (body: unknown): number[] {
  const record = body as { total?: unknown, data?: Array<{ total?: unknown }> } | null
  return [record?.total, ...(record?.data ?? []).map((invoice) => invoice.total)].filter((total): total is number => typeof total === 'number')
}

test('replay: recorded traffic replays cleanly; totals rounded as a team would fail on exactly the exchanges showing a fraction, and mutate scores lower', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 10)
  const clean = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(clean.code, 0, clean.stderr)
  t.match(clean.stdout, `replay: every one of ${exchanges.length} exchange(s) of ${file} migrates as recorded.`)

  // "Old clients see whole currency units": a change no old client asked for.
  const changed = await writeMutant('billing', {
    id: 'replay/whole-totals',
    edits: [{ file: 'versions.ts', find: 'response.body.total = response.body.total / 100', replace: 'response.body.total = Math.round(response.body.total / 100)' }]
  }, join(dir, 'whole-totals'))
  const broken = await inProcess(['replay', changed, '--traffic', file])
  t.equal(broken.code, 1)
  const expected = linesWhere(exchanges, (exchange) => totalsOf(exchange.clientResponse.body).some((total) => !Number.isInteger(total)))
  t.ok(expected.length > 10, 'the traffic shows totals with a fraction to old clients')
  t.same(await findingLines(t, changed, file), expected, 'a finding for every exchange showing a total with a fraction, and for no other')
  // Printed once per cause, the others by line.
  const printed = [...broken.stderr.matchAll(/^finding: line (\d+):/gm)].map((match) => Number(match[1]))
  const alike = [...broken.stderr.matchAll(/^ {2}and (\d+) more like it \(same route, version, place and converters\): lines? ([\d, ]+)(, …)?\.$/gm)]
  t.ok(printed.length < expected.length / 2, `${printed.length} findings printed for ${expected.length}`)
  t.equal(printed.length + alike.reduce((sum, match) => sum + Number(match[1]), 0), expected.length, 'every finding counted')
  t.ok(alike.every((match) => match[2].split(', ').every((line) => expected.includes(Number(line)))), 'the lines named are findings')
  t.match(broken.stderr, /^finding: line \d+: POST \/invoices \(2023-10-16\): response body\/total: the client received 19\.99, the converters now give 20; changed last by AmountsInCents \(2024-09-30\), converter AmountsInCents\.totalFromCents\.$/m)
  t.match(broken.stdout, `replay: ${expected.length} finding(s) in ${exchanges.length} exchange(s)`)

  // Every recorded exchange through totalFromCents showing a fraction already fails at body/total: its mutants there
  // cannot be told apart; an invoice of whole units (a 49.00 setup fee) tells the converter skipped apart.
  const before = await inProcess(['mutate', BILLING, '--traffic', file, '--examples', '5'])
  const whole = await inProcess(['mutate', changed, '--traffic', file, '--examples', '5'])
  const scoreOf = (stdout: string): number => Number(/mutate: score ([\d.]+) %/.exec(stdout)?.[1])
  const skipped = /^survivor: AmountsInCents \(2024-09-30\) AmountsInCents\.totalFromCents: skipped$/m
  t.equal(before.code, 0, before.stderr)
  t.equal(scoreOf(before.stdout), 100, before.stdout)
  const wholeTotal = (exchange: CapturedExchange): boolean => exchange.version < '2024-09-30' && totalsOf(exchange.clientResponse.body).some(Number.isInteger)
  t.ok(exchanges.some(wholeTotal), 'a whole total is recorded')
  t.notMatch(whole.stdout, skipped, 'killed on the whole totals')
  // Traffic whose old clients' totals all show a fraction (prices ending in .99): the score drops.
  const fractions = join(dir, 'fractions.ndjson')
  await writeFile(fractions, exchanges.filter((exchange) => !wholeTotal(exchange)).map((exchange) => JSON.stringify(exchange)).join('\n'))
  const after = await inProcess(['mutate', changed, '--traffic', fractions, '--examples', '5'])
  t.ok(scoreOf(after.stdout) < scoreOf(before.stdout), `the score drops: ${scoreOf(after.stdout)} % < ${scoreOf(before.stdout)} %`)
  t.match(after.stdout, skipped)
  t.match(after.stdout, /^note: verify reports \d+ finding\(s\) and replay \d+ on the converters as they are/m)
})

test('replay: traffic recorded with everyVersion holds the exchanges of versions without work; they migrate as recorded (nothing to convert), and a converter mistake fails only the exchanges it affects', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 3, { everyVersion: true })
  const newest = exchanges.filter((exchange) => exchange.version === exchange.latest)
  t.ok(newest.some((exchange) => exchange.route.method === 'PUT'), 'the latest version\'s PUT /customers/:customerId, which no converter touches, is recorded')
  t.ok(newest.every((exchange) => JSON.stringify(exchange.clientRequest) === JSON.stringify(exchange.handlerRequest)))
  const clean = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(clean.code, 0, clean.stderr)
  t.match(clean.stdout, `replay: every one of ${exchanges.length} exchange(s) of ${file} migrates as recorded.`)
  const changed = await writeMutant('billing', {
    id: 'replay/whole-totals-every-version',
    edits: [{ file: 'versions.ts', find: 'response.body.total = response.body.total / 100', replace: 'response.body.total = Math.round(response.body.total / 100)' }]
  }, join(dir, 'whole-totals'))
  const expected = linesWhere(exchanges, (exchange) => totalsOf(exchange.clientResponse.body).some((total) => !Number.isInteger(total)))
  t.ok(expected.length > 0)
  t.same(await findingLines(t, changed, file), expected, 'no finding on an exchange without converters')
})

test('regression: an exchange recorded with everyVersion where its version had no work replays as served then once a new release gives the route work: the defaults and coercion Fastify applied after the record were false findings', async (t) => {
  const Search = Type.Object({ q: Type.String(), limit: Type.Integer({ default: 10 }) }, { $id: 'Search' })
  const Query = Type.Object({ page: Type.Integer({ default: 1 }) })
  const routes = (body: typeof Search) => async (api: Parameters<NonNullable<Parameters<typeof versionedApp>[2]>>[0]): Promise<void> => {
    api.post('/search', { schema: { body, querystring: Query } }, async (request) => ({ q: request.body.q, limit: request.body.limit, page: request.query.page }))
  }
  const seen: CapturedExchange[] = []
  const record = (message: unknown): void => { seen.push(message as CapturedExchange) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01'))
  const before = await versionedApp(t, versions, routes(Search), { versioner: { captureExchanges: { everyVersion: true } } })
  for (const version of ['2001-01-01', '2000-01-01']) {
    const answer = await before.inject({ method: 'POST', url: '/search?page=2', headers: { 'x-api-version': version }, payload: { q: 'a' } })
    t.same(answer.json(), { q: 'a', limit: 10, page: 2 })
  }
  t.equal(seen.length, 2)
  t.same(seen.map((exchange) => exchange.headData), [true, true], 'marked: nothing ran before the handler but Fastify\'s validation against HEAD')
  t.same([seen[0].handlerRequest.body, seen[0].handlerRequest.query], [{ q: 'a' }, { page: '2' }], 'recorded before Fastify\'s validation, as for every version')

  // The next release: a new version whose change is on the route, so that every older version has work there.
  const Exact = Type.Object({ q: Type.String(), limit: Type.Integer({ default: 10 }), exact: Type.Optional(Type.Boolean()) }, { $id: 'Search' })
  class ExactSearches extends VersionChange {
    description = 'A search may be exact.'
    instructionsToMigrateToPreviousVersion = [schema(Exact).field('exact').didntExist]
    @ConvertRequestToNextVersionFor(Exact)
    notExact (request: RequestInfo) {
      request.body.exact = false
    }
  }
  const next = new VersionBundle(new HeadVersion(), new Version('2002-01-01', ExactSearches), new Version('2001-01-01'), new Version('2000-01-01'))
  const after = await versionedApp(t, next, routes(Exact))
  await after.ready()
  const report = await replayTraffic(after, { exchanges: seen.map((exchange, index) => ({ line: index + 1, exchange })) })
  t.same(report.findings.map((finding) => finding.text), [], 'no finding: the versioner neither validated nor converted them then')
  t.equal(report.replayed, 2)
})

test('replay: a request converter that drops an empty memo fails on exactly the requests that sent one', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 8)
  const changed = await writeMutant('billing', {
    id: 'replay/memo-if',
    edits: [{ file: 'versions.ts', find: 'if (request.body.description !== undefined) {', replace: 'if (request.body.description) {' }]
  }, join(dir, 'memo-if'))
  const result = await inProcess(['replay', changed, '--traffic', file])
  t.equal(result.code, 1)
  const expected = linesWhere(exchanges, (exchange) => (exchange.clientRequest.body as { description?: unknown } | undefined)?.description === '')
  t.ok(expected.length > 0)
  t.same(await findingLines(t, changed, file), expected)
  // The place no converter wrote: the version change whose instructions name the field.
  t.match(result.stderr, /request body\/memo: the handler received '', the converters now give nothing; no converter changed it on the way \(RenameDescriptionToMemo \(2024-04-10\)\)\./)
})

test('replay: traffic recorded before a new version replays between each exchange\'s version and the newest one then, so a HEAD the new version changed is no finding', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 4)
  t.ok(exchanges.every((exchange) => exchange.latest === '2025-03-31'), 'each exchange says which version was the newest')
  const released = await writeMutant('billing', { id: 'replay/email-renamed', edits: EMAIL_RENAMED }, join(dir, 'email-renamed'))
  const clean = await inProcess(['replay', released, '--traffic', file])
  t.equal(clean.code, 0, clean.stderr)
  t.match(clean.stdout, `replay: every one of ${exchanges.length} exchange(s) of ${file} migrates as recorded.`)

  // Without the newest version then (a file recorded before exchanges said it), the whole path up to HEAD is compared.
  const unsaid = join(dir, 'unsaid.ndjson')
  await writeFile(unsaid, exchanges.map(({ latest: _latest, ...exchange }) => JSON.stringify(exchange)).join('\n'))
  const mixed = await inProcess(['replay', released, '--traffic', unsaid])
  t.equal(mixed.code, 1)
  t.match(mixed.stderr, /request body\/email: the handler received '.*', the converters now give nothing; changed last by EmailIsEmailAddress \(2025-09-30\)/)

  // In the same release, a converter of an older version changed as a team would still shows.
  const broken = await writeMutant('billing', {
    id: 'replay/email-renamed-memo-if',
    edits: [...EMAIL_RENAMED, { file: 'versions.ts', find: 'if (request.body.description !== undefined) {', replace: 'if (request.body.description) {' }]
  }, join(dir, 'email-renamed-memo-if'))
  const result = await inProcess(['replay', broken, '--traffic', file])
  t.equal(result.code, 1)
  t.same(await findingLines(t, broken, file), linesWhere(exchanges, (exchange) => (exchange.clientRequest.body as { description?: unknown } | undefined)?.description === ''))

  // A release that moves a route in HEAD: its recorded exchanges name the path HEAD had then, that version's path now.
  const moved = await writeMutant('billing', {
    id: 'replay/customers-are-clients',
    edits: [
      { file: 'app.ts', find: "    api.post('/customers', {", replace: "    api.post('/clients', {" },
      {
        file: 'versions.ts',
        find: 'export const versions = new VersionBundle(\n  new HeadVersion(HideInternalBillingFields),\n',
        replace: [
          'export class CustomersAreClients extends VersionChange {',
          "  description = 'Customers are created at /clients.'",
          "  instructionsToMigrateToPreviousVersion = [endpoint('/clients', ['POST']).had({ path: '/customers' })]",
          '}',
          '',
          'export const versions = new VersionBundle(',
          '  new HeadVersion(HideInternalBillingFields),',
          "  new Version('2025-09-30', CustomersAreClients),",
          ''
        ].join('\n')
      }
    ]
  }, join(dir, 'customers-are-clients'))
  const relocated = await inProcess(['replay', moved, '--traffic', file])
  t.equal(relocated.code, 0, relocated.stderr)
  t.ok(exchanges.some((exchange) => exchange.route.url === '/customers' && exchange.route.method === 'POST'), 'the traffic holds POST /customers')

  // A newest version the application does not have: not replayed, said so.
  const unknown = join(dir, 'unknown.ndjson')
  await writeFile(unknown, exchanges.map((exchange) => JSON.stringify({ ...exchange, latest: '2030-01-01' })).join('\n'))
  const report = await inProcess(['replay', released, '--traffic', unknown])
  t.match(report.stderr + report.stdout, /recorded when 2030-01-01 was the newest version, which the application no longer has/)
  // Regression (a preview promoted to its date renumbers the newest version): none replayed is no pass, and no redacted value is to blame.
  t.equal(report.code, 1, 'nothing was compared: not the 0 of a clean replay')
  t.match(report.stderr, /^replay: no exchange of .*unknown\.ndjson was replayed; \d+ exchange\(s\) not replayed, so nothing was compared/m)
  t.notMatch(report.stdout + report.stderr, /redacted/, 'the reason given is the one that holds')
})

test('replay: malformed lines are named and fail the run, the others are replayed; a version or route the app no longer serves is a finding', async (t) => {
  const { file, exchanges } = await trafficFile(t, 1)
  const lines = (await readFile(file, 'utf8')).trim().split('\n')
  const gone = { ...exchanges[0], version: '1999-01-01' }
  const moved = { ...exchanges[0], route: { method: 'POST', url: '/clients' } }
  await writeFile(file, [lines[0], '{"version": "2023-10-16", "route": ', '', '[1, 2]', '{"version":"x","route":{"method":"GET","url":"/"}}', JSON.stringify(gone), JSON.stringify(moved), ...lines.slice(1)].join('\n'))
  const result = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(result.code, 1)
  // The line ends early, not the file (it said the file ends).
  t.match(result.stderr, `malformed: ${file} line 2: not JSON at column 36: the line ends before its JSON does (truncated?): expected a value\n`)
  t.match(result.stderr, `malformed: ${file} line 4: not an exchange`)
  t.match(result.stderr, `malformed: ${file} line 5: clientRequest is not an object`)
  t.match(result.stderr, /finding: line 6: POST \/customers \(1999-01-01\): request: unknown route: POST \/customers is not served in version 1999-01-01, which the application does not have \(retired\? then remove its exchanges from the traffic file\)\./)
  t.match(result.stderr, /finding: line 7: POST \/clients \(2023-10-16\): request: unknown route: the application has no route POST \/clients\./)
  t.match(result.stdout, `replay: 2 finding(s) in ${lines.length + 2} exchange(s)`)
})

test('regression: a last line cut off mid-write (no newline ends it) says so, and what to do; it was a bare JSON error', async (t) => {
  const { file } = await trafficFile(t, 1)
  const lines = (await readFile(file, 'utf8')).trim().split('\n')
  // A copy of a capture taken while it wrote its last line: no newline, the JSON cut inside a string.
  await writeFile(file, `${lines.join('\n')}\n${lines[0].slice(0, 50)}`)
  const result = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(result.code, 1, 'still a malformed line')
  t.match(result.stderr, new RegExp(`^malformed: .* line ${lines.length + 1}: not JSON at column \\d+: .*; the file's last line has no newline: cut off mid-write \\(a copy of a capture still writing\\?\\): copy the file again, or delete the line$`, 'm'))
  t.match(result.stdout, `replay: every one of ${lines.length} exchange(s)`, 'the lines before it are replayed')
  // With its newline, the same line is no cut-off line: no such advice.
  await writeFile(file, `${lines[0].slice(0, 50)}\n${lines.join('\n')}\n`)
  t.notMatch((await inProcess(['replay', BILLING, '--traffic', file])).stderr, /cut off/)
})

test('regression: readTraffic and replayTraffic given the wrong thing from JavaScript reject with FST_VERSIONER_TOOL saying what they take (they were bare TypeErrors)', async (t) => {
  const { file } = await trafficFile(t, 1)
  const text = await readFile(file, 'utf8')
  t.throws(() => readTraffic(Buffer.from(text) as unknown as string), { code: 'FST_VERSIONER_TOOL', message: "readTraffic takes the traffic file's text, readTraffic(await readFile(file, 'utf8')); got bytes (a Buffer: the file read without its encoding?)." })
  const app = await buildBillingApp()
  t.teardown(() => app.close())
  await app.ready()
  await t.rejects(replayTraffic(app, text as never), { code: 'FST_VERSIONER_TOOL', message: "replayTraffic takes what readTraffic returns, replayTraffic(app, readTraffic(text)); got a string (the file's text?)." })
  await t.rejects(replayTraffic(app, readTraffic(text).exchanges as never), { code: 'FST_VERSIONER_TOOL', message: /got an array\.$/ })
  t.ok((await replayTraffic(app, readTraffic(text))).replayed > 0, 'what readTraffic returns is replayed')
})

test('replay: redacted places are not compared, and the run passes', async (t) => {
  const { file } = await trafficFile(t, 3, { redact: { pointers: ['/email', '/lines/*/description'], headers: ['x-idempotency-key', 'idempotency-key'] } })
  const text = await readFile(file, 'utf8')
  t.notMatch(text, /client\d+@example\.com/)
  const result = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /migrates as recorded; \d+ redacted place\(s\) not compared[.;]/)
  // A refused request whose redacted value the stand-in may decide on (a mistyped e-mail) is not replayed, not a finding.
  const notReplayed = result.stdout.split('\n').filter((line) => line.startsWith('not replayed: '))
  t.ok(notReplayed.length > 0 && notReplayed.every((line) => line.includes('its request holds redacted values (the stand-in may be what decides)')), notReplayed.join('\n'))
})

test('regression: a redacted field of a union member (a payment method\'s last4) replays with a value its version\'s schema accepts: 105 of 251 exchanges were not replayed', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 10, { redact: { pointers: ['/paymentMethod/last4'] } })
  const app = await loadApp(BILLING)
  t.teardown(() => app.close())
  const paid = linesWhere(exchanges, (exchange) => JSON.stringify(exchange).includes('"last4":"[redacted]"'))
  t.ok(paid.length > 50, 'the redacted last4 reaches many exchanges')
  const report = await replayTraffic(app, readTraffic(await readFile(file, 'utf8')))
  t.same(report.findings.map((finding) => finding.text), [], 'no finding against the correct application')
  t.same(report.notReplayable, [], 'every exchange replayed: the request validated, the answer serialized')
  t.ok(report.redacted >= paid.length, 'the redacted places are not compared')

  // A response converter changed as a team would (every payment method shown to old clients as a card) is caught on them.
  const changed = await writeMutant('billing', {
    id: 'replay/every-method-a-card',
    edits: [{ file: 'versions.ts', find: 'response.body.object = response.body.type', replace: "response.body.object = 'card'" }]
  }, join(dir, 'every-method-a-card'))
  // A bank account with a card's discriminator is no payment method the version has: its serializer refuses it.
  const shownAsBank = linesWhere(exchanges, (exchange) => JSON.stringify(exchange.clientResponse.body).includes('"object":"bank_account"'))
  t.ok(shownAsBank.length > 30)
  t.same(await findingLines(t, changed, file), shownAsBank, 'a finding on every answer showing a bank account to an old client, its last4 redacted or not')
})

test('replay and mutate: usage errors exit 2, an unreadable traffic file exits 1 naming it', async (t) => {
  const usage = async (args: string[], message: string): Promise<void> => {
    const result = await inProcess(args)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stderr, message)
  }
  await usage(['replay', BILLING], 'replay needs --traffic <file>')
  await usage(['replay', BILLING, '--traffic', 'x', '--min-score', '90'], '--min-score applies to mutate only.')
  await usage(['verify', BILLING, '--traffic', 'x'], '--traffic applies to replay and mutate only.')
  await usage(['mutate', BILLING, '--min-score', '120'], "--min-score must be a percentage from 0 to 100; got '120'.")
  await usage(['mutate', BILLING, '--traffic', ''], 'mutate needs --traffic <file>')
  const missing = await inProcess(['replay', BILLING, '--traffic', join(__dirname, 'no-such.ndjson')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /fastify-versioner replay: cannot read the traffic file .*no-such\.ndjson/)
})

test('regression: replay and mutate --traffic <a folder> is a usage error naming it (it was a bare EISDIR, exit 1)', async (t) => {
  const dir = await scratch(t)
  for (const command of ['replay', 'mutate']) {
    const result = await inProcess([command, BILLING, '--traffic', dir])
    t.equal(result.code, 2, `${command}: a usage error`)
    t.match(result.stderr, `fastify-versioner: --traffic names the traffic file (NDJSON, one exchange a line, optionally gzip), such as ${join(dir, 'exchanges.ndjson')}; ${dir} is a folder.`)
    t.match(result.stderr, /Usage:/, `${command}: with the usage text`)
    t.notMatch(result.stderr, /EISDIR/)
  }
})

test('regression: replay of a file without exchanges exits 1: a capture that published nothing proves nothing', async (t) => {
  const dir = await scratch(t)
  const empty = join(dir, 'empty.ndjson')
  await writeFile(empty, '')
  const result = await inProcess(['replay', BILLING, '--traffic', empty])
  t.equal(result.code, 1, 'not the 0 of a clean replay')
  t.match(result.stderr, /^replay: no exchange of .*empty\.ndjson was replayed, so nothing was compared; record traffic with the captureExchanges option/m)
  t.equal(result.stdout, '', 'no verdict of success')
})

const Order = Type.Object({ quantity: Type.Integer() }, { $id: 'Order' })
const OrderQuery = Type.Object({ pageSize: Type.Optional(Type.Integer()) }, { $id: 'OrderQuery' })

/** `qty` (default 1) became `quantity`; the query's `size` (an integer) became `pageSize`. */
class QuantityRenamed extends VersionChange {
  description = 'qty is quantity; size is pageSize.'
  instructionsToMigrateToPreviousVersion = [
    schema(Order).field('quantity').had({ name: 'qty', type: Type.Integer({ default: 1 }) }),
    schema(OrderQuery).field('pageSize').had({ name: 'size' })
  ]

  @ConvertRequestToNextVersionFor('/orders', ['POST'])
  up (request: RequestInfo) {
    request.body = { quantity: request.body.qty }
    const { size, ...rest } = request.queryParams
    request.queryParams = typeof size === 'number' ? { ...rest, pageSize: size } : rest
  }
}

test('replay validates a recorded request as its version did: the defaults it filled and the query strings it coerced reach the converters', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', QuantityRenamed), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/orders', { schema: { body: Order, querystring: OrderQuery, response: { 200: Order } } }, async (request) => request.body)
  }, { versioner: { captureExchanges: {} } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'POST', url: '/orders?size=20', headers: { 'x-api-version': '2000-01-01' }, payload: {} })
  t.equal(sent.statusCode, 200)
  t.equal(lines.length, 1)
  const [exchange] = lines.map((line) => JSON.parse(line) as CapturedExchange)
  t.same([exchange.clientRequest.body, exchange.clientRequest.query], [{}, { size: '20' }], 'recorded as sent')
  t.same([exchange.handlerRequest.body, exchange.handlerRequest.query], [{ quantity: 1 }, { pageSize: 20 }])
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [])
  t.equal(report.replayed, 1)
})

const Search = Type.Object({ email: Type.String({ format: 'email' }), pageSize: Type.Optional(Type.Integer()) }, { $id: 'Search' })

/** The query's `size` became `pageSize`. */
class SizeRenamed extends VersionChange {
  description = 'size is pageSize.'
  instructionsToMigrateToPreviousVersion = [schema(Search).field('pageSize').had({ name: 'size' })]

  @ConvertRequestToNextVersionFor('/search', ['GET'])
  up (request: RequestInfo) {
    const { size, ...rest } = request.queryParams
    request.queryParams = size === undefined ? rest : { ...rest, pageSize: size }
  }
}

test('regression: a redacted value the version\'s schema stops at (an email format) is no finding about what validation then left undone', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', SizeRenamed), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/search', { schema: { querystring: Search, response: { 200: Type.Object({ size: Type.Integer() }) } } }, async (request) => ({ size: request.query.pageSize ?? 0 }))
  }, { versioner: { captureExchanges: { redact: { pointers: ['/email'] } } } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'GET', url: '/search?email=ada@example.com&size=20', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(sent.statusCode, 200)
  t.equal(lines.length, 1)
  // '[redacted]' is no email: an email stands in for it, and validation goes on to coerce size ('20') to the 20 the handler received.
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [], 'no finding against a clean application')
  t.same(report.notReplayable, [], 'replayed whole')
  t.ok(report.redacted > 0, 'the email is not compared')
})

const RefOrder = Type.Object({ owner: Type.String(), ref: Type.String({ pattern: '^[a-z]+-[0-9]+$' }), qty: Type.Integer() })

/** `qty` was a string of digits: as written, and off by one above 500 as a team broke it. */
function qtyWasDigits (broken: boolean): VersionChangeClass {
  class QtyWasDigits extends VersionChange {
    description = 'qty was a string of digits.'
    instructionsToMigrateToPreviousVersion = [schema(RefOrder).field('qty').had({ type: Type.String({ pattern: '^[0-9]+$' }) })]

    @ConvertRequestToNextVersionFor(RefOrder)
    qtyUp (request: RequestInfo) {
      const qty = Number(request.body.qty)
      request.body.qty = broken && qty > 500 ? qty + 1 : qty
    }
  }
  return QtyWasDigits
}

test('regression: a converter mistake on an exchange whose version\'s schema stopped at a partly redacted value is a finding: it was "not replayed"', async (t) => {
  const appWith = async (broken: boolean): Promise<Awaited<ReturnType<typeof versionedApp>>> => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', qtyWasDigits(broken)), new Version('2000-01-01'))
    return await versionedApp(t, versions, async (api) => {
      api.post('/orders', { schema: { body: RefOrder } }, async (request) => ({ qty: request.body.qty }))
    }, { versioner: { captureExchanges: { redact: { pointers: ['/owner'] } } } })
  }
  const app = await appWith(false)
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: { owner: 'adalove', ref: 'adalove-42', qty: '999' } })
  t.equal(sent.statusCode, 200)
  // The owner's name is removed from the ref too: '[redacted]-42', which the ref's pattern refuses and no value can replace.
  t.match(JSON.parse(lines[0]) as CapturedExchange, { clientRequest: { body: { owner: '[redacted]', ref: '[redacted]-42' } } })
  t.same((await replayTraffic(app, readTraffic(lines[0]))).findings, [], 'the correct application replays it')
  const broken = await appWith(true)
  await broken.ready()
  const report = await replayTraffic(broken, readTraffic(lines[0]))
  t.same(report.findings.map((finding) => finding.text), [
    'line 1: POST /orders (2000-01-01): request body/qty: the handler received 999, the converters now give 1000; changed last by QtyWasDigits (2001-01-01), converter QtyWasDigits.qtyUp.'
  ], 'not what validation left undone: no coercion nor default makes 1000 of 999')
  t.same(report.notReplayable, [])
})

test('regression: a 204 whose schema is Type.Null() replays as sent, with no body: it was a false finding (the converters now give null)', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', QuantityRenamed), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    // `send()` without a payload, as a 204 is sent (the typed reply asks for the schema's null).
    api.post('/orders', { schema: { body: Order, querystring: OrderQuery, response: { 204: Type.Null() } } }, async (_request, reply) => { await reply.code(204).send(undefined as unknown as null) })
  }, { versioner: { captureExchanges: {} } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: { qty: 2 } })
  t.same([sent.statusCode, sent.body], [204, ''])
  t.equal(lines.length, 1)
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [])
  t.equal(report.replayed, 1)
})

test('regression: an answer holding a Date of a format date field replays as the version answered it, no finding', async (t) => {
  const Invoice = Type.Object({ dueOn: Type.String({ format: 'date' }), name: Type.String() })
  const NameWasTitle = nameWasTitleInResponses(Invoice)
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  // With the schema's serializer (the date), and one the application chose (the instant).
  for (const chosen of [false, true]) {
    const app = await versionedApp(t, versions, async (api) => {
      if (chosen) api.setReplySerializer((payload) => JSON.stringify(payload))
      api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ dueOn: new Date('2024-03-05T10:20:30.000Z'), name: 'Ada' }) as never)
    }, { versioner: { captureExchanges: {} } })
    const lines: string[] = []
    const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
    diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
    const sent = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01' } })
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    t.match(sent.json(), { dueOn: chosen ? '2024-03-05T10:20:30.000Z' : /^\d{4}-\d{2}-\d{2}$/, title: 'Ada' })
    t.equal(lines.length, 1)
    const report = await replayTraffic(app, readTraffic(lines.join('\n')))
    t.same(report.findings.map((finding) => finding.text), [], chosen ? 'a chosen serializer' : 'the schema\'s serializer')
    t.equal(report.replayed, 1)
  }
})

const Payment = Type.Object({ card: Type.Object({ number: Type.String() }), name: Type.String(), last4: Type.Optional(Type.String()) }, { $id: 'Payment' })

/** Old clients send no `last4`: it is the card number's last four digits. */
class Last4FromCard extends VersionChange {
  description = 'last4 is sent.'
  instructionsToMigrateToPreviousVersion = [schema(Payment).field('last4').didntExist]

  @ConvertRequestToNextVersionFor('/payments', ['POST'])
  up (request: RequestInfo) {
    request.body.last4 = request.body.card.number.slice(-4)
  }
}

/** The same, changed as a team would: the name is trimmed too (a change its clients notice). */
class Last4FromCardNameTrimmed extends VersionChange {
  description = 'last4 is sent.'
  instructionsToMigrateToPreviousVersion = [schema(Payment).field('last4').didntExist]

  @ConvertRequestToNextVersionFor('/payments', ['POST'])
  up (request: RequestInfo) {
    request.body.last4 = request.body.card.number.slice(-4)
    request.body.name = request.body.name.trim()
  }
}

test('regression: a value a converter makes from a redacted one (a card\'s last 4 digits) is not compared: it was a false finding on the stand-in', async (t) => {
  const record = async (change: typeof Last4FromCard | typeof Last4FromCardNameTrimmed): Promise<{ app: Awaited<ReturnType<typeof versionedApp>>, lines: string[] }> => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.post('/payments', { schema: { body: Payment, response: { 200: Type.Object({ last4: Type.String() }) } } }, async (request) => ({ last4: request.body.last4 ?? '' }))
    }, { versioner: { captureExchanges: { redact: { pointers: ['/card/number'] } } } })
    const lines: string[] = []
    const listener = (message: unknown): void => { lines.push(JSON.stringify(message)) }
    diagnosticsChannel.subscribe('fastify-versioner:exchange', listener)
    const sent = await app.inject({ method: 'POST', url: '/payments', headers: { 'x-api-version': '2000-01-01' }, payload: { card: { number: '4242424242424242' }, name: ' Ada ' } })
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', listener)
    t.same(sent.json(), { last4: '4242' })
    return { app, lines }
  }
  const { app, lines } = await record(Last4FromCard)
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]) as CapturedExchange, { handlerRequest: { body: { card: { number: '[redacted]' }, last4: '4242' } } }, 'the last 4 digits are recorded as the handler received them')
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [], 'not "the handler received \'4242\', the converters now give \'ted]\'"')
  t.same(report.notReplayable, [])
  t.equal(report.redacted, 2, 'the card number the handler received, and the last 4 digits made from it')

  // Another place of the same exchange is still compared: a converter trimming the name now is a finding.
  const changed = await record(Last4FromCardNameTrimmed)
  const found = await replayTraffic(changed.app, readTraffic(lines.join('\n')))
  t.same(found.findings.map((finding) => finding.text), [
    'line 1: POST /payments (2000-01-01): request body/name: the handler received \' Ada \', the converters now give \'Ada\'; changed last by Last4FromCardNameTrimmed (2001-01-01), converter Last4FromCardNameTrimmed.up.'
  ])
})

test('regression: an answer the application\'s ETag plugin turned into a 304 (Not Modified) is no finding: the client received no body to compare', async (t) => {
  const Invoice = Type.Object({ name: Type.String() })
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', nameWasTitleInResponses(Invoice)), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ name: 'Ada' }))
  }, { versioner: { captureExchanges: {} }, beforeVersioner: async (app) => { await app.register(etag) } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const first = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01' } })
  const again = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01', 'if-none-match': String(first.headers.etag) } })
  t.same([first.statusCode, first.json(), again.statusCode, again.body], [200, { title: 'Ada' }, 304, ''], 'a cached client is told its copy is current')
  t.equal(lines.length, 2)
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [], 'not "the client received 304, the converters now give 200"')
  t.equal(report.replayed, 2)
})

const Profile = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Profile' })

/** `title` is `name` in HEAD: as written, and as a team changed it (reading a `profile` HEAD does not return). */
class ProfileNameWasTitle extends VersionChange {
  description = 'title is name.'
  instructionsToMigrateToPreviousVersion = [schema(Profile).field('name').had({ name: 'title' })]

  @ConvertResponseToPreviousVersionFor(Profile)
  titleDown (response: ResponseInfo) {
    response.body.title = response.body.name
    delete response.body.name
  }
}

class ProfileNameWasTitleBroken extends VersionChange {
  description = 'title is name.'
  instructionsToMigrateToPreviousVersion = [schema(Profile).field('name').had({ name: 'title' })]

  @ConvertResponseToPreviousVersionFor(Profile)
  titleDown (response: ResponseInfo) {
    response.body.title = response.body.profile.name
    delete response.body.name
  }
}

test('regression: a response converter that throws now is a finding on an exchange whose request\'s Authorization was redacted: it was "not replayed", and CI passed', async (t) => {
  const appWith = async (change: typeof ProfileNameWasTitle | typeof ProfileNameWasTitleBroken): Promise<Awaited<ReturnType<typeof versionedApp>>> => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01'))
    return await versionedApp(t, versions, async (api) => {
      api.get('/profiles/:id', { schema: { response: { 200: Profile } } }, async () => ({ id: 'p1', name: 'Ada' }))
    }, { versioner: { captureExchanges: { redact: { headers: ['authorization'] } } } })
  }
  const app = await appWith(ProfileNameWasTitle)
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ url: '/profiles/p1', headers: { 'x-api-version': '2000-01-01', authorization: 'Bearer secret-token' } })
  t.same(sent.json(), { id: 'p1', title: 'Ada' })
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]) as CapturedExchange, { clientRequest: { headers: { authorization: '[redacted]' } } })
  const broken = await appWith(ProfileNameWasTitleBroken)
  await broken.ready()
  const report = await replayTraffic(broken, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [
    'line 1: GET /profiles/:id (2000-01-01): response: converter failed: TypeError: Cannot read properties of undefined (reading \'name\'); changed last by ProfileNameWasTitleBroken (2001-01-01), converter ProfileNameWasTitleBroken.titleDown.'
  ])
  t.same(report.notReplayable, [], 'not "it holds redacted values": response converters never see the request\'s headers')
})

const Note = Type.Object({ title: Type.String(), tags: Type.Array(Type.String()) })

/** `tags` were one comma-separated string: as written, as a team broke it (it reads a field no request has), and one reading the caller's token. */
function tagsWereCsv (how: 'right' | 'broken' | 'reads token'): VersionChangeClass {
  class TagsWereCsv extends VersionChange {
    description = 'tags were one comma-separated string.'
    instructionsToMigrateToPreviousVersion = [schema(Note).field('tags').had({ type: Type.String() })]

    @ConvertRequestToNextVersionFor(Note)
    tagsUp (request: RequestInfo) {
      const tags = String(request.body.tags).split(',').map((tag) => tag.trim()).filter((tag) => tag !== '')
      if (how === 'broken') tags.push(request.body.owner.name)
      if (how === 'reads token') tags.push((request.headers.authorization as string).split(' ')[1].toLowerCase())
      request.body.tags = tags
    }
  }
  return TagsWereCsv
}

test('regression: a request converter that throws now is a finding on an exchange whose Authorization was redacted: it was "not replayed", and CI passed', async (t) => {
  const appWith = async (how: Parameters<typeof tagsWereCsv>[0]): Promise<Awaited<ReturnType<typeof versionedApp>>> => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', tagsWereCsv(how)), new Version('2000-01-01'))
    return await versionedApp(t, versions, async (api) => {
      api.post('/notes', { schema: { body: Note } }, async (request) => ({ tags: request.body.tags }))
    }, { versioner: { captureExchanges: { redact: { headers: ['authorization'] } } } })
  }
  const app = await appWith('right')
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  for (const authorization of [undefined, 'Bearer secret-token']) {
    const headers = { 'x-api-version': '2000-01-01', ...(authorization === undefined ? {} : { authorization }) }
    await app.inject({ method: 'POST', url: '/notes', headers, payload: { title: 'Pen', tags: 'red, ,blue' } })
  }
  t.equal(lines.length, 2)
  t.match(JSON.parse(lines[1]) as CapturedExchange, { clientRequest: { headers: { authorization: '[redacted]' } } })
  const broken = await appWith('broken')
  await broken.ready()
  const report = await replayTraffic(broken, readTraffic(lines.join('\n')))
  const failure = '(2000-01-01): request: converter failed: TypeError: Cannot read properties of undefined (reading \'name\'); changed last by TagsWereCsv (2001-01-01), converter TagsWereCsv.tagsUp.'
  t.same(report.findings.map((finding) => finding.text), [`line 1: POST /notes ${failure}`, `line 2: POST /notes ${failure}`], 'the same failure, with a token or without')
  t.same(report.notReplayable, [])
  // A converter that reads the redacted value itself still cannot be replayed on it.
  const reader = await appWith('reads token')
  await reader.ready()
  const read = await replayTraffic(reader, readTraffic(lines[1]))
  t.same(read.findings, [])
  t.match(read.notReplayable, [{ line: 1, message: /^request: TypeError: .*\(it holds redacted values\)$/ }])
})

test('replay prints the exchanges not replayed for one reason once, with the lines of the others', async (t) => {
  const { file, exchanges } = await trafficFile(t, 6)
  // Bodies redacted whole (a `/` pointer): the request converters cannot read them.
  const redacted = exchanges.map((exchange) => exchange.route.url === '/customers' && exchange.version === '2023-10-16'
    ? { ...exchange, clientRequest: { ...exchange.clientRequest, body: '[redacted]' } }
    : exchange)
  await writeFile(file, redacted.map((exchange) => JSON.stringify(exchange)).join('\n'))
  const customers = (exchange: CapturedExchange): boolean => exchange.route.url === '/customers' && exchange.version === '2023-10-16'
  // Two reasons: the handled requests' converter cannot read the stand-in; the refused ones may be refused for it.
  const lines = linesWhere(exchanges, (exchange) => customers(exchange) && !('refused' in exchange))
  const refused = linesWhere(exchanges, (exchange) => customers(exchange) && 'refused' in exchange)
  t.ok(lines.length > 3)
  const result = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(result.code, 0, result.stderr)
  const notReplayed = result.stdout.split('\n').filter((line) => line.startsWith('not replayed: '))
  t.ok(refused.length > 0, 'the clients\' mistakes are recorded refused')
  t.equal(notReplayed.length, 2, result.stdout)
  t.match(notReplayed[0], `not replayed: line ${lines[0]}: POST /customers (2023-10-16): request: `)
  t.match(result.stdout, `\n  and ${lines.length - 1} more like it (same route, version and reason): lines ${lines.slice(1).join(', ')}.\n`)
  t.match(notReplayed[1], `not replayed: line ${refused[0]}: POST /customers (2023-10-16): request: refused otherwise now, but its request holds redacted values`)
  t.match(result.stdout, `; ${lines.length + refused.length} exchange(s) not replayed.`)
})

const Line = Type.Object({ id: Type.String(), amount: Type.Integer() })
const Order2 = Type.Object({ lines: Type.Array(Line), requestId: Type.String() }, { $id: 'Order2' })

/** Old clients sent neither line ids nor a request id: a converter makes them up (random), as HEAD requires them. */
class LineIdsMadeUp extends VersionChange {
  description = 'Lines have ids; orders a request id.'
  instructionsToMigrateToPreviousVersion = [schema(Line).field('id').didntExist, schema(Order2).field('requestId').didntExist]

  @ConvertRequestToNextVersionFor('/orders2', ['POST'])
  up (request: RequestInfo) {
    request.body.requestId = randomUUID()
    for (const line of request.body.lines) line.id = randomUUID()
  }
}

test('values a converter makes up (random ids, nested and in list items) are kept out of replay by redacting their pointers, as documented', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', LineIdsMadeUp), new Version('2000-01-01'))
  const routes = async (api: Parameters<NonNullable<Parameters<typeof versionedApp>[2]>>[0]): Promise<void> => {
    api.post('/orders2', { schema: { body: Order2, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async (request) => ({ count: request.body.lines.length }))
  }
  for (const pointers of [[], ['/requestId', '/lines/*/id']]) {
    const app = await versionedApp(t, versions, routes, { versioner: { captureExchanges: { redact: { pointers } } } })
    const lines: string[] = []
    const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
    diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
    await app.inject({ method: 'POST', url: '/orders2', headers: { 'x-api-version': '2000-01-01' }, payload: { lines: [{ amount: 1 }, { amount: 2 }] } })
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    const report = await replayTraffic(app, readTraffic(lines.join('\n')))
    if (pointers.length === 0) t.match(report.findings.map((finding) => finding.text), [/request body\/lines\/0\/id: the handler received '[0-9a-f-]{36}', the converters now give '[0-9a-f-]{36}'/], 'without: a finding on every exchange')
    else t.same([report.findings, report.redacted], [[], 3], 'with: not compared, and counted')
  }
})

test('an application onSend hook that wraps every JSON answer is recorded in the client\'s answer; undone in the subscriber, as documented, replay passes', async (t) => {
  const Item = Type.Object({ name: Type.String() })
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', nameWasTitleInResponses(Item)), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/item', { schema: { response: { 200: Item } } }, async () => ({ name: 'Ada' }))
  }, {
    versioner: { captureExchanges: {} },
    // Every version's answer, HEAD's too, in an envelope with the instant it was served.
    beforeVersioner: (app) => { app.addHook('onSend', async (_request, _reply, payload) => typeof payload === 'string' ? `{"servedAt":${Date.now()},"data":${payload}}` : payload) }
  })
  const recorded: CapturedExchange[] = []
  const record = (message: unknown): void => { recorded.push(message as CapturedExchange) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ url: '/item', headers: { 'x-api-version': '2000-01-01' } })
  t.match(sent.json(), { servedAt: Number, data: { title: 'Ada' } })
  t.equal(recorded.length, 1)
  const as = (exchanges: CapturedExchange[]): ReturnType<typeof readTraffic> => readTraffic(exchanges.map((exchange) => JSON.stringify(exchange)).join('\n'))
  const wrapped = await replayTraffic(app, as(recorded))
  t.match(wrapped.findings.map((finding) => finding.text), [/response body\/servedAt: the client received \d+, the converters now give nothing/], 'as recorded: the envelope is the application\'s, not the converters\'')
  // The subscriber undoes its application's envelope before writing the line.
  const unwrapped = recorded.map((exchange) => ({ ...exchange, clientResponse: { ...exchange.clientResponse, body: (exchange.clientResponse.body as { data: unknown }).data } }))
  t.same((await replayTraffic(app, as(unwrapped))).findings, [])
})

const Price = Type.Object({ amount: Type.Number() }, { $id: 'Price' })

/** A change of behaviour: amounts are no longer rounded (business code and converters ask `ExactAmounts.isApplied`). */
class ExactAmounts extends VersionChangeWithSideEffects {
  description = 'Amounts are no longer rounded.'
  instructionsToMigrateToPreviousVersion = []
}

/** `total` is `amount`; the amount a client of a version before ExactAmounts sends is rounded. */
class AmountWasTotal extends VersionChange {
  description = 'total is amount.'
  instructionsToMigrateToPreviousVersion = [schema(Price).field('amount').had({ name: 'total' })]

  @ConvertRequestToNextVersionFor(Price)
  up (request: RequestInfo) {
    const total = request.body.total as number
    request.body = { amount: ExactAmounts.isApplied ? total : Math.round(total) }
  }

  @ConvertResponseToPreviousVersionFor(Price)
  down (response: ResponseInfo) {
    response.body = { total: response.body.amount }
  }
}

test('regression: a converter reading VersionChangeWithSideEffects.isApplied replays in the exchange\'s version, as served: it read true (the newest), a finding on every exchange', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', ExactAmounts), new Version('2001-01-01', AmountWasTotal), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/prices', { schema: { body: Price, response: { 200: Price } } }, async (request) => request.body)
  }, { versioner: { captureExchanges: {} } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'POST', url: '/prices', headers: { 'x-api-version': '2000-01-01' }, payload: { total: 1.5 } })
  t.same(sent.json(), { total: 2 }, 'rounded: 2000-01-01 is before ExactAmounts')
  t.equal(lines.length, 1)
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [], 'not "the handler received 2, the converters now give 1.5"')
  t.equal(report.replayed, 1)
})

test('replay reads a gzip traffic file (a log pipeline\'s exchanges.ndjson.gz): it was 1 malformed line per stretch of compressed bytes', async (t) => {
  const { dir, file, exchanges } = await trafficFile(t, 2)
  const compressed = join(dir, 'exchanges.ndjson.gz')
  await writeFile(compressed, gzipSync(await readFile(file)))
  const result = await inProcess(['replay', BILLING, '--traffic', compressed])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stderr, '')
  t.match(result.stdout, `replay: every one of ${exchanges.length} exchange(s) of ${compressed} migrates as recorded.`)
  // Cut short, it cannot be read: said once.
  await writeFile(compressed, gzipSync(await readFile(file)).subarray(0, 100))
  const cut = await inProcess(['replay', BILLING, '--traffic', compressed])
  t.equal(cut.code, 1)
  t.match(cut.stderr, /^fastify-versioner replay: cannot read the traffic file .*exchanges\.ndjson\.gz: unexpected end of file/)
})

test('replay names the first 20 malformed lines of a file that is not a capture (a log file), and counts the others', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'app.log')
  await writeFile(file, Array.from({ length: 500 }, (_, index) => JSON.stringify({ level: 30, msg: `request ${index} completed` })).join('\n'))
  const result = await inProcess(['replay', BILLING, '--traffic', file])
  t.equal(result.code, 1)
  const lines = result.stderr.trim().split('\n')
  t.equal(lines.filter((line) => /^malformed: .* line \d+: its version is not a string$/.test(line)).length, 20)
  t.match(result.stderr, `malformed: ${file}: and 480 more line(s) that are not exchanges (the NDJSON a captureExchanges subscriber writes, one exchange or webhook render a line).`)
  t.ok(lines.length < 25, `${lines.length} lines printed`)
})

const Quote = Type.Object({ amount: Type.Integer() }, { $id: 'Quote' })

/** Old clients read the price's cost from `x-cost` (HEAD sends `x-request-cost`), in whole units (HEAD: cents). */
function costHeaderChange (rename: string, divide: number) {
  class CostHeaderRenamed extends VersionChange {
    description = 'The cost header is x-request-cost, in cents (it was x-cost, in units).'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/quotes', ['POST'])
    down (response: ResponseInfo) {
      const cost = response.headers['x-request-cost']
      delete response.headers['x-request-cost']
      response.headers[rename] = String(Number(cost) / divide)
      // The cookie plugin adds the handler's cookies to it after the converters: not compared.
      response.headers['set-cookie'] = 'legacy=1'
    }
  }
  return CostHeaderRenamed
}

test('regression: a response converter that renames or converts a response header is checked: replay compared no response header, and passed either mistake', async (t) => {
  const record = async (change: ReturnType<typeof costHeaderChange>): Promise<{ app: Awaited<ReturnType<typeof versionedApp>>, lines: string[], cost: unknown }> => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.post('/quotes', { schema: { body: Quote, response: { 200: Quote } } }, async (request, reply) => {
        // Headers the handler and the plugins set after the converters are the application's: not compared.
        reply.header('x-request-cost', '250').header('cache-control', 'no-store').setCookie('seen', '1')
        return request.body
      })
    }, { versioner: { captureExchanges: {} }, beforeVersioner: async (app) => { await app.register(etag); await app.register(cookie) } })
    const lines: string[] = []
    const listener = (message: unknown): void => { lines.push(JSON.stringify(message)) }
    diagnosticsChannel.subscribe('fastify-versioner:exchange', listener)
    const sent = await app.inject({ method: 'POST', url: '/quotes', headers: { 'x-api-version': '2000-01-01' }, payload: { amount: 5 } })
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', listener)
    t.same(sent.headers['set-cookie'], ['legacy=1', 'seen=1; SameSite=Lax'])
    return { app, lines, cost: sent.headers['x-cost'] }
  }
  const { app, lines, cost } = await record(costHeaderChange('x-cost', 100))
  t.equal(cost, '2.5')
  t.equal(lines.length, 1)
  const clean = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(clean.findings.map((finding) => finding.text), [], 'the correct converter: no finding')

  const renamed = await record(costHeaderChange('x-costs', 100))
  t.same((await replayTraffic(renamed.app, readTraffic(lines.join('\n')))).findings.map((finding) => finding.text), [
    'line 1: POST /quotes (2000-01-01): response headers/x-costs: the client received nothing, the converters now give \'2.5\'; changed last by CostHeaderRenamed (2001-01-01), converter CostHeaderRenamed.down.'
  ], 'renamed the wrong way')
  const inCents = await record(costHeaderChange('x-cost', 1))
  t.same((await replayTraffic(inCents.app, readTraffic(lines.join('\n')))).findings.map((finding) => finding.text), [
    'line 1: POST /quotes (2000-01-01): response headers/x-cost: the client received \'2.5\', the converters now give \'250\'; changed last by CostHeaderRenamed (2001-01-01), converter CostHeaderRenamed.down.'
  ], 'not converted')
})

test('regression: an exchange an older release recorded whose answer was the versioner\'s own 500 is "not replayed", named: it was replayed as behaviour to keep', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', ProfileNameWasTitle), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/profiles/:id', { schema: { response: { 200: Profile } } }, async () => ({ id: 'p1', name: 'Ada' }))
  }, { versioner: { captureExchanges: {} } })
  const lines: CapturedExchange[] = []
  const record = (message: unknown): void => { lines.push(message as CapturedExchange) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  await app.inject({ url: '/profiles/p1', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(lines.length, 1)
  // As an older release recorded a 500 of the versioner's: its error body on both sides of the converters.
  const codes = ['FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 'FST_VERSIONER_CONVERTER_FAILED', 'FST_VERSIONER_LATEST_REQUEST_VALIDATION']
  const failed = codes.map((code) => {
    const answer = { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' }, body: { statusCode: 500, code, error: 'Internal Server Error', message: 'This is a server error; it has been logged.' } }
    return { ...lines[0], handlerResponse: answer, clientResponse: answer }
  })
  const report = await replayTraffic(app, readTraffic([lines[0], ...failed].map((exchange) => JSON.stringify(exchange)).join('\n')))
  t.same(report.findings, [])
  t.same(report.notReplayable.map((skipped) => [skipped.line, skipped.message]), codes.map((code, index) => [index + 2,
    `the recorded answer is the versioner's own 500 (${code}), a server failure and not behaviour to keep: remove it from the traffic file (captureExchanges no longer records such answers)`]))
})

test('regression: replayTraffic on an app not ready yet throws FST_VERSIONER_NOT_READY: it passed every exchange, finding nothing', async (t) => {
  const { file } = await trafficFile(t, 1)
  const app = await loadApp(BILLING)
  t.teardown(() => app.close())
  const unready = await buildBillingApp()
  t.teardown(() => unready.close())
  const traffic = readTraffic(await readFile(file, 'utf8'))
  await t.rejects(replayTraffic(unready, traffic), { code: 'FST_VERSIONER_NOT_READY', message: /replayTraffic\(app\) is only available after app\.ready\(\)/ })
  t.ok((await replayTraffic(app, traffic)).replayed > 0, 'the ready app replays it')
})
