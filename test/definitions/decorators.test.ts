/*
 * The converter decorators under tap's TypeScript loader, which reads the repository's tsconfig.json
 * (experimentalDecorators: true), so these are legacy decorators. Standard (TC39) decorators and the other
 * toolchains are covered by decorators-toolchains.test.ts.
 */
import 'reflect-metadata'
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, Version, VersionBundle, VersionChange,
  type HttpMethod, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { readConverters } from '../../lib/describe/converter-decorators'
import { kConverters } from '../../lib/core/symbols'
import { caught, throwsCoded, throwsStructure } from '../helpers/errors'
import { changesOf } from '../helpers/version-changes'
import { anotherCopy } from '../helpers/another-copy'

type LooseDecorator = (target: object, key: string) => void
type LooseFactory = (...args: unknown[]) => LooseDecorator
const requestFor = ConvertRequestToNextVersionFor as unknown as LooseFactory
const responseFor = ConvertResponseToPreviousVersionFor as unknown as LooseFactory

const UserCreate = Type.Object({ address: Type.String() })
const UserUpdate = Type.Object({ address: Type.String(), name: Type.String() })
const UserResource = Type.Object({ id: Type.String(), address: Type.String() })

/** A request info for running converters by hand. */
function requestInfo (body: Record<string, unknown>): RequestInfo {
  return { body, headers: {}, cookies: {}, queryParams: {}, form: undefined }
}

/** A response info for running converters by hand. */
function responseInfo (body: Record<string, unknown>, statusCode = 200): ResponseInfo {
  return { body, statusCode, headers: {}, setCookie () {}, deleteCookie () {}, raw: body }
}

test('by schema: one schema, defaults', async (t) => {
  class OneSchema extends VersionChange {
    description = 'One schema.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) { request.body.addresses = [request.body.address] }

    @ConvertResponseToPreviousVersionFor(UserResource)
    down (response: ResponseInfo) { response.body.address = response.body.addresses[0] }
  }
  const [up, down] = readConverters(OneSchema)
  t.same(up, {
    direction: 'request',
    target: { kind: 'schema', schemas: [UserCreate] },
    checkUsage: true,
    migrateHttpErrors: false,
    methodName: 'up',
    isStatic: false
  })
  t.equal(up.target.kind === 'schema' && up.target.schemas[0], UserCreate, 'the very schema object is kept')
  t.same(down, {
    direction: 'response',
    target: { kind: 'schema', schemas: [UserResource] },
    checkUsage: true,
    migrateHttpErrors: false,
    methodName: 'down',
    isStatic: false
  })
  t.equal(readConverters(OneSchema).length, 2)
  t.ok(Reflect.hasOwnMetadata(kConverters, OneSchema), 'legacy decorators store reflect-metadata on the class')
  t.notOk(Object.prototype.hasOwnProperty.call(OneSchema, (Symbol as unknown as { metadata: symbol }).metadata), 'no TC39 metadata under legacy decorators')
})

test('by schema: several schemas, and the options checkUsage and migrateHttpErrors', async (t) => {
  class SeveralSchemas extends VersionChange {
    description = 'Several schemas.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(UserCreate, UserUpdate)
    upBoth (request: RequestInfo) { request.body.x = 1 }

    @ConvertRequestToNextVersionFor(UserCreate, UserUpdate, { checkUsage: false })
    upUnchecked (request: RequestInfo) { request.body.x = 1 }

    @ConvertResponseToPreviousVersionFor(UserResource, UserCreate, { migrateHttpErrors: true })
    downErrors (response: ResponseInfo) { response.body.x = 1 }

    @ConvertResponseToPreviousVersionFor(UserResource, { checkUsage: false, migrateHttpErrors: true })
    downBoth (response: ResponseInfo) { response.body.x = 1 }

    @ConvertResponseToPreviousVersionFor(UserResource, { checkUsage: true, migrateHttpErrors: false })
    downExplicitDefaults (response: ResponseInfo) { response.body.x = 1 }
  }
  const summary = readConverters(SeveralSchemas).map((entry) => ({
    name: entry.methodName,
    direction: entry.direction,
    schemas: entry.target.kind === 'schema' ? entry.target.schemas.length : -1,
    checkUsage: entry.checkUsage,
    migrateHttpErrors: entry.migrateHttpErrors
  }))
  t.same(summary, [
    { name: 'upBoth', direction: 'request', schemas: 2, checkUsage: true, migrateHttpErrors: false },
    { name: 'upUnchecked', direction: 'request', schemas: 2, checkUsage: false, migrateHttpErrors: false },
    { name: 'downErrors', direction: 'response', schemas: 2, checkUsage: true, migrateHttpErrors: true },
    { name: 'downBoth', direction: 'response', schemas: 1, checkUsage: false, migrateHttpErrors: true },
    { name: 'downExplicitDefaults', direction: 'response', schemas: 1, checkUsage: true, migrateHttpErrors: false }
  ])
  const [upBoth] = readConverters(SeveralSchemas)
  t.ok(upBoth.target.kind === 'schema' && upBoth.target.schemas[0] === UserCreate && upBoth.target.schemas[1] === UserUpdate,
    'schemas are kept in order, by identity')
})

