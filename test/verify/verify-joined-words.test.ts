// `verify` on joins with a word or a bracket for separator, with parts that are not strings, and with a separator
// doubled between the only two parts present (issue 31, decision 0202): `[first, last].join(' and ')` giving
// `'Ada and '`, `${name} (${nickname ?? ''})` giving `'Ada ()'`, `${street} ${number}` giving `'Main St undefined'`,
// `[first, middle, last].join(' ')` giving `'Ada  Lovelace'`. Joins of the parts present stay clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, TypeGuard, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import type { Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Body = Record<string, any>
type Part = string | number | undefined

/** `POST /things` taking `Thing` and answering `{ id }`, `GET /things` answering `Thing`: one way only. */
function oneWay (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
  }
}

/**
 * A `Thing` whose HEAD `whole` is declared derived from the old version's `parts` (name and schema, in order); `up`
 * joins the parts (an absent one as `undefined`), `down` splits the whole back. The findings' messages go to `messages`.
 */
async function joined (t: Teardown, parts: Array<[string, TSchema]>, convert: { up: (parts: Part[]) => string, down: (whole: string) => Body }, messages: string[] = []): Promise<string[]> {
  const Thing = Type.Object({ id: Type.String(), whole: Type.String() }, { $id: 'Thing' })
  const names = parts.map(([name]) => name)
  class WholeJoined extends VersionChange {
    description = 'whole is one string; it was several fields.'
    instructionsToMigrateToPreviousVersion = [
      ...parts.map(([name, type]) => schema(Thing).formerField(name).existedAs({ type, optional: TypeGuard.IsOptional(type) })),
      schema(Thing).field('whole').derivedFrom(...names)
    ]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      const body = request.body as Body
      const whole = convert.up(names.map((name) => body[name]))
      for (const name of names) delete body[name]
      body.whole = whole
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      const { whole, ...rest } = response.body as Body
      response.body = { ...rest, ...convert.down(whole) }
    }
  }
  const findings = await verify(await appWith(t, WholeJoined, oneWay(Thing)), { examples: 30 })
  messages.push(...findings.map((finding) => finding.message))
  return summary(findings)
}

const up = 'POST /things 2000-01-01 request lost body/first after WholeJoined (2001-01-01) by WholeJoined.up'
const present = (parts: Part[], separator: string): string => parts.filter((part) => part !== undefined).join(separator)
const atFirst = (separator: string, names: string[]) => (whole: string): Body => {
  const at = whole.indexOf(separator)
  return at === -1 ? { [names[0]]: whole } : { [names[0]]: whole.slice(0, at), [names[1]]: whole.slice(at + separator.length) }
}

test('a word for separator, a part absent joined as \'\' leaving it at the end, is found; the parts present joined are clean', async (t) => {
  const parts: Array<[string, TSchema]> = [['first', Type.String()], ['last', Type.Optional(Type.String())]]
  const down = atFirst(' and ', ['first', 'last'])
  const messages: string[] = []
  t.same(await joined(t, parts, { up: (values) => values.join(' and '), down }, messages), [up], "[first, last].join(' and ')")
  t.match(messages[0], /arrives as '[^']+ and ' in whole, a separator at its end: last, absent, joined as ''/)
  t.same(await joined(t, parts, { up: (values) => present(values, ' and '), down }), [], 'the parts present joined')
  t.same(await joined(t, parts, { up: (values) => present(values, ' & '), down: atFirst(' & ', ['first', 'last']) }), [], '&, the parts present joined')
})

test('a bracket for separator, a part absent joined as \'\' or as undefined, is found; the parts present joined are clean', async (t) => {
  const parts: Array<[string, TSchema]> = [['first', Type.String()], ['nickname', Type.Optional(Type.String())]]
  const down = (whole: string): Body => {
    const [, first, nickname] = /^(.*) \((.*)\)$/su.exec(whole) ?? [undefined, whole]
    return nickname === undefined ? { first } : { first, nickname }
  }
  const messages: string[] = []
  t.same(await joined(t, parts, { up: ([first, nickname]) => `${String(first)} (${nickname ?? ''})`, down }, messages), [up], "name (nickname ?? '')")
  t.match(messages[0], /arrives as '[^']+ \(\)' in whole, a separator at its end: nickname, absent, joined as ''/)
  t.same(await joined(t, parts, { up: ([first, nickname]) => `${String(first)} (${String(nickname)})`, down }), [up], 'name (nickname), undefined')
  t.same(await joined(t, parts, { up: ([first, nickname]) => nickname === undefined ? String(first) : `${String(first)} (${nickname})`, down }), [], 'the nickname joined where present')
  const three: Array<[string, TSchema]> = [['first', Type.String()], ['nickname', Type.Optional(Type.String())], ['last', Type.String()]]
  const split = (whole: string): Body => {
    const [, first, nickname, last] = /^(\S*) \((.*)\) (.*)$/su.exec(whole) ?? []
    return first === undefined ? { last: '', ...atFirst(' ', ['first', 'last'])(whole) } : { first, nickname, last }
  }
  t.same(await joined(t, three, { up: ([first, nickname, last]) => `${String(first)} (${nickname ?? ''}) ${String(last)}`, down: split }), [up], "first (nickname ?? '') last")
  t.same(await joined(t, three, { up: ([first, nickname, last]) => nickname === undefined ? `${String(first)} ${String(last)}` : `${String(first)} (${nickname}) ${String(last)}`, down: split }), [], 'the nickname joined where present, between two')
})

