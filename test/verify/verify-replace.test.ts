// `verify` on full replaces (decision 0073): a PUT route, or one declared `fullReplace`, whose old versions lack HEAD
// body fields is a `replace clears` finding per field, unless the route's `fullReplace: { keeps }` lists it or the
// route says it is not a full replace; a kept field no version lacks is one too. On a partial update (a PATCH), a
// field a version lacks that its request converters set whatever the client sends is an `update overwrites` finding.
import { test } from 'tap'
import type { FastifyInstance, RouteShorthandOptions } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify, type VerifyFinding } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { appWith } from '../helpers/verify-apps'

const Address = Type.Object({ line1: Type.String(), line2: Type.Optional(Type.String()) }, { $id: 'Address' })
const Profile = Type.Object({
  name: Type.String(), nickname: Type.Optional(Type.String()), internalNote: Type.Optional(Type.String()), address: Type.Optional(Address)
}, { $id: 'Profile' })

/** A ready app whose `METHOD /profile` route (options `options`) takes a {@link Profile}; nickname and line2 were added in 2001, internalNote is HEAD's. */
async function profileApp (t: Teardown, method: 'PUT' | 'POST' | 'PATCH', options: Partial<RouteShorthandOptions> = {}): Promise<FastifyInstance> {
  class HideInternalNote extends VersionChange {
    description = 'internalNote is HEAD\'s own.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('internalNote').didntExist]
  }
  class AddNicknameAndLine2 extends VersionChange {
    description = 'Profiles have a nickname and a second address line.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('nickname').didntExist, schema(Address).field('line2').didntExist]
  }
  const versions = new VersionBundle(new HeadVersion(HideInternalNote), new Version('2001-01-01', AddNicknameAndLine2), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.route({ method, url: '/profile', schema: { body: Profile }, ...options, handler: async () => ({}) })
  })
  await app.ready()
  return app
}

const replaceFindings = (findings: readonly VerifyFinding[]): VerifyFinding[] => findings.filter((finding) => finding.kind === 'replace clears')
const summary = (findings: readonly VerifyFinding[]) => replaceFindings(findings).map(({ route, version, versions, part, pointer, changeVersion, versionChanges }) =>
  ({ route, version, versions, part, pointer, changeVersion, versionChanges }))

test('a PUT route: each HEAD body field a version lacks is a finding naming the route, the versions, the field and the change that added it', async (t) => {
  const app = await profileApp(t, 'PUT')
  const findings = await verify(app, { examples: 5 })
  t.same(summary(findings), [
    { route: 'PUT /profile', version: '2001-01-01', versions: ['2001-01-01', '2000-01-01'], part: 'body', pointer: '/internalNote', changeVersion: 'HeadVersion', versionChanges: ['HideInternalNote'] },
    { route: 'PUT /profile', version: '2000-01-01', versions: ['2000-01-01'], part: 'body', pointer: '/nickname', changeVersion: '2001-01-01', versionChanges: ['AddNicknameAndLine2'] },
    { route: 'PUT /profile', version: '2000-01-01', versions: ['2000-01-01'], part: 'body', pointer: '/address/line2', changeVersion: '2001-01-01', versionChanges: ['AddNicknameAndLine2'] }
  ])
  t.equal(findings.length, 3, 'nothing else: the replays are clean')
  t.equal(findings[1].text, 'PUT /profile (2000-01-01): request body/nickname: a full replace from this version clears it (its clients cannot send it): keep its ' +
    'stored value (fieldsTheVersionLacks(request) lists it) and list it in the route option fullReplace: { keeps: [...] }, or declare fullReplace: false ' +
    'if the route does not replace what it stores, or declare the field derivedFrom(...) if the request converters set it from what the clients of ' +
    'this version send; lacked since AddNicknameAndLine2 (2001-01-01)')
  t.match(findings[0].text, /^PUT \/profile \(2001-01-01; also 2000-01-01\): request body\/internalNote: /)
})

