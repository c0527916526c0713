// `retire --usage <file>`: the usage file reader refuses impossible dates, deep, truncated or corrupted files and
// wrong types, naming the file and the place, without a stack trace; client ids and other text from the file are
// printed escaped, so that they cannot forge the tool's lines. Property tests of the reader and of the escaping.
import t, { test } from 'tap'
import fc from 'fast-check'
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseUsage, usageVerdict } from '../../lib/tools/retire-usage'
import { readTraffic } from '../../tools'
import { recordTraffic } from '../../examples/traffic'
import { describeThrown, printable, terminalLines } from '../../lib/tools/terminal-text'
import { inProcess, scratch } from '../helpers/cli'

const example = 'examples/users/app.ts'
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u
const DAY = 86_400_000

// One retire run builds the app twice and verifies what remains.
t.setTimeout(300_000)

/** What parseUsage throws for a text (`undefined` when it reads it). */
function refusal (text: string, file = 'usage.json'): Error & { code?: string } | undefined {
  try {
    parseUsage(text, file)
    return undefined
  } catch (error) {
    return error as Error & { code?: string }
  }
}

test('refused usage files: exit 1, one line naming the file and the place (line and column, or JSON pointer), no stack trace', async (t) => {
  const dir = await scratch(t)
  const valid = JSON.stringify({ versions: { '2000-01-01': { lastSeen: '2026-11-23T10:00:00Z', clients: { acct_1: '2026-11-23T10:00:00Z' } } } }, null, 2)
  const cases: Array<[string, string]> = [
    ['{"versions":{"2000-01-01":{"lastSeen":"2026-02-30T00:00:00Z"}}}', '/versions/2000-01-01/lastSeen is "2026-02-30T00:00:00Z": 2026-02-30 is not a date of the calendar'],
    ['{"versions":{"2000-01-01":{"clients":{"a":"2026-01-01T24:00:00Z"}}}}', '/versions/2000-01-01/clients/a is "2026-01-01T24:00:00Z", not an ISO 8601 date-time with a time zone'],
    [`{"versions":{"2000-01-01":{"clients":{"a":${'['.repeat(50_000)}`, 'nests too deep: at line 1, column 55, objects and arrays nest deeper than 16 levels (a usage file nests 6)'],
    [valid.slice(0, valid.indexOf('"clients"')), 'is not JSON: at line 5, column 7, the file ends before its JSON does (truncated?): expected a property name'],
    [`{\n<<<<<<< HEAD\n${valid}`, "is not JSON: at line 2, column 1, expected a property name in double quotes, found '<'"],
    ['{"versions":{"2000-01-01":{"lastSeen":"\u001b[2J"}}}', 'is not JSON: at line 1, column 39, a string that is not closed, or holds a control character or a bad escape'],
    ['{"versions":[]}', '/versions is an array, where an object of versions is expected'],
    ['{"apis":{"a/b~c":{"versions":{"v1":{"clients":[]}}}}}', '/apis/a~1b~0c/versions/v1/clients is an array, where an object of client ids and times is expected'],
    ['{"versions":{"x\\u001b[31m":{"lastSeen":true}}}', '/versions/x\\x1b[31m/lastSeen is true, not an ISO 8601 date-time with a time zone']
  ]
  for (const [index, [text, message]] of cases.entries()) {
    const file = join(dir, `usage-${index}.json`)
    await writeFile(file, text)
    const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', file])
    t.equal(result.code, 1, message)
    t.equal(result.stdout, '', 'nothing is built')
    t.equal(result.stderr.split('\n').length, 2, 'one line')
    t.ok(result.stderr.startsWith(`fastify-versioner retire: The usage file '${file}': ${message}; accepted: `), result.stderr)
  }
})

