import { AsyncLocalStorage } from 'node:async_hooks'
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange,
  schema, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { generationSteps } from '../../lib/describe/versions'
import { readFieldDeprecation } from '../../lib/describe/field-deprecation'
import { processWarning } from '../../lib/core/warnings'
import { recordWarnings, settle } from '../helpers/changelog-lifecycle'
import { caught, throwsStructure } from '../helpers/errors'
import { changeClass, changesOf } from '../helpers/version-changes'
import { anotherCopy } from '../helpers/another-copy'

const asAny = (value: unknown): any => value

test('a bundle needs at least one dated (non-HEAD) version', async (t) => {
  const message = /at least one non-head version/
  throwsStructure(t, () => new VersionBundle(), message)
  throwsStructure(t, () => new VersionBundle(new HeadVersion()), message)
  throwsStructure(t, () => new VersionBundle(new HeadVersion(), {}), message)
  throwsStructure(t, () => new VersionBundle({ apiVersionStorage: new AsyncLocalStorage<string | undefined>() }), message)
})

test('two versions with the same value are rejected, naming the value', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), new Version('2001-01-01')),
    /two versions with the same value/, /'2001-01-01'/)
  throwsStructure(t, () => new VersionBundle(new Version('v2'), new Version('v1'), new Version('v2')),
    /same value/, /'v2'/)
  // A Date and the string of the same day are the same version.
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), new Version(new Date(Date.UTC(2001, 0, 1)))),
    /same value/, /'2001-01-01'/)
})

test('the reserved values head and unversioned cannot be versions', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('head'), new Version('v1')), /'head' is reserved/, /HEAD/)
  throwsStructure(t, () => new VersionBundle(new Version('v2'), new Version('unversioned')), /'unversioned' is reserved/, /unversioned routes/)
})

test('the oldest version cannot have version changes', async (t) => {
  const Change = changeClass('ChangeOnOldest')
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', Change)),
    /oldest version '2000-01-01' cannot have any version changes/)
  // a single version is also the oldest
  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01', changeClass('SoleChange'))), /oldest version '2000-01-01'/)
})

test('a change bound to two versions of one bundle is rejected, naming the class and both versions', async (t) => {
  const Twice = changeClass('BoundTwice')
  throwsStructure(t, () => new VersionBundle(new Version('2002-01-01', Twice), new Version('2001-01-01', Twice), new Version('2000-01-01')),
    /version change 'BoundTwice' to two different versions/, /Version\('2002-01-01'\)/, /Version\('2001-01-01'\)/)

  const InOneVersionTwice = changeClass('ListedTwice')
  const twice = throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', InOneVersionTwice, InOneVersionTwice), new Version('2000-01-01')),
    /^Version change 'ListedTwice' is listed twice in Version\('2001-01-01'\)/)
  t.notMatch(twice.message, /two different versions/, 'regression: one version was called two different versions')

  const HeadAndVersion = changeClass('HeadAndVersion')
  throwsStructure(t, () => new VersionBundle(new HeadVersion(HeadAndVersion), new Version('2001-01-01', HeadAndVersion), new Version('2000-01-01')),
    /'HeadAndVersion' to two different versions/, /HeadVersion and Version\('2001-01-01'\)/)
})

test('a change class may belong to several bundles: a bundle built by a factory works on every call', async (t) => {
  class SharedChange extends VersionChange {
    description = 'A change listed by a bundle factory.'
    instructionsToMigrateToPreviousVersion = []
  }
  class HeadChange extends VersionChange {
    description = 'A HEAD change listed by a bundle factory.'
    instructionsToMigrateToPreviousVersion = []
  }
  const factory = () => new VersionBundle(new HeadVersion(HeadChange), new Version('2001-01-01', SharedChange), new Version('2000-01-01'))
  const first = factory()
  const second = factory()
  t.not(first, second)
  t.same(second.versionValues, ['2001-01-01', '2000-01-01'])
  t.same(changesOf(second, '2001-01-01')?.map((change) => change.name), ['SharedChange'])
  t.ok(new VersionBundle(new Version('v2', SharedChange), new Version('v1')), 'in another version of another bundle too')
  t.ok(new VersionBundle(new HeadVersion(SharedChange), new Version('v1')), 'or in HeadVersion of another bundle')
})

