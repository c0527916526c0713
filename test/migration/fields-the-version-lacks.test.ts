/**
 * `fieldsTheVersionLacks(request)` (decision 0073): the HEAD request body fields a request's version cannot express,
 * as JSON pointers computed once per route and version, so that a full replace from an old client keeps their stored
 * values instead of erasing them.
 */
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  ConvertRequestToNextVersionFor, extendSchema, fieldsTheVersionLacks, HeadVersion, RouterGenerationError, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type VersionChangeClass, versioned
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { rejection, throwsStructure } from '../helpers/errors'
import { anotherCopy } from '../helpers/another-copy'

const Address = Type.Object({ line1: Type.String(), line2: Type.Optional(Type.String()) }, { $id: 'Address' })
const Tag = Type.Object({ label: Type.String(), color: Type.Optional(Type.String()) }, { $id: 'Tag' })
const Pet = Type.Object({ kind: Type.String(), age: Type.Optional(Type.Integer()) }, { $id: 'Pet' })
const User = Type.Object({
  name: Type.String(),
  fullName: Type.Optional(Type.String()),
  nickname: Type.Optional(Type.String()),
  score: Type.Optional(Type.Integer()),
  internalNote: Type.Optional(Type.String()),
  address: Address,
  tags: Type.Optional(Type.Array(Tag)),
  pets: Type.Optional(Type.Record(Type.String(), Pet))
}, { $id: 'User' })

const NEW = '2001-01-01'
const OLD = '2000-01-01'

/** The version changes of {@link User} (fresh classes: a change belongs to one bundle). */
function userChanges (): { hide: VersionChangeClass, add: VersionChangeClass } {
  class HideInternalNote extends VersionChange {
    description = 'internalNote is HEAD\'s own.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('internalNote').didntExist]
  }
  class AddNicknameAndMore extends VersionChange {
    description = 'Users have a nickname, a second address line, tag colors and pet ages; fullName was full_name; score was a string.'
    instructionsToMigrateToPreviousVersion = [
      schema(User).field('nickname').didntExist,
      schema(Address).field('line2').didntExist,
      schema(Tag).field('color').didntExist,
      schema(Pet).field('age').didntExist,
      schema(User).field('fullName').had({ name: 'full_name' }),
      schema(User).field('score').had({ type: Type.String() })
    ]

    @ConvertRequestToNextVersionFor(User)
    up (request: RequestInfo) {
      if ('full_name' in request.body) request.body.fullName = request.body.full_name
      delete request.body.full_name
      if (typeof request.body.score === 'string') request.body.score = Number(request.body.score)
    }
  }
  return { hide: HideInternalNote, add: AddNicknameAndMore }
}

/** An app whose routes answer `fieldsTheVersionLacks(request)`. */
async function lacksApp (t: Teardown, withHeadChange = true): Promise<FastifyInstance> {
  const { hide, add } = userChanges()
  const versions = new VersionBundle(withHeadChange ? new HeadVersion(hide) : new HeadVersion(), new Version(NEW, add), new Version(OLD))
  const app = await versionedApp(t, versions, async (api) => {
    api.put('/users/:id', { schema: { body: User } }, async (request) => ({ lacks: fieldsTheVersionLacks(request) }))
    api.get('/users/:id', async (request) => ({ lacks: fieldsTheVersionLacks(request) }))
  }, { health: true })
  app.get('/plain', async (request) => ({ lacks: fieldsTheVersionLacks(request) }))
  return app
}

const body = { name: 'Ada', address: { line1: '1 Main St' } }

async function lacks (app: FastifyInstance, version: string, method: 'PUT' | 'GET' = 'PUT'): Promise<unknown> {
  const response = await app.inject({ method, url: '/users/1', headers: { 'x-api-version': version }, ...(method === 'PUT' ? { payload: body } : {}) })
  return response.json().lacks
}