test('by path and methods: methods normalised to sorted, de-duplicated upper case', async (t) => {
  class ByPath extends VersionChange {
    description = 'By path.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/users/:id', ['put', 'PATCH', 'put'])
    upUpdate (request: RequestInfo) { request.body.x = 1 }

    @ConvertRequestToNextVersionFor('/users', 'post')
    upCreate (request: RequestInfo) { request.body.x = 1 }

    @ConvertResponseToPreviousVersionFor('/users/:id', ['get', 'Delete' as HttpMethod])
    downRead (response: ResponseInfo) { response.body.x = 1 }

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    downErrors (response: ResponseInfo) { response.statusCode = 401 }
  }
  const entries = readConverters(ByPath)
  t.same(entries.map((entry) => [entry.methodName, entry.direction, entry.target, entry.checkUsage, entry.migrateHttpErrors]), [
    ['upUpdate', 'request', { kind: 'path', path: '/users/:id', methods: ['PATCH', 'PUT'] }, true, false],
    ['upCreate', 'request', { kind: 'path', path: '/users', methods: ['POST'] }, true, false],
    ['downRead', 'response', { kind: 'path', path: '/users/:id', methods: ['DELETE', 'GET'] }, true, false],
    ['downErrors', 'response', { kind: 'path', path: '/users/:id', methods: ['GET'] }, true, true]
  ])
  t.ok(Object.isFrozen(entries[0].target), 'targets are frozen')
})

test('a converter takes exactly one parameter; the error names the method and the parameter', async (t) => {
  throwsStructure(t, () => {
    class NoParameter extends VersionChange {
      description = 'No parameter.'
      instructionsToMigrateToPreviousVersion = []
      // @ts-expect-error TypeScript rejects a converter without parameter too
      @ConvertRequestToNextVersionFor(UserCreate)
      up () {}
    }
    return NoParameter
  }, /Converter method 'NoParameter\.up' must have exactly 1 parameter: request \(a RequestInfo\); it has 0/)

  throwsStructure(t, () => {
    class TwoParameters extends VersionChange {
      description = 'Two parameters.'
      instructionsToMigrateToPreviousVersion = []
      // @ts-expect-error TypeScript rejects a converter of two parameters too
      @ConvertResponseToPreviousVersionFor(UserResource)
      down (response: ResponseInfo, extra: number) { response.body.x = extra }
    }
    return TwoParameters
  }, /Converter method 'TwoParameters\.down' must have exactly 1 parameter: response \(a ResponseInfo\); it has 2/)

  throwsStructure(t, () => {
    class StaticNoParameter extends VersionChange {
      description = 'Static, no parameter.'
      instructionsToMigrateToPreviousVersion = []
      // @ts-expect-error TypeScript rejects a converter without parameter too
      @ConvertResponseToPreviousVersionFor('/users', ['GET'])
      static down () {}
    }
    return StaticNoParameter
  }, /'StaticNoParameter\.down' must have exactly 1 parameter: response \(a ResponseInfo\); it has 0/)

  throwsStructure(t, () => {
    class DefaultedParameter extends VersionChange {
      description = 'A defaulted parameter does not count.'
      instructionsToMigrateToPreviousVersion = []
      // @ts-expect-error TypeScript rejects an optional (defaulted) parameter too
      @ConvertRequestToNextVersionFor(UserCreate)
      up (request: RequestInfo = requestInfo({})) { request.body.x = 1 }
    }
    return DefaultedParameter
  }, /'DefaultedParameter\.up' must have exactly 1 parameter: request/)

  throwsStructure(t, () => {
    class DecoratedField extends VersionChange {
      description = 'A decorated field.'
      instructionsToMigrateToPreviousVersion = []
      @ConvertRequestToNextVersionFor(UserCreate)
      up = (request: RequestInfo) => { request.body.x = 1 }
    }
    return DecoratedField
  }, /Converter 'DecoratedField\.up' is not a method; converters must be methods taking one parameter: request \(a RequestInfo\)/)
})