test('versions listed oldest first: the error blames the order, not the changes', async (t) => {
  const Change = changeClass('AddedIn2001')
  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01'), new Version('2001-01-01', Change)),
    /^Versions are not sorted correctly: got 2000-01-01, 2001-01-01\. Sort them newest first: 2001-01-01, 2000-01-01\.$/)
  // String versions have no order to check: the message about the oldest version's changes suggests the reversal.
  throwsStructure(t, () => new VersionBundle(new Version('v1'), new Version('v2', changeClass('AddedInV2'))),
    /^The oldest version 'v2' cannot have any version changes\..* Versions are listed newest first: if v1, v2 is oldest first, reverse it\.$/)
})

test('a bundle that fails its checks binds none of its changes', async (t) => {
  const Kept = changeClass('KeptFree')
  // fails on sorting
  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01'), new Version('2001-01-01', Kept), new Version('1999-01-01')), /not sorted/)
  const KeptToo = changeClass('KeptFreeToo')
  // fails while reading the changes of a later version, after KeptToo was read
  class BrokenLater extends VersionChange {
    description = ' '
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => new VersionBundle(new Version('2002-01-01', KeptToo), new Version('2001-01-01', BrokenLater), new Version('2000-01-01')),
    /'BrokenLater'/)
  // fails on the HEAD check
  class HeadWithConverter extends VersionChange {
    description = 'A HEAD change with a converter.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/users', ['POST'])
    up (request: RequestInfo) { request.body.x = 1 }
  }
  throwsStructure(t, () => new VersionBundle(new HeadVersion(HeadWithConverter), new Version('2001-01-01', Kept), new Version('2000-01-01')),
    /HeadVersion does not support/)
  const bundle = new VersionBundle(new Version('2002-01-01', Kept), new Version('2001-01-01', KeptToo), new Version('2000-01-01'))
  t.same(changesOf(bundle, '2002-01-01')?.map((change) => change.name), ['KeptFree'])
  t.same(changesOf(bundle, '2001-01-01')?.map((change) => change.name), ['KeptFreeToo'])
})

test('HEAD changes may carry instructions but no converters; the message names the class and its converters', async (t) => {
  const Body = Type.Object({ name: Type.String(), internal: Type.String() })
  class HeadInstructionsOnly extends VersionChange {
    description = 'The latest version does not show internal.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('internal').didntExist]
  }
  const ok = new VersionBundle(new HeadVersion(HeadInstructionsOnly), new Version('2000-01-01'))
  t.equal(ok.headVersion.changes[0], HeadInstructionsOnly)
  t.equal(changesOf(ok, 'HeadVersion')?.[0].version, 'head')
  t.equal(changesOf(ok, 'HeadVersion')?.[0].instructions.length, 1)

  class HeadWithConverters extends VersionChange {
    description = 'HEAD with converters.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Body)
    up (request: RequestInfo) { request.body.x = 1 }

    @ConvertResponseToPreviousVersionFor('/users', ['GET'])
    down (response: ResponseInfo) { response.body.x = 1 }
  }
  throwsStructure(t, () => new VersionBundle(new HeadVersion(HeadWithConverters), new Version('2000-01-01')),
    /HeadVersion does not support request or response converters/, /'HeadWithConverters'/,
    /HeadWithConverters\.up, HeadWithConverters\.down/)
})

