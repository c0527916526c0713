import { AsyncLocalStorage } from 'node:async_hooks'
import { setImmediate as tick } from 'node:timers/promises'
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, HeadVersion, Version, VersionBundle, VersionChange, VersionChangeWithSideEffects,
  enumeration, endpoint, LintingError, schema, type RequestInfo, type VersionChangeClass
} from '../../plugin'
import { caught, throwsCoded, throwsStructure } from '../helpers/errors'
import { changeClass, changesOf } from '../helpers/version-changes'
import { anotherCopy } from '../helpers/another-copy'

const asAny = (value: unknown): any => value
const NOT_BOUND = 'FST_VERSIONER_VERSION_CHANGE_NOT_BOUND'
const Body = Type.Object({ name: Type.String(), age: Type.Integer() })

/** Builds a bundle holding `cls` in 2001-01-01 (with 2000-01-01 as the oldest version). */
function bundleWith (cls: unknown): VersionBundle {
  return new VersionBundle(new Version('2001-01-01', cls as VersionChangeClass), new Version('2000-01-01'))
}

test('description is required, a non-empty string', async (t) => {
  // @ts-expect-error TypeScript reports the missing abstract member too
  class MissingDescription extends VersionChange {
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(MissingDescription), /Version change description is not set on 'MissingDescription' but is required/)

  class EmptyDescription extends VersionChange {
    description = ''
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(EmptyDescription), /description is not set on 'EmptyDescription'/)

  class BlankDescription extends VersionChange {
    description = '  \n\t '
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(BlankDescription), /description is not set on 'BlankDescription'/)

  class NumericDescription extends VersionChange {
    // @ts-expect-error description must be a string
    description = 42
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(NumericDescription), /description is not set on 'NumericDescription'/)

  class GoodDescription extends VersionChange {
    description = 'Users gained an age.'
    instructionsToMigrateToPreviousVersion = []
  }
  const bundle = bundleWith(GoodDescription)
  const read = changesOf(bundle, '2001-01-01')?.[0]
  t.equal(read?.description, 'Users gained an age.')
  t.equal(read?.name, 'GoodDescription')
  t.equal(read?.hasSideEffects, false)
})

test('instructionsToMigrateToPreviousVersion is required: an array of instruction objects', async (t) => {
  // @ts-expect-error TypeScript reports the missing abstract member too
  class MissingInstructions extends VersionChange {
    description = 'No instructions.'
  }
  throwsStructure(t, () => bundleWith(MissingInstructions),
    /Attribute 'instructionsToMigrateToPreviousVersion' is not set on 'MissingInstructions' but is required \(it may be \[\]\)/)

  class NotAnArray extends VersionChange {
    description = 'One instruction, not in a list.'
    // @ts-expect-error must be an array
    instructionsToMigrateToPreviousVersion = schema(Body).field('age').didntExist
  }
  throwsStructure(t, () => bundleWith(NotAnArray), /'instructionsToMigrateToPreviousVersion' must be an array in 'NotAnArray'/)

  class StringInstructions extends VersionChange {
    description = 'A string.'
    // @ts-expect-error must be an array
    instructionsToMigrateToPreviousVersion = 'schema(Body).field(age).didntExist'
  }
  throwsStructure(t, () => bundleWith(StringInstructions), /must be an array in 'StringInstructions'/)

  class PlainObjectInstruction extends VersionChange {
    description = 'A lookalike object.'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('age').didntExist, asAny({ kind: 'schema.field.didntExist' })]
  }
  throwsStructure(t, () => bundleWith(PlainObjectInstruction),
    /Instruction 1 of 'PlainObjectInstruction' \(\{ kind: 'schema.field.didntExist' \}\) is not an instruction/, /use schema\(\.\.\.\), enumeration\(\.\.\.\) or endpoint\(\.\.\.\)/)

  class UnfinishedBuilder extends VersionChange {
    description = 'A builder without its last step.'
    instructionsToMigrateToPreviousVersion = [asAny(schema(Body).field('age'))]
  }
  throwsStructure(t, () => bundleWith(UnfinishedBuilder), /Instruction 0 of 'UnfinishedBuilder' is an unfinished builder: end it with \.had\(\.\.\.\)/)

  class SchemaAsInstruction extends VersionChange {
    description = 'A schema is not an instruction.'
    instructionsToMigrateToPreviousVersion = [asAny(Body)]
  }
  throwsStructure(t, () => bundleWith(SchemaAsInstruction), /Instruction 0 of 'SchemaAsInstruction' .* is not an instruction/)

  const Color = Type.Union([Type.Literal('red'), Type.Literal('blue')])
  class AllKinds extends VersionChange {
    description = 'Every builder gives an instruction.'
    instructionsToMigrateToPreviousVersion = [
      schema(Body).field('age').didntExist,
      enumeration(Color).didntHave('blue'),
      endpoint('/users', ['get']).didntExist
    ]
  }
  const read = changesOf(bundleWith(AllKinds), '2001-01-01')?.[0]
  t.equal(read?.instructions.length, 3)
  t.ok(Object.isFrozen(read?.instructions))

  class EmptyList extends VersionChange {
    description = 'Converters only.'
    instructionsToMigrateToPreviousVersion = []
  }
  t.same(changesOf(bundleWith(EmptyList), '2001-01-01')?.[0].instructions, [])
})