test('bad decorator arguments', async (t) => {
  throwsStructure(t, () => requestFor('/users'), /if a path is given as the first argument, methods must be given as the second/)
  throwsStructure(t, () => responseFor('/users', { migrateHttpErrors: true }), /methods must be given as the second/)
  throwsStructure(t, () => requestFor('/users', ['POST'], UserCreate), /if a path is given as the first argument, no schemas can be added/)
  throwsStructure(t, () => responseFor('/users', ['GET'], UserResource, { migrateHttpErrors: true }), /no schemas can be added/)
  throwsStructure(t, () => requestFor('users', ['POST']), /a path must start with '\/'/)
  throwsStructure(t, () => requestFor(), /give the schema\(s\) whose routes it converts, or a path and methods/)
  throwsStructure(t, () => requestFor(UserCreate, 'POST'), /all other arguments must be schemas \(and an options object last\); got 'POST'/)
  throwsStructure(t, () => responseFor(42), /got 42/)

  throwsCoded(t, () => requestFor('/users', ['GETT']), 'FST_VERSIONER_LINTING', /not valid: GETT/)
  throwsCoded(t, () => responseFor('/users', ['get', 'FETCH', 'pots']), 'FST_VERSIONER_LINTING', /not valid: FETCH, pots/)
  throwsCoded(t, () => requestFor('/users', []), 'FST_VERSIONER_LINTING', /\(none given\)/)

  throwsStructure(t, () => requestFor(UserCreate, { migrateHttpErrors: true }),
    /@ConvertRequestToNextVersionFor\(.*\): option 'migrateHttpErrors' does not apply here; allowed: checkUsage/)
  throwsStructure(t, () => requestFor('/users', ['POST'], { checkUsage: false }), /option 'checkUsage' does not apply here; allowed: none/)
  throwsStructure(t, () => responseFor('/users', ['GET'], { checkUsage: false }), /option 'checkUsage' does not apply here; allowed: migrateHttpErrors/)
  throwsStructure(t, () => responseFor(UserResource, { migrateHttpErrors: 'yes' }), /option 'migrateHttpErrors' must be true or false/)
  throwsStructure(t, () => responseFor('/users', ['GET'], { migrateHttpError: true }), /migrateHttpError/)
})

test('an unknown option on a by-schema converter is rejected', async (t) => {
  throwsStructure(t, () => requestFor(UserCreate, { checkUsag: false }), /checkUsag/)
  throwsStructure(t, () => responseFor(UserResource, { migrateHttpError: true }), /migrateHttpError/)
})

test('an options object alone is not a schema', async (t) => {
  throwsStructure(t, () => requestFor({ checkUsage: false }), /schema/)
})