test('ISO-date versions must be sorted newest first; the message shows the expected order', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01'), new Version('2001-01-01')),
    'got 2000-01-01, 2001-01-01', 'Sort them newest first: 2001-01-01, 2000-01-01')
  throwsStructure(t, () => new VersionBundle(new HeadVersion(), new Version('2002-01-01'), new Version('2000-01-01'), new Version('2001-01-01')),
    'got 2002-01-01, 2000-01-01, 2001-01-01', 'newest first: 2002-01-01, 2001-01-01, 2000-01-01')
  const sorted = new VersionBundle(new Version('2002-01-01'), new Version('2001-06-30'), new Version('2001-01-01'))
  t.same(sorted.versionValues, ['2002-01-01', '2001-06-30', '2001-01-01'])
})

test('string versions keep the order they are given in, unsorted', async (t) => {
  const bundle = new VersionBundle(new Version('v2'), new Version('v1'), new Version('v10'))
  t.same(bundle.versionValues, ['v2', 'v1', 'v10'])
  t.equal(bundle.valuesAreDates, false)
  // mixing a date with a string disables the date ordering check
  const mixed = new VersionBundle(new Version('2000-01-01'), new Version('2001-01-01'), new Version('legacy'))
  t.same(mixed.versionValues, ['2000-01-01', '2001-01-01', 'legacy'])
  t.equal(mixed.valuesAreDates, false)
})

test('non-Version arguments are rejected, naming the argument', async (t) => {
  throwsStructure(t, () => new VersionBundle(asAny('2001-01-01'), new Version('2000-01-01')), /argument 1 \('2001-01-01'\) is not a Version/)
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), asAny(42), new Version('2000-01-01')), /argument 2 \(42\) is not a Version/)
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), asAny('oops')), /last argument must be a Version or an options object; got 'oops'/)
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), asAny(null)), /last argument .* got null/)
  // Version: change arguments must be classes; only the last may be lifecycle options
  throwsStructure(t, () => new Version('2001-01-01', asAny('NotAClass')), /Version\('2001-01-01'\): argument 2 \('NotAClass'\) is not a version change class/)
  throwsStructure(t, () => new Version('2001-01-01', asAny({ link: 'https://example.com' }), changeClass('AfterLifecycle')),
    /Version\('2001-01-01'\): argument 2 .* only the last argument may be an object of lifecycle dates/)
  throwsStructure(t, () => new HeadVersion(asAny(5)), /HeadVersion: argument 1 \(5\) is not a version change class/)
  // a function that is not a VersionChange subclass is caught by the bundle, naming the version and the class
  class NotAChange { description = 'x' }
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', asAny(NotAChange)), new Version('2000-01-01')),
    /Version\('2001-01-01'\) was given class NotAChange[^]*, which is not a class extending VersionChange/)
  // version values
  for (const bad of ['', ' 2001-01-01', '2001-01-01 ', 5, undefined]) {
    throwsStructure(t, () => new Version(asAny(bad)), /Version\(value\): the value must be a non-empty string without surrounding spaces, or a Date/)
  }
})

test('regression: a version name a header cannot carry (non-Latin-1, a control character) is refused at start-up, not answered 500', async (t) => {
  // Every answer carries its version in a header: 'v1-β' made each response of that version a 500 (ERR_INVALID_CHAR).
  for (const bad of ['v1-β', 'v1\nb', 'v1\u0000', 'v1\u007f', '😀']) {
    throwsStructure(t, () => new Version(bad), /Version\(value\): .* cannot be sent in an HTTP header/)
  }
  for (const good of ['v1 beta', 'v1\tb', 'v1.2-beta/1', 'café', '2024-01-01.acacia']) t.equal(new Version(good).value, good)
})

test('a non-Version argument after a HeadVersion is numbered by its position in the call', async (t) => {
  throwsStructure(t, () => new VersionBundle(new HeadVersion(), asAny('x'), new Version('2000-01-01')), /argument 2 \('x'\) is not a Version/)
})