test('stray members are rejected, naming the member and the class', async (t) => {
  class StrayField extends VersionChange {
    description = 'A field too many.'
    instructionsToMigrateToPreviousVersion = []
    helper = 1
  }
  throwsStructure(t, () => bundleWith(StrayField), /Found 'helper' in version change 'StrayField'/, /move helpers out of the class/)

  class StrayUndefinedField extends VersionChange {
    description = 'A declared field.'
    instructionsToMigrateToPreviousVersion = []
    cache: unknown = undefined
  }
  throwsStructure(t, () => bundleWith(StrayUndefinedField), /Found 'cache' in version change 'StrayUndefinedField'/)

  class FieldSetInConstructor extends VersionChange {
    description = 'Set in the constructor.'
    instructionsToMigrateToPreviousVersion = []
    constructor () {
      super()
      Object.assign(this, { counter: 0 })
    }
  }
  throwsStructure(t, () => bundleWith(FieldSetInConstructor), /Found 'counter' in version change 'FieldSetInConstructor'/)

  class StrayMethod extends VersionChange {
    description = 'An undecorated method.'
    instructionsToMigrateToPreviousVersion = []
    compute (request: RequestInfo) { return request.body }
  }
  throwsStructure(t, () => bundleWith(StrayMethod), /Found 'compute' in version change 'StrayMethod'/)

  class StrayStaticField extends VersionChange {
    static cache = new Map()
    description = 'A static field.'
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(StrayStaticField), /Found 'static cache' in version change 'StrayStaticField'/)

  class StrayStaticMethod extends VersionChange {
    description = 'A static method.'
    instructionsToMigrateToPreviousVersion = []
    static helper () { return 1 }
  }
  throwsStructure(t, () => bundleWith(StrayStaticMethod), /Found 'static helper' in version change 'StrayStaticMethod'/)

  class StrayGetter extends VersionChange {
    description = 'A getter.'
    instructionsToMigrateToPreviousVersion = []
    get computed () { return 1 }
  }
  throwsStructure(t, () => bundleWith(StrayGetter), /Found 'computed' in version change 'StrayGetter'/)

  class StrayStaticGetter extends VersionChange {
    description = 'A static getter.'
    instructionsToMigrateToPreviousVersion = []
    static get computed () { return 1 }
  }
  throwsStructure(t, () => bundleWith(StrayStaticGetter), /Found 'static computed' in version change 'StrayStaticGetter'/)

  class StraySetter extends VersionChange {
    description = 'A setter.'
    instructionsToMigrateToPreviousVersion = []
    set target (value: number) { Object.assign(this, { value }) } // eslint-disable-line accessor-pairs
  }
  throwsStructure(t, () => bundleWith(StraySetter), /Found 'target' in version change 'StraySetter'/)

  // a decorated converter beside an undecorated method: only the undecorated one is stray
  class MixedMethods extends VersionChange {
    description = 'One converter and one helper.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Body, { checkUsage: false })
    up (request: RequestInfo) { request.body.age = 0 }

    helper () { return 2 }
  }
  const error = throwsStructure(t, () => bundleWith(MixedMethods), /Found 'helper' in version change 'MixedMethods'/)
  t.notMatch(error.message, /'up'/)
})

