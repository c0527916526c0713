// `verify` follows a value moved between two objects (issue 31): a field an old version has in one object (a customer's
// `city`, brought back by `formerField(...).existedAs`) that HEAD has in an object it holds (`address.city`, declared
// `derivedFrom({ schema, field })`) is the same value, moved. Its request converter must move every value (an old
// client's '' too), and its response converter must move it back: old clients read it where they always did.
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import { versionedApp, type Teardown } from '../helpers/apps'

/** How a test's move converts: the request converter's body and the response converter's (`undefined`: none). */
interface Converters {
  readonly up: (body: Record<string, any>) => void
  readonly down?: (body: Record<string, any>) => void
}

const movesEvery = (body: Record<string, any>): void => {
  if (Object.hasOwn(body, 'city')) body.address.city = body.city
  delete body.city
}
const movesBack = (body: Record<string, any>): void => {
  if (body.address === undefined) return
  if (Object.hasOwn(body.address, 'city')) body.city = body.address.city
  delete body.address.city
}

/** A change moving a customer's city into its address (a new class for each app: a change belongs to one bundle). */
function cityInAddress (Customer: TSchema, Place: TSchema, converters: Converters, declared = true): VersionChangeClass {
  class CityInAddress extends VersionChange {
    description = 'A customer\'s city is part of its address.'
    instructionsToMigrateToPreviousVersion = [
      schema(Customer).formerField('city').existedAs({ type: Type.String(), optional: true }),
      declared ? schema(Place).field('city').derivedFrom({ schema: Customer, field: 'city' }) : schema(Place).field('city').didntExist
    ]

    @ConvertRequestToNextVersionFor(Customer)
    up (request: RequestInfo) { converters.up(request.body) }

    @ConvertResponseToPreviousVersionFor(Customer)
    down (response: ResponseInfo) { converters.down?.(response.body) }
  }
  return CityInAddress
}

function schemas (): { Place: TSchema, Customer: TSchema } {
  const Place = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Place' })
  const Customer = Type.Object({ name: Type.String(), address: Place }, { $id: 'Customer' })
  return { Place, Customer }
}