test('HeadVersion must come first', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), asAny(new HeadVersion()), new Version('2000-01-01')),
    /HeadVersion must be the first argument/)
  throwsStructure(t, () => new VersionBundle(new HeadVersion(), asAny(new HeadVersion()), new Version('2000-01-01')),
    /HeadVersion must be the first argument/)
  // without a HeadVersion, an empty one is made
  const bundle = new VersionBundle(new Version('2000-01-01'))
  t.ok(bundle.headVersion instanceof HeadVersion)
  t.same(bundle.headVersion.changes, [])
})

test('a Date value is stored as its ISO (UTC) date', async (t) => {
  t.equal(new Version(new Date(Date.UTC(2001, 0, 1))).value, '2001-01-01')
  t.equal(new Version(new Date('2001-01-01T23:59:59.999Z')).value, '2001-01-01')
  t.equal(new Version(new Date('2001-12-31T00:00:00Z')).value, '2001-12-31')
  const bundle = new VersionBundle(new Version(new Date(Date.UTC(2002, 1, 3))), new Version('2001-01-01'))
  t.same(bundle.versionValues, ['2002-02-03', '2001-01-01'])
  t.equal(bundle.valuesAreDates, true)
  t.equal(typeof bundle.versions[0].value, 'string')
})

test('regression: a Date built at local midnight (as node-postgres and mysql2 read a DATE column) names its local date on a server in any time zone (east of UTC it was the day before)', async (t) => {
  const zone = process.env.TZ
  t.teardown(() => { if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone })
  for (const tz of ['UTC', 'Asia/Tokyo', 'Pacific/Kiritimati', 'America/Adak', 'Europe/Berlin']) {
    process.env.TZ = tz
    t.equal(new Version(new Date(2024, 8, 30)).value, '2024-09-30', `${tz}: local midnight`)
    t.equal(new Version(new Date('2024-09-30')).value, '2024-09-30', `${tz}: midnight UTC`)
    t.equal(new Version(new Date('2001-01-01T23:59:59.999Z')).value, '2001-01-01', `${tz}: another instant is its UTC date`)
    const early = new Date(2000, 0, 1)
    early.setFullYear(99)
    t.equal(new Version(early).value, '0099-01-01', `${tz}: a year below 100 stays itself`)
  }
})