test('declaration order: instance methods in class order, static after instance, stacked decorators as written', async (t) => {
  class Ordered extends VersionChange {
    description = 'Order.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(UserResource)
    static staticFirst (response: ResponseInfo) { response.body.x = 1 }

    @ConvertResponseToPreviousVersionFor(UserResource)
    zeta (response: ResponseInfo) { response.body.x = 1 }

    @ConvertRequestToNextVersionFor('/users', ['POST'])
    @ConvertResponseToPreviousVersionFor('/users', ['POST'])
    @ConvertRequestToNextVersionFor(UserCreate)
    alpha (info: RequestInfo | ResponseInfo) { info.body.x = 1 }

    @ConvertRequestToNextVersionFor(UserCreate)
    static staticSecond (request: RequestInfo) { request.body.x = 1 }

    @ConvertRequestToNextVersionFor(UserUpdate)
    middle (request: RequestInfo) { request.body.x = 1 }
  }
  const order = readConverters(Ordered).map((entry) =>
    `${entry.isStatic ? 'static ' : ''}${String(entry.methodName)}:${entry.direction}:${entry.target.kind}`)
  t.same(order, [
    'zeta:response:schema',
    'alpha:request:path',
    'alpha:response:path',
    'alpha:request:schema',
    'middle:request:schema',
    'static staticFirst:response:schema',
    'static staticSecond:request:schema'
  ])
  // the bundle keeps the same order
  const bundle = new VersionBundle(new Version('2001-01-01', Ordered), new Version('2000-01-01'))
  const read = changesOf(bundle, '2001-01-01')?.[0]
  t.same(read?.converters.map((converter) => converter.display), [
    'Ordered.zeta', 'Ordered.alpha', 'Ordered.alpha', 'Ordered.alpha', 'Ordered.middle', 'Ordered.staticFirst', 'Ordered.staticSecond'
  ])
  t.same(read?.converters.map((converter) => converter.isStatic), [false, false, false, false, false, true, true])
})

test('the JavaScript equivalent without decorator syntax', async (t) => {
  class PlainJs extends VersionChange {
    description = 'Written for JavaScript users.'
    instructionsToMigrateToPreviousVersion = []
    static down (response: ResponseInfo) { response.body.fromStatic = true }
    up (request: RequestInfo) { request.body.upgraded = this.description }
    upByPath (request: RequestInfo) { request.body.byPath = true }
  }
  ConvertRequestToNextVersionFor(UserCreate)(PlainJs.prototype, 'up')
  ConvertRequestToNextVersionFor('/users', ['post'])(PlainJs.prototype, 'upByPath')
  ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true })(PlainJs, 'down')

  t.same(readConverters(PlainJs).map((entry) => [entry.methodName, entry.direction, entry.isStatic, entry.target.kind, entry.migrateHttpErrors]), [
    ['up', 'request', false, 'schema', false],
    ['upByPath', 'request', false, 'path', false],
    ['down', 'response', true, 'schema', true]
  ])
  const bundle = new VersionBundle(new Version('2001-01-01', PlainJs as VersionChangeClass), new Version('2000-01-01'))
  const [up, upByPath, down] = changesOf(bundle, '2001-01-01')?.[0].converters ?? []
  const request = requestInfo({ address: 'a' })
  up.run(request)
  upByPath.run(request)
  t.same(request.body, { address: 'a', upgraded: 'Written for JavaScript users.', byPath: true })
  const response = responseInfo({ id: '1' })
  down.run(response)
  t.same(response.body, { id: '1', fromStatic: true })

  // the same checks as with decorator syntax
  class PlainJsBad extends VersionChange {
    description = 'Bad.'
    instructionsToMigrateToPreviousVersion = []
    twoParameters (a: RequestInfo, b: RequestInfo) { return [a, b] }
  }
  throwsStructure(t, () => requestFor(UserCreate)(PlainJsBad.prototype, 'twoParameters'),
    /Converter method 'PlainJsBad\.twoParameters' must have exactly 1 parameter: request \(a RequestInfo\); it has 2/)
  throwsStructure(t, () => requestFor(UserCreate)(PlainJsBad.prototype, 'missing'), /Converter 'PlainJsBad\.missing' is not a method/)
})

