import { test, type Test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  defineValidator, enumeration, extendSchema, generateVersionedSchemas, HeadVersion, InvalidGenerationInstructionError, schema, Version,
  VersionBundle, VersionChange, withValidators, type Instruction
} from '../../plugin'
import { bundleWith, LATEST, typebox1 } from '../helpers/schema-generation'
import { changeClass } from '../helpers/version-changes'
import { caught, rejection, throwsStructure } from '../helpers/errors'
import { versionedApp } from '../helpers/apps'

const CODE = 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION'

/** Generates the schemas of `bundle`, expecting an InvalidGenerationInstructionError, and gives it. */
function generationError (bundle: VersionBundle): InstanceType<typeof InvalidGenerationInstructionError> {
  try {
    generateVersionedSchemas(bundle)
  } catch (error) {
    if (error instanceof InvalidGenerationInstructionError) return error
    throw error
  }
  throw new Error('expected an InvalidGenerationInstructionError, generation succeeded')
}

interface Case {
  /** The version change class name. */
  change: string
  instruction: () => Instruction
  /** Fragments the message must contain, besides the class name and the version. */
  names: string[]
}

/** Checks each case: code, class, and a message naming the change, the version, the schema and the field. */
async function checkCases (t: Test, cases: Case[]): Promise<void> {
  for (const { change, instruction, names } of cases) {
    const built = instruction()
    const bundle = bundleWith([built], change)
    const error = generationError(bundle)
    t.equal(error.code, CODE, change)
    t.equal(error.statusCode, 500)
    t.match(error.message, `${built.display} in version change '${change}' (version '${LATEST}'): `, `${change}: instruction, change, version`)
    for (const name of names) t.match(error.message, name, `${change}: names ${name}`)
  }
}

const User = Type.Object({
  id: Type.String(),
  name: Type.String({ minLength: 2, description: 'the name' }),
  nickname: Type.Optional(Type.String())
}, { $id: 'User' })

test('field instructions on a field the schema does not have', async (t) => {
  await checkCases(t, [
    // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
    { change: 'HadOnMissing', instruction: () => schema(User).field('email').had({ name: 'mail' }), names: ["'User' has no field 'email' (its fields are id, name, nickname)"] },
    // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
    { change: 'DidntHaveOnMissing', instruction: () => schema(User).field('email').didntHave('format'), names: ["'User' has no field 'email'"] },
    // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
    { change: 'DidntExistOnMissing', instruction: () => schema(User).field('email').didntExist, names: ["'User' has no field 'email'"] },
    {
      change: 'MissingInEmpty',
      // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
      instruction: () => schema(Type.Object({}, { $id: 'Empty' })).field('x').didntExist,
      names: ["schema(Empty).field('x')", "'Empty' has no field 'x' (it has no fields)"]
    }
  ])
})

test('field instructions that change nothing', async (t) => {
  await checkCases(t, [
    { change: 'SameName', instruction: () => schema(User).field('name').had({ name: 'name' }), names: ["the field 'name' of 'User' already has the name 'name'"] },
    {
      change: 'SameType',
      instruction: () => schema(User).field('id').had({ type: Type.String() }),
      names: ["schema(User).field('id')", "the field 'id' of 'User' already has type String"]
    },
    {
      change: 'SameTypeButAnnotations',
      instruction: () => schema(User).field('name').had({ type: Type.String({ minLength: 2, description: 'other' }) }),
      names: ["the field 'name' of 'User' already has type String"]
    },
    {
      change: 'SameKeyword',
      instruction: () => schema(User).field('name').had({ minLength: 2 }),
      names: ["the keyword 'minLength' of field 'name' of 'User' already is 2"]
    },
    {
      change: 'SameOptional',
      instruction: () => schema(User).field('nickname').had({ optional: true }),
      names: ["the field 'nickname' of 'User' already is optional"]
    },
    {
      change: 'SameRequired',
      instruction: () => schema(User).field('id').had({ optional: false }),
      names: ["the field 'id' of 'User' already is required"]
    },
    {
      change: 'AbsentKeyword',
      instruction: () => schema(User).field('name').didntHave('maxLength'),
      names: ["schema(User).field('name').didntHave('maxLength')", "the field 'name' already lacks the keyword 'maxLength'"]
    },
    {
      change: 'RenameOntoExisting',
      instruction: () => schema(User).field('name').had({ name: 'nickname' }),
      names: ["schema(User).field('name')", "'User' already has a field 'nickname'; a field cannot be renamed onto it"]
    },
    {
      change: 'ExistedAsExisting',
      instruction: () => schema(User).field('nickname').existedAs({ type: Type.Integer() }),
      names: ["schema(User).field('nickname')", "'User' already has a field 'nickname'"]
    }
  ])
})