test('client ids are printed escaped: no control character, ANSI sequence or newline forges a line', async (t) => {
  const dir = await scratch(t)
  const seen = new Date(Date.now() - DAY).toISOString()
  const forged = ['acct\ncheck: no breaking change in 9 remaining version(s)', '\u001b[2K\rcheck: ok', 'a\u2028check: ok', '\u009b2Jcheck: ok']
  const file = join(dir, 'usage.json')
  await writeFile(file, JSON.stringify({ versions: { '2000-01-01': { clients: Object.fromEntries(forged.map((id) => [id, seen])) } } }))
  const result = await inProcess(['retire', example, '--version', '2000-01-01', '--usage', file, '--quiet-days', '7', '--examples', '5'])
  t.equal(result.code, 1, 'traffic inside the window')
  const lines = `${result.stdout}${result.stderr}`.split('\n')
  t.same(lines.filter((line) => line.startsWith('check: ok') || line.startsWith('check: no breaking change in 9')), [], 'no forged line')
  t.same(lines.filter((line) => UNSAFE.test(line)), [], 'no control character')
  t.match(result.stderr, 'clients: acct\\ncheck: no breaking change in 9 remaining version(s) (24 hours ago), \\x1b[2K\\rcheck: ok (24 hours ago), ' +
    'a\\u2028check: ok (24 hours ago), \\x9b2Jcheck: ok (24 hours ago)')
  t.match(result.stdout, /^check: no breaking change in 3 remaining version\(s\)/m, 'the real line is there')
})

test('webhook subscribers in the usage file: read, printed per retired version, and --quiet-days names those rendered for inside the window', async (t) => {
  const now = Date.UTC(2026, 10, 28)
  const at = (days: number): string => new Date(now - days * DAY).toISOString()
  const usage = parseUsage(JSON.stringify({
    versions: {
      '2000-01-01': { clients: { acct_1: at(40) }, webhooks: { ep_1: at(2), ep_2: at(60) } },
      '2001-01-01': { webhooks: { ep_3: at(50) } }
    }
  }), 'usage.json').get('')
  t.same([...usage?.get('2000-01-01')?.webhooks ?? []], [['ep_1', now - 2 * DAY], ['ep_2', now - 60 * DAY]])
  t.equal(usage?.get('2000-01-01')?.lastSeen, now - 2 * DAY, 'a webhook rendered counts as a use of the version')
  const lines: string[] = []
  const io = { out: (line: string) => { lines.push(`out ${line}`) }, err: (line: string) => { lines.push(`err ${line}`) } }
  t.equal(usageVerdict('2000-01-01', usage?.get('2000-01-01'), { quietDays: 30, now }, io), 1, 'rendered for ep_1 two days ago: not quiet')
  t.equal(usageVerdict('2001-01-01', usage?.get('2001-01-01'), { quietDays: 30, now }, io), 0, 'only 50 days ago: quiet')
  t.same(lines, [
    `out usage: 2000-01-01 last seen ${at(2)} (2 days ago); clients: acct_1 (${at(40)}); webhooks rendered for: ep_1 (${at(2)}), ep_2 (${at(60)})`,
    'err retire: 2000-01-01 had traffic inside the last 30 day(s) (--quiet-days 30), last 2 days ago; webhooks rendered for: ep_1 (2 days ago). Ask them to upgrade, or wait.',
    `out usage: 2001-01-01 last seen ${at(50)} (50 days ago); webhooks rendered for: ep_3 (${at(50)})`
  ])
  t.match(refusal('{"versions":{"v":{"webhooks":[]}}}')?.message, '/versions/v/webhooks is an array, where an object of webhook subscriber ids and times is expected')
  t.match(refusal('{"versions":{"v":{}}}')?.message, '/versions/v has neither lastSeen, clients nor webhooks')
})

test('property: any text is read, or refused with one printable line naming the file, never another error', async (t) => {
  const texts = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.json(),
    fc.jsonValue().map((value) => JSON.stringify({ versions: value })),
    fc.dictionary(fc.string({ unit: 'binary' }), fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()))
      .map((versions) => JSON.stringify({ versions }, null, 2)),
    fc.tuple(fc.json(), fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1)))
  )
  fc.assert(fc.property(texts, (text) => {
    const error = refusal(text)
    if (error === undefined) return
    assert.equal(error.code, 'FST_VERSIONER_TOOL', error.message)
    assert.ok(error.message.startsWith("The usage file 'usage.json': "), error.message)
    assert.ok(!UNSAFE.test(error.message), `printable on one line: ${error.message}`)
  }), { numRuns: 500 })
  t.pass('500 texts')
})