test('no finding when fullReplace keeps lists the fields, or the route is not a full replace; fullReplace: true declares another method one', async (t) => {
  const kept = await profileApp(t, 'PUT', { fullReplace: { keeps: ['/internalNote', '/nickname', '/address/line2'] } })
  t.same(replaceFindings(await verify(kept, { examples: 5 })), [], 'every lacked field is kept')
  const some = await profileApp(t, 'PUT', { fullReplace: { keeps: ['/internalNote', '/nickname'] } })
  t.same(replaceFindings(await verify(some, { examples: 5 })).map((finding) => finding.pointer), ['/address/line2'], 'the field not kept')
  const partial = await profileApp(t, 'PUT', { fullReplace: false })
  t.same(replaceFindings(await verify(partial, { examples: 5 })), [], 'a PUT used as a partial update')
  const post = await profileApp(t, 'POST')
  t.same(replaceFindings(await verify(post, { examples: 5 })), [], 'a POST is not a full replace by default')
  const declared = await profileApp(t, 'PATCH', { fullReplace: true })
  t.same(replaceFindings(await verify(declared, { examples: 5 })).map((finding) => `${finding.route} ${finding.pointer}`),
    ['PATCH /profile /internalNote', 'PATCH /profile /nickname', 'PATCH /profile /address/line2'], 'a route declared a full replace')
})

test('a field fullReplace keeps that no version lacks is a finding (a typo, or a field every version has now)', async (t) => {
  const app = await profileApp(t, 'PUT', { fullReplace: { keeps: ['/internalNote', '/nickname', '/address/line2', '/adress/line2', '/name'] } })
  const findings = replaceFindings(await verify(app, { examples: 5 }))
  t.same(findings.map(({ pointer, versions, changeVersion }) => ({ pointer, versions, changeVersion })), [
    { pointer: '/adress/line2', versions: ['2001-01-01', '2000-01-01'], changeVersion: '' },
    { pointer: '/name', versions: ['2001-01-01', '2000-01-01'], changeVersion: '' }
  ])
  t.equal(findings[0].text, 'PUT /profile (every version): request body/adress/line2: the route option fullReplace keeps this field, which no version of ' +
    'the route lacks (a typo, or a field every version has now): remove it from keeps')
})

test('a field declared derivedFrom a field the version has is no finding: its clients set it through their converter', async (t) => {
  const Person = Type.Object({ givenName: Type.String(), familyName: Type.Optional(Type.String()) }, { $id: 'Person' })
  const build = async (derived: boolean, setsFamily = true): Promise<FastifyInstance> => {
    class SplitName extends VersionChange {
      description = 'A name is givenName and familyName.'
      instructionsToMigrateToPreviousVersion = [
        schema(Person).field('givenName').had({ name: 'name' }),
        derived ? schema(Person).field('familyName').derivedFrom('name') : schema(Person).field('familyName').didntExist
      ]

      @ConvertRequestToNextVersionFor(Person)
      split (request: RequestInfo) {
        const [given, ...family] = String(request.body.name).split(' ')
        delete request.body.name
        request.body.givenName = given
        if (family.length > 0 && setsFamily) request.body.familyName = family.join(' ')
      }

      @ConvertResponseToPreviousVersionFor(Person)
      join (response: ResponseInfo) {
        const { givenName, familyName } = response.body
        response.body.name = familyName === undefined ? givenName : `${String(givenName)} ${String(familyName)}`
        delete response.body.givenName
        delete response.body.familyName
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', SplitName), new Version('2000-01-01')), async (api) => {
      api.put('/people/:id', { schema: { body: Person, response: { 200: Person } } }, async (request) => request.body)
    })
    await app.ready()
    return app
  }
  t.same(summary(await verify(await build(false), { examples: 5 })).map((finding) => finding.pointer), ['/familyName'], 'declared didntExist, it is lacked')
  t.same(replaceFindings(await verify(await build(true), { examples: 5 })), [], 'declared derivedFrom, nothing to report')
  // Declared derived, but the converter never sets it: fieldsTheVersionLacks leaves it out, so a replace clears it.
  const unset = replaceFindings(await verify(await build(true, false), { examples: 20 }))
  t.same(unset.map(({ route, version, pointer, versionChanges }) => ({ route, version, pointer, versionChanges })),
    [{ route: 'PUT /people/:id', version: '2000-01-01', pointer: '/familyName', versionChanges: ['SplitName'] }])
  t.match(unset[0]?.text, /^PUT \/people\/:id \(2000-01-01\): request body\/familyName: is declared derivedFrom\(\.\.\.\), so fieldsTheVersionLacks\(request\) does not list it, but the request converters of this version set it in none of the examples: a full replace from this version clears it\. Make the converter set it from what the client sends, or declare it didntExist and keep its stored value \(or, when a \{ schema, field \} source holds it in more than one place, name the one the converter sets with through\); declared in SplitName \(2001-01-01\)$/)
})