test('a decorator called by hand the wrong way says how to call it', async (t) => {
  class ByHand extends VersionChange {
    description = 'Called by hand.'
    instructionsToMigrateToPreviousVersion = []
    renameUp (request: RequestInfo) { request.body.x = 1 }
    arrowUp = (request: RequestInfo) => { request.body.x = 1 }
    static down (response: ResponseInfo) { response.body.x = 1 }
  }
  const how = /call it as ConvertRequestToNextVersionFor\(\.\.\.\)\(ByHand\.prototype, 'renameUp'\)/
  throwsStructure(t, () => requestFor(UserCreate)(ByHand, 'renameUp'),
    /Converter 'ByHand\.renameUp' is an instance method, but the decorator was given the class ByHand, not ByHand\.prototype/, how)
  throwsStructure(t, () => requestFor(UserCreate)(new ByHand(), 'renameUp'),
    /Converter 'ByHand\.renameUp': the decorator was given an instance of ByHand, not ByHand\.prototype/, how)
  throwsStructure(t, () => requestFor(UserCreate)(ByHand.prototype, 'renameUP'),
    /Converter 'ByHand\.renameUP' is not a method;.* ByHand's methods: renameUp, static down\./)
  throwsStructure(t, () => requestFor(UserCreate)(ByHand.prototype, 'arrowUp'),
    /Converter 'ByHand\.arrowUp' is not a method;.*an arrow function assigned to a field is no method: declare arrowUp \(request\) \{ … \}/)
  const order = /a converter decorator called by hand takes the class's prototype \(the class, for a static method\) and the method's name, as in ConvertRequestToNextVersionFor\(\.\.\.\)\(MyChange\.prototype, 'method'\)/
  throwsStructure(t, () => requestFor(UserCreate)('renameUp' as unknown as object, ByHand.prototype as unknown as string), order, /got 'renameUp'/)
  throwsStructure(t, () => (requestFor(UserCreate) as (target: unknown) => void)(ByHand.prototype.renameUp), order)
  throwsStructure(t, () => responseFor(UserResource)(ByHand.prototype, 'down'),
    /Converter 'ByHand\.down' is a static method, but the decorator was given ByHand\.prototype: call it as ConvertResponseToPreviousVersionFor\(\.\.\.\)\(ByHand, 'down'\)/)
  class Defaulted extends VersionChange {
    description = 'A default value.'
    instructionsToMigrateToPreviousVersion = []
    up (request = requestInfo({})) { request.body.x = 1 }
  }
  throwsStructure(t, () => requestFor(UserCreate)(Defaulted.prototype, 'up'),
    /it has 0 \(JavaScript does not count a parameter with a default value, nor a rest parameter\)/)
})

test('a converter left undecorated in JavaScript is a stray member whose message shows the call by hand', async (t) => {
  class Forgotten extends VersionChange {
    description = 'The decorator was made but never applied.'
    instructionsToMigrateToPreviousVersion = []
    up (request: RequestInfo) { request.body.x = 1 }
  }
  requestFor(UserCreate) // the returned decorator is never called
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', Forgotten), new Version('2000-01-01')),
    /Found 'up' in version change 'Forgotten'/, /in JavaScript, ConvertRequestToNextVersionFor\(\.\.\.\)\(Forgotten\.prototype, 'up'\)/)
})

test('converters read from a bundle run with this bound to the instance (or the class for static ones)', async (t) => {
  const seen: unknown[] = []
  class BoundThis extends VersionChange {
    description = 'This is bound.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      seen.push(this)
      request.body.description = this.description
      request.body.isInstance = this instanceof BoundThis
    }

    @ConvertResponseToPreviousVersionFor(UserResource)
    static down (response: ResponseInfo) {
      seen.push(this)
      response.body.isClass = this === BoundThis
    }
  }
  const bundle = new VersionBundle(new Version('2001-01-01', BoundThis), new Version('2000-01-01'))
  const read = changesOf(bundle, '2001-01-01')?.[0]
  t.equal(read?.converters.length, 2)
  const request = requestInfo({ address: 'a' })
  const run = read?.converters[0].run
  run?.(request) // called detached: `this` must still be bound
  t.same(request.body, { address: 'a', description: 'This is bound.', isInstance: true })
  const response = responseInfo({ id: '1' })
  changesOf(bundle, '2001-01-01')?.[0].converters[1].run(response)
  t.same(response.body, { id: '1', isClass: true })
  t.equal(seen[1], BoundThis)
  // one instance per read change, shared by its instance converters
  request.body = {}
  run?.(request)
  t.equal(seen[2], seen[0], 'the same instance each time')
  t.equal(read?.converters[0].change, read, 'a converter knows its change')
  t.equal(read?.converters[0].display, 'BoundThis.up')
  t.equal(caught(() => changesOf(bundle, '2001-01-01')?.[0].converters[0].run(requestInfo({}))), undefined)
})