test('property: a well-formed file is read exactly; each of its proper prefixes is refused at a line and column', async (t) => {
  const time = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString())
  const usage = fc.dictionary(fc.string({ unit: 'binary', minLength: 1 }), fc.record({ lastSeen: time, clients: fc.dictionary(fc.string({ unit: 'binary' }), time) }), { minKeys: 1 })
  fc.assert(fc.property(usage, fc.nat(), (versions, cut) => {
    const text = JSON.stringify({ versions }, null, 2)
    const read = parseUsage(text, 'usage.json').get('')
    for (const [version, { lastSeen, clients }] of Object.entries(versions)) {
      const times = [lastSeen, ...Object.values(clients)].map(Date.parse)
      assert.equal(read?.get(version)?.lastSeen, Math.max(...times))
      assert.deepEqual([...read?.get(version)?.clients.keys() ?? []], Object.keys(clients))
    }
    const prefix = text.slice(0, cut % text.length)
    assert.match(refusal(prefix)?.message ?? '', /^The usage file 'usage\.json': is not JSON: at line \d+, column \d+, /, JSON.stringify(prefix))
  }), { numRuns: 200 })
  t.pass('200 files')
})

test('property: a date-time is read when its date is on the calendar (2026-02-30 is not), at the very time it names', async (t) => {
  const parts = fc.record({ year: fc.integer({ min: 1970, max: 2100 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 31 }), hour: fc.integer({ min: 0, max: 23 }) })
  fc.assert(fc.property(parts, ({ year, month, day, hour }) => {
    const two = (value: number): string => String(value).padStart(2, '0')
    const text = `${year}-${two(month)}-${two(day)}T${two(hour)}:30:00Z`
    const utc = new Date(Date.UTC(year, month - 1, day, hour, 30))
    const file = JSON.stringify({ versions: { v: { lastSeen: text } } })
    if (utc.getUTCDate() === day) assert.equal(parseUsage(file, 'u').get('')?.get('v')?.lastSeen, utc.getTime(), text)
    else assert.ok(refusal(file)?.message.includes(`/versions/v/lastSeen is "${text}": ${text.slice(0, 10)} is not a date of the calendar`), text)
  }), { numRuns: 500 })
  t.pass('500 date-times')
})

test('property: printable text holds no control, format or separator character, and leaves other text as it is', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
    const shown = printable(text)
    assert.ok(!UNSAFE.test(shown), JSON.stringify(shown))
    if (!UNSAFE.test(text)) assert.equal(shown, text)
    assert.equal(terminalLines(text).split('\n').length, text.split('\n').length, 'the tool keeps its own lines, and only those')
    assert.ok(!UNSAFE.test(describeThrown(text)))
  }), { numRuns: 1000 })
  t.pass('1000 texts')
})

test('describeThrown shows whatever was thrown, on lines that cannot read as the tool\'s own', async (t) => {
  const error = new Error('no database\ncheck: ok')
  const lines = describeThrown(error).split('\n')
  t.equal(lines[0], 'Error: no database\\ncheck: ok')
  t.ok(lines.slice(1).every((line) => line.startsWith('    at ')), 'then its stack frames, indented')
  t.equal(describeThrown(null), 'null')
  t.equal(describeThrown(undefined), 'undefined')
  t.equal(describeThrown(''), "'' (an empty string)")
  t.equal(describeThrown({ code: 1 }), '{"code":1}')
  t.equal(describeThrown(Object.create(null)), '{}')
  const hostile = new Proxy({}, { get () { throw new Error('trap') }, ownKeys () { throw new Error('trap') } })
  t.equal(describeThrown(hostile), 'a value that cannot be shown (object)')
})

test('regression: a usage file or traffic file starting with a byte-order mark (PowerShell\'s UTF-8) is read, not refused at line 1, column 1', async (t) => {
  const usage = JSON.stringify({ versions: { '2000-01-01': { lastSeen: '2026-11-01T00:00:00Z' } } })
  t.same(parseUsage(`\uFEFF${usage}`, 'usage.json'), parseUsage(usage, 'usage.json'))
  const [line] = await recordTraffic('users', 1)
  const traffic = readTraffic(`\uFEFF${line}\n`)
  t.same(traffic.problems, [])
  t.equal(traffic.exchanges.length, 1)
  t.same(traffic, readTraffic(`${line}\n`))
})
