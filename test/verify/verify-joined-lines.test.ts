// `verify` on joins of more than two fields and on joins of fields each derived from one (issue 31, decision 0185):
// an address of lines joined with `[line1, line2, line3, line4].join('\n')`, whose absent middle line doubles the
// separator ('1 Main St\n\nSpringfield\nUSA'), and a name that HEAD's `firstName` and `lastName` are each derived
// from alone, joined back for old clients with an absent last name joined as ''. Joins of the parts present, a
// middle line sent and one filtered out, and a separator the old version always doubled stay clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import type { Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Body = Record<string, any>
type Lines = Array<string | undefined>

/** `POST /things` taking `Thing` and answering `{ id }`, `GET /things` answering `Thing`: one way only. */
function oneWay (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
  }
}

const LINES = ['line1', 'line2', 'line3', 'line4']

/**
 * An address that HEAD holds as one `text`, declared derived from the lines an old client sent (`line1`, then
 * `count - 1` optional ones); `up` joins the lines (absent ones as `undefined`), `down` splits `text` at line breaks.
 */
async function addressJoined (t: Teardown, count: number, up: (lines: Lines) => string, messages?: string[]): Promise<string[]> {
  const Address = Type.Object({ id: Type.String(), text: Type.String() }, { $id: 'Address' })
  const names = LINES.slice(0, count)
  class AddressInOneText extends VersionChange {
    description = 'An address is one text; it was lines (line1, then optional ones).'
    instructionsToMigrateToPreviousVersion = [
      ...names.map((name, index) => schema(Address).formerField(name).existedAs({ type: Type.String(), optional: index > 0 })),
      schema(Address).field('text').derivedFrom(...names)
    ]

    @ConvertRequestToNextVersionFor(Address)
    up (request: RequestInfo) {
      const body = request.body as Body
      const text = up(names.map((name) => body[name]))
      for (const name of names) delete body[name]
      body.text = text
    }

    @ConvertResponseToPreviousVersionFor(Address)
    down (response: ResponseInfo) {
      const { text, ...rest } = response.body as Body
      const lines = (text as string).split('\n').slice(0, count)
      response.body = { ...rest, ...Object.fromEntries(lines.map((line, index) => [names[index], line])) }
    }
  }
  const findings = await verify(await appWith(t, AddressInOneText, oneWay(Address)), { examples: 40 })
  messages?.push(...findings.map((finding) => finding.message))
  return summary(findings)
}

const present = (lines: Lines): string[] => lines.filter((line): line is string => line !== undefined)
const up = 'POST /things 2000-01-01 request lost body/line1 after AddressInOneText (2001-01-01) by AddressInOneText.up'

/** The lines joined with `separator`, each absent one as '', and the separators of the absent last ones cut off: only a middle one absent is left. */
const middleAbsent = (separator: string) => (lines: Lines): string => {
  let last = lines.length
  while (lines[last - 1] === undefined) last--
  return lines.slice(0, last).map((line) => line ?? '').join(separator)
}

test('an address of four lines whose absent middle line doubles the separator is found', async (t) => {
  const messages: string[] = []
  t.same(await addressJoined(t, 4, middleAbsent('\n'), messages), [up], "a middle line absent joined as ''")
  t.match(messages, [/: '[^']+' arrives as '[^']*\\n\\n[^']*' in text, a separator doubled: line[23](, line[34])?, absent, joined as ''$/])
  t.same(await addressJoined(t, 4, (lines) => lines.join('\n')), [up], "[line1, line2, line3, line4].join('\\n')")
})

test('an address of three lines joined with a comma and a space, its middle line absent, is found', async (t) => {
  const messages: string[] = []
  t.same(await addressJoined(t, 3, middleAbsent(', '), messages), [up], "'1 Main St, , Springfield'")
  t.match(messages, [/, , [^']*' in text, a separator doubled: line2, absent, joined as ''$/])
})

test('the lines present joined, and a separator the old version always doubled, are clean', async (t) => {
  t.same(await addressJoined(t, 4, (lines) => present(lines).join('\n')), [], 'the lines present joined')
  t.same(await addressJoined(t, 3, (lines) => present(lines).join(', ')), [], 'with a comma and a space')
  t.same(await addressJoined(t, 4, (lines) => present(lines).join('\n\n')), [], 'a blank line between lines, always')
  t.same(await addressJoined(t, 3, (lines) => present(lines).join('\n\n')), [], 'a blank line between lines, always (three)')
  t.same(await addressJoined(t, 4, (lines) => present(lines.map((line) => line === '' ? undefined : line)).join('\n')), [], "'' filtered out too")
})

/**
 * A person HEAD holds as `firstName` and an optional `lastName`, each declared derived from the `name` an old client
 * sent (no order declared); `up` splits the name at its first space, `down` joins the parts back (`undefined` where
 * absent).
 */
async function nameSplit (t: Teardown, down: (first: string, last: string | undefined) => string, messages?: string[]): Promise<string[]> {
  const Person = Type.Object({ id: Type.String(), firstName: Type.String(), lastName: Type.Optional(Type.String()) }, { $id: 'Person' })
  class NameInParts extends VersionChange {
    description = 'A name is firstName and lastName; it was one string (name).'
    instructionsToMigrateToPreviousVersion = [
      schema(Person).formerField('name').existedAs({ type: Type.String() }),
      schema(Person).field('firstName').derivedFrom('name'),
      schema(Person).field('lastName').derivedFrom('name')
    ]

    @ConvertRequestToNextVersionFor(Person)
    up (request: RequestInfo) {
      const { name, ...rest } = request.body as Body
      const at = (name as string).indexOf(' ')
      request.body = at === -1 ? { ...rest, firstName: name } : { ...rest, firstName: name.slice(0, at), lastName: name.slice(at + 1) }
    }

    @ConvertResponseToPreviousVersionFor(Person)
    down (response: ResponseInfo) {
      const { firstName, lastName, ...rest } = response.body as Body
      response.body = { ...rest, name: down(firstName, lastName) }
    }
  }
  const findings = await verify(await appWith(t, NameInParts, oneWay(Person)), { examples: 40 })
  messages?.push(...findings.map((finding) => finding.message))
  return summary(findings)
}

test('a name HEAD splits into parts each derived from it, joined back with an absent last name as \'\', is found', async (t) => {
  const down = 'GET /things 2000-01-01 response lost response 200/firstName after NameInParts (2001-01-01) by NameInParts.down'
  const messages: string[] = []
  t.same(await nameSplit(t, (first, last) => [first, last].join(' '), messages), [down], "[firstName, lastName].join(' ')")
  t.match(messages, [/: '[^']*[\p{L}\p{N}][^']*' arrives as '[^']* ' in name, a separator at its end: lastName, absent, joined as ''$/u])
  t.same(await nameSplit(t, (first, last) => `${first} ${last ?? ''}`), [down], "an absent last name written as ''")
  t.same(await nameSplit(t, (first, last) => `${last ?? ''} ${first}`), [down], "the last name first, written as '' where absent")
})

test('a name joined back from the parts present, trimmed, or in either order is clean', async (t) => {
  t.same(await nameSplit(t, (first, last) => [first, last].filter((part) => part !== undefined).join(' ')), [], 'the parts present')
  t.same(await nameSplit(t, (first, last) => `${first} ${last ?? ''}`.trim()), [], 'the join trimmed')
  t.same(await nameSplit(t, (first, last) => last === undefined ? first : `${last}, ${first}`), [], 'the last name first, where present')
})