test('regression: converters decorated by another copy of the package are refused saying so (they read as undecorated helpers)', async (t) => {
  const other = anotherCopy()
  class DecoratedByTheOtherCopy extends VersionChange {
    description = 'Decorated with the other copy\'s decorator.'
    instructionsToMigrateToPreviousVersion = []
    up (request: RequestInfo) { request.body.address = 'a' }
  }
  ;(other.ConvertRequestToNextVersionFor as unknown as LooseFactory)(UserCreate, { checkUsage: false })(DecoratedByTheOtherCopy.prototype, 'up')
  const error = throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', DecoratedByTheOtherCopy), new Version('2000-01-01')),
    /Version change 'DecoratedByTheOtherCopy': its converters are decorated with the decorators of another copy of fastify-versioner/, /npm ls fastify-versioner/)
  t.notMatch(error.message, /move helpers out of the class/)

  // as standard decorators apply it: the declaration in the class's `Symbol.metadata` object, under the other copy's key
  class StandardByTheOtherCopy extends VersionChange {
    description = 'Decorated with the other copy\'s standard decorator.'
    instructionsToMigrateToPreviousVersion = []
    up (request: RequestInfo) { request.body.address = 'a' }
  }
  const metadata = {}
  const context = { kind: 'method', name: 'up', static: false, private: false, metadata, addInitializer () {} }
  ;(other.ConvertRequestToNextVersionFor as unknown as (...args: unknown[]) => (value: unknown, context: unknown) => void)(UserCreate, { checkUsage: false })(
    StandardByTheOtherCopy.prototype.up, context)
  Object.defineProperty(StandardByTheOtherCopy, Symbol.metadata, { value: metadata })
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', StandardByTheOtherCopy), new Version('2000-01-01')),
    /Version change 'StandardByTheOtherCopy': its converters are decorated with the decorators of another copy of fastify-versioner/)
})

test('regression: standard decorators without decorator metadata (TypeScript 5.0 and 5.1, Babel\'s 2022-03) are refused naming the compiler and the fix', async (t) => {
  const method = (request: RequestInfo) => request
  // as those compilers call a method decorator: a context without `metadata`
  const context = { kind: 'method', name: 'up', static: false, private: false, addInitializer () {} }
  const error = throwsStructure(t, () => (ConvertRequestToNextVersionFor as unknown as (...args: unknown[]) => (value: unknown, context: unknown) => void)(UserCreate)(method, context),
    /Converter 'up': the decorator received no metadata object/, /TypeScript 5\.2/, /experimentalDecorators/)
  // regression: a Babel user was told of TypeScript and its flag only
  t.match(error.message, /under Babel, its decorators plugin's `version: '2023-11'` \(or `legacy: true`\)/, 'the fix under Babel')
  t.notMatch(error.message, /Symbol\.metadata is missing/, 'the plugin provides Symbol.metadata itself: the compiler is what lacks it')
})

test('regression: a converter declared twice for one schema or route is refused (it ran twice on each occurrence)', async (t) => {
  const twice = /is declared twice for Object \{ address \}: it would run twice on each occurrence/
  throwsStructure(t, () => requestFor(UserCreate, UserUpdate, UserCreate), twice)
  // stacked, as a merge keeping both sides leaves it
  class StackedTwice extends VersionChange {
    description = 'One converter, two identical decorators.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(UserCreate, { checkUsage: false })
    @ConvertRequestToNextVersionFor(UserUpdate, UserCreate, { checkUsage: false })
    up (request: RequestInfo) { request.body.address = `${String(request.body.address)}!` }
  }
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', StackedTwice), new Version('2000-01-01')),
    /Converter 'StackedTwice\.up' is declared twice for Object \{ address \}: it would run twice on each occurrence/)
  class PathTwice extends VersionChange {
    description = 'One converter, one route twice.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET', 'PUT'])
    @ConvertResponseToPreviousVersionFor('/users/:id', 'GET')
    down (response: ResponseInfo) { response.statusCode = 200 }
  }
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', PathTwice), new Version('2000-01-01')),
    /Converter 'PathTwice\.down' is declared twice for GET \/users\/:id: it would run twice on each occurrence/)
  // one method as a request and a response converter, or for two schemas, stays allowed
  class BothWays extends VersionChange {
    description = 'Both directions.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(UserCreate, { checkUsage: false })
    @ConvertResponseToPreviousVersionFor(UserCreate, { checkUsage: false })
    @ConvertResponseToPreviousVersionFor(UserResource, { checkUsage: false })
    both (info: RequestInfo | ResponseInfo) { info.body.address = 'a' }
  }
  t.equal(changesOf(new VersionBundle(new Version('2001-01-01', BothWays), new Version('2000-01-01')), '2001-01-01')?.[0].converters.length, 3)
})