test('a number joined as a part: absent, joined as undefined or \'\', is found; joined where present is clean', async (t) => {
  const parts: Array<[string, TSchema]> = [['first', Type.String()], ['number', Type.Optional(Type.Integer({ minimum: 0 }))]]
  const down = (whole: string): Body => {
    const [, first, number] = /^(.*) (\d+)$/su.exec(whole) ?? [undefined, whole]
    return number === undefined ? { first } : { first, number: Number(number) }
  }
  const messages: string[] = []
  t.same(await joined(t, parts, { up: ([street, number]) => `${String(street)} ${String(number)}`, down }, messages), [up], 'street number, undefined')
  t.match(messages[0], /arrives with undefined beside it/)
  t.same(await joined(t, parts, { up: ([street, number]) => `${String(street)} ${number ?? ''}`, down }), [up], "street number ?? ''")
  t.same(await joined(t, parts, { up: (values) => present(values, ' '), down }), [], 'the parts present joined')
  t.same(await joined(t, parts, { up: (values) => present(values, ', '), down: (whole) => down(whole.replace(/, (\d+)$/u, ' $1')) }), [], 'the parts present joined with a comma')
})

test('a space doubled between the only two parts present, a middle part absent, is found; a line break doubled is not judged', async (t) => {
  const parts: Array<[string, TSchema]> = [['first', Type.String()], ['middle', Type.Optional(Type.String())], ['last', Type.String()]]
  const down = (whole: string): Body => ({ last: '', ...atFirst(' ', ['first', 'last'])(whole) })
  const messages: string[] = []
  t.same(await joined(t, parts, { up: (values) => values.join(' '), down }, messages), [up], "[first, middle, last].join(' ')")
  t.match(messages[0], /a separator doubled: middle, absent, joined as ''/)
  t.same(await joined(t, parts, { up: (values) => present(values, ' '), down }), [], 'the parts present joined')
  t.same(await joined(t, parts, { up: (values) => present(values, ' and '), down: (whole) => ({ last: '', ...atFirst(' and ', ['first', 'last'])(whole) }) }), [], 'the parts present joined with a word')
  t.same(await joined(t, parts, { up: (values) => values.map((value) => value ?? '').join(' and '), down: (whole) => ({ last: '', ...atFirst(' and ', ['first', 'last'])(whole) }) }), [up], 'a word doubled')
  // '\n\n' between the only two parts present may be the separator (paragraphs): no other gap shows it single.
  t.same(await joined(t, parts, { up: (values) => values.map((value) => value ?? '').join('\n'), down: (whole) => ({ last: '', ...atFirst('\n', ['first', 'last'])(whole) }) }), [], "'\\n' doubled")
})

test('[first, last].join(\', \') with the first absent leaves the separator at the start: found', async (t) => {
  const parts: Array<[string, TSchema]> = [['first', Type.Optional(Type.String())], ['last', Type.String()]]
  const down = (whole: string): Body => whole.includes(', ') ? atFirst(', ', ['first', 'last'])(whole) : { last: whole }
  t.same(await joined(t, parts, { up: (values) => present(values, ', '), down }), [], 'the parts present joined')
  const found = await joined(t, parts, { up: (values) => values.join(', '), down })
  t.same(found, ['POST /things 2000-01-01 request lost body/last after WholeJoined (2001-01-01) by WholeJoined.up'])
})

test('an area code in brackets before a number, joined as \'()\' where absent, is found; joined where present is clean', async (t) => {
  const parts: Array<[string, TSchema]> = [['area', Type.Optional(Type.String())], ['last', Type.String()]]
  const down = (whole: string): Body => {
    const [, area, last] = /^\((.*)\) (.*)$/su.exec(whole) ?? []
    return last === undefined ? { last: whole } : { area, last }
  }
  t.same(await joined(t, parts, { up: ([area, number]) => `(${area ?? ''}) ${String(number)}`, down }), ['POST /things 2000-01-01 request lost body/last after WholeJoined (2001-01-01) by WholeJoined.up'], "(area ?? '') number")
  t.same(await joined(t, parts, { up: ([area, number]) => area === undefined ? String(number) : `(${area}) ${String(number)}`, down }), [], 'the area joined where present')
})