test('regression: a lifecycle Date at local midnight outside UTC (new Date(2027, 0, 1)), another instant in each time zone, was taken silently: FSTVRS005 names it once', async (t) => {
  const zone = process.env.TZ
  const warnings = recordWarnings(t)
  t.teardown(() => {
    if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone
    processWarning.FSTVRS005.emitted = false
  })
  const ofCode = async (): Promise<string[]> => {
    await settle()
    return warnings.splice(0).filter((warning) => warning.code === 'FSTVRS005').map((warning) => warning.message)
  }
  process.env.TZ = 'UTC'
  processWarning.FSTVRS005.emitted = false
  t.ok(new Version('2000-01-01', { sunsetAt: new Date(2027, 0, 1) }))
  t.strictSame(await ofCode(), [], 'none in UTC: local midnight is midnight UTC')
  process.env.TZ = 'Asia/Tokyo'
  t.ok(new Version('2000-01-01', { deprecatedAt: '2026-01-01', sunsetAt: new Date('2027-01-01'), releasedAt: new Date('1999-12-31T15:00:00+09:00') }))
  t.strictSame(await ofCode(), [], 'none for midnight UTC or another hour given with its offset, even in Tokyo')
  const sunset = new Date(2027, 0, 1)
  const version = new Version('2000-01-01', { sunsetAt: sunset })
  const [message, ...more] = await ofCode()
  t.equal(more.length, 0)
  t.match(message, "Version('2000-01-01'): sunsetAt is a Date at this machine's local midnight (2026-12-31T15:00:00.000Z)")
  t.match(message, "Give '2027-01-01' for midnight UTC")
  t.equal(version.sunsetAt?.toISOString(), '2026-12-31T15:00:00.000Z', 'the instant it holds is kept (decision 0114)')
  process.env.TZ = 'America/Adak'
  t.ok(new Version('2001-01-01', { deprecatedAt: new Date(2026, 5, 1) }))
  t.strictSame(await ofCode(), [], 'once a process')
  processWarning.FSTVRS005.emitted = false
  t.ok(new Version('2001-01-01', { deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01', afterSunset: 'gone', brownouts: [{ start: new Date(2026, 5, 1), end: '2026-06-02' }] }))
  t.match((await ofCode())[0], /brownouts\[0\]\.start is a Date at this machine's local midnight \(2026-06-01T09:00:00\.000Z\).*'2026-06-01'/, 'a brownout, west of UTC')
  processWarning.FSTVRS005.emitted = false
  readFieldDeprecation({ deprecated: { deprecatedAt: new Date(2026, 0, 1) } }, "Customer's tier")
  t.match((await ofCode())[0], /^Customer's tier: deprecated\.deprecatedAt is a Date at this machine's local midnight/, "a field's deprecation")
})

test('an invalid Date is rejected', async (t) => {
  throwsStructure(t, () => new Version(new Date('not a date')), /Version\(value\): the Date given is invalid/)
  throwsStructure(t, () => new Version(new Date(Number.NaN)), /the Date given is invalid/)
})

test('lifecycle options are validated and stored', async (t) => {
  const v = new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: new Date('2026-01-01T00:00:00Z'), link: 'https://example.com/upgrade' })
  t.ok(v.deprecatedAt instanceof Date)
  t.equal(v.deprecatedAt?.toISOString(), '2025-01-01T00:00:00.000Z')
  t.equal(v.sunsetAt?.toISOString(), '2026-01-01T00:00:00.000Z')
  t.equal(v.link, 'https://example.com/upgrade')
  t.same(v.changes, [])
  t.ok(Object.isFrozen(v))
  const given = new Date('2030-01-01T00:00:00Z')
  const copy = new Version('2001-01-01', { deprecatedAt: given })
  t.not(copy.deprecatedAt, given, 'the Date is copied')
  t.equal(copy.deprecatedAt?.getTime(), given.getTime())
  t.equal(copy.sunsetAt, undefined)
  t.equal(copy.link, undefined)
  // changes and lifecycle together
  const Change = changeClass('WithLifecycle')
  const both = new Version('2001-01-01', Change, { sunsetAt: '2030-01-01' })
  t.same(both.changes, [Change])
  t.equal(both.sunsetAt?.toISOString(), '2030-01-01T00:00:00.000Z')
  // equal dates are allowed
  t.ok(new Version('2002-01-01', { deprecatedAt: '2030-01-01', sunsetAt: '2030-01-01' }))

  throwsStructure(t, () => new Version('2000-01-01', { deprecatedAt: 'not a date' }),
    /Version\('2000-01-01'\): deprecatedAt must be a Date or a date string such as '2027-01-01'; got 'not a date'/)
  throwsStructure(t, () => new Version('2000-01-01', { sunsetAt: asAny(12345) }), /Version\('2000-01-01'\): sunsetAt must be a Date or a date string such as '2027-01-01'; got 12345/)
  throwsStructure(t, () => new Version('2000-01-01', { sunsetAt: new Date('nope') }), /sunsetAt must be a Date/)
  throwsStructure(t, () => new Version('2000-01-01', { deprecatedAt: '2026-01-01', sunsetAt: '2025-01-01' }),
    /Version\('2000-01-01'\): sunsetAt must not be earlier than deprecatedAt/)
  throwsStructure(t, () => new Version('2000-01-01', { link: '' }), /Version\('2000-01-01'\): link must be an absolute URL or a path starting with '\/'/)
  throwsStructure(t, () => new Version('2000-01-01', { link: asAny(42) }), /link must be an absolute URL or a path starting with '\/'/)
  // regression: a link alone was kept and never sent (no Link header, nothing in the document): refused, as 'gone' without a sunset is.
  throwsStructure(t, () => new Version('2000-01-01', { link: 'https://example.com/upgrade' }),
    /Version\('2000-01-01'\): link is sent only with a deprecatedAt or a sunsetAt .*add the date the page is about/)
  t.equal(new Version('2000-01-01', { sunsetAt: '2026-01-01', link: 'https://example.com/sunset' }).link, 'https://example.com/sunset', 'with a sunsetAt alone: rel="sunset"')
  throwsStructure(t, () => new Version('2000-01-01', asAny({ deprecated: '2025-01-01', sunset: 'x' })),
    /Version\('2000-01-01'\): unknown lifecycle option\(s\) deprecated, sunset; use deprecatedAt, sunsetAt, link/)
})

test('a change given as an instance, in a list or as an object, and versions in a list, are named as such', async (t) => {
  const AddNickname = changeClass('AddNickname', [])
  throwsStructure(t, () => new Version('2001-01-01', asAny(new AddNickname())),
    /Version\('2001-01-01'\) was given an instance of AddNickname \(new AddNickname\(\)\), not a version change class: pass the class itself, new Version\('2001-01-01', AddNickname\)/)
  throwsStructure(t, () => new Version('2001-01-01', asAny([AddNickname])),
    /Version\('2001-01-01'\) was given an array; give the version change classes as arguments, not in a list/)
  throwsStructure(t, () => new Version('2001-01-01', asAny({ description: 'Nickname added.', instructionsToMigrateToPreviousVersion: [] })),
    /Version\('2001-01-01'\) was given an object with a description or instructions, not a version change class/)
  throwsStructure(t, () => new VersionBundle(asAny([new Version('2001-01-01', AddNickname), new Version('2000-01-01')])),
    /VersionBundle was given an array; give the versions as arguments, newest first, not in a list: new VersionBundle\(\.\.\.versions\)/)
  t.equal(new Version('2001-01-01', Object.assign(Object.create(null) as object, { deprecatedAt: '2026-01-01' })).deprecatedAt?.toISOString(),
    '2026-01-01T00:00:00.000Z', 'a lifecycle object without a prototype is still read as one')
})

test('the apiVersionStorage option', async (t) => {
  const storage = new AsyncLocalStorage<string | undefined>()
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01'), { apiVersionStorage: storage })
  t.equal(bundle.apiVersionStorage, storage)
  t.same(bundle.versionValues, ['2001-01-01', '2000-01-01'], 'the options object is not a version')

  const a = new VersionBundle(new Version('2000-01-01'))
  const b = new VersionBundle(new Version('2000-01-01'), {})
  t.ok(a.apiVersionStorage instanceof AsyncLocalStorage, 'a storage is made by default')
  t.not(a.apiVersionStorage, b.apiVersionStorage, 'each bundle gets its own default storage')

  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01'), { apiVersionStorage: asAny({ getStore () { return undefined } }) }),
    /apiVersionStorage must be an AsyncLocalStorage/)
})

test('an unknown bundle option is rejected', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('2000-01-01'), asAny({ apiVersionStore: new AsyncLocalStorage() })), /apiVersionStore/)
})

