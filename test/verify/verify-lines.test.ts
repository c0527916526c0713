// `verify` on converters that change a free string's tabs, line breaks or Unicode normalization (issue 31, decision
// 0170): `memo.split('\n')[0]`, line breaks and tabs made spaces, `.normalize('NFC')`, a last line break trimmed.
// Each is found on a round trip, all but the last one way on a renamed field, and the first line one way anywhere;
// converters that carry the string whole, or split a name at a space or a tab and join it again, stay clean.
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import { verify } from '../../tools'
import { appWith, converted, convertedFindings, oneWay, renamed, renamedField, renamedParameter, type Convert } from '../helpers/verify-apps'
import { sentinelFor } from '../../lib/tools/boundary-strings'
import { BOUNDARIES } from '../../lib/tools/boundary-values'
import { generateExamples } from '../../lib/tools/example-generation'
import Ajv from 'ajv'

/** The converters of this suite: damaging ones, and ones that carry the value whole. */
const firstLine: Convert = (value: string) => value.split('\n')[0]
const linesJoined: Convert = (value: string) => value.replace(/\r?\n/g, ' ')
const tabsMadeSpaces: Convert = (value: string) => value.replace(/\t/g, ' ')
const whitespaceMadeSpaces: Convert = (value: string) => value.replace(/\s/g, ' ')
const nfc: Convert = (value: string) => value.normalize('NFC')
const lastBreakTrimmed: Convert = (value: string) => value.replace(/\n$/, '')
const lineEndsUnix: Convert = (value: string) => value.replace(/\r\n/g, '\n')
const nfkc: Convert = (value: string) => value.normalize('NFKC')
const halfWidth: Convert = (value: string) => value.replace(/[\uff01-\uff5e]/g, (wide) => String.fromCharCode(wide.charCodeAt(0) - 0xfee0))
const carried: Convert = (value) => value
const marksStripped: Convert = (value: string) => value.replace(/[*_#]/g, '')

/** Found one way on a renamed field. */
const lossy: Array<[string, Convert]> = [
  ['memo.split("\\n")[0]', firstLine],
  ['line breaks made spaces', linesJoined],
  ['tabs made spaces', tabsMadeSpaces],
  ['each whitespace character made a space', whitespaceMadeSpaces],
  ['normalize("NFC")', nfc],
  ['line ends made \\n', lineEndsUnix],
  ['normalize("NFKC")', nfkc],
  ['full-width letters and digits folded to half width', halfWidth]
]

test('one way, a renamed field whose converters change its tabs, line breaks or normalization is found in requests and responses', async (t) => {
  const both = ['POST /things 2000-01-01 request lost body/old after OldBecameRenamed (2001-01-01) by OldBecameRenamed.up', 'GET /things 2000-01-01 response lost response 200/renamed after OldBecameRenamed (2001-01-01) by OldBecameRenamed.down']
  for (const [name, convert] of lossy) t.same(await renamed(t, Type.String(), convert), both, name)
  // One way, the part before the last line break is what a name split there leaves (the rest in another field).
  t.same(await renamed(t, Type.String(), lastBreakTrimmed), [], 'the last line break trimmed, one way')
  t.same(await renamed(t, Type.String(), carried), [], 'carried whole')
  t.same(await renamed(t, Type.String({ maxLength: 20 }), carried), [], 'a short string carried whole')
})

test('on a round trip, a field not renamed whose request converter changes its tabs, line breaks or normalization is found', async (t) => {
  const found = 'POST /things 2000-01-01 response round trip response 200/value after RefBecameReference (2001-01-01) by RefBecameReference.up,RefBecameReference.down'
  for (const [name, convert] of [...lossy.slice(1, 4), ['line ends made \\n', lineEndsUnix] as const, ['the last line break trimmed', lastBreakTrimmed] as const]) t.same(await converted(t, Type.String(), convert), [found], name)
  // Normalized and folded text is what a client saving it sends back: the trip back reaches HEAD changed too.
  for (const [name, convert] of [['normalize("NFKC")', nfkc], ['full-width letters and digits folded to half width', halfWidth]] as const) {
    t.same(await converted(t, Type.String(), convert), [found, 'POST /things 2000-01-01 request round trip body/value after RefBecameReference (2001-01-01) by RefBecameReference.up'], name)
  }
  // A client saving what it read sends it back normalized too: the trip back reaches HEAD changed.
  t.same(await converted(t, Type.String(), nfc), [found, 'POST /things 2000-01-01 request round trip body/value after RefBecameReference (2001-01-01) by RefBecameReference.up'], 'normalize("NFC")')
  // A memo cut to its first line loses its other words one way, a field not renamed too (as a name cut at a space).
  t.same(await converted(t, Type.String(), firstLine, oneWay), ['POST /things 2000-01-01 request lost body/value after RefBecameReference (2001-01-01) by RefBecameReference.up'], 'memo.split("\\n")[0]')
  t.same(await converted(t, Type.String(), carried), [], 'carried whole')
})

test('on a round trip, a string stripped of the marks Markdown gives a meaning (#, *, _) is found (decision 0338)', async (t) => {
  // Text older clients wrote was never Markdown: a converter giving them plain text by deleting the marks garbles it.
  t.same(await converted(t, Type.String(), marksStripped), [
    'POST /things 2000-01-01 response round trip response 200/value after RefBecameReference (2001-01-01) by RefBecameReference.up,RefBecameReference.down',
    'POST /things 2000-01-01 request round trip body/value after RefBecameReference (2001-01-01) by RefBecameReference.up'
  ])
  const [finding] = (await convertedFindings(t, Type.String(), marksStripped)).map((each) => each.text)
  t.match(finding, /does not come back in the 200 response: 'zq\w+\\t\S+#\*_\\r\\n🙂zq\w+\\n' comes back as 'zq\w+\\t\S+１\\r\\n🙂zq\w+\\n'/)
  // A string too short for the lines holds no marks: a maxLength of 20 is sent 'zq000001\tq000001\n'.
  t.same(await converted(t, Type.String({ maxLength: 20 }), marksStripped), [], 'no room for the marks')
})

test('a finding names what changed: the whitespace, or the Unicode normalization of text that prints alike', async (t) => {
  const texts = async (convert: Convert): Promise<string[]> => {
    const { Thing, change } = renamedField(Type.String(), convert)
    return (await verify(await appWith(t, change, oneWay(Thing)), { examples: 1 })).map((finding) => finding.text)
  }
  const [joined] = await texts(linesJoined)
  t.match(joined, /request body\/old: the value at \/old in 2000-01-01 does not reach HEAD: 'zq\w+\\t\S+\\r\\n🙂zq\w+\\n' arrives as 'zq\w+\\t\S+ 🙂zq\w+ ', its whitespace changed; /)
  const [normalized] = await texts(nfc)
  t.match(normalized, /arrives as 'zq\w+\\t\S+\\r\\n🙂zq\w+\\n', its Unicode normalization changed \(NFD sent, NFC arrived\); /)
  const [compatible] = await texts(nfkc)
  t.match(compatible, /arrives as 'zq\w+\\tfi\S+1#\*_\\r\\n🙂zq\w+\\n', its Unicode normalization changed \(NFD sent, NFKC arrived\); /)
  const [back] = (await convertedFindings(t, Type.String(), nfc)).map((finding) => finding.text)
  t.match(back, /does not come back in the 200 response: .* comes back as .*, its Unicode normalization changed \(NFD sent, NFC arrived\)/)
})

test('the lines strings fit maxLength and minLength, are replayed only where a string takes them, and validate', async (t) => {
  t.equal(sentinelFor({ type: 'string' }, 1, 'lines'), `zq000001\tﬁ${'Łódź'.normalize('NFD')}１#*_\r\n🙂zq000001\n`)
  t.not(sentinelFor({ type: 'string' }, 1, 'lines'), sentinelFor({ type: 'string' }, 1, 'lines')?.normalize('NFKD'), 'a ligature and a full-width digit')
  t.not(sentinelFor({ type: 'string' }, 1, 'lines'), sentinelFor({ type: 'string' }, 1, 'lines')?.normalize('NFC'), 'decomposed')
  t.equal(sentinelFor({ type: 'string', maxLength: 20 }, 1, 'lines'), 'zq000001\tq000001\n')
  t.equal(sentinelFor({ type: 'string', maxLength: 16 }, 1, 'lines'), 'zq000001\nq000001')
  t.equal(sentinelFor({ type: 'string', maxLength: 12 }, 1, 'lines'), 'zq000001', 'no room for a second word')
  t.equal(sentinelFor({ type: 'string', format: 'email' }, 1, 'lines'), 'zq000001@example.com', 'a format keeps its sentinel')
  const generated = (schema: TSchema): unknown[] => generateExamples(schema, { resolveRef: () => undefined, count: 0, seed: 1 }).map((example) => example.value)
  const Form = Type.Object({ memo: Type.String(), code: Type.String({ pattern: '^[a-z]+$' }), count: Type.Integer() })
  const examples = generated(Form)
  t.equal(examples.length, BOUNDARIES.length, 'one example per boundary')
  t.match(examples[BOUNDARIES.indexOf('lines')], { memo: /\t[^]*\n$/, count: 101 })
  t.ok(new Ajv({ strict: false }).compile(Form)(examples[BOUNDARIES.indexOf('lines')]), 'valid')
  t.equal(generated(Type.Object({ code: Type.String({ pattern: '^[a-z]+$' }), count: Type.Integer() })).length, BOUNDARIES.length - 1, 'no free string: no lines example')
  t.equal(generated(Type.Object({ memo: Type.String({ maxLength: 8 }) })).length, BOUNDARIES.length - 1, 'no room for a line break: none')
  // A list's item may become a map's key (entries `{ key, value }` made a record), which TypeBox's `^(.*)$` refuses with a line break.
  const listed = generated(Type.Object({ memo: Type.String(), entries: Type.Array(Type.Object({ key: Type.String() })), tags: Type.Array(Type.String()) }))
  t.match(listed[BOUNDARIES.indexOf('lines')], { memo: /\n$/, entries: [{ key: /^zq\w+$/ }], tags: [/^zq\w+$/] }, 'no line break in a list\'s items')
})

test('a header is not sent lines (it holds no line break); a renamed query parameter is, and its first line kept is found', async (t) => {
  for (const [part, name, found] of [['querystring', 'search', true], ['headers', 'x-search', false]] as const) {
    t.same(await renamedParameter(t, part, name, Type.String({ maxLength: 16 }), (old) => old.split('\n')[0]), found ? [`GET /things 2000-01-01 request lost ${part}/old-${name} after SearchRenamed (2001-01-01) by SearchRenamed.up`] : [], part)
  }
})