async function findingsOf (t: Teardown, converters: Converters, declared = true): Promise<Awaited<ReturnType<typeof verify>>> {
  const { Place, Customer } = schemas()
  const app = await appWith(t, cityInAddress(Customer, Place, converters, declared), (api) => {
    api.put('/customers/:id', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
  })
  return await verify(app, { examples: 5 })
}

test('a move whose converters move every value both ways is no finding; declared didntExist rather than derivedFrom, the move is not followed', async (t) => {
  t.same(summary(await findingsOf(t, { up: movesEvery, down: movesBack })), [])
  // Without derivedFrom the two fields are unrelated to verify (decision 0277): a converter dropping '' passes.
  const truthy = (body: Record<string, any>): void => {
    if (body.city) body.address.city = body.city
    delete body.city
  }
  // (A full replace from the old version clears address.city, which it then lacks: that finding stays.)
  t.same(summary(await findingsOf(t, { up: truthy }, false)).filter((line) => !line.includes(' replace clears ')), [])
})

test('regression: a move whose response converter is forgotten leaves old clients without the city: found one way and on the round trip', async (t) => {
  const findings = await findingsOf(t, { up: movesEvery })
  t.same(summary(findings), [
    'PUT /customers/:id 2000-01-01 response round trip response 200/city after CityInAddress (2001-01-01) by CityInAddress.up,CityInAddress.down',
    'PUT /customers/:id 2000-01-01 response lost response 200/address/city after CityInAddress (2001-01-01) by CityInAddress.down'
  ])
  t.match(findings[0].text, /^PUT \/customers\/:id \(2000-01-01\): response 200\/city: the value sent at \/city does not come back in the 200 response: 'zq\d+ Łódź 🙂zq\d+' is dropped; /)
  t.match(findings[1].text, /^PUT \/customers\/:id \(2000-01-01\): response 200\/address\/city: the value at \/address\/city in HEAD does not reach 2000-01-01: 'zq\d+ Łódź 🙂zq\d+' is dropped; first wrong after CityInAddress \(2001-01-01\), converters CityInAddress\.down\. Make the converters move the value from \/address\/city to \/city whatever it is/)
})

test('regression: a move of a truthy city only drops an old client\'s empty city: found, naming the value', async (t) => {
  const findings = await findingsOf(t, {
    up: (body) => {
      if (body.city) body.address.city = body.city
      delete body.city
    },
    down: movesBack
  })
  t.same(summary(findings), ['PUT /customers/:id 2000-01-01 request lost body/city after CityInAddress (2001-01-01) by CityInAddress.up'])
  t.equal(findings[0].value, '')
  t.match(findings[0].text, /^PUT \/customers\/:id \(2000-01-01\): request body\/city: the value at \/city in 2000-01-01 does not reach HEAD: '' is dropped; first wrong after CityInAddress \(2001-01-01\), converters CityInAddress\.up\. Make the converters move the value from \/city to \/address\/city whatever it is \('', 0, false and null too: test that the field is there, not that it is truthy\)/)
})

/** A change moving a parcel's weight in pounds into its dimensions, in kilograms. */
function weightInDimensions (Parcel: TSchema, Dimensions: TSchema, up: (body: Record<string, any>) => void): VersionChangeClass {
  class WeightInKilograms extends VersionChange {
    description = 'A parcel\'s weight is part of its dimensions, in kilograms (it was in pounds).'
    instructionsToMigrateToPreviousVersion = [
      schema(Parcel).formerField('weightLb').existedAs({ type: Type.Number({ minimum: 0 }) }),
      schema(Dimensions).field('weightKg').derivedFrom({ schema: Parcel, field: 'weightLb' })
    ]

    @ConvertRequestToNextVersionFor(Parcel)
    up (request: RequestInfo) { up(request.body) }

    @ConvertResponseToPreviousVersionFor(Parcel)
    down (response: ResponseInfo) {
      response.body.weightLb = response.body.dimensions.weightKg / 0.45359237
      delete response.body.dimensions.weightKg
    }
  }
  return WeightInKilograms
}

test('a value converted as it moves (pounds to kilograms) is no finding; a weight of 0 left behind is', async (t) => {
  const build = async (up: (body: Record<string, any>) => void): Promise<Awaited<ReturnType<typeof verify>>> => {
    const Dimensions = Type.Object({ lengthCm: Type.Integer({ minimum: 1 }), weightKg: Type.Number({ minimum: 0 }) }, { $id: 'Dimensions' })
    const Parcel = Type.Object({ label: Type.String(), dimensions: Dimensions }, { $id: 'Parcel' })
    const app = await appWith(t, weightInDimensions(Parcel, Dimensions, up), (api) => {
      api.post('/parcels', { schema: { body: Parcel, response: { 201: Parcel } } }, async () => { throw new Error('not served in verify') })
    })
    return await verify(app, { examples: 5 })
  }
  t.same(summary(await build((body) => {
    body.dimensions.weightKg = body.weightLb * 0.45359237
    delete body.weightLb
  })), [])
  const zero = await build((body) => {
    // A weight of 0 is left out: HEAD's required weightKg is missing.
    if (body.weightLb) body.dimensions.weightKg = body.weightLb * 0.45359237
    else body.dimensions.weightKg = 1
    delete body.weightLb
  })
  t.same(summary(zero), ['POST /parcels 2000-01-01 response round trip response 201/weightLb after WeightInKilograms (2001-01-01) by WeightInKilograms.up,WeightInKilograms.down'])
  t.match(zero[0].message, /^the value sent at \/weightLb does not come back in the 201 response: 0 comes back as 2\.2046/)
})

test('a move into one of two places holding its schema, named with through, is followed there only', async (t) => {
  const build = async (up: (body: Record<string, any>) => void, through: string | undefined): Promise<Awaited<ReturnType<typeof verify>>> => {
    const Postal = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) })
    const Order = Type.Object({ billing: Postal, shipping: Postal }, { $id: 'Order' })
    class BillingCity extends VersionChange {
      description = 'Addresses have a city; the order\'s billingCity moved into the billing address.'
      instructionsToMigrateToPreviousVersion = [
        schema(Order).formerField('billingCity').existedAs({ type: Type.String(), optional: true }),
        schema(Postal).field('city').derivedFrom({ schema: Order, field: 'billingCity', ...(through === undefined ? {} : { through }) })
      ]

      @ConvertRequestToNextVersionFor(Order)
      up (request: RequestInfo) { up(request.body) }

      @ConvertResponseToPreviousVersionFor(Order)
      down (response: ResponseInfo) {
        if ('city' in response.body.billing) response.body.billingCity = response.body.billing.city
        delete response.body.billing.city
        delete response.body.shipping.city
      }
    }
    const app = await appWith(t, BillingCity, (api) => {
      api.put('/orders/:id', { schema: { body: Order, response: { 200: Order } }, fullReplace: { keeps: ['/shipping/city'] } }, async () => { throw new Error('not served in verify') })
    })
    return await verify(app, { examples: 5 })
  }
  const moves = (body: Record<string, any>): void => {
    if ('billingCity' in body) body.billing.city = body.billingCity
    delete body.billingCity
  }
  const truthy = (body: Record<string, any>): void => {
    if (body.billingCity) body.billing.city = body.billingCity
    delete body.billingCity
  }
  t.same(summary(await build(moves, 'billing')), [], 'moved into the billing address: the shipping city is HEAD\'s own')
  t.same(summary(await build(truthy, 'billing')), ['PUT /orders/:id 2000-01-01 request lost body/billingCity after BillingCity (2001-01-01) by BillingCity.up'])
  // Without through, either address may be the one: the move is not followed (the full replace's findings say to name it).
  t.same(summary(await build(truthy, undefined)).filter((line) => / (lost|round trip) /.test(line)), [])
})