test('a field moved into a nested object, declared derivedFrom the holder\'s field: no finding when the converter moves it, one when it does not', async (t) => {
  const Place = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Place' })
  const Customer = Type.Object({ name: Type.String(), address: Place }, { $id: 'Customer' })
  const build = async (moves: boolean): Promise<FastifyInstance> => {
    class CityInAddress extends VersionChange {
      description = 'A customer\'s city is part of its address.'
      instructionsToMigrateToPreviousVersion = [
        schema(Customer).formerField('city').existedAs({ type: Type.String(), optional: true }),
        schema(Place).field('city').derivedFrom({ schema: Customer, field: 'city' })
      ]

      @ConvertRequestToNextVersionFor(Customer)
      up (request: RequestInfo) {
        if ('city' in request.body && moves) request.body.address.city = request.body.city
        delete request.body.city
      }

      @ConvertResponseToPreviousVersionFor(Customer)
      down (response: ResponseInfo) {
        if ('city' in response.body.address) response.body.city = response.body.address.city
        delete response.body.address.city
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', CityInAddress), new Version('2000-01-01')), async (api) => {
      api.put('/customers/:id', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
    })
    await app.ready()
    return app
  }
  t.same(replaceFindings(await verify(await build(true), { examples: 20 })), [], 'the converter moves the city: nothing to report')
  t.same(replaceFindings(await verify(await build(false), { examples: 20 })).map(({ pointer }) => pointer), ['/address/city'],
    'the converter drops it: a replace from the old version clears it')
})

test('a field moved into one of two places holding its schema, declared derivedFrom { schema, field, through }: no finding; without through, the other place is one', async (t) => {
  const Postal = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) })
  const Order = Type.Object({ billing: Postal, shipping: Postal }, { $id: 'Order' })
  const build = async (through?: string): Promise<FastifyInstance> => {
    class BillingCity extends VersionChange {
      description = 'Addresses have a city; the order\'s billingCity moved into the billing address.'
      instructionsToMigrateToPreviousVersion = [
        schema(Order).formerField('billingCity').existedAs({ type: Type.String(), optional: true }),
        schema(Postal).field('city').derivedFrom({ schema: Order, field: 'billingCity', ...(through === undefined ? {} : { through }) })
      ]

      @ConvertRequestToNextVersionFor(Order)
      up (request: RequestInfo) {
        if ('billingCity' in request.body) request.body.billing.city = request.body.billingCity
        delete request.body.billingCity
      }

      @ConvertResponseToPreviousVersionFor(Order)
      down (response: ResponseInfo) {
        if ('city' in response.body.billing) response.body.billingCity = response.body.billing.city
        delete response.body.billing.city
        delete response.body.shipping.city
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', BillingCity), new Version('2000-01-01')), async (api) => {
      api.put('/orders/:id', { schema: { body: Order, response: { 200: Order } }, fullReplace: { keeps: ['/shipping/city'] } }, async (request) => request.body)
    })
    await app.ready()
    return app
  }
  t.same(replaceFindings(await verify(await build('billing'), { examples: 20 })), [], 'the billing city is moved, the shipping city kept')
  const ambiguous = replaceFindings(await verify(await build(), { examples: 20 }))
  t.match(ambiguous.map(({ text }) => text).sort(), [
    /^PUT \/orders\/:id \(2000-01-01\): request body\/shipping\/city: is declared derivedFrom\(\.\.\.\).*name the one the converter sets with through\)/,
    /^PUT \/orders\/:id \(every version\): request body\/shipping\/city: the route option fullReplace keeps this field, which no version of the route lacks/
  ], 'without through, the shipping city counts as set (no version lacks it), and none sets it')
})