test('the HEAD body fields a version lacks, per version: added since, nested, list items, map values, hidden by HeadVersion', async (t) => {
  const app = await lacksApp(t)
  t.same(await lacks(app, NEW), ['/internalNote'], 'the latest version lacks the field a HeadVersion change hides')
  t.same(await lacks(app, OLD), ['/nickname', '/internalNote', '/address/line2', '/tags/*/color', '/pets/*/age'],
    'an older version also lacks the fields added since, at any depth; a renamed or retyped field is not listed')
})

test('a version that expresses every HEAD field, a route without a body and an unversioned route answer []', async (t) => {
  const app = await lacksApp(t, false)
  t.same(await lacks(app, NEW), [], 'the latest version, served as HEAD')
  t.same(await lacks(app, OLD), ['/nickname', '/address/line2', '/tags/*/color', '/pets/*/age'])
  t.same(await lacks(app, OLD, 'GET'), [], 'no body schema')
  t.same((await app.inject('/plain')).json(), { lacks: [] }, 'an unversioned route')
})

test('regression: fieldsTheVersionLacks and currentDependencySolver of another copy of the package answered [] and \'fastify\' (a full replace erased what old clients cannot send); they throw saying so', async (t) => {
  // A shared package with its own copy exports handler helpers: they are called with requests the application's copy serves.
  const other = anotherCopy()
  const app = await lacksApp(t)
  app.setErrorHandler(async (error: { code?: string, message: string }) => ({ code: error.code, message: error.message }))
  await app.register(versioned(async (api) => {
    api.put('/other/:id', { schema: { body: User } }, async (request) => ({ lacks: other.fieldsTheVersionLacks(request) }))
    api.put('/solver/:id', { schema: { body: User } }, async (request) => ({ solver: other.currentDependencySolver(request) }))
  }))
  for (const [url, call] of [['/other/1', 'fieldsTheVersionLacks'], ['/solver/1', 'currentDependencySolver']]) {
    const answer = (await app.inject({ method: 'PUT', url, headers: { 'x-api-version': OLD }, payload: body })).json()
    t.equal(answer.code, 'FST_VERSIONER_INVALID_OPTION', call)
    t.match(answer.message, new RegExp(`^${call}\\(request\\) was given a request served by another copy of fastify-versioner: .*peerDependencies`), call)
  }
  t.same(await lacks(app, OLD), ['/nickname', '/internalNote', '/address/line2', '/tags/*/color', '/pets/*/age'], 'this copy\'s own answers as before')
})

test('the answer is one frozen array per route and version, the same for every request', async (t) => {
  const seen: Array<readonly string[]> = []
  const { add } = userChanges()
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, add), new Version(OLD)), async (api) => {
    api.put('/users/:id', { schema: { body: User } }, async (request) => {
      seen.push(fieldsTheVersionLacks(request))
      return {}
    })
  })
  for (const version of [OLD, OLD, NEW, NEW]) await app.inject({ method: 'PUT', url: '/users/1', headers: { 'x-api-version': version }, payload: body })
  t.equal(seen[0], seen[1], 'the same object for two requests of a version')
  t.equal(seen[2], seen[3])
  t.ok(seen.every((fields) => Object.isFrozen(fields)), 'frozen')
  t.same(seen[2], [])
})

