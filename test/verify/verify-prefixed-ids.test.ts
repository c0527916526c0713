// `verify` on ids HEAD gives a prefix (issue 31, decision 0311): HEAD's id schema a loose pattern (`'^addr_'`,
// `'^cus_'`: the prefix and nothing after it), older versions a UUID. A converter stripping the prefix for an older
// version, or adding it to an older client's id on the way to HEAD, is right and gets no finding; one stripping one
// character short, or a request schema whose id no converter prefixes, is found.
import { test } from 'tap'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import type { Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Body = Record<string, any>

/** A user's addresses (`GET /users/:userId/addresses`), their ids given an `addr_` prefix; `bare` gives older versions their id. */
async function addresses (t: Teardown, bare: (id: string) => string, prefix = 'addr_', pattern = `^${prefix}`): Promise<string[]> {
  const Address = Type.Object({
    id: Type.String({ pattern, description: `${prefix} and a UUID.` }),
    value: Type.String()
  }, { $id: 'Address' })
  const Addresses = Type.Object({ data: Type.Array(Address) }, { $id: 'Addresses' })
  class PrefixedAddressIds extends VersionChange {
    description = "An address's id starts with addr_ (it was a bare UUID)."
    instructionsToMigrateToPreviousVersion = [schema(Address).field('id').had({ type: Type.String({ format: 'uuid' }) })]

    @ConvertResponseToPreviousVersionFor(Address)
    bareId (response: ResponseInfo) {
      (response.body as Body).id = bare((response.body as Body).id)
    }
  }
  const routes = (api: FastifyInstance): void => {
    api.get('/users/:userId/addresses', { schema: { response: { 200: Addresses } } }, async () => { throw new Error('not served in verify') })
  }
  return summary(await verify(await appWith(t, PrefixedAddressIds, routes), { examples: 20, seed: 1 }))
}

test("address ids prefixed 'addr_', older versions given id.slice('addr_'.length): no finding", async (t) => {
  t.same(await addresses(t, (id) => id.slice('addr_'.length)), [])
})

test("address ids prefixed 'addr_', older versions given id.replace(/^addr_/, ''): no finding", async (t) => {
  t.same(await addresses(t, (id) => id.replace(/^addr_/, '')), [])
})

test("address ids prefixed 'addr_', older versions given id.slice(4), one character short: found", async (t) => {
  const found = await addresses(t, (id) => id.slice(4))
  t.ok(found.some((line) => line.includes('response 200/data/*/id after PrefixedAddressIds')), found.join('\n'))
})

test("address ids prefixed 'addr_', older versions given the prefixed id or one stripped a character too many: found", async (t) => {
  for (const bare of [(id: string) => id, (id: string) => id.slice(6)]) {
    const found = await addresses(t, bare)
    t.ok(found.some((line) => line.includes('response 200/data/*/id after PrefixedAddressIds')), found.join('\n'))
  }
})

test("address ids under a closed pattern, '^addr_[0-9a-f-]+$' or the prefix and a whole UUID: only a converter stripping exactly the prefix gets no finding", async (t) => {
  for (const pattern of ['^addr_[0-9a-f-]+$', '^addr_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$']) {
    t.same(await addresses(t, (id) => id.slice('addr_'.length), 'addr_', pattern), [], pattern)
    t.same(await addresses(t, (id) => id.replace(/^addr_/, ''), 'addr_', pattern), [], pattern)
    for (const bare of [(id: string) => id, (id: string) => id.slice(4), (id: string) => id.slice(6)]) {
      const found = await addresses(t, bare, 'addr_', pattern)
      t.ok(found.some((line) => line.includes('response 200/data/*/id after PrefixedAddressIds')), `${pattern}: ${found.join('\n')}`)
    }
  }
})

test('any prefix of letters (and a separator): only a converter stripping exactly the prefix gets no finding', async (t) => {
  await fc.assert(fc.asyncProperty(fc.stringMatching(/^[a-z]{2,6}[_-]?$/), fc.integer({ min: -2, max: 2 }), async (prefix, off) => {
    const found = await addresses(t, (id) => id.slice(prefix.length + off), prefix)
    return off === 0 ? found.length === 0 : found.some((line) => line.includes('response 200/data/*/id after PrefixedAddressIds'))
  }), { numRuns: 12, seed: 31 })
})

/**
 * Customers and their invoices, customer ids given a `cus_` prefix: responses strip it, `InvoiceCreate`'s request
 * converter adds it, and `InvoiceSearch`'s does when `searchConverted`.
 */
async function customers (t: Teardown, searchConverted: boolean): Promise<string[]> {
  const Customer = Type.Object({ id: Type.String({ pattern: '^cus_', description: 'cus_ and a UUID.' }), name: Type.String() }, { $id: 'Customer' })
  const CustomerCreate = Type.Object({ name: Type.String() }, { $id: 'CustomerCreate' })
  const Invoice = Type.Object({ id: Type.String({ format: 'uuid' }), customerId: Type.String({ pattern: '^cus_' }), total: Type.Integer() }, { $id: 'Invoice' })
  const InvoiceCreate = Type.Object({ customerId: Type.String({ pattern: '^cus_' }), total: Type.Integer() }, { $id: 'InvoiceCreate' })
  const InvoiceSearch = Type.Object({ customerId: Type.Optional(Type.String({ pattern: '^cus_' })) }, { $id: 'InvoiceSearch' })
  const Invoices = Type.Object({ data: Type.Array(Invoice) }, { $id: 'Invoices' })
  const prefixed = (id: string): string => `cus_${id}`
  class CustomerIdsPrefixed extends VersionChange {
    description = 'Customer ids start with cus_ (they were a bare UUID).'
    instructionsToMigrateToPreviousVersion = [
      schema(Customer).field('id').had({ type: Type.String({ format: 'uuid' }) }),
      schema(Invoice).field('customerId').had({ type: Type.String({ format: 'uuid' }) }),
      schema(InvoiceCreate).field('customerId').had({ type: Type.String({ format: 'uuid' }) }),
      schema(InvoiceSearch).field('customerId').had({ type: Type.String({ format: 'uuid' }) })
    ]

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    prefixedCustomerId (request: RequestInfo) {
      (request.body as Body).customerId = prefixed((request.body as Body).customerId)
    }

    @ConvertRequestToNextVersionFor(InvoiceSearch)
    prefixedSearch (request: RequestInfo) {
      const body = request.body as Body
      if (searchConverted && typeof body.customerId === 'string') body.customerId = prefixed(body.customerId)
    }

    @ConvertResponseToPreviousVersionFor(Customer)
    bareId (response: ResponseInfo) {
      (response.body as Body).id = (response.body as Body).id.replace(/^cus_/, '')
    }

    @ConvertResponseToPreviousVersionFor(Invoice)
    bareCustomerId (response: ResponseInfo) {
      (response.body as Body).customerId = (response.body as Body).customerId.replace(/^cus_/, '')
    }
  }
  const routes = (api: FastifyInstance): void => {
    const unserved = async (): Promise<never> => { throw new Error('not served in verify') }
    api.post('/customers', { schema: { body: CustomerCreate, response: { 201: Customer } } }, unserved)
    api.get('/customers/:customerId', { schema: { response: { 200: Customer } } }, unserved)
    api.post('/invoices', { schema: { body: InvoiceCreate, response: { 201: Invoice } } }, unserved)
    api.post('/invoices/search', { schema: { body: InvoiceSearch, response: { 200: Invoices } } }, unserved)
  }
  return summary(await verify(await appWith(t, CustomerIdsPrefixed, routes), { examples: 20, seed: 1 }))
}

test("customer ids prefixed 'cus_', stripped on responses and added to every request's: no finding", async (t) => {
  t.same(await customers(t, true), [])
})

test("customer ids prefixed 'cus_', the search's left bare: found on the search", async (t) => {
  const found = await customers(t, false)
  t.ok(found.some((line) => line.startsWith('POST /invoices/search 2000-01-01 request') && line.includes('customerId')), found.join('\n'))
  t.notOk(found.some((line) => line.startsWith('POST /customers ') || line.startsWith('GET /customers/')), found.join('\n'))
})
