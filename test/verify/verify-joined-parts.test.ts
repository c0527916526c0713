// `verify` on several fields joined into one and split back (issue 31): an address's `line1` and optional `line2`
// joined with `[line1, line2].join('\n')` (an absent `line2` leaves `'1 Main St\n'`), a name joined from `firstName`
// and `lastName` or split into them in the wrong order, or cut to its first word. Converters that join only the parts
// present, split at the first or the last space, or trim the join stay clean.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Body = Record<string, any>

/** `POST /things` taking `Thing` and answering `{ id }`, `GET /things` answering `Thing`: one way only. */
function oneWay (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
  }
}

const byLines = (parts: Array<string | undefined>): string => parts.filter((part) => part !== undefined).join('\n')

/** An address's `value` split into `line1` and an optional `line2` at its first line break; `down` joins them back. */
async function addressLines (t: Teardown, down: (line1: string, line2: string | undefined) => string, routes = oneWay): Promise<string[]> {
  const Address = Type.Object({ id: Type.String(), line1: Type.String(), line2: Type.Optional(Type.String()) }, { $id: 'Address' })
  class AddressInTwoLines extends VersionChange {
    description = 'An address is line1 and line2 (absent when it has one line); it was one string (value).'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('line1').had({ name: 'value' }), schema(Address).field('line2').didntExist]

    @ConvertRequestToNextVersionFor(Address)
    up (request: RequestInfo) {
      const { value, ...rest } = request.body as Body
      const at = (value as string).indexOf('\n')
      request.body = at === -1 ? { ...rest, line1: value } : { ...rest, line1: value.slice(0, at), line2: value.slice(at + 1) }
    }

    @ConvertResponseToPreviousVersionFor(Address)
    down (response: ResponseInfo) {
      const { line1, line2, ...rest } = response.body as Body
      response.body = { ...rest, value: down(line1, line2) }
    }
  }
  return summary(await verify(await appWith(t, AddressInTwoLines, routes(Address)), { examples: 30 }))
}

test('an address whose absent second line is joined as \'\' is found; joins of the lines present are clean', async (t) => {
  t.same(await addressLines(t, (line1, line2) => [line1, line2].join('\n')), ['GET /things 2000-01-01 response lost response 200/line1 after AddressInTwoLines (2001-01-01) by AddressInTwoLines.down'])
  t.same(await addressLines(t, (line1, line2) => `${line1}\n${line2 ?? ''}`), ['GET /things 2000-01-01 response lost response 200/line1 after AddressInTwoLines (2001-01-01) by AddressInTwoLines.down'])
  t.same(await addressLines(t, (line1, line2) => byLines([line1, line2])), [], 'the lines present joined')
  t.same(await addressLines(t, (line1, line2) => line2 === undefined ? line1 : `${line1}\n${line2}`), [], 'the second line joined where present')
  t.same(await addressLines(t, (line1, line2) => `${line1}\n${line2 ?? ''}`.trim()), [], 'the join trimmed')
})

test('the finding names a value that says something, what arrived and the part absent', async (t) => {
  const Address = Type.Object({ id: Type.String({ format: 'uuid' }), line1: Type.String(), line2: Type.Optional(Type.String()) }, { $id: 'Address' })
  class AddressInTwoLines extends VersionChange {
    description = 'An address is line1 and line2; it was one string (value).'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('line1').had({ name: 'value' }), schema(Address).field('line2').didntExist]

    @ConvertResponseToPreviousVersionFor(Address)
    down (response: ResponseInfo) {
      const { line1, line2, ...rest } = response.body as Body
      response.body = { ...rest, value: [line1, line2].join('\n') }
    }
  }
  const app = await appWith(t, AddressInTwoLines, (api) => {
    api.get('/things', { schema: { response: { 200: Type.Object({ data: Type.Array(Address) }) } } }, async () => { throw new Error('not served in verify') })
  })
  const [finding] = await verify(app, { examples: 30 })
  // The first item joined with line2 absent holds line1 '': a later example shows a line1 that says more, and is the one shown.
  const [, line1] = /: '([^']+)' arrives as '\1\\n', a separator at its end: a part absent joined as ''$/.exec(finding.message) ?? []
  t.ok(line1, finding.message)
  t.ok((finding.example as { data: Body[] }).data.some((item) => item.line1 === line1 && item.line2 === undefined), 'the example shown holds that line1 alone')
  t.match(finding.fix, /filter\(\(part\) => part !== undefined\)/)
})

/** A person's `firstName` and optional `lastName`, one `name` in HEAD declared derivedFrom both; `up` joins, `down` splits. */
async function nameJoined (t: Teardown, up: (first: string, last: string | undefined) => string, down: (name: string) => Body, routes = oneWay): Promise<string[]> {
  const Person = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Person' })
  class NameJoined extends VersionChange {
    description = 'A name is one string; it was firstName and lastName.'
    instructionsToMigrateToPreviousVersion = [
      schema(Person).formerField('firstName').existedAs({ type: Type.String() }),
      schema(Person).formerField('lastName').existedAs({ type: Type.String(), optional: true }),
      schema(Person).field('name').derivedFrom('firstName', 'lastName')
    ]

    @ConvertRequestToNextVersionFor(Person)
    up (request: RequestInfo) {
      const { firstName, lastName, ...rest } = request.body as Body
      request.body = { ...rest, name: up(firstName, lastName) }
    }

    @ConvertResponseToPreviousVersionFor(Person)
    down (response: ResponseInfo) {
      const { name, ...rest } = response.body as Body
      response.body = { ...rest, ...down(name) }
    }
  }
  return summary(await verify(await appWith(t, NameJoined, routes(Person)), { examples: 30 }))
}