test('iteration, versions, versionValues, valuesAreDates and get()', async (t) => {
  const C2 = changeClass('IterC2')
  const C1a = changeClass('IterC1a')
  const C1b = changeClass('IterC1b')
  const v3 = new Version('2002-01-01', C2)
  const v2 = new Version('2001-01-01', C1a, C1b)
  const v1 = new Version('2000-01-01')
  const bundle = new VersionBundle(new HeadVersion(), v3, v2, v1)
  t.same([...bundle], [v3, v2, v1])
  t.equal([...bundle][0], v3, 'iteration yields the very Version objects')
  const seen: string[] = []
  for (const version of bundle) seen.push(version.value)
  t.same(seen, ['2002-01-01', '2001-01-01', '2000-01-01'])
  t.same(bundle.versions, [v3, v2, v1])
  t.same(bundle.versionValues, ['2002-01-01', '2001-01-01', '2000-01-01'])
  t.equal(bundle.valuesAreDates, true)
  t.equal(bundle.get('2001-01-01'), v2)
  t.same(bundle.get('2001-01-01')?.changes, [C1a, C1b])
  t.equal(bundle.get('2001-06-01'), undefined, 'get() does not waterfall')
  t.equal(bundle.get('head'), undefined)
  t.ok(Object.isFrozen(bundle))
  t.ok(Object.isFrozen(bundle.versions))
  t.ok(Object.isFrozen(bundle.versionValues))
  t.ok(Object.isFrozen(v2.changes))
  t.equal(caught(() => { (bundle.versionValues as string[]).push('x') }) instanceof TypeError, true)
  // the internals read each change once, per version: the steps from HEAD
  t.same(generationSteps(bundle).map((step) => step.origin), ['HeadVersion', '2002-01-01', '2001-01-01', '2000-01-01'])
  t.equal(generationSteps(bundle), generationSteps(bundle), 'read once')
  t.ok(Object.isFrozen(generationSteps(bundle)))
  t.same(changesOf(bundle, '2001-01-01')?.map((change) => [change.name, change.version]),
    [['IterC1a', '2001-01-01'], ['IterC1b', '2001-01-01']])
  t.same(changesOf(bundle, '2000-01-01'), [])

  const strings = new VersionBundle(new Version('beta'), new Version('alpha'))
  t.equal(strings.valuesAreDates, false)
  t.equal(strings.get('alpha')?.value, 'alpha')
  // an invalid calendar date is not a date
  t.equal(new VersionBundle(new Version('2001-02-30'), new Version('2001-01-01')).valuesAreDates, false)
})