test('fields of a schema made by extendSchema, of union members, behind a $ref, and of a body declared by media type', async (t) => {
  const Base = Type.Object({ id: Type.String(), createdBy: Type.Optional(Type.String()) }, { $id: 'Base' })
  const Card = extendSchema(Base, { last4: Type.String(), expiry: Type.Optional(Type.String()) }, { $id: 'Card' })
  const Bank = Type.Object({ iban: Type.String() })
  // No instruction names Payer: its inherited fields are its parent's in each version.
  const Payer = extendSchema(Base, { email: Type.String() })
  const Payment = Type.Object({ method: Type.Union([Card, Bank]), payer: Payer, billing: Type.Optional(Type.Ref('Address')) })
  class AddedSince extends VersionChange {
    description = 'createdBy, expiry and line2 are new.'
    instructionsToMigrateToPreviousVersion = [
      schema(Base).field('createdBy').didntExist,
      schema(Card).field('expiry').didntExist,
      schema(Address).field('line2').didntExist
    ]
  }
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, AddedSince), new Version(OLD)), async (api) => {
    api.addSchema(Address)
    api.put('/payments/:id', { schema: { body: Payment } }, async (request) => ({ lacks: fieldsTheVersionLacks(request) }))
    api.put('/by-type/:id', {
      schema: { body: { content: { 'application/json': { schema: Payment }, 'text/plain': { schema: Type.String() } } } }
    }, async (request) => ({ lacks: fieldsTheVersionLacks(request) }))
  })
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, text, done) => { done(null, text) })
  const payload = { method: { iban: 'DE00' }, payer: { id: 'p1', email: 'a@b.c' } }
  const put = async (url: string, version: string, contentType = 'application/json', sent: unknown = payload) => (await app.inject({
    method: 'PUT', url, headers: { 'x-api-version': version, 'content-type': contentType }, payload: typeof sent === 'string' ? sent : JSON.stringify(sent)
  })).json().lacks
  const expected = ['/payer/createdBy', '/billing/line2']
  t.same(await put('/payments/1', OLD), expected, 'inherited and own fields of an extended schema, a $ref; a bank lacks no field of a card')
  const card = { ...payload, method: { id: 'm1', last4: '4242' } }
  t.same(await put('/payments/1', OLD, undefined, card), ['/method/createdBy', '/method/expiry', ...expected], 'the union member the body holds')
  t.same(await put('/payments/1', NEW), [])
  t.same(await put('/by-type/1', OLD), expected, 'the body of the request\'s media type')
  t.same(await put('/by-type/1', OLD, 'text/plain', 'hello'), [], 'another media type, whose schema lacks nothing')
})

test('an application hook asking before the versioner\'s request hook gets the answer of the version known', async (t) => {
  const { add } = userChanges()
  const early: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, add), new Version(OLD)), async (api) => {
    api.addHook('onRequest', async (request) => { early.push(fieldsTheVersionLacks(request)) })
    api.put('/users/:id', { schema: { body: User } }, async () => ({}))
  })
  await app.inject({ method: 'PUT', url: '/users/1', headers: { 'x-api-version': OLD }, payload: body })
  t.same(early, [['/nickname', '/address/line2', '/tags/*/color', '/pets/*/age']])
})

test('the recipe: an old client\'s PUT keeps the stored values of the fields its version cannot send', async (t) => {
  const stored = new Map<string, Record<string, unknown>>()
  const { add } = userChanges()
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, add), new Version(OLD)), async (api) => {
    api.put('/users/:id', { schema: { body: User, params: Type.Object({ id: Type.String() }) } }, async (request) => {
      const user: Record<string, unknown> = structuredClone(request.body)
      const before = stored.get(request.params.id)
      if (before !== undefined) for (const pointer of fieldsTheVersionLacks(request)) keep(user, before, pointer.split('/').slice(1))
      stored.set(request.params.id, user)
      return user
    })
  })
  const put = async (version: string, payload: object) => (await app.inject({ method: 'PUT', url: '/users/1', headers: { 'x-api-version': version }, payload })).json()
  await put(NEW, { name: 'Ada', nickname: 'ada', address: { line1: '1 Main St', line2: 'Flat 2' }, tags: [{ label: 'vip', color: 'gold' }] })
  const replaced = await put(OLD, { name: 'Ada L.', address: { line1: '2 Side St' }, tags: [{ label: 'vip' }, { label: 'new' }] })
  t.same(replaced, { name: 'Ada L.', nickname: 'ada', address: { line1: '2 Side St', line2: 'Flat 2' }, tags: [{ label: 'vip', color: 'gold' }, { label: 'new' }] },
    'what the old client sent replaces the user; what it cannot see is kept')
  const current = await put(NEW, { name: 'Ada', address: { line1: '2 Side St' } })
  t.same(current, { name: 'Ada', address: { line1: '2 Side St' } }, 'a client of a version with every field replaces them all')
})