test('schema renames that cannot apply', async (t) => {
  await checkCases(t, [
    {
      change: 'RenameWithoutId',
      instruction: () => schema(Type.Object({ street: Type.String() })).had({ name: 'Address' }),
      names: ['schema(Object { street })', 'has no $id, so it has no name to change']
    },
    { change: 'RenameToSameName', instruction: () => schema(User).had({ name: 'User' }), names: ["'User' already has the name 'User'"] }
  ])
})

test('schema annotations that change nothing', async (t) => {
  const Described = Type.Object({ id: Type.String() }, { $id: 'Described', description: 'A thing.', examples: [{ id: 'a' }] })
  await checkCases(t, [
    {
      change: 'SameDescription',
      instruction: () => schema(Described).had({ description: 'A thing.' }),
      names: ["'Described' already has the description 'A thing.'"]
    },
    {
      change: 'SameExamples',
      instruction: () => schema(Described).had({ examples: [{ id: 'a' }] }),
      names: ["'Described' already has the examples [{ id: 'a' }]"]
    }
  ])
  // Each attribute is checked: a new name does not excuse an unchanged annotation.
  const bundle = bundleWith([schema(Described).had({ name: 'Thing', description: 'A thing.' })], 'RenameKeepDescription')
  t.match(generationError(bundle).message, "'Described' already has the description 'A thing.'")
  // After a change, the same value again in an older version changes nothing.
  const twice = new VersionBundle(new HeadVersion(), new Version('2002-01-01', changeClass('First', [schema(Described).had({ title: 'Old' })])),
    new Version('2001-01-01', changeClass('Again', [schema(Described).had({ title: 'Old' })])), new Version('2000-01-01'))
  t.match(generationError(twice).message, "schema(Described).had({ title: 'Old' }) in version change 'Again' (version '2001-01-01'): 'Described' already has the title 'Old'")
})

test('instructions on the wrong kind of schema', async (t) => {
  const Tags = Type.Array(Type.String(), { $id: 'Tags' })
  const Status = Type.Union([Type.Literal('on'), Type.Literal('off')], { $id: 'Status' })
  const rule = defineValidator('rule', { required: ['x'] })
  await checkCases(t, [
    {
      change: 'FieldOnArray',
      instruction: () => schema(Tags).field('length').didntExist,
      names: ["schema(Tags).field('length')", "'Tags' is not an object schema, so it has no fields or validators"]
    },
    {
      change: 'FieldOnEnum',
      instruction: () => schema(Status).field('on').had({ description: 'x' }),
      names: ["schema(Status).field('on')", "'Status' is not an object schema"]
    },
    {
      change: 'ValidatorOnArray',
      instruction: () => schema(Tags).validator(rule).existed,
      names: ["schema(Tags).validator('rule')", "'Tags' is not an object schema"]
    },
    {
      change: 'EnumOnObject',
      instruction: () => enumeration(User).didntHave('id'),
      names: ["enumeration(User).didntHave('id')", "'User' is not an enum"]
    },
    {
      change: 'EnumOnString',
      instruction: () => enumeration(Type.String({ $id: 'Code' })).had({ x: 'x' }),
      names: ["'Code' is not an enum"]
    }
  ])
})

test("regression: an instruction on a Type.Module import was refused as on 'schema', not an object schema, without saying why or what to write", async (t) => {
  const Module = Type.Module({ Person: Type.Object({ name: Type.String() }), Level: Type.Union([Type.Literal('a'), Type.Literal('b')]) })
  // Typed as any schema: the compiler finds a TImport too deep to check against TSchema.
  const importOf = Module.Import.bind(Module) as unknown as (key: string) => TSchema
  const Person = importOf('Person')
  const Level = importOf('Level')
  const advice = "is a Type.Module import (a $ref to 'NAME' in its module's $defs), which instructions cannot edit: declare it " +
    "outside Type.Module (Type.Object or Type.Union, with an $id; share it with Type.Ref('NAME') and app.addSchema)"
  await checkCases(t, [
    {
      change: 'FieldOnImport',
      instruction: () => schema(Person).field('name').had({ name: 'fullName' }),
      names: [`'Person' ${advice.replaceAll('NAME', 'Person')}`]
    },
    {
      change: 'EnumOnImport',
      instruction: () => enumeration(Level).didntHave('b'),
      names: [`'Level' ${advice.replaceAll('NAME', 'Level')}`]
    }
  ])
})