test('regression: two schemas with one $id are one schema to a converter (it ran twice on each occurrence)', async (t) => {
  // Recognised by their $id, both find every occurrence: a rename ran again on its own output and lost the field.
  const UserHere = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  const UserThere = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  throwsStructure(t, () => responseFor(UserHere, UserThere), /is declared twice for User: it would run twice on each occurrence/)
  class StackedById extends VersionChange {
    description = 'One converter, one schema by two objects.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(UserHere, { checkUsage: false })
    @ConvertResponseToPreviousVersionFor(UserThere, { checkUsage: false })
    down (response: ResponseInfo) { response.body.name = response.body.fullName }
  }
  throwsStructure(t, () => new VersionBundle(new Version('2001-01-01', StackedById), new Version('2000-01-01')),
    /Converter 'StackedById\.down' is declared twice for User: it would run twice on each occurrence/)
})

test('regression: a converter decorator on a getter is refused as under standard decorators (it called the getter on the prototype, and a throw escaped uncoded)', async (t) => {
  const defineGetterChange = (getter: () => unknown): void => {
    class GetterConverter extends VersionChange {
      description = 'A getter.'
      instructionsToMigrateToPreviousVersion = []
      // @ts-expect-error a getter is not a converter method
      @ConvertRequestToNextVersionFor(UserCreate, { checkUsage: false })
      get up () { return getter.call(this) }
    }
    t.fail(`accepted ${GetterConverter.name}`)
  }
  throwsStructure(t, () => defineGetterChange(() => (request: RequestInfo) => request), /Converter decorators apply to methods; 'GetterConverter\.up' is a getter/)
  const uncalled = throwsStructure(t, () => defineGetterChange(function (this: { description: string }) { return this.description.length }),
    /Converter decorators apply to methods; 'GetterConverter\.up' is a getter/)
  t.notMatch(uncalled.message, /Cannot read properties/)
  // by hand, as JavaScript applies it
  class ByHand extends VersionChange {
    description = 'A getter decorated by hand.'
    instructionsToMigrateToPreviousVersion = []
    get up () { throw new Error('called') }
  }
  throwsStructure(t, () => requestFor(UserCreate)(ByHand.prototype, 'up'), /Converter decorators apply to methods; 'ByHand\.up' is a getter/)
})

test('regression: converters with symbol names keep their declaration order, after the others as JavaScript lists keys (they ran last declared first)', async (t) => {
  const first = Symbol('first')
  const second = Symbol('second')
  class SymbolNames extends VersionChange {
    description = 'Symbol-named converters.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(UserCreate) [first] (request: RequestInfo) { request.body.address = 'first' }
    @ConvertRequestToNextVersionFor(UserCreate) [second] (request: RequestInfo) { request.body.address = 'second' }
    @ConvertRequestToNextVersionFor(UserCreate) named (request: RequestInfo) { request.body.address = 'named' }
  }
  t.same(readConverters(SymbolNames).map((entry) => entry.methodName), ['named', first, second])
})
