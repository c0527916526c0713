// `verify` reads an old version's value of a union by that version's members, as serving converts it: a member
// whose field or tag was renamed since, a member a later version added, a member nested in another object. A correct
// app verifies cleanly; its twin whose converter of that member forgets a field is found.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import { echoResponse } from '../../lib/tools/echo-response'

/** Renames `from` to `to` in `body`; `lossy`, its value lost (`''`, as valid). */
function rename (body: Record<string, unknown>, from: string, to: string, lossy: boolean): void {
  if (Object.hasOwn(body, from)) body[to] = lossy ? '' : body[from]
  delete body[from]
}

/**
 * A payment by card (`holder`, `number`) or bank account (`accountHolder`, `iban`), no tag telling them apart; the
 * version before 2001-01-01 called the account's holder `holder`, as the card calls its own. `nested`: the union is
 * held one object deeper (`{ payment: { method } }`).
 */
function payments (lossy: boolean, nested: boolean): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const Card = Type.Object({ holder: Type.String(), number: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ accountHolder: Type.String(), iban: Type.String() }, { $id: 'Bank' })
  class AccountHolderRenamed extends VersionChange {
    description = 'A bank account\'s holder became accountHolder.'
    instructionsToMigrateToPreviousVersion = [schema(Bank).field('accountHolder').had({ name: 'holder' })]

    @ConvertRequestToNextVersionFor(Bank)
    up (request: RequestInfo) { rename(request.body, 'holder', 'accountHolder', lossy) }

    @ConvertResponseToPreviousVersionFor(Bank)
    down (response: ResponseInfo) { rename(response.body, 'accountHolder', 'holder', false) }
  }
  const Method = Type.Union([Card, Bank])
  const Payment = nested ? Type.Object({ payment: Type.Object({ method: Method }) }) : Type.Object({ payment: Method })
  const routes = (api: FastifyInstance): void => {
    api.post('/payments', { schema: { body: Payment, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
    api.get('/payments', { schema: { response: { 200: Payment } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: AccountHolderRenamed, routes }
}

for (const nested of [false, true]) {
  test(`an old bank account whose holder has the card's field name${nested ? ', one object deeper' : ''}: read as the account it is in its version`, async (t) => {
    const pointer = nested ? '/payment/method' : '/payment'
    const correct = payments(false, nested)
    t.same(summary(await verify(await appWith(t, correct.change, correct.routes), { examples: 3 })), [], 'the holder reaches accountHolder: nothing lost')
    const lossy = payments(true, nested)
    t.same(summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 3 })), [
      `POST /payments 2000-01-01 request lost body${pointer}/holder after AccountHolderRenamed (2001-01-01) by AccountHolderRenamed.up`
    ], 'the holder the converter drops is found')
  })
}

/**
 * A payment by card or bank account told apart by `object`: the account's tag was `'bank'` before 2001-01-01
 * (`'bank_account'` since), and its `bankName` was `name`. `refs`: the members as `$ref`s.
 */
function taggedPayments (lossy: boolean, refs: boolean): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const Card = Type.Object({ object: Type.Literal('card'), name: Type.String(), last4: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ object: Type.Literal('bank_account'), bankName: Type.String(), last4: Type.String() }, { $id: 'Bank' })
  class BankRenamed extends VersionChange {
    description = 'A bank account is tagged bank_account, its name became bankName.'
    instructionsToMigrateToPreviousVersion = [schema(Bank).field('object').had({ type: Type.Literal('bank') }), schema(Bank).field('bankName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Bank)
    up (request: RequestInfo) {
      request.body.object = 'bank_account'
      rename(request.body, 'name', 'bankName', lossy)
    }

    @ConvertResponseToPreviousVersionFor(Bank)
    down (response: ResponseInfo) {
      response.body.object = 'bank'
      rename(response.body, 'bankName', 'name', false)
    }
  }
  const routes = (api: FastifyInstance): void => {
    if (refs) {
      api.addSchema(Card)
      api.addSchema(Bank)
    }
    const Payment = Type.Object({ payment: Type.Union<TSchema[]>(refs ? [Type.Ref('Card'), Type.Ref('Bank')] : [Card, Bank]) })
    api.post('/payments', { schema: { body: Payment, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
    api.get('/payments', { schema: { response: { 200: Payment } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: BankRenamed, routes }
}

for (const refs of [false, true]) {
  test(`an old bank account whose tag was renamed (${refs ? '$ref' : 'inline'} members): read as the account it is in its version`, async (t) => {
    const correct = taggedPayments(false, refs)
    t.same(summary(await verify(await appWith(t, correct.change, correct.routes), { examples: 3 })), [], 'the account\'s name reaches bankName')
    const lossy = taggedPayments(true, refs)
    t.same(summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 3 })), [
      'POST /payments 2000-01-01 request lost body/payment/name after BankRenamed (2001-01-01) by BankRenamed.up'
    ], 'the name the converter drops is found')
  })
}

/**
 * A payment by card, or (since 2001-01-01) by bank account: the version before had a card only, whose `name` HEAD
 * calls `holder`; HEAD's account declares `name` as well.
 */
function addedMember (lossy: boolean): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const Card = Type.Object({ holder: Type.String(), last4: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ name: Type.String(), iban: Type.String() }, { $id: 'Bank' })
  const Payment = Type.Object({ method: Type.Union([Bank, Card]) }, { $id: 'Payment' })
  class BankAccounts extends VersionChange {
    description = 'A payment may be by bank account; a card\'s name became holder.'
    instructionsToMigrateToPreviousVersion = [schema(Payment).field('method').had({ type: Card }), schema(Card).field('holder').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Card)
    up (request: RequestInfo) { rename(request.body, 'name', 'holder', lossy) }

    @ConvertResponseToPreviousVersionFor(Card)
    down (response: ResponseInfo) { rename(response.body, 'holder', 'name', false) }
  }
  const routes = (api: FastifyInstance): void => {
    api.post('/payments', { schema: { body: Payment, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
    api.get('/cards', { schema: { response: { 200: Card } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: BankAccounts, routes }
}

test('an old card of a union HEAD added a member to: read as the card it is in its version', async (t) => {
  const correct = addedMember(false)
  t.same(summary(await verify(await appWith(t, correct.change, correct.routes), { examples: 3 })), [], 'the card\'s name reaches holder')
  const lossy = addedMember(true)
  t.same(summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 3 })), [
    'POST /payments 2000-01-01 request lost body/method/name after BankAccounts (2001-01-01) by BankAccounts.up'
  ], 'the name the converter drops is found')
})

/**
 * A payment taken as a card or bank account and answered with an `id` each member of the response requires (the
 * request's members have none); a bank account's `name` was `title` before 2001-01-01. `lossy`: the response
 * converter loses it.
 */
function echoedPayments (lossy: boolean): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const CardIn = Type.Object({ kind: Type.Literal('card'), holder: Type.String() }, { $id: 'CardIn' })
  const BankIn = Type.Object({ kind: Type.Literal('bank'), name: Type.String() }, { $id: 'BankIn' })
  const Card = Type.Object({ id: Type.String(), kind: Type.Literal('card'), holder: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ id: Type.String(), kind: Type.Literal('bank'), name: Type.String() }, { $id: 'Bank' })
  class NameWasTitle extends VersionChange {
    description = 'A bank account\'s title became name.'
    instructionsToMigrateToPreviousVersion = [schema(BankIn).field('name').had({ name: 'title' }), schema(Bank).field('name').had({ name: 'title' })]

    @ConvertRequestToNextVersionFor(BankIn)
    up (request: RequestInfo) { rename(request.body, 'title', 'name', false) }

    @ConvertResponseToPreviousVersionFor(Bank)
    down (response: ResponseInfo) { rename(response.body, 'name', 'title', lossy) }
  }
  const routes = (api: FastifyInstance): void => {
    const body = Type.Object({ payment: Type.Union([CardIn, BankIn]) })
    const answer = Type.Object({ payment: Type.Union([Card, Bank]) })
    api.post('/payments', { schema: { body, response: { 200: answer } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: NameWasTitle, routes }
}

test('a round trip reads the response\'s union by the member the handler answers the request\'s value with', async (t) => {
  const correct = echoedPayments(false)
  t.same(summary(await verify(await appWith(t, correct.change, correct.routes), { examples: 3 })), [], 'the account\'s title comes back')
  const lossy = echoedPayments(true)
  t.same(summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 3 })), [
    'POST /payments 2000-01-01 response round trip response 200/payment/title after NameWasTitle (2001-01-01) by NameWasTitle.up,NameWasTitle.down',
    'POST /payments 2000-01-01 response lost response 200/payment/name after NameWasTitle (2001-01-01) by NameWasTitle.down'
  ], 'the title the response converter loses does not come back')
})

/**
 * A payment taken as a card or bank transfer and answered as a bank transfer or card, each with an id of its own name
 * (a card's `id`, a transfer's `bankId`); a transfer's `amountCents` was `amount` (in units) before 2001-01-01.
 * `lossy`: the response converter leaves the amount in cents.
 */
function ownIds (lossy: boolean): { change: VersionChangeClass, routes: (api: FastifyInstance) => void, schemas: { body: TSchema, answer: TSchema } } {
  const CardIn = Type.Object({ kind: Type.Literal('card'), holder: Type.String() }, { $id: 'CardIn' })
  const BankIn = Type.Object({ kind: Type.Literal('bank'), amountCents: Type.Integer() }, { $id: 'BankIn' })
  const Card = Type.Object({ id: Type.String(), kind: Type.Literal('card'), holder: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ bankId: Type.String(), kind: Type.Literal('bank'), amountCents: Type.Integer() }, { $id: 'Bank' })
  class AmountInCents extends VersionChange {
    description = 'A bank transfer\'s amount is in cents.'
    instructionsToMigrateToPreviousVersion = [BankIn, Bank].map((each) => schema(each).field('amountCents').had({ name: 'amount', type: Type.Number() }))

    @ConvertRequestToNextVersionFor(BankIn)
    up (request: RequestInfo) {
      request.body.amountCents = Math.round(request.body.amount * 100)
      delete request.body.amount
    }

    @ConvertResponseToPreviousVersionFor(Bank)
    down (response: ResponseInfo) {
      response.body.amount = lossy ? response.body.amountCents : response.body.amountCents / 100
      delete response.body.amountCents
    }
  }
  const body = Type.Object({ payment: Type.Union([CardIn, BankIn]) })
  const answer = Type.Object({ payment: Type.Union([Bank, Card]) })
  const routes = (api: FastifyInstance): void => {
    api.post('/payments', { schema: { body, response: { 200: answer } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: AmountInCents, routes, schemas: { body, answer } }
}

test('a round trip reads the response\'s union by the member the request\'s value is, whatever member the generated response is', async (t) => {
  const { schemas } = ownIds(false)
  const resolveRef = (): undefined => undefined
  const echoed = echoResponse({ request: { payment: { kind: 'bank', amountCents: 1999 } }, requestSchema: schemas.body, response: { payment: { id: 'c1', kind: 'card', holder: 'Ada' } }, responseSchema: schemas.answer }, resolveRef)
  t.match(echoed.body, { payment: { bankId: String, kind: 'bank', amountCents: 1999 } }, 'the stored transfer, with a transfer\'s own id')
  t.same([...echoed.echoed].sort(), ['["payment","amountCents"]', '["payment","kind"]', '["payment"]'])
  const correct = ownIds(false)
  t.same(summary(await verify(await appWith(t, correct.change, correct.routes), { examples: 1 })), [], 'the amount comes back in units')
  const lossy = ownIds(true)
  t.same(summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 1 })), [
    'POST /payments 2000-01-01 response round trip response 200/payment/amount after AmountInCents (2001-01-01) by AmountInCents.up,AmountInCents.down'
  ], 'the amount left in cents is found')
})
