// `verify` follows a value moved into a list's items or a union member (issue 31): an old `phone` that HEAD keeps as
// `phones: [{ kind: 'main', number }]` (declared `field('phones').derivedFrom('phone')`), an old `card` that HEAD keeps
// as the card member of `paymentMethod` (declared `field('paymentMethod').derivedFrom('card')`). The value (an old
// client's '' too) must reach the list, and a card everything it holds; a list's other items, and another member, have
// no old place (decision 0173).
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import type { Teardown } from '../helpers/apps'

type Body = Record<string, any>

async function findingsOf (t: Teardown, holder: TSchema, instructions: () => VersionChange['instructionsToMigrateToPreviousVersion'], up: (body: Body) => void, down: (body: Body) => void): Promise<string[]> {
  class MovedIntoItems extends VersionChange {
    description = 'A value moved into a list or a union.'
    instructionsToMigrateToPreviousVersion = instructions()

    @ConvertRequestToNextVersionFor(holder)
    up (request: RequestInfo) { up(request.body) }

    @ConvertResponseToPreviousVersionFor(holder)
    down (response: ResponseInfo) { down(response.body) }
  }
  const app = await appWith(t, MovedIntoItems, (api) => {
    api.put('/things/:id', { schema: { body: holder, response: { 200: holder } } }, async () => { throw new Error('not served in verify') })
  })
  return summary(await verify(app, { examples: 10 }))
}

async function phones (t: Teardown, up: (body: Body) => void, down: (body: Body) => void, nullable = false): Promise<string[]> {
  const Phone = Type.Object({ kind: Type.String(), number: Type.String() }, { $id: 'Phone' })
  const Customer = Type.Object({ name: Type.String(), phones: Type.Optional(Type.Array(Phone)) }, { $id: 'Customer' })
  const phone = nullable ? Type.Union([Type.String(), Type.Null()]) : Type.String()
  return await findingsOf(t, Customer, () => [
    schema(Customer).formerField('phone').existedAs({ type: phone, optional: true }),
    schema(Customer).field('phones').derivedFrom('phone')
  ], up, down)
}

const phoneUp = (body: Body): void => {
  if (Object.hasOwn(body, 'phone') && body.phone !== null) body.phones = [{ kind: 'main', number: body.phone }]
  delete body.phone
}
const phoneDown = (body: Body): void => {
  const main = body.phones?.find((phone: Body) => phone.kind === 'main')
  if (main !== undefined) body.phone = main.number
  delete body.phones
}

test('regression: a phone moved into a list of phones, its converters right, is no finding (a HEAD list without a main phone was lost)', async (t) => {
  t.same(await phones(t, phoneUp, phoneDown), [])
  t.same(await phones(t, phoneUp, phoneDown, true), [], 'a null phone is no phone: no item to hold it')
})

test('regression: a phone moved into a list only when truthy loses an old client\'s \'\'; one never moved back is lost on the round trip', async (t) => {
  t.same(await phones(t, (body) => {
    if (body.phone) body.phones = [{ kind: 'main', number: body.phone }]
    delete body.phone
  }, phoneDown), ['PUT /things/:id 2000-01-01 request lost body/phone after MovedIntoItems (2001-01-01) by MovedIntoItems.up'])
  t.same(await phones(t, phoneUp, (body) => { delete body.phones }),
    ['PUT /things/:id 2000-01-01 response round trip response 200/phone after MovedIntoItems (2001-01-01) by MovedIntoItems.up,MovedIntoItems.down'])
})

async function cards (t: Teardown, up: (body: Body) => void, down: (body: Body) => void): Promise<string[]> {
  const Card = Type.Object({ type: Type.Literal('card'), last4: Type.String(), expiry: Type.Optional(Type.String()) }, { $id: 'Card' })
  const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String() }, { $id: 'Bank' })
  const Customer = Type.Object({ name: Type.String(), paymentMethod: Type.Optional(Type.Union([Card, Bank])) }, { $id: 'Customer' })
  return await findingsOf(t, Customer, () => [
    schema(Customer).formerField('card').existedAs({ type: Card, optional: true }),
    schema(Customer).field('paymentMethod').derivedFrom('card')
  ], up, down)
}

const cardUp = (body: Body): void => {
  if (Object.hasOwn(body, 'card')) body.paymentMethod = body.card
  delete body.card
}
const cardDown = (body: Body): void => {
  if (body.paymentMethod?.type === 'card') body.card = body.paymentMethod
  delete body.paymentMethod
}

test('a card moved whole into a union member: right converters are no finding, a bank account has no old place', async (t) => {
  t.same(await cards(t, cardUp, cardDown), [])
})

test('regression: a card moved into a union member and never moved back is lost, one way and on the round trip; a part left out is lost', async (t) => {
  t.same(await cards(t, cardUp, (body) => { delete body.paymentMethod }), [
    'PUT /things/:id 2000-01-01 response round trip response 200/card after MovedIntoItems (2001-01-01) by MovedIntoItems.up,MovedIntoItems.down',
    'PUT /things/:id 2000-01-01 response lost response 200/paymentMethod after MovedIntoItems (2001-01-01) by MovedIntoItems.down'
  ])
  const partial = await cards(t, (body) => {
    if (Object.hasOwn(body, 'card')) body.paymentMethod = { type: 'card', last4: body.card.last4 }
    delete body.card
  }, cardDown)
  t.ok(partial.includes('PUT /things/:id 2000-01-01 request lost body/card/expiry after MovedIntoItems (2001-01-01) by MovedIntoItems.up'), partial.join('\n'))
})