test('regression: a symbol-named member is stray as a named one is (an undecorated symbol-named converter was accepted and never ran)', async (t) => {
  const toAge = Symbol('toAge')
  class UndecoratedSymbol extends VersionChange {
    [toAge] (request: RequestInfo) { request.body.age = 0 }
    description = 'A converter written with a symbol name and no decorator.'
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(UndecoratedSymbol), /Found 'Symbol\(toAge\)' in version change 'UndecoratedSymbol'/, /decorated with @ConvertRequestToNextVersionFor/)

  const cache = Symbol('cache')
  class StaticSymbol extends VersionChange {
    description = 'A static symbol-named helper.'
    instructionsToMigrateToPreviousVersion = []
    static [cache] (request: RequestInfo) { request.body.age = 0 }
  }
  throwsStructure(t, () => bundleWith(StaticSymbol), /Found 'static Symbol\(cache\)' in version change 'StaticSymbol'/)

  const memo = Symbol('memo')
  class SymbolField extends VersionChange {
    [memo] = new Map<string, unknown>()
    description = 'A symbol-named field: state every request would share.'
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(SymbolField), /Found 'Symbol\(memo\)' in version change 'SymbolField'/)

  // Decorated, a symbol-named method is a converter; with standard decorators the class holds Symbol.metadata too.
  const up = Symbol('up')
  class DecoratedSymbol extends VersionChange {
    @ConvertRequestToNextVersionFor(Body, { checkUsage: false })
    [up] (request: RequestInfo) { request.body.age = 0 }

    description = 'A decorated symbol-named converter.'
    instructionsToMigrateToPreviousVersion = []
  }
  t.same(changesOf(bundleWith(DecoratedSymbol), '2001-01-01')?.[0].converters.map((converter) => converter.methodName), [up])
})

test('a concrete version change cannot be subclassed', async (t) => {
  class ConcreteParent extends VersionChange {
    description = 'The parent.'
    instructionsToMigrateToPreviousVersion = []
  }
  class ConcreteChild extends ConcreteParent {
    override description = 'The child.'
  }
  throwsStructure(t, () => bundleWith(ConcreteChild),
    /Version change 'ConcreteChild' extends 'ConcreteParent'/, /cannot be subclassed/)

  abstract class AbstractParent extends VersionChangeWithSideEffects {}
  class ViaAbstractParent extends AbstractParent {
    description = 'Through an intermediate class.'
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(ViaAbstractParent), /'ViaAbstractParent' extends 'AbstractParent'/)

  // the parent itself stays usable
  t.ok(bundleWith(ConcreteParent))
  // extending VersionChangeWithSideEffects directly is allowed
  class DirectSideEffect extends VersionChangeWithSideEffects {
    description = 'Direct.'
    instructionsToMigrateToPreviousVersion = []
  }
  t.equal(changesOf(bundleWith(DirectSideEffect), '2001-01-01')?.[0].hasSideEffects, true)
  // the base classes themselves are not version changes
  throwsStructure(t, () => bundleWith(VersionChange), /Version\('2001-01-01'\) was given class VersionChange, which is not a class extending VersionChange/)
})

test('a constructor that throws is reported with the class name and the cause', async (t) => {
  class ThrowingChange extends VersionChange {
    description = 'Throws.'
    instructionsToMigrateToPreviousVersion = []
    constructor () {
      super()
      throw new Error('boom in constructor')
    }
  }
  throwsStructure(t, () => bundleWith(ThrowingChange), /Version change 'ThrowingChange' could not be created: boom in constructor/)

  class ThrowingInitializer extends VersionChange {
    description = 'Throws in a field initializer.'
    instructionsToMigrateToPreviousVersion = [(() => { throw new TypeError('initializer failed') })()]
  }
  throwsStructure(t, () => bundleWith(ThrowingInitializer), /Version change 'ThrowingInitializer' could not be created: initializer failed/)
})