/** Copies the stored value at `path` (JSON pointer segments, `*`: every item or value) into `target`. */
function keep (target: unknown, stored: unknown, path: readonly string[]): void {
  if (typeof target !== 'object' || target === null || typeof stored !== 'object' || stored === null) return
  const [segment, ...rest] = path
  const from = stored as Record<string, unknown>
  const into = target as Record<string, unknown>
  const keys = segment === '*' ? Object.keys(into).filter((key) => Object.hasOwn(from, key)) : [segment.replace(/~1/g, '/').replace(/~0/g, '~')]
  for (const key of keys) {
    if (rest.length > 0) keep(into[key], from[key], rest)
    else if (Object.hasOwn(from, key)) Object.defineProperty(into, key, { value: from[key], enumerable: true, writable: true, configurable: true })
  }
}

test('the route option fullReplace: anything but a boolean or { keeps: [JSON pointers] } fails ready() naming the route', async (t) => {
  for (const fullReplace of ['yes', { keeps: ['nickname'] }, { keeps: '/nickname' }, { keeps: ['/a'], also: true }]) {
    const app = await versionedApp(t, new VersionBundle(new Version(NEW), new Version(OLD)), async (api) => {
      api.put('/users/:id', { schema: { body: User }, fullReplace: fullReplace as never }, async () => ({}))
    })
    const error = await rejection(() => app.ready())
    t.ok(error instanceof RouterGenerationError, `${JSON.stringify(fullReplace)} is refused`)
    t.match(error?.message, /^PUT \/users\/:id: the route option fullReplace is .*; it takes true, false, or \{ keeps: \[\.\.\.\] \}/)
  }
})

/** A person whose one name became two (fresh classes per call): `familyName` declared derived from the old `name`. */
function splitNameChanges (Person: typeof PersonSchema, derived: boolean): { split: VersionChangeClass, named: VersionChangeClass } {
  class SplitName extends VersionChange {
    description = 'A name is givenName and familyName (it was one name).'
    instructionsToMigrateToPreviousVersion = [
      // Before the rename that gives the source its old name: the order of a change's instructions does not matter.
      derived ? schema(Person).field('familyName').derivedFrom('name') : schema(Person).field('familyName').didntExist,
      schema(Person).field('givenName').had({ name: 'name' })
    ]

    @ConvertRequestToNextVersionFor(Person)
    split (request: RequestInfo) {
      const [given, ...family] = String(request.body.name).split(' ')
      delete request.body.name
      request.body.givenName = given
      if (family.length > 0) request.body.familyName = family.join(' ')
    }
  }
  class AddName extends VersionChange {
    description = 'People have a name.'
    instructionsToMigrateToPreviousVersion = [schema(Person).formerField('name').didntExist]
  }
  return { split: SplitName, named: AddName }
}

const PersonSchema = Type.Object({ givenName: Type.String(), familyName: Type.Optional(Type.String()), email: Type.String() }, { $id: 'Person' })