test('enum members that are absent or already present', async (t) => {
  const Status = Type.Union([Type.Literal('on'), Type.Literal('off')], { $id: 'Status' })
  const Size = Type.String({ enum: ['s', 'm'], $id: 'Size' })
  await checkCases(t, [
    {
      change: 'MemberAbsent',
      instruction: () => enumeration(Status).didntHave('on', 'paused'),
      names: ["enumeration(Status).didntHave('on', 'paused')", "'Status' has no member 'paused' (its members are off)"]
    },
    {
      change: 'MemberValuePresent',
      instruction: () => enumeration(Status).had({ enabled: 'on' }),
      names: ["enumeration(Status).had({ enabled: 'on' })", "'Status' already has a member with the value 'on'"]
    },
    {
      change: 'SameMemberValue',
      instruction: () => enumeration(Size).had({ m: 'm' }),
      names: ["'Size' already has a member with the value 'm'"]
    },
    { change: 'KeywordMemberAbsent', instruction: () => enumeration(Size).didntHave('xl'), names: ["'Size' has no member 'xl' (its members are s, m)"] }
  ])
})

test('validators already present, absent, or inherited', async (t) => {
  const rule = defineValidator('nameNotId', { not: { required: ['nameIsId'] } })
  const Parent = withValidators(Type.Object({ name: Type.String() }, { $id: 'Parent' }), rule)
  const Child = extendSchema(Parent, { id: Type.String() }, { $id: 'Child' })
  await checkCases(t, [
    {
      change: 'ValidatorPresent',
      instruction: () => schema(Parent).validator(rule).existed,
      names: ["schema(Parent).validator('nameNotId').existed", "'Parent' already has a validator named 'nameNotId'"]
    },
    {
      change: 'ValidatorPresentInherited',
      instruction: () => schema(Child).validator(rule).existed,
      names: ["schema(Child).validator('nameNotId').existed", "'Child' already has a validator named 'nameNotId'"]
    },
    {
      change: 'ValidatorAbsent',
      instruction: () => schema(User).validator('nameNotId').didntExist,
      names: ["schema(User).validator('nameNotId').didntExist", "'User' has no validator named 'nameNotId'"]
    },
    {
      change: 'ValidatorInherited',
      instruction: () => schema(Child).validator('nameNotId').didntExist,
      names: ["schema(Child).validator('nameNotId').didntExist", "the validator 'nameNotId' is inherited; remove it from the parent schema instead"]
    }
  ])
})

test('didntExist on an inherited field points to the parent', async (t) => {
  const Parent = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Parent' })
  const Child = extendSchema(Parent, { email: Type.String() }, { $id: 'Child' })
  await checkCases(t, [{
    change: 'RemoveInherited',
    instruction: () => schema(Child).field('name').didntExist,
    names: ["schema(Child).field('name').didntExist", "the field 'name' is inherited from the parent schema 'Parent' (extendSchema); apply the instruction to the parent"]
  }])
  const bundle = bundleWith([schema(Parent).field('name').didntExist, schema(Child).field('email').didntExist], 'RemoveOnParentAndOwn')
  const old = generateVersionedSchemas(bundle).get('2000-01-01').get(Child)
  t.strictSame(Object.keys((old as unknown as { properties: object }).properties), ['id'], 'the same removal on the parent works')
})

test('errors name HeadVersion, or the version holding the change, and surface at generation only', async (t) => {
  const Invoice = Type.Object({ total: Type.Number(), currency: Type.String() }, { $id: 'Invoice' })
  class HeadRemovesTax extends VersionChange {
    description = 'HEAD has a tax field that is not public yet.'
    // @ts-expect-error: not a field of the HEAD schema (the compiler refuses it too)
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('tax').didntExist]
  }
  const headBundle = new VersionBundle(new HeadVersion(HeadRemovesTax), new Version('2001-01-01'))
  const headError = generationError(headBundle)
  t.equal(headError.code, CODE)
  t.match(headError.message, "schema(Invoice).field('tax').didntExist in version change 'HeadRemovesTax' (version 'HeadVersion'): " +
    "'Invoice' has no field 'tax' (its fields are total, currency)")

  class CurrencyAdded extends VersionChange {
    description = 'Invoice.currency was added.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('currency').didntExist]
  }
  class CurrencyHadDefault extends VersionChange {
    description = 'Invoice.currency lost its default.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('currency').had({ default: 'EUR' })]
  }
  const bundle = new VersionBundle(new Version('2002-01-01', CurrencyAdded), new Version('2001-01-01', CurrencyHadDefault), new Version('2000-01-01'))
  t.same(bundle.versionValues, ['2002-01-01', '2001-01-01', '2000-01-01'], 'the bundle itself is valid')
  const error = generationError(bundle)
  t.equal(error.code, CODE)
  t.match(error.message, "schema(Invoice).field('currency').had({ default: 'EUR' }) in version change 'CurrencyHadDefault' (version '2001-01-01'): " +
    "'Invoice' has no field 'currency' (its fields are total)", 'an older change sees the schema as the newer changes left it')
})