test('regression: a versioner error thrown by a class body keeps its class and code (LintingError was FST_VERSIONER_STRUCTURE)', async (t) => {
  class BadMethods extends VersionChange {
    description = 'Written with methods no application routes.'
    // As JavaScript (or a cast) can write it: the method names are not in the type.
    instructionsToMigrateToPreviousVersion = [endpoint('/ping', ['DEATH', 'STRAND'] as never).didntExist]
  }
  const linting = throwsCoded(t, () => bundleWith(BadMethods), 'FST_VERSIONER_LINTING', /^Version change 'BadMethods': /, /DEATH, STRAND/)
  t.ok(linting instanceof LintingError, 'the LintingError class the README documents')

  class BadField extends VersionChange {
    description = 'A field instruction with no name.'
    // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
    instructionsToMigrateToPreviousVersion = [schema(Type.Object({ a: Type.String() })).field('').didntExist]
  }
  throwsCoded(t, () => bundleWith(BadField), 'FST_VERSIONER_STRUCTURE', /^Version change 'BadField': /)

  class ThrowsNothing extends VersionChange {
    description = 'Throws a string.'
    instructionsToMigrateToPreviousVersion = [(() => { throw 'not an Error' })()] // eslint-disable-line no-throw-literal
  }
  throwsStructure(t, () => bundleWith(ThrowsNothing), /Version change 'ThrowsNothing' could not be created: not an Error/)
})

test('isApplied follows the version in the bundle storage, with 3+ versions', async (t) => {
  const C3 = changeClass('AppliedIn2003', [], { sideEffects: true })
  const C2 = changeClass('AppliedIn2002', [], { sideEffects: true })
  const C1 = changeClass('AppliedIn2001', [], { sideEffects: true })
  const bundle = new VersionBundle(
    new HeadVersion(),
    new Version('2003-01-01', C3),
    new Version('2002-01-01', C2),
    new Version('2001-01-01', C1),
    new Version('2000-01-01')
  )
  const storage = bundle.apiVersionStorage
  const applied = (version: string | undefined): boolean[] => storage.run(version, () => [C3.isApplied, C2.isApplied, C1.isApplied])
  t.same(applied('2003-01-01'), [true, true, true], '2003: every change applies')
  t.same(applied('2002-01-01'), [false, true, true], '2002: not C3')
  t.same(applied('2001-01-01'), [false, false, true], '2001: only C1')
  t.same(applied('2000-01-01'), [false, false, false], '2000: none')
  t.same(applied(undefined), [true, true, true], 'an undefined store is unversioned work: true')
  t.same([C3.isApplied, C2.isApplied, C1.isApplied], [true, true, true], 'outside any run: true')
  // dates the bundle does not hold compare as dates
  t.same(applied('2002-06-15'), [false, true, true], 'between versions')
  t.same(applied('2099-01-01'), [true, true, true], 'after the newest')
  t.same(applied('1999-01-01'), [false, false, false], 'before the oldest')
  // nested runs
  storage.run('2000-01-01', () => {
    t.equal(C1.isApplied, false)
    storage.run('2003-01-01', () => t.equal(C1.isApplied, true, 'the inner run wins'))
    t.equal(C1.isApplied, false, 'the outer version is restored')
  })
})

test('isApplied with string versions follows the bundle order', async (t) => {
  const InV1 = changeClass('StringInV1', [], { sideEffects: true })
  const InV2 = changeClass('StringInV2', [], { sideEffects: true })
  const bundle = new VersionBundle(new Version('v2', InV2), new Version('v1', InV1), new Version('v10'))
  const storage = bundle.apiVersionStorage
  const applied = (version: string): boolean[] => storage.run(version, () => [InV2.isApplied, InV1.isApplied])
  t.same(applied('v2'), [true, true])
  t.same(applied('v1'), [false, true])
  t.same(applied('v10'), [false, false], 'v10 is the oldest because the bundle says so')
  t.same(applied('v3'), [false, false], 'an unknown string version includes no change')
})