test('a field declared derivedFrom fields the version has is not lacked: its converter sets it from what the client sent', async (t) => {
  const NAMED = '2000-06-01'
  const stored = new Map<string, Record<string, unknown>>()
  const build = async (derived: boolean): Promise<FastifyInstance> => {
    const { split, named } = splitNameChanges(PersonSchema, derived)
    return await versionedApp(t, new VersionBundle(new Version(NEW, split), new Version(NAMED, named), new Version(OLD)), async (api) => {
      api.put('/people/:id', { schema: { body: PersonSchema, params: Type.Object({ id: Type.String() }) } }, async (request) => {
        const person: Record<string, unknown> = structuredClone(request.body)
        const before = stored.get(request.params.id)
        if (before !== undefined) for (const pointer of fieldsTheVersionLacks(request)) keep(person, before, pointer.split('/').slice(1))
        stored.set(request.params.id, person)
        return { person, lacks: fieldsTheVersionLacks(request) }
      })
    })
  }
  const put = async (app: FastifyInstance, version: string, payload: object): Promise<{ person: unknown, lacks: unknown }> =>
    (await app.inject({ method: 'PUT', url: '/people/1', headers: { 'x-api-version': version }, payload })).json()

  const app = await build(true)
  await put(app, NEW, { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' })
  const renamed = await put(app, NAMED, { name: 'Ada Byron', email: 'ada@example.com' })
  t.same(renamed.lacks, [], 'the version sets familyName through name')
  t.same(renamed.person, { givenName: 'Ada', familyName: 'Byron', email: 'ada@example.com' }, 'the old client renames the person')
  const oneWord = await put(app, NAMED, { name: 'Ada', email: 'ada@example.com' })
  t.same(oneWord.person, { givenName: 'Ada', email: 'ada@example.com' }, 'a one-word name clears the family name, as its client meant')
  t.same((await put(app, OLD, { email: 'ada@example.com' })).lacks, ['/givenName', '/familyName'],
    'a version without the source lacks the derived field too')

  // Declared with didntExist, the same converter's familyName would be kept from what was stored: the old client
  // could never rename.
  stored.clear()
  const undeclared = await build(false)
  await put(undeclared, NEW, { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' })
  const kept = await put(undeclared, NAMED, { name: 'Ada Byron', email: 'ada@example.com' })
  t.same(kept.lacks, ['/familyName'])
  t.same(kept.person, { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' })
})

test('derivedFrom: no field, or a field the previous version lacks, is refused naming the instruction and the fields there', async (t) => {
  throwsStructure(t, () => schema(PersonSchema).field('familyName').derivedFrom(), /derivedFrom\(\): derivedFrom\(\) needs the previous version's fields/)
  class SplitName extends VersionChange {
    description = 'A name is givenName and familyName.'
    instructionsToMigrateToPreviousVersion = [
      schema(PersonSchema).field('givenName').had({ name: 'name' }),
      schema(PersonSchema).field('familyName').derivedFrom('nmae')
    ]
  }
  const error = await rejection(async () => await versionedApp(t, new VersionBundle(new Version(NEW, SplitName), new Version(OLD)), async (api) => {
    api.put('/people/:id', { schema: { body: PersonSchema } }, async () => ({}))
  }))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.equal(error?.message, "schema(Person).field('familyName').derivedFrom('nmae') in version change 'SplitName' (version '2001-01-01'): " +
    "'nmae' is not a field of 'Person' in the previous version (its fields are name, email); name the fields its request converter reads.")
})

const Place = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) }, { $id: 'Place' })
const Customer = Type.Object({ name: Type.String(), address: Place }, { $id: 'Customer' })

/** A city that moved from the customer into its address (fresh classes per call), declared derived or not. */
function movedCityChange (derived: boolean): VersionChangeClass {
  class CityInAddress extends VersionChange {
    description = 'A customer\'s city is part of its address (it was a field of the customer).'
    instructionsToMigrateToPreviousVersion = [
      schema(Customer).formerField('city').existedAs({ type: Type.String(), optional: true }),
      derived ? schema(Place).field('city').derivedFrom({ schema: Customer, field: 'city' }) : schema(Place).field('city').didntExist
    ]

    @ConvertRequestToNextVersionFor(Customer)
    up (request: RequestInfo) {
      if ('city' in request.body) request.body.address.city = request.body.city
      delete request.body.city
    }
  }
  return CityInAddress
}

test('regression: a field moved into a nested object is declared derivedFrom the holder\'s field, and is not lacked (an old client\'s new city was thrown away)', async (t) => {
  const stored = new Map<string, Record<string, unknown>>()
  const build = async (derived: boolean): Promise<FastifyInstance> => {
    stored.clear()
    return await versionedApp(t, new VersionBundle(new Version(NEW, movedCityChange(derived)), new Version(OLD)), async (api) => {
      api.put('/customers/:id', { schema: { body: Customer, params: Type.Object({ id: Type.String() }) } }, async (request) => {
        const customer: Record<string, unknown> = structuredClone(request.body)
        const before = stored.get(request.params.id)
        if (before !== undefined) for (const pointer of fieldsTheVersionLacks(request)) keep(customer, before, pointer.split('/').slice(1))
        stored.set(request.params.id, customer)
        return { customer, lacks: fieldsTheVersionLacks(request) }
      })
    })
  }
  const put = async (app: FastifyInstance, version: string, payload: object): Promise<{ customer: unknown, lacks: unknown }> =>
    (await app.inject({ method: 'PUT', url: '/customers/1', headers: { 'x-api-version': version }, payload })).json()

  const app = await build(true)
  await put(app, NEW, { name: 'Ada', address: { line1: '1 Main St', city: 'London' } })
  const moved = await put(app, OLD, { name: 'Ada', city: 'Paris', address: { line1: '2 Rue' } })
  t.same(moved.lacks, [], 'the old version sets the address\'s city through its own city')
  t.same(moved.customer, { name: 'Ada', address: { line1: '2 Rue', city: 'Paris' } }, 'the old client moves the customer')
  t.same((await put(app, OLD, { name: 'Ada', address: { line1: '2 Rue' } })).customer, { name: 'Ada', address: { line1: '2 Rue' } },
    'a replace without a city clears it, as its client meant')

  const undeclared = await build(false)
  await put(undeclared, NEW, { name: 'Ada', address: { line1: '1 Main St', city: 'London' } })
  const kept = await put(undeclared, OLD, { name: 'Ada', city: 'Paris', address: { line1: '2 Rue' } })
  t.same(kept.lacks, ['/address/city'], 'declared didntExist, the city is lacked')
  t.same(kept.customer, { name: 'Ada', address: { line1: '2 Rue', city: 'London' } }, 'and the recipe keeps the stored one')
})

test('derivedFrom { schema, field }: a source that is not a schema, or a field that schema lacks, is refused naming the instruction', async (t) => {
  throwsStructure(t, () => schema(Place).field('city').derivedFrom({ schema: 'Customer' as never, field: 'city' }),
    /derivedFrom\('?.*'?\): a source is a field name, or \{ schema, field \} for a field of a schema holding this one/)
  class CityInAddress extends VersionChange {
    description = 'A customer\'s city is part of its address.'
    instructionsToMigrateToPreviousVersion = [schema(Place).field('city').derivedFrom({ schema: Customer, field: 'town' })]
  }
  const error = await rejection(async () => await versionedApp(t, new VersionBundle(new Version(NEW, CityInAddress), new Version(OLD)), async (api) => {
    api.put('/customers/:id', { schema: { body: Customer } }, async () => ({}))
  }))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.equal(error?.message, "schema(Place).field('city').derivedFrom({ schema: Customer, field: 'town' }) in version change 'CityInAddress' (version '2001-01-01'): " +
    "'town' is not a field of 'Customer' in the previous version (its fields are name, address); name the fields its request converter reads.")
})

/** The error `app.ready()` fails with for one version change `instructions` (a PUT of `body`), if any. */
async function startUpError (t: Teardown, body: TSchema, instructions: VersionChange['instructionsToMigrateToPreviousVersion']): Promise<Error & { code?: string } | undefined> {
  class Moved extends VersionChange {
    description = 'A field moved.'
    instructionsToMigrateToPreviousVersion = instructions
  }
  return await rejection(async () => {
    const app = await versionedApp(t, new VersionBundle(new Version(NEW, Moved), new Version(OLD)), async (api) => {
      api.put('/things/:id', { schema: { body } }, async () => ({}))
    })
    await app.ready()
  })
}

test('regression: derivedFrom { schema } naming a schema that does not hold the derived one in the previous version fails start-up (it was accepted, and never counted)', async (t) => {
  // Flattened: the address's city is now the customer's. Address does not hold Customer: name Customer's own 'address'.
  const Inner = Type.Object({ line1: Type.String() }, { $id: 'Inner' })
  const Flat = Type.Object({ name: Type.String(), city: Type.Optional(Type.String()), address: Inner }, { $id: 'Flat' })
  const flattened = await startUpError(t, Flat, [
    schema(Inner).formerField('city').existedAs({ type: Type.String(), optional: true }),
    schema(Flat).field('city').derivedFrom({ schema: Inner, field: 'city' })
  ])
  t.equal(flattened?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.equal(flattened?.message, "schema(Flat).field('city').derivedFrom({ schema: Inner, field: 'city' }) in version change 'Moved' (version '2001-01-01'): " +
    "'Inner' does not hold 'Flat' in the previous version; a source is a field of 'Flat' or of a schema holding it. A field moved out of a " +
    "nested object names the field of 'Flat' that held it (derivedFrom('address')); one moved between two objects, the field of the schema holding both.")
  t.equal(await startUpError(t, Flat, [
    schema(Inner).formerField('city').existedAs({ type: Type.String(), optional: true }),
    schema(Flat).field('city').derivedFrom('address')
  ]), undefined, 'the field of the derived schema that held the old one is a source')

  // Moved between siblings: the contact's phone is now the delivery's. Name the order's 'contact'.
  const Contact = Type.Object({ email: Type.String() })
  const Delivery = Type.Object({ line1: Type.String(), phone: Type.Optional(Type.String()) })
  const Parcel = Type.Object({ contact: Contact, delivery: Type.Array(Delivery) })
  const sibling = await startUpError(t, Parcel, [
    schema(Contact).formerField('phone').existedAs({ type: Type.String(), optional: true }),
    schema(Delivery).field('phone').derivedFrom({ schema: Contact, field: 'phone' })
  ])
  t.match(sibling?.message, /^schema\(.*\)\.field\('phone'\)\.derivedFrom\(\{ schema: .*, field: 'phone' \}\) in version change 'Moved' .*: '.*' does not hold '.*' in the previous version/)
  t.equal(await startUpError(t, Parcel, [
    schema(Contact).formerField('phone').existedAs({ type: Type.String(), optional: true }),
    schema(Delivery).field('phone').derivedFrom({ schema: Parcel, field: 'contact' })
  ]), undefined, 'the field of the schema holding both (through a list) is a source')
  t.equal(await startUpError(t, Parcel, [schema(Delivery).field('phone').derivedFrom({ schema: Delivery, field: 'line1' })]), undefined,
    'a schema holds itself: { schema: S, field } for a field of S is the same as naming the field')

  // Through a $ref to a schema only the application registers, start-up cannot tell: it is taken to hold it.
  const Site = Type.Object({ label: Type.String(), address: Type.Ref('Place') }, { $id: 'Site' })
  const Owner = Type.Object({ name: Type.String(), site: Type.Ref('Site') }, { $id: 'Owner' })
  class CityInSite extends VersionChange {
    description = 'An owner\'s city is part of its site\'s address.'
    instructionsToMigrateToPreviousVersion = [
      schema(Owner).formerField('city').existedAs({ type: Type.String(), optional: true }),
      schema(Place).field('city').derivedFrom({ schema: Owner, field: 'city' })
    ]

    @ConvertRequestToNextVersionFor(Owner)
    up (request: RequestInfo) {
      if ('city' in request.body) request.body.site.address.city = request.body.city
      delete request.body.city
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, CityInSite), new Version(OLD)), async (api) => {
    api.put('/owners/:id', { schema: { body: Type.Ref('Owner') } }, async (request) => ({ lacks: fieldsTheVersionLacks(request), body: request.body }))
  }, { beforeVersioner: (instance) => { for (const shared of [Place, Site, Owner]) instance.addSchema(shared) } })
  const answer = await app.inject({ method: 'PUT', url: '/owners/1', headers: { 'x-api-version': OLD }, payload: { name: 'Ada', city: 'Paris', site: { label: 'HQ', address: { line1: '1 Main St' } } } })
  t.same(answer.json(), { lacks: [], body: { name: 'Ada', site: { label: 'HQ', address: { line1: '1 Main St', city: 'Paris' } } } }, 'through registered schemas')
})

test('derivedFrom { schema, field, through }: a holder that holds the derived schema twice names the field leading to it, and only there is the field not lacked', async (t) => {
  const Postal = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) })
  const Order = Type.Object({ billing: Postal, shipping: Type.Optional(Postal), lines: Type.Array(Type.Object({ to: Postal })) })
  const lacks = async (through?: string): Promise<unknown> => {
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
    }
    const app = await versionedApp(t, new VersionBundle(new Version(NEW, BillingCity), new Version(OLD)), async (api) => {
      api.put('/orders/:id', { schema: { body: Order } }, async (request) => ({ lacks: fieldsTheVersionLacks(request), body: request.body }))
    })
    return (await app.inject({ method: 'PUT', url: '/orders/1', headers: { 'x-api-version': OLD }, payload: { billingCity: 'Paris', billing: { line1: 'a' }, lines: [] } })).json()
  }
  t.same(await lacks('billing'), { lacks: ['/shipping/city', '/lines/*/to/city'], body: { billing: { line1: 'a', city: 'Paris' }, lines: [] } },
    'the billing city is the old client\'s to set; the others it cannot send')
  t.same(await lacks(), { lacks: [], body: { billing: { line1: 'a', city: 'Paris' }, lines: [] } }, 'without through, every city under the order counts as set')

  const wrongWay = await startUpError(t, Order, [
    schema(Order).formerField('billingCity').existedAs({ type: Type.String(), optional: true }),
    schema(Postal).field('city').derivedFrom({ schema: Order, field: 'billingCity', through: 'billingCity' })
  ])
  t.equal(wrongWay?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.match(wrongWay?.message, /through: 'billingCity' \}\) in version change 'Moved' \(version '2001-01-01'\): through 'billingCity' is not a field of '.*' holding '.*' in the previous version \(those holding it are billing, shipping, lines\)/)
  throwsStructure(t, () => schema(Postal).field('city').derivedFrom({ schema: Order, field: 'billingCity', through: '' }), /through must be a non-empty string/)
})

