// `verify` follows a value moved deeper than one object (issue 31): into an object an object of the holder holds
// (`city` now `address.location.city`), out of one (`billing.address.zip` now the order's `zip`, declared
// `derivedFrom('billing')`), and between two sibling objects (`contact.phone` now `delivery.phone`). As for a move one
// object deep (decision 0277), a request converter must move every value (an old client's '' too) and a response
// converter must move it back; where the way is not one object of the example, or the value not one field, nothing is
// followed (decision 0171).
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import type { Teardown } from '../helpers/apps'

type Body = Record<string, any>

/** How a test's move converts a body up (requests) and down (responses). */
interface Converters { readonly up: (body: Body) => void, readonly down: (body: Body) => void }

/** A change of `instructions` on `holder`'s requests and responses (a new class for each app). */
function moveChange (holder: TSchema, instructions: () => VersionChange['instructionsToMigrateToPreviousVersion'], converters: Converters): VersionChangeClass {
  class MovedDeeper extends VersionChange {
    description = 'A value moved deeper.'
    instructionsToMigrateToPreviousVersion = instructions()

    @ConvertRequestToNextVersionFor(holder)
    up (request: RequestInfo) { converters.up(request.body) }

    @ConvertResponseToPreviousVersionFor(holder)
    down (response: ResponseInfo) { converters.down(response.body) }
  }
  return MovedDeeper
}

async function findingsOf (t: Teardown, holder: TSchema, instructions: () => VersionChange['instructionsToMigrateToPreviousVersion'], converters: Converters): Promise<Awaited<ReturnType<typeof verify>>> {
  const app = await appWith(t, moveChange(holder, instructions, converters), (api) => {
    api.put('/things/:id', { schema: { body: holder, response: { 200: holder } } }, async () => { throw new Error('not served in verify') })
  })
  return await verify(app, { examples: 8 })
}

/** Moves the value at `from` to `to` (paths of a body) when it is there, or when `when` says so. */
function mover (from: string[], to: string[], when: (value: unknown) => boolean = () => true): (body: Body) => void {
  return (body) => {
    const parent = (path: string[]): Body | undefined => path.slice(0, -1).reduce<Body | undefined>((value, key) => value?.[key], body)
    const [source, target] = [parent(from), parent(to)]
    const key = from[from.length - 1]
    if (source === undefined || !Object.hasOwn(source, key)) return
    if (target !== undefined && when(source[key])) target[to[to.length - 1]] = source[key]
    delete source[key]
  }
}