const present = (first: string, last: string | undefined): string => [first, last].filter((part) => part !== undefined).join(' ')
const atFirstSpace = (name: string): Body => {
  const at = name.indexOf(' ')
  return at === -1 ? { firstName: name } : { firstName: name.slice(0, at), lastName: name.slice(at + 1) }
}
const atLastSpace = (name: string): Body => {
  const at = name.lastIndexOf(' ')
  return at === -1 ? { firstName: name } : { firstName: name.slice(0, at), lastName: name.slice(at + 1) }
}

test('a name joined from two fields: an absent last name joined as \'\', the parts swapped, a split swapped or cut to a word are found', async (t) => {
  const up = 'POST /things 2000-01-01 request lost body/firstName after NameJoined (2001-01-01) by NameJoined.up'
  const down = 'GET /things 2000-01-01 response lost response 200/name after NameJoined (2001-01-01) by NameJoined.down'
  t.same(await nameJoined(t, (first, last) => [first, last].join(' '), atFirstSpace), [up], 'an absent last name joined as \'\'')
  t.same(await nameJoined(t, (first, last) => `${first} ${last ?? ''}`, atFirstSpace), [up], 'an absent last name written as \'\'')
  t.same(await nameJoined(t, (first, last) => last === undefined ? first : `${last} ${first}`, atFirstSpace), [up], 'the parts swapped')
  t.same(await nameJoined(t, present, (name) => {
    const { firstName, lastName } = atFirstSpace(name)
    return lastName === undefined ? { firstName } : { firstName: lastName, lastName: firstName }
  }), [down], 'a split swapped')
  t.same(await nameJoined(t, present, (name) => {
    const [firstName, lastName] = name.split(' ')
    return lastName === undefined ? { firstName } : { firstName, lastName }
  }), [down], 'the last name cut to its first word')
})

test('a name joined from the parts present, trimmed, and split at its first or last space is clean', async (t) => {
  t.same(await nameJoined(t, present, atFirstSpace), [], 'split at the first space')
  t.same(await nameJoined(t, present, atLastSpace), [], 'split at the last space')
  t.same(await nameJoined(t, (first, last) => `${first} ${last ?? ''}`.trim(), atFirstSpace), [], 'the join trimmed')
  t.same(await nameJoined(t, (first, last) => last === undefined ? first : `${first} ${last}`, atLastSpace), [], 'the last name joined where present')
})

test('a price derived from an amount and a currency (an object) is not judged as a join', async (t) => {
  const Price = Type.Object({ amount: Type.Number(), currency: Type.String() }, { $id: 'Price' })
  const Product = Type.Object({ id: Type.String(), price: Price }, { $id: 'Product' })
  class PriceObject extends VersionChange {
    description = 'price is an object; it was amount and currency.'
    instructionsToMigrateToPreviousVersion = [
      schema(Product).formerField('amount').existedAs({ type: Type.Number() }),
      schema(Product).formerField('currency').existedAs({ type: Type.String() }),
      schema(Product).field('price').derivedFrom('amount', 'currency')
    ]

    @ConvertRequestToNextVersionFor(Product)
    up (request: RequestInfo) {
      const { amount, currency, ...rest } = request.body as Body
      request.body = { ...rest, price: { amount, currency } }
    }

    @ConvertResponseToPreviousVersionFor(Product)
    down (response: ResponseInfo) {
      const { price, ...rest } = response.body as Body
      response.body = { ...rest, amount: price.amount, currency: price.currency }
    }
  }
  t.same(summary(await verify(await appWith(t, PriceObject, oneWay(Product)), { examples: 30 })), [])
})

test('a name joined inside an object whose field was renamed since (an order\'s customer, now its contact) is judged under the old name', async (t) => {
  const build = async (up: (first: string, last: string | undefined) => string): Promise<string[]> => {
    const Person = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Person' })
    const Order = Type.Object({ reference: Type.String(), contact: Person }, { $id: 'Order' })
    class NameJoined extends VersionChange {
      description = 'A name is one string; it was firstName and lastName.'
      instructionsToMigrateToPreviousVersion = [
        schema(Person).formerField('firstName').existedAs({ type: Type.String() }),
        schema(Person).formerField('lastName').existedAs({ type: Type.String(), optional: true }),
        schema(Person).field('name').derivedFrom('firstName', 'lastName')
      ]

      @ConvertRequestToNextVersionFor(Person)
      up (request: RequestInfo) {
        const { firstName, lastName, ...rest } = request.body as Body
        request.body = { ...rest, name: up(firstName, lastName) }
      }
    }
    class CustomerIsContact extends VersionChange {
      description = 'An order\'s customer is its contact.'
      instructionsToMigrateToPreviousVersion = [schema(Order).field('contact').had({ name: 'customer' })]

      @ConvertRequestToNextVersionFor(Order)
      up (request: RequestInfo) {
        const { customer, ...rest } = request.body as Body
        request.body = { ...rest, contact: customer }
      }
    }
    const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', CustomerIsContact), new Version('2001-01-01', NameJoined), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.post('/orders', { schema: { body: Order, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'o1' }))
    })
    await app.ready()
    return summary(await verify(app, { examples: 30 }))
  }
  t.same(await build(present), [], 'the parts present joined')
  t.same(await build((first, last) => [first, last].join(' ')), ['POST /orders 2000-01-01 request lost body/customer/firstName after NameJoined (2001-01-01) by NameJoined.up'], 'an absent last name joined as \'\'')
})