test('a move into an object the old client may leave out: the converter makes it, and a city it leaves behind is found', async (t) => {
  const build = async (up: (body: Record<string, any>) => void): Promise<Awaited<ReturnType<typeof verify>>> => {
    const Place = Type.Object({ line1: Type.Optional(Type.String()), city: Type.Optional(Type.String()) }, { $id: 'Place' })
    const Customer = Type.Object({ name: Type.String(), address: Type.Optional(Place) }, { $id: 'Customer' })
    const app = await appWith(t, cityInAddress(Customer, Place, { up, down: movesBack }), (api) => {
      api.post('/customers', { schema: { body: Customer, response: { 201: Customer } } }, async () => { throw new Error('not served in verify') })
    })
    return await verify(app, { examples: 10 })
  }
  t.same(summary(await build((body) => {
    if (Object.hasOwn(body, 'city')) body.address = { ...body.address, city: body.city }
    delete body.city
  })), [])
  t.same(summary(await build((body) => {
    if (body.city) body.address = { ...body.address, city: body.city }
    delete body.city
  })), ['POST /customers 2000-01-01 request lost body/city after CityInAddress (2001-01-01) by CityInAddress.up'])
  // Moved only into an address the client sent: a city sent without one is lost (HEAD's request has no address to hold it).
  const intoSent = await build((body) => {
    if (body.address !== undefined && Object.hasOwn(body, 'city')) body.address.city = body.city
    delete body.city
  })
  t.same(summary(intoSent), ['POST /customers 2000-01-01 request lost body/city after CityInAddress (2001-01-01) by CityInAddress.up'])
  t.same(Object.keys(intoSent[0].example as object).sort(), ['city', 'name'], 'an example with a city and no address')
})

test('a move followed across versions: an older change moves the city, a newer one renames it in the address', async (t) => {
  const build = async (up: (body: Record<string, any>) => void): Promise<Awaited<ReturnType<typeof verify>>> => {
    const Place = Type.Object({ line1: Type.String(), town: Type.Optional(Type.String()) }, { $id: 'Place' })
    const Customer = Type.Object({ name: Type.String(), address: Place }, { $id: 'Customer' })
    class CityIsTown extends VersionChange {
      description = 'An address\'s city is its town.'
      instructionsToMigrateToPreviousVersion = [schema(Place).field('town').had({ name: 'city' })]

      @ConvertRequestToNextVersionFor(Place)
      up (request: RequestInfo) {
        if (Object.hasOwn(request.body, 'city')) request.body.town = request.body.city
        delete request.body.city
      }

      @ConvertResponseToPreviousVersionFor(Place)
      down (response: ResponseInfo) {
        if (Object.hasOwn(response.body, 'town')) response.body.city = response.body.town
        delete response.body.town
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2002-01-01', CityIsTown), new Version('2001-01-01', cityInAddress(Customer, Place, { up, down: movesBack })), new Version('2000-01-01')), async (api) => {
      api.put('/customers/:id', { schema: { body: Customer, response: { 200: Customer } } }, async () => { throw new Error('not served in verify') })
    })
    await app.ready()
    return await verify(app, { examples: 5 })
  }
  t.same(summary(await build(movesEvery)), [])
  t.same(summary(await build((body) => {
    if (body.city) body.address.city = body.city
    delete body.city
  })), ['PUT /customers/:id 2000-01-01 request lost body/city after CityInAddress (2001-01-01) by CityInAddress.up'])
})