function customer (): { Location: TSchema, Customer: TSchema, instructions: () => VersionChange['instructionsToMigrateToPreviousVersion'] } {
  const Location = Type.Object({ zip: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Location' })
  const Address = Type.Object({ line1: Type.String(), location: Location }, { $id: 'Address' })
  const Customer = Type.Object({ name: Type.String(), address: Address }, { $id: 'Customer' })
  return {
    Location,
    Customer,
    instructions: () => [
      schema(Customer).formerField('city').existedAs({ type: Type.String(), optional: true }),
      schema(Location).field('city').derivedFrom({ schema: Customer, field: 'city' })
    ]
  }
}

test('a value moved two objects deep (city into address.location.city): its converters moving every value both ways are no finding', async (t) => {
  const { Customer, instructions } = customer()
  t.same(summary(await findingsOf(t, Customer, instructions, { up: mover(['city'], ['address', 'location', 'city']), down: mover(['address', 'location', 'city'], ['city']) })), [])
})

test('regression: a value moved two objects deep whose response converter is forgotten, or whose request converter drops \'\', is found', async (t) => {
  const forgotten = customer()
  const findings = await findingsOf(t, forgotten.Customer, forgotten.instructions, { up: mover(['city'], ['address', 'location', 'city']), down: () => {} })
  t.same(summary(findings), [
    'PUT /things/:id 2000-01-01 response round trip response 200/city after MovedDeeper (2001-01-01) by MovedDeeper.up,MovedDeeper.down',
    'PUT /things/:id 2000-01-01 response lost response 200/address/location/city after MovedDeeper (2001-01-01) by MovedDeeper.down'
  ])
  t.match(findings[1].text, /Make the converters move the value from \/address\/location\/city to \/city whatever it is/)
  const truthy = customer()
  const dropped = await findingsOf(t, truthy.Customer, truthy.instructions, { up: mover(['city'], ['address', 'location', 'city'], Boolean), down: mover(['address', 'location', 'city'], ['city']) })
  t.same(summary(dropped), ['PUT /things/:id 2000-01-01 request lost body/city after MovedDeeper (2001-01-01) by MovedDeeper.up'])
  t.equal(dropped[0].value, '')
})

function order (): { Order: TSchema, instructions: () => VersionChange['instructionsToMigrateToPreviousVersion'] } {
  const PostalAddress = Type.Object({ line1: Type.String() }, { $id: 'PostalAddress' })
  const Billing = Type.Object({ name: Type.String(), address: PostalAddress }, { $id: 'Billing' })
  const Order = Type.Object({ id: Type.String(), zip: Type.Optional(Type.String()), billing: Billing }, { $id: 'Order' })
  return {
    Order,
    instructions: () => [
      schema(PostalAddress).formerField('zip').existedAs({ type: Type.String(), optional: true }),
      schema(Order).field('zip').derivedFrom('billing')
    ]
  }
}

test('a value moved out of an object held two deep (billing.address.zip into the order\'s zip, derivedFrom(\'billing\')) is followed', async (t) => {
  const [good, forgotten, truthy] = [order(), order(), order()]
  const [up, down] = [mover(['billing', 'address', 'zip'], ['zip']), mover(['zip'], ['billing', 'address', 'zip'])]
  t.same(summary(await findingsOf(t, good.Order, good.instructions, { up, down })), [])
  t.same(summary(await findingsOf(t, forgotten.Order, forgotten.instructions, { up, down: () => {} })), [
    'PUT /things/:id 2000-01-01 response round trip response 200/billing/address/zip after MovedDeeper (2001-01-01) by MovedDeeper.up,MovedDeeper.down',
    'PUT /things/:id 2000-01-01 response lost response 200/zip after MovedDeeper (2001-01-01) by MovedDeeper.down'
  ])
  const dropped = await findingsOf(t, truthy.Order, truthy.instructions, { up: mover(['billing', 'address', 'zip'], ['zip'], Boolean), down })
  t.same(summary(dropped), ['PUT /things/:id 2000-01-01 request lost body/billing/address/zip after MovedDeeper (2001-01-01) by MovedDeeper.up'])
  t.match(dropped[0].text, /Make the converters move the value from \/billing\/address\/zip to \/zip whatever it is/)
})

test('a value moved between two sibling objects (contact.phone into delivery.phone) is followed', async (t) => {
  const build = async (converters: Converters): Promise<string[]> => {
    const Contact = Type.Object({ email: Type.String() }, { $id: 'Contact' })
    const Delivery = Type.Object({ window: Type.String(), phone: Type.Optional(Type.String()) }, { $id: 'Delivery' })
    const Order = Type.Object({ contact: Contact, delivery: Delivery }, { $id: 'Order' })
    return summary(await findingsOf(t, Order, () => [
      schema(Contact).formerField('phone').existedAs({ type: Type.String(), optional: true }),
      schema(Delivery).field('phone').derivedFrom({ schema: Order, field: 'contact' })
    ], converters))
  }
  const [up, down] = [mover(['contact', 'phone'], ['delivery', 'phone']), mover(['delivery', 'phone'], ['contact', 'phone'])]
  t.same(await build({ up, down }), [])
  t.same(await build({ up: mover(['contact', 'phone'], ['delivery', 'phone'], Boolean), down }),
    ['PUT /things/:id 2000-01-01 request lost body/contact/phone after MovedDeeper (2001-01-01) by MovedDeeper.up'])
})

test('where the way down holds the object twice, or the object moved out of loses two fields, the move is not followed', async (t) => {
  const twice = async (up: (body: Body) => void): Promise<string[]> => {
    const Location = Type.Object({ zip: Type.String(), city: Type.Optional(Type.String()) })
    const Address = Type.Object({ home: Location, work: Location }, { $id: 'Address' })
    const Customer = Type.Object({ name: Type.String(), address: Address }, { $id: 'Customer' })
    const app = await appWith(t, moveChange(Customer, () => [
      schema(Customer).formerField('city').existedAs({ type: Type.String(), optional: true }),
      schema(Location).field('city').derivedFrom({ schema: Customer, field: 'city' })
    ], { up, down: mover(['address', 'home', 'city'], ['city']) }), (api) => {
      api.put('/things/:id', { schema: { body: Customer, response: { 200: Customer } } }, async () => { throw new Error('not served in verify') })
    })
    // Which place is the city's the declaration does not say: a full replace's findings ask for it, the move is not followed.
    return summary(await verify(app, { examples: 8 })).filter((line) => / (lost|round trip) /.test(line))
  }
  t.same(await twice(mover(['city'], ['address', 'home', 'city'], Boolean)), [])
  const PostalAddress = Type.Object({ line1: Type.String() }, { $id: 'PostalAddress' })
  const Order = Type.Object({ id: Type.String(), zip: Type.Optional(Type.String()), billing: PostalAddress }, { $id: 'Order' })
  // The zip is set from the billing address, which lost its zip and its town: either may be the value.
  t.same(summary(await findingsOf(t, Order, () => [
    schema(PostalAddress).formerField('zip').existedAs({ type: Type.String(), optional: true }),
    schema(PostalAddress).formerField('town').existedAs({ type: Type.String(), optional: true }),
    schema(Order).field('zip').derivedFrom('billing')
  ], { up: mover(['billing', 'zip'], ['zip'], Boolean), down: mover(['zip'], ['billing', 'zip']) })).filter((line) => / (lost|round trip) /.test(line) && !line.includes('/town')), [])
})