test('renaming a schema onto the name of another versioned schema is an error naming both', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const Location = Type.Object({ lat: Type.Number() }, { $id: 'Location' })
  const bundle = bundleWith([schema(Address).had({ name: 'Location' }), schema(Location).field('lat').had({ minimum: -90 })], 'AddressWasLocation')
  const error = generationError(bundle)
  t.equal(error.code, CODE)
  t.match(error.message, "schema(Address).had({ name: 'Location' }) in version change 'AddressWasLocation'")
  t.match(error.message, "another schema is already named 'Location' in this version (Location)")
})

/** A bundle 2002-01-01 → 2001-01-01 → 2000-01-01 whose two newer versions hold one change each. */
function threeVersions (name: string, newest: Instruction[], middle: Instruction[]): VersionBundle {
  return new VersionBundle(
    new HeadVersion(),
    new Version('2002-01-01', changeClass(`${name}Newest`, newest)),
    new Version('2001-01-01', changeClass(`${name}Middle`, middle)),
    new Version('2000-01-01')
  )
}

test('regression: version values that become the same $id part are rejected, naming both', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('a/b'), new Version('a_b')),
    "Version values 'a/b' and 'a_b' both become 'a_b' in the $id of generated schemas")
  t.ok(new VersionBundle(new Version('a/b'), new Version('a.b')), 'values that stay apart are fine')
})

test('regression: didntExist on a field inherited from a grandparent names the schema that declares it', async (t) => {
  const Base = Type.Object({ id: Type.String() }, { $id: 'Base' })
  const Middle = extendSchema(Base, { name: Type.String() }, { $id: 'Middle' })
  const Leaf = extendSchema(Middle, { email: Type.String() }, { $id: 'Leaf' })
  const error = caught(() => generateVersionedSchemas(threeVersions('RemoveGrandparentField', [schema(Leaf).field('id').didntExist], [])))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.match(error?.message, "the field 'id' is inherited from 'Base', an ancestor of the parent schema 'Middle' (extendSchema); apply the instruction to 'Base'.")
  const direct = caught(() => generateVersionedSchemas(threeVersions('RemoveParentField', [schema(Leaf).field('name').didntExist], [])))
  t.match(direct?.message, "the field 'name' is inherited from the parent schema 'Middle' (extendSchema); apply the instruction to the parent.")
})

test('regression: a $ref in an instruction\'s type that names no schema failed every request of the version (a 500), not app.ready()', async (t) => {
  const Address = Type.Object({ street: Type.String(), zip: Type.String() }, { $id: 'Address' })
  const Customer = Type.Object({ id: Type.String(), address: Type.String() }, { $id: 'Customer' })
  const cases = [
    { type: Type.Ref(Address), shared: [], ref: 'Address' },
    { type: Type.Object({ home: Type.Ref('Adress') }), shared: [Address], ref: 'Adress' },
    { type: Type.Unsafe({ $ref: 'Address#/properties/city' }), shared: [Address], ref: 'Address#/properties/city' }
  ]
  for (const { type, shared, ref } of cases) {
    const versions = new VersionBundle(new Version(LATEST, changeClass('AddressWasAnObject', [schema(Customer).field('address').had({ type })])), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      for (const one of shared) api.addSchema(one)
      api.post('/customers', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
    })
    const error = await rejection(() => app.ready())
    t.equal(error?.code, CODE, ref)
    t.match(error?.message, 'schema(Customer).field(\'address\').had(')
    t.match(error?.message, `in version change 'AddressWasAnObject' (version '${LATEST}'): its $ref '${ref}' names no schema of the application`)
  }
  const fine = new VersionBundle(new Version(LATEST, changeClass('AddressWasAnObject', [schema(Customer).field('address').had({ type: Type.Object({ home: Type.Ref(Address), zip: Type.Ref('Address#/properties/zip') }) })])), new Version('2000-01-01'))
  const app = await versionedApp(t, fine, async (api) => {
    api.addSchema(Address)
    api.post('/customers', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
  })
  t.equal(await rejection(() => app.ready()), undefined, 'references that resolve (a pointer into a shared schema too) pass the check')
})

test('a field of a TypeBox 1.x schema given the type it has, written with TypeBox 0.34, changes nothing', async (t) => {
  const Account = typebox1({ $id: 'Account', type: 'object', properties: { id: typebox1({ type: 'string' }, { '~kind': 'String' }) }, required: ['id'] }, { '~kind': 'Object' })
  await checkCases(t, [{ change: 'SameTypeAcrossTypeBoxes', instruction: () => schema(Account).field('id').had({ type: Type.String() }), names: ["the field 'id' of 'Account' already has type String"] }])
})