test('a lacked field the route keeps that the converters set from what clients send is a finding: the kept stored value would throw away what they sent', async (t) => {
  const Person = Type.Object({ name: Type.String(), displayName: Type.String() }, { $id: 'Person' })
  const build = async (setDisplayName: (request: RequestInfo) => void): Promise<FastifyInstance> => {
    class AddDisplayName extends VersionChange {
      description = 'People have a displayName.'
      instructionsToMigrateToPreviousVersion = [schema(Person).field('displayName').didntExist]

      @ConvertRequestToNextVersionFor(Person)
      fill (request: RequestInfo) { setDisplayName(request) }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', AddDisplayName), new Version('2000-01-01')), async (api) => {
      api.put('/people/:id', { schema: { body: Person }, fullReplace: { keeps: ['/displayName'] } }, async (request) => request.body)
    })
    await app.ready()
    return app
  }
  // Set from the name: it is the clients' to set (derivedFrom), not the stored value's.
  const fromName = replaceFindings(await verify(await build((request) => { request.body.displayName = `Dr ${String(request.body.name)}` }), { examples: 20 }))
  t.same(fromName.map(({ route, version, pointer, versionChanges }) => ({ route, version, pointer, versionChanges })),
    [{ route: 'PUT /people/:id', version: '2000-01-01', pointer: '/displayName', versionChanges: ['AddDisplayName'] }])
  t.match(fromName[0]?.text, /^PUT \/people\/:id \(2000-01-01\): request body\/displayName: the route option fullReplace keeps this field, which this version lacks, but its request converters set it from what the clients send .*Declare the field derivedFrom\(\.\.\.\)/)
  // A placeholder that HEAD's schema needs, the same in every request, is the handler's to replace: no finding.
  t.same(replaceFindings(await verify(await build((request) => { request.body.displayName = '' }), { examples: 20 })), [])
})

test('a kept field a union member already has in the old version is sent by its clients, not set by the converters: no finding', async (t) => {
  const Card = Type.Object({ kind: Type.Literal('card'), nickname: Type.Optional(Type.String()) }, { $id: 'Card' })
  const Bank = Type.Object({ kind: Type.Literal('bank'), nickname: Type.Optional(Type.String()) }, { $id: 'Bank' })
  class CardNicknames extends VersionChange {
    description = 'Cards have a nickname, as bank accounts do.'
    instructionsToMigrateToPreviousVersion = [schema(Card).field('nickname').didntExist]
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', CardNicknames), new Version('2000-01-01')), async (api) => {
    api.put('/methods/:id', { schema: { body: Type.Union([Card, Bank]) }, fullReplace: { keeps: ['/nickname'] } }, async (request) => request.body)
  })
  await app.ready()
  t.same(replaceFindings(await verify(app, { examples: 20 })), [])
})

const PricePatch = Type.Object({ amount: Type.Optional(Type.Integer()), currency: Type.Optional(Type.String()) }, { $id: 'PricePatch' })

/** A ready app whose `METHOD /prices/:id` route takes a {@link PricePatch}, whose currency 2000-01-01 lacks; `up` is its request converter. */
async function priceApp (t: Teardown, method: 'PATCH' | 'POST' | 'PUT' | Array<'PUT' | 'PATCH'>, up: (request: RequestInfo) => void, options: Partial<RouteShorthandOptions> = {}): Promise<FastifyInstance> {
  class Currencies extends VersionChange {
    description = 'Prices have a currency (it was always usd).'
    instructionsToMigrateToPreviousVersion = [schema(PricePatch).field('currency').didntExist]

    @ConvertRequestToNextVersionFor(PricePatch)
    currencyUp (request: RequestInfo) { up(request) }
  }
  return await appWith(t, Currencies, (api) => { api.route({ method, url: '/prices/:id', schema: { body: PricePatch }, ...options, handler: async () => ({}) }) })
}

test('regression: a request converter giving a PATCH body a default for a field the version lacks overwrites the stored value on every PATCH from it', async (t) => {
  const findings = await verify(await priceApp(t, 'PATCH', (request) => { request.body.currency ??= 'usd' }), { examples: 20 })
  t.same(findings.map(({ route, version, kind, part, pointer, changeVersion, versionChanges }) => ({ route, version, kind, part, pointer, changeVersion, versionChanges })),
    [{ route: 'PATCH /prices/:id', version: '2000-01-01', kind: 'update overwrites', part: 'body', pointer: '/currency', changeVersion: '2001-01-01', versionChanges: ['Currencies'] }])
  const put = await verify(await priceApp(t, 'PUT', (request) => { request.body.currency ??= 'usd' }, { fullReplace: false }), { examples: 20 })
  t.same(put.map(({ kind }) => kind), [], 'a PUT declared fullReplace: false may create: only a PATCH says it is a partial update')
  t.equal(findings[0]?.text, 'PATCH /prices/:id (2000-01-01): request body/currency: the request converters of this version set this field, which its ' +
    'clients cannot send, in every partial update from it: each one overwrites the stored value. Give the default where the resource is created ' +
    '(the create route\'s converter or handler, or a default in HEAD\'s schema), or set it only where the stored value is absent (in the handler: ' +
    'the converter cannot see it); declare it derivedFrom(...) if the converters set it from what the clients send; lacked since Currencies (2001-01-01)')
})