test('version change classes are read when the bundle is built; their errors name the class', async (t) => {
  class NoDescription extends VersionChange {
    description = ''
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', NoDescription), new Version('2000-01-01')), /'NoDescription'/)
  throwsStructure(t, () => new VersionBundle(new HeadVersion(NoDescription as VersionChangeClass), new Version('2000-01-01')), /'NoDescription'/)
})

test('named date versions (2024-09-30.acacia): ordered by their date; two versions of one date are a structure error', async (t) => {
  const named = new VersionBundle(new Version('2024-09-30.acacia'), new Version('2024-06-20'), new Version('2023-10-16.basil'))
  t.strictSame(named.versionValues, ['2024-09-30.acacia', '2024-06-20', '2023-10-16.basil'])
  t.equal(named.valuesAreDates, true, 'named dates count as dates')
  throwsStructure(t, () => new VersionBundle(new Version('2023-10-16.basil'), new Version('2024-09-30.acacia')),
    /not sorted correctly/, /2024-09-30\.acacia, 2023-10-16\.basil/)
  throwsStructure(t, () => new VersionBundle(new Version('2024-09-30.acacia'), new Version('2024-09-30')),
    /same date 2024-09-30/, /'2024-09-30\.acacia'/, /'2024-09-30'/)
  throwsStructure(t, () => new VersionBundle(new Version('2024-09-30.acacia'), new Version('2024-09-30.basil')), /same date/)
  t.equal(new VersionBundle(new Version('2024-13-01.acacia'), new Version('v1')).valuesAreDates, false, 'not a real date: not a date version')
})

test('regression: a Version or HeadVersion of another copy of the package is refused saying so (it read "is not a Version" or as options)', async (t) => {
  const other = anotherCopy()
  throwsStructure(t, () => new VersionBundle(asAny(new other.HeadVersion()), new Version('2000-01-01')),
    /^VersionBundle: argument 1 is a HeadVersion of another copy of fastify-versioner/, /npm ls fastify-versioner/)
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01'), asAny(new other.Version('2000-01-01'))),
    /^VersionBundle: argument 2 is a Version of another copy of fastify-versioner/)
})