test('isApplied of a change held by several bundles follows the bundle serving the request', async (t) => {
  const Shared = changeClass('SharedSideEffect', [], { sideEffects: true })
  const early = new VersionBundle(new Version('2001-01-01', Shared), new Version('2000-01-01'))
  const late = new VersionBundle(new Version('2003-01-01', Shared), new Version('2002-01-01'), new Version('2001-01-01'))
  const strings = new VersionBundle(new Version('v2', Shared), new Version('v1'))
  t.equal(early.apiVersionStorage.run('2001-01-01', () => Shared.isApplied), true, 'early bundle: in 2001-01-01')
  t.equal(late.apiVersionStorage.run('2001-01-01', () => Shared.isApplied), false, 'late bundle: not yet in 2001-01-01')
  t.equal(late.apiVersionStorage.run('2003-01-01', () => Shared.isApplied), true)
  t.equal(strings.apiVersionStorage.run('v1', () => Shared.isApplied), false)
  t.equal(strings.apiVersionStorage.run('v2', () => Shared.isApplied), true)
  t.equal(Shared.isApplied, true, 'outside any request: true')
  // Concurrent requests of two bundles each see their own.
  const seen = await Promise.all([
    early.apiVersionStorage.run('2000-01-01', async () => { await tick(); return Shared.isApplied }),
    late.apiVersionStorage.run('2003-01-01', async () => { await tick(); return Shared.isApplied })
  ])
  t.same(seen, [false, true])
})

test('isApplied reads a custom apiVersionStorage', async (t) => {
  const storage = new AsyncLocalStorage<string | undefined>()
  const Custom = changeClass('CustomStorageChange', [], { sideEffects: true })
  new VersionBundle(new Version('2001-01-01', Custom), new Version('2000-01-01'), { apiVersionStorage: storage }) // eslint-disable-line no-new
  t.equal(storage.run('2000-01-01', () => Custom.isApplied), false)
  t.equal(storage.run('2001-01-01', () => Custom.isApplied), true)
  // another storage does not count
  const other = new AsyncLocalStorage<string | undefined>()
  t.equal(other.run('2000-01-01', () => Custom.isApplied), true)
})

test('isApplied on a change bound to no version, or to HEAD, throws VersionChangeNotBound', async (t) => {
  const Unbound = changeClass('NeverBound', [], { sideEffects: true })
  throwsCoded(t, () => Unbound.isApplied, NOT_BOUND, /'NeverBound' is applied, but it was never bound to any version/)

  const OnlyInFailedBundle = changeClass('OnlyInFailedBundle', [], { sideEffects: true })
  t.ok(caught(() => new VersionBundle(new Version('2000-01-01'), new Version('2001-01-01', OnlyInFailedBundle))))
  throwsCoded(t, () => OnlyInFailedBundle.isApplied, NOT_BOUND, /'OnlyInFailedBundle'/)

  const InHead = changeClass('BoundToHead', [], { sideEffects: true })
  const bundle = new VersionBundle(new HeadVersion(InHead), new Version('2000-01-01'))
  throwsCoded(t, () => InHead.isApplied, NOT_BOUND, /'BoundToHead'/)
  throwsCoded(t, () => bundle.apiVersionStorage.run('2000-01-01', () => InHead.isApplied), NOT_BOUND, /'BoundToHead'/)

  // the base class itself is bound to nothing
  throwsCoded(t, () => VersionChangeWithSideEffects.isApplied, NOT_BOUND, /'VersionChangeWithSideEffects'/)
})

