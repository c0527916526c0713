// `verify` on an old client's partial update (a PATCH) of an object it sends whole (decision 0301): a field the
// version lacks inside the object, or inside each item of a list, that the request converters or HEAD's defaults set
// in every update sending the object overwrites the stored value, as a top-level one does (decisions 0175, 0295).
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, fieldsTheVersionLacks, schema, VersionChange, type RequestInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith } from '../helpers/verify-apps'
import type { Teardown } from '../helpers/apps'

/** What an app's request converters do to an address and a contact of 2000-01-01, and HEAD's schemas of them. */
interface Setup {
  readonly address?: (address: Record<string, unknown>) => void
  readonly contact?: (contact: Record<string, unknown>) => void
  /** HEAD's country (default: a required string). */
  readonly country?: TSchema
  /** HEAD's tax id (default: an optional string). */
  readonly taxId?: TSchema
}

/**
 * A ready app whose `METHOD /customers/:id` route (answering `fieldsTheVersionLacks(request)`) takes a customer whose
 * address gained a country, billing a tax id and contacts a phone in 2001-01-01.
 */
async function customerApp (t: Teardown, method: 'PATCH' | 'PUT', setup: Setup = {}): Promise<FastifyInstance> {
  const Address = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()), country: setup.country ?? Type.String() }, { $id: 'NestedAddress' })
  const Billing = Type.Object({ plan: Type.String(), taxId: setup.taxId ?? Type.Optional(Type.String()) }, { $id: 'NestedBilling' })
  const Contact = Type.Object({ id: Type.String(), phone: Type.Optional(Type.String()) }, { $id: 'NestedContact' })
  const Customer = Type.Object({ name: Type.String(), address: Address, billing: Billing, contacts: Type.Array(Contact) })
  const body = Type.Partial(Customer, { $id: 'NestedCustomerUpdate' })
  class CountryTaxIdPhone extends VersionChange {
    description = 'Addresses have a country, billing a tax id, contacts a phone.'
    instructionsToMigrateToPreviousVersion = [
      schema(Address).field('country').didntExist, schema(Billing).field('taxId').didntExist, schema(Contact).field('phone').didntExist
    ]

    @ConvertRequestToNextVersionFor(Address)
    addressUp (request: RequestInfo) { setup.address?.(request.body) }

    @ConvertRequestToNextVersionFor(Contact)
    contactUp (request: RequestInfo) { setup.contact?.(request.body) }
  }
  return await appWith(t, CountryTaxIdPhone, (api) => {
    api.route({ method, url: '/customers/:id', schema: { body }, fullReplace: method === 'PUT' ? { keeps: ['/address/country', '/billing/taxId', '/contacts/*/phone'] } : undefined, handler: async (request) => fieldsTheVersionLacks(request) })
  })
}

const overwrites = async (app: FastifyInstance): Promise<string[]> =>
  (await verify(app, { examples: 20 })).map(({ route, version, kind, pointer, changeVersion, versionChanges }) => `${route} ${version} ${kind} ${pointer} (${versionChanges.join(',')} ${changeVersion})`)

test('an old client\'s PATCH lists the nested fields its version lacks, inside list items with *', async (t) => {
  const app = await customerApp(t, 'PATCH', { address: (address) => { address.country ??= 'US' } })
  const answer = await app.inject({ method: 'PATCH', url: '/customers/c1', headers: { 'x-api-version': '2000-01-01' }, payload: { address: { line1: '2 Side St' } } })
  t.same(answer.json(), ['/address/country', '/billing/taxId', '/contacts/*/phone'])
})

test('regression: a request converter giving a nested field an old version lacks a default overwrites it on every PATCH sending its object', async (t) => {
  t.same(await overwrites(await customerApp(t, 'PATCH', { address: (address) => { address.country ??= 'US' } })),
    ['PATCH /customers/:id 2000-01-01 update overwrites /address/country (CountryTaxIdPhone 2001-01-01)'], 'a country HEAD requires')
  t.same(await overwrites(await customerApp(t, 'PATCH', { country: Type.Optional(Type.String()), contact: (contact) => { contact.phone ??= '' } })),
    ['PATCH /customers/:id 2000-01-01 update overwrites /contacts/*/phone (CountryTaxIdPhone 2001-01-01)'], 'inside every item of a list')
  const [finding] = await verify(await customerApp(t, 'PATCH', { address: (address) => { address.country ??= 'US' } }), { examples: 20 })
  t.match(finding?.text, /^PATCH \/customers\/:id \(2000-01-01\): request body\/address\/country: the clients of this version cannot send this field, but in every partial update from it that sends the object holding it, .*fieldsTheVersionLacks\(request\) lists it.*; lacked since CountryTaxIdPhone \(2001-01-01\)$/)
})

test('regression: a default HEAD\'s schema gives a nested field an old version lacks is filled on every PATCH sending its object', async (t) => {
  t.same(await overwrites(await customerApp(t, 'PATCH', { taxId: Type.Optional(Type.String({ default: 'none' })), address: (address) => { address.country ??= 'US' } })),
    ['PATCH /customers/:id 2000-01-01 update overwrites /address/country (CountryTaxIdPhone 2001-01-01)',
      'PATCH /customers/:id 2000-01-01 update overwrites /billing/taxId (CountryTaxIdPhone 2001-01-01)'])
})

test('no finding when nothing sets the nested field, when it is set only with a field the client sent, or when a full replace keeps it', async (t) => {
  t.same(await overwrites(await customerApp(t, 'PATCH', { country: Type.Optional(Type.String()) })), [], 'HEAD takes an address without a country, nothing sets it')
  t.same(await overwrites(await customerApp(t, 'PATCH', { country: Type.Optional(Type.String()), address: (address) => { if (Object.hasOwn(address, 'city')) address.country = 'US' } })), [],
    'set only with the city the client sent (old cities were all in the US)')
  t.same(await overwrites(await customerApp(t, 'PUT', { address: (address) => { address.country ??= 'US' }, contact: (contact) => { contact.phone ??= '' } })), [],
    'a full replace whose handler keeps them: the converters give placeholders')
})