test('a field moved within its object (derivedFrom a former field of the same schema) is followed as well', async (t) => {
  const build = async (up: (body: Record<string, any>) => void): Promise<Awaited<ReturnType<typeof verify>>> => {
    const Customer = Type.Object({ name: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Customer' })
    class TownIsCity extends VersionChange {
      description = 'A customer\'s town is its city.'
      instructionsToMigrateToPreviousVersion = [
        schema(Customer).formerField('town').existedAs({ type: Type.String(), optional: true }),
        schema(Customer).field('city').derivedFrom('town')
      ]

      @ConvertRequestToNextVersionFor(Customer)
      up (request: RequestInfo) { up(request.body) }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo) {
        if (Object.hasOwn(response.body, 'city')) response.body.town = response.body.city
        delete response.body.city
      }
    }
    const app = await appWith(t, TownIsCity, (api) => {
      api.post('/customers', { schema: { body: Customer, response: { 201: Customer } } }, async () => { throw new Error('not served in verify') })
    })
    return await verify(app, { examples: 5 })
  }
  t.same(summary(await build((body) => {
    if (Object.hasOwn(body, 'town')) body.city = body.town
    delete body.town
  })), [])
  t.same(summary(await build((body) => {
    if (body.town) body.city = body.town
    delete body.town
  })), ['POST /customers 2000-01-01 request lost body/town after TownIsCity (2001-01-01) by TownIsCity.up'])
})

test('a field derived from an object (an address flattened into the customer) is not taken for a moved value', async (t) => {
  const Customer = Type.Object({ name: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Customer' })
  class FlatAddress extends VersionChange {
    description = 'A customer\'s address is its city.'
    instructionsToMigrateToPreviousVersion = [
      schema(Customer).formerField('address').existedAs({ type: Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) }), optional: true }),
      schema(Customer).field('city').derivedFrom('address')
    ]

    @ConvertRequestToNextVersionFor(Customer)
    up (request: RequestInfo) {
      if (request.body.address?.city !== undefined) request.body.city = request.body.address.city
      delete request.body.address
    }
  }
  const app = await appWith(t, FlatAddress, (api) => {
    api.post('/customers', { schema: { body: Customer } }, async () => ({}))
  })
  // Examples whose address has no city: HEAD's request has no city, and the address is no value to find there.
  t.same(summary(await verify(app, { examples: 30 })), [])
})

test('a move inside an object whose field was renamed since: followed under the old name (an order\'s customer, now its buyer)', async (t) => {
  const build = async (up: (body: Record<string, any>) => void): Promise<Awaited<ReturnType<typeof verify>>> => {
    const { Place, Customer } = schemas()
    const Order = Type.Object({ reference: Type.String(), buyer: Customer }, { $id: 'Order' })
    class CustomerIsBuyer extends VersionChange {
      description = 'An order\'s customer is its buyer.'
      instructionsToMigrateToPreviousVersion = [schema(Order).field('buyer').had({ name: 'customer' })]

      @ConvertRequestToNextVersionFor(Order)
      up (request: RequestInfo) {
        if (Object.hasOwn(request.body, 'customer')) request.body.buyer = request.body.customer
        delete request.body.customer
      }

      @ConvertResponseToPreviousVersionFor(Order)
      down (response: ResponseInfo) {
        if (Object.hasOwn(response.body, 'buyer')) response.body.customer = response.body.buyer
        delete response.body.buyer
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2002-01-01', CustomerIsBuyer), new Version('2001-01-01', cityInAddress(Customer, Place, { up, down: movesBack })), new Version('2000-01-01')), async (api) => {
      api.post('/orders', { schema: { body: Order, response: { 201: Order } } }, async () => { throw new Error('not served in verify') })
    })
    await app.ready()
    return await verify(app, { examples: 5 })
  }
  t.same(summary(await build(movesEvery)), [], 'every city reaches the buyer\'s address')
  t.same(summary(await build((body) => {
    if (body.city) body.address.city = body.city
    delete body.city
  })), ['POST /orders 2000-01-01 request lost body/customer/city after CityInAddress (2001-01-01) by CityInAddress.up'], 'the empty city the converter drops is found')
})