test('concurrent async flows each see their own version', async (t) => {
  const Late = changeClass('ConcurrentLate', [], { sideEffects: true })
  const Early = changeClass('ConcurrentEarly', [], { sideEffects: true })
  const bundle = new VersionBundle(new Version('2002-01-01', Late), new Version('2001-01-01', Early), new Version('2000-01-01'))
  const storage = bundle.apiVersionStorage

  // A strict alternation A, B, A, B… enforced with promises, so each flow resumes while the other is suspended.
  const turns: Array<() => void> = []
  const waiters: Array<Promise<void>> = []
  for (let i = 0; i < 8; i++) waiters.push(new Promise<void>((resolve) => { turns.push(resolve) }))
  const log: string[] = []

  async function flow (name: string, myTurns: number[]): Promise<Array<[boolean, boolean, string | undefined]>> {
    const seen: Array<[boolean, boolean, string | undefined]> = []
    for (const turn of myTurns) {
      await waiters[turn]
      await tick()
      seen.push([Late.isApplied, Early.isApplied, storage.getStore()])
      log.push(`${name}${turn}`)
      await Promise.resolve()
      turns[turn + 1]?.()
    }
    return seen
  }
  const a = storage.run('2000-01-01', () => flow('A', [0, 2, 4, 6]))
  const b = storage.run('2002-01-01', () => flow('B', [1, 3, 5, 7]))
  const c = storage.run('2001-01-01', async () => {
    const seen: boolean[] = []
    for (let i = 0; i < 5; i++) {
      await tick()
      seen.push(Late.isApplied, Early.isApplied)
    }
    return seen
  })
  turns[0]()
  const [seenA, seenB, seenC] = await Promise.all([a, b, c])
  t.same(log, ['A0', 'B1', 'A2', 'B3', 'A4', 'B5', 'A6', 'B7'], 'the flows really interleaved')
  t.same(seenA, Array(4).fill([false, false, '2000-01-01']), 'flow A always sees 2000-01-01')
  t.same(seenB, Array(4).fill([true, true, '2002-01-01']), 'flow B always sees 2002-01-01')
  t.same(seenC, Array(5).fill([false, true]).flat(), 'flow C always sees 2001-01-01')
  t.equal(storage.getStore(), undefined, 'nothing leaks outside the runs')
  t.equal(Late.isApplied, true)
})

test('regression: endpoint(route path).had({ path }) needs a path starting with /; webhook names keep theirs', async (t) => {
  throwsStructure(t, () => endpoint('/users', 'GET').had({ path: 'accounts' }),
    "endpoint('/users', [GET]).had({ path: 'accounts' }): path must start with '/' like the route path '/users' it replaces; got 'accounts'.")
  t.equal(endpoint('/users', 'GET').had({ path: '/accounts' }).attributes.path, '/accounts')
  t.equal(endpoint('userCreated', 'POST').had({ path: 'accountCreated' }).attributes.path, 'accountCreated', 'a webhook is renamed to a name')
})

test('regression: a version change or instruction of another copy of the package is refused saying so (it read "not a class extending VersionChange")', async (t) => {
  const other = anotherCopy()
  t.not(other.VersionChange, VersionChange, 'a second copy')
  class FromTheOtherCopy extends other.VersionChange {
    description = 'Extends the other copy\'s VersionChange.'
    instructionsToMigrateToPreviousVersion = []
  }
  throwsStructure(t, () => bundleWith(FromTheOtherCopy),
    /was given class FromTheOtherCopy, which extends VersionChange of another copy of fastify-versioner/, /npm ls fastify-versioner/)
  class InstructionOfTheOtherCopy extends VersionChange {
    description = 'An instruction made by the other copy.'
    instructionsToMigrateToPreviousVersion = [other.schema(Body).field('age').didntExist]
  }
  const error = throwsStructure(t, () => bundleWith(InstructionOfTheOtherCopy),
    /Instruction 0 of 'InstructionOfTheOtherCopy' was made by schema\(\.\.\.\), enumeration\(\.\.\.\) or endpoint\(\.\.\.\) of another copy of fastify-versioner/)
  t.notMatch(error.message, /unfinished builder/)
  // the base classes themselves are still told apart from another copy's
  throwsStructure(t, () => bundleWith(VersionChange), /was given class VersionChange, which is not a class extending VersionChange\.$/)
})