test('a partial update whose converters set a lacked field only from what some clients send, a create giving the default, a PATCH declared a full replace: no update overwrites', async (t) => {
  const overwrites = async (app: FastifyInstance): Promise<VerifyFinding[]> => (await verify(app, { examples: 20 })).filter((finding) => finding.kind === 'update overwrites')
  t.same(await overwrites(await priceApp(t, 'POST', (request) => { request.body.currency ??= 'usd' })), [], 'a create gives the default')
  t.same(await overwrites(await priceApp(t, 'PATCH', (request) => { if (Object.hasOwn(request.body, 'amount')) request.body.currency = 'usd' })), [],
    'set only with the amount the client sent')
  t.same(await overwrites(await priceApp(t, 'PATCH', () => {})), [], 'no converter sets it')
  const replace = await verify(await priceApp(t, 'PATCH', (request) => { request.body.currency ??= 'usd' }, { fullReplace: { keeps: ['/currency'] } }), { examples: 20 })
  t.same(replace.map(({ kind }) => kind), [], 'a full replace keeping it: a constant the handler replaces')
})

test('regression: a route registered for [\'PUT\', \'PATCH\'] was a full replace for its PATCH too: no update overwrites', async (t) => {
  const kinds = async (app: FastifyInstance): Promise<string[]> => (await verify(app, { examples: 20 })).map(({ route, kind, pointer }) => `${route} ${kind} ${pointer}`)
  t.same(await kinds(await priceApp(t, ['PUT', 'PATCH'], (request) => { request.body.currency ??= 'usd' })),
    ['PATCH,PUT /prices/:id replace clears /currency', 'PATCH,PUT /prices/:id update overwrites /currency'], 'its PUT replaces, its PATCH updates')
  t.same(await kinds(await priceApp(t, ['PUT', 'PATCH'], (request) => { request.body.currency ??= 'usd' }, { fullReplace: { keeps: ['/currency'] } })),
    ['PATCH,PUT /prices/:id update overwrites /currency'], 'fullReplace on a route with other methods is its PUT\'s: the PATCH still updates')
})

test('a PATCH whose converter only renames a field gives no finding', async (t) => {
  const NamePatch = Type.Object({ fullName: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }, { $id: 'NamePatch' })
  class RenameName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(NamePatch).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(NamePatch)
    nameUp (request: RequestInfo) {
      const { name, ...rest } = request.body
      request.body = { ...rest, fullName: name }
    }
  }
  const app = await appWith(t, RenameName, (api) => { api.patch('/users/:id', { schema: { body: NamePatch } }, async () => ({})) })
  t.same(await verify(app, { examples: 20 }), [])
})

const CustomerPatch = Type.Object({
  email: Type.Optional(Type.String()),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('suspended')])),
  givenName: Type.Optional(Type.String()),
  familyName: Type.Optional(Type.String())
}, { $id: 'CustomerStatusPatch' })

/**
 * A ready app whose `PATCH /customers/:id` takes a {@link CustomerPatch}; in 2000-01-01 `status` was the boolean
 * `active`, `givenName` was `name` (a whole name) and `familyName` did not exist; `up` is the request converter.
 */
async function customerPatchApp (t: Teardown, up: (body: Record<string, any>) => void): Promise<FastifyInstance> {
  class StatusAndSplitName extends VersionChange {
    description = 'active became status; name became givenName and familyName.'
    instructionsToMigrateToPreviousVersion = [
      schema(CustomerPatch).field('status').had({ name: 'active', type: Type.Boolean() }),
      schema(CustomerPatch).field('givenName').had({ name: 'name' }), schema(CustomerPatch).field('familyName').didntExist
    ]

    @ConvertRequestToNextVersionFor(CustomerPatch)
    up (request: RequestInfo) { up(request.body) }
  }
  return await appWith(t, StatusAndSplitName, (api) => { api.patch('/customers/:id', { schema: { body: CustomerPatch } }, async () => ({})) })
}

const overwritten = async (app: FastifyInstance): Promise<string[]> =>
  (await verify(app, { examples: 20 })).filter((finding) => finding.kind === 'update overwrites').map(({ pointer, converters, changeVersion }) => `${pointer} by ${converters.join(',')} (${changeVersion})`)