test('regression: a place one union member\'s converters set and another member lacks was listed for both: an old client\'s moved city was thrown away', async (t) => {
  const Postal = Type.Object({ line1: Type.String(), city: Type.Optional(Type.String()) })
  const Person = Type.Object({ kind: Type.Literal('person'), address: Postal })
  const Company = Type.Object({ kind: Type.Literal('company'), address: Postal })
  const Party = Type.Union([Person, Company])
  const Body = Type.Object({ party: Party, others: Type.Array(Party) })
  class PersonCity extends VersionChange {
    description = 'Addresses have a city; a person\'s city moved into its address.'
    instructionsToMigrateToPreviousVersion = [
      schema(Person).formerField('city').existedAs({ type: Type.String(), optional: true }),
      schema(Postal).field('city').derivedFrom({ schema: Person, field: 'city' })
    ]

    @ConvertRequestToNextVersionFor(Person)
    up (request: RequestInfo) {
      if ('city' in request.body) request.body.address.city = request.body.city
      delete request.body.city
    }
  }
  const seen: Array<readonly string[]> = []
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, PersonCity), new Version(OLD)), async (api) => {
    api.put('/parties/:id', { schema: { body: Body } }, async (request) => {
      seen.push(fieldsTheVersionLacks(request))
      return { lacks: seen[seen.length - 1] }
    })
  })
  const put = async (payload: object): Promise<unknown> =>
    (await app.inject({ method: 'PUT', url: '/parties/1', headers: { 'x-api-version': OLD }, payload })).json().lacks
  const person = { kind: 'person', city: 'Paris', address: { line1: 'a' } }
  const company = { kind: 'company', address: { line1: 'b' } }
  t.same(await put({ party: person, others: [] }), [], 'a person\'s city is its client\'s to set')
  t.same(await put({ party: company, others: [person, company] }), ['/party/address/city', '/others/1/address/city'],
    'a company\'s city it cannot send, in each item of a list by its index')
  t.ok(Object.isFrozen(seen[1]), 'frozen')
  t.same(await put({ party: person, others: [company] }), ['/others/0/address/city'])
})