test('regression: converters written for full bodies set fields an old client\'s PATCH leaves out (a boolean turned into an enum, a split name): update overwrites', async (t) => {
  const app = await customerPatchApp(t, (body) => {
    body.status = body.active === true ? 'active' : 'inactive'
    delete body.active
    const [givenName, ...rest] = (body.name ?? '').split(' ')
    Object.assign(body, { givenName, familyName: rest.join(' ') })
    delete body.name
  })
  const findings = await verify(app, { examples: 20 })
  t.same(findings.map(({ kind, pointer, converters, changeVersion, versionChanges }) => ({ kind, pointer, converters, changeVersion, versionChanges })), [
    { kind: 'update overwrites', pointer: '/familyName', converters: [], changeVersion: '2001-01-01', versionChanges: ['StatusAndSplitName'] },
    { kind: 'update overwrites', pointer: '/status', converters: ['StatusAndSplitName.up'], changeVersion: '2001-01-01', versionChanges: ['StatusAndSplitName'] },
    { kind: 'update overwrites', pointer: '/givenName', converters: ['StatusAndSplitName.up'], changeVersion: '2001-01-01', versionChanges: ['StatusAndSplitName'] }
  ], 'a PATCH of the e-mail alone deactivates the customer and erases the name')
  t.equal(findings[1]?.text, 'PATCH /customers/:id (2000-01-01): request body/status: the request converters of this version set this field in every partial ' +
    'update from it that leaves out \'active\': each one overwrites the stored value with one the client did not send. Set it only when the body holds ' +
    '\'active\' (if (Object.hasOwn(request.body, \'active\')) ...), as a partial update leaves out what it does not change; set by StatusAndSplitName.up ' +
    'of StatusAndSplitName (2001-01-01)')
  const served = await app.inject({ method: 'PATCH', url: '/customers/c1', headers: { 'x-api-version': '2000-01-01' }, payload: { email: 'ada@example.com' } })
  t.equal(served.statusCode, 200, 'served without an error: only verify can tell')
})

test('a PATCH whose converters set each field only from what the client sent gives no update overwrites', async (t) => {
  t.same(await overwritten(await customerPatchApp(t, (body) => {
    if (Object.hasOwn(body, 'active')) body.status = body.active === true ? 'active' : 'inactive'
    delete body.active
    if (typeof body.name === 'string') {
      const [givenName, ...rest] = body.name.split(' ')
      Object.assign(body, { givenName }, rest.length > 0 ? { familyName: rest.join(' ') } : {})
    }
    delete body.name
  })), [])
})

test('regression: a default in HEAD\'s PATCH schema of a field an old version lacks, filled by Fastify\'s validation after the converters: update overwrites', async (t) => {
  const withDefault = async (tier: TSchema, fastify = {}): Promise<VerifyFinding[]> => {
    const PlanPatch = Type.Object({ email: Type.Optional(Type.String()), tier: Type.Optional(tier) }, { $id: 'PlanPatch' })
    class Tiers extends VersionChange {
      description = 'Customers have a tier.'
      instructionsToMigrateToPreviousVersion = [schema(PlanPatch).field('tier').didntExist]
    }
    const seen: unknown[] = []
    const app = await appWith(t, Tiers, (api) => { api.patch('/plans/:id', { schema: { body: PlanPatch } }, async (request) => { seen.push(request.body); return {} }) }, { fastify })
    await app.inject({ method: 'PATCH', url: '/plans/p1', headers: { 'x-api-version': '2000-01-01' }, payload: { email: 'ada@example.com' } })
    t.same(seen, [{ email: 'ada@example.com', ...(JSON.stringify(tier).includes('default') && JSON.stringify(fastify) === '{}' ? { tier: 'free' } : {}) }], 'as served')
    return (await verify(app, { examples: 20 })).filter((finding) => finding.kind === 'update overwrites')
  }
  const findings = await withDefault(Type.String({ default: 'free' }))
  t.same(findings.map(({ pointer, changeVersion }) => `${pointer} ${changeVersion}`), ['/tier 2001-01-01'])
  t.match(findings[0]?.text, /HEAD's schema of this partial update gives this field, which the clients of this version cannot send, a default/)
  t.same(await withDefault(Type.String()), [], 'no default')
  t.same(await withDefault(Type.String({ default: 'free' }), { ajv: { customOptions: { useDefaults: false } } }), [], 'an Ajv that fills no default')
})
