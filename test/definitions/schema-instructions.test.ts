import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  defineValidator, enumeration, extendSchema, schema, VersionerStructureError, withValidators, type FieldExistedAsAttributes,
  type FieldHadAttributes, type NamedValidator
} from '../../plugin'

const STRUCTURE = 'FST_VERSIONER_STRUCTURE'
const User = Type.Object({ id: Type.String(), name: Type.String({ minLength: 2 }) }, { $id: 'User' })
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')], { $id: 'Status' })

/** Runs `fn`, expecting a VersionerStructureError, and gives it. */
function structureError (fn: () => unknown): InstanceType<typeof VersionerStructureError> {
  try {
    fn()
  } catch (error) {
    if (error instanceof VersionerStructureError) return error
    throw error
  }
  throw new Error('expected a VersionerStructureError, nothing was thrown')
}

test('schema() and enumeration() take a schema object', async (t) => {
  for (const bad of ['User', 42, null, undefined, [Type.String()]]) {
    const fromSchema = structureError(() => schema(bad as never))
    t.equal(fromSchema.code, STRUCTURE)
    t.match(fromSchema.message, /^schema\(\.\.\.\) takes a TypeBox schema/)
    const fromEnum = structureError(() => enumeration(bad as never))
    t.equal(fromEnum.code, STRUCTURE)
    t.match(fromEnum.message, /^enumeration\(\.\.\.\) takes a TypeBox schema/)
  }
  t.match(structureError(() => schema('User' as never)).message, /got 'User'/)
  t.match(structureError(() => schema(42 as never)).message, /got 42/)
})

test('field() needs a non-empty name', async (t) => {
  for (const bad of ['', '   ', 7, undefined]) {
    const error = structureError(() => schema(User).field(bad as never))
    t.equal(error.code, STRUCTURE)
    t.match(error.message, 'schema(User).field(name) must be a non-empty string')
  }
})

test('field().had() checks its attributes', async (t) => {
  const field = schema(User).field('name')
  const empty = structureError(() => field.had({}))
  t.equal(empty.code, STRUCTURE)
  t.match(empty.message, "schema(User).field('name').had({}): had() needs at least one attribute")
  t.match(structureError(() => field.had(null as never)).message, 'had() needs at least one attribute')
  t.match(structureError(() => field.had({ name: '' })).message, "schema(User).field('name').had({ name }) must be a non-empty string")
  t.match(structureError(() => field.had({ name: 3 as never })).message, 'must be a non-empty string; got 3')
  t.match(structureError(() => field.had({ type: 'string' as never })).message, "had({ type }) takes a TypeBox schema; got 'string'")
  t.match(structureError(() => field.had({ optional: 'yes' as never })).message, "had({ optional }) takes true or false; got 'yes'")
  const required = structureError(() => field.had({ required: true } as FieldHadAttributes))
  t.equal(required.code, STRUCTURE)
  t.match(required.message, "'required' is not a field keyword; use { optional: true } or { optional: false }")
  t.match(structureError(() => field.had({ minLength: undefined })).message,
    "keyword 'minLength' is undefined; to say the field lacked it, use .didntHave('minLength')")
})

test('field().didntHave() needs keyword names that are keywords', async (t) => {
  const field = schema(User).field('name')
  const empty = structureError(() => field.didntHave())
  t.equal(empty.code, STRUCTURE)
  t.match(empty.message, "schema(User).field('name').didntHave(): didntHave() needs at least one keyword name")
  for (const attribute of ['name', 'type', 'optional', 'required']) {
    const error = structureError(() => field.didntHave('minLength', attribute))
    t.equal(error.code, STRUCTURE, attribute)
    t.match(error.message, `'${attribute}' is not a keyword a field can lack`)
    t.match(error.message, '.didntExist')
  }
  t.match(structureError(() => field.didntHave('')).message, 'keyword names must be non-empty strings')
  t.match(structureError(() => field.didntHave(5 as never)).message, 'keyword names must be non-empty strings')
})

test('field().existedAs() needs a type and checks the rest', async (t) => {
  const field = schema(User).formerField('legacyId')
  const noType = structureError(() => field.existedAs({} as FieldExistedAsAttributes))
  t.equal(noType.code, STRUCTURE)
  t.match(noType.message, "schema(User).formerField('legacyId').existedAs({}): existedAs() needs { type }, a TypeBox schema")
  t.match(structureError(() => field.existedAs(undefined as never)).message, 'existedAs() needs { type }')
  t.match(structureError(() => field.existedAs({ type: 'integer' } as never)).message, 'existedAs() needs { type }')
  t.match(structureError(() => field.existedAs({ type: Type.Integer(), optional: 1 as never })).message, '{ optional } takes true or false')
  t.match(structureError(() => field.existedAs({ type: Type.Integer(), name: 'x' })).message, "existedAs() takes no name; the field is 'legacyId'")
  t.match(structureError(() => field.existedAs({ type: Type.Integer(), required: true })).message, "'required' is not a field keyword")
  t.match(structureError(() => field.existedAs({ type: Type.Integer(), minimum: undefined })).message, "keyword 'minimum' is undefined")
})

test('schema().had() takes a non-empty name and/or the annotations examples (an array), description and title (strings)', async (t) => {
  const empty = structureError(() => schema(User).had({} as never))
  t.equal(empty.code, STRUCTURE)
  t.match(empty.message, 'schema(User).had({}): schema(...).had() needs at least one of { name, examples, description, title }')
  t.match(structureError(() => schema(User).had('OldUser' as never)).message, 'needs at least one of { name, examples, description, title }')
  const extra = structureError(() => schema(User).had({ name: 'OldUser', minLength: 1 } as never))
  t.equal(extra.code, STRUCTURE)
  t.match(extra.message, 'schema(...).had() takes only { name, examples, description, title }; to change a field use schema(User).field(name).had(...) (got minLength)')
  t.match(structureError(() => schema(User).had({ name: '' })).message, 'schema(User).had({ name }) must be a non-empty string')
  const examples = structureError(() => schema(User).had({ examples: { name: 'Ada' } as never }))
  t.equal(examples.code, STRUCTURE)
  t.match(examples.message, "schema(User).had({ examples }) takes an array of example values; got { name: 'Ada' }")
  t.match(structureError(() => schema(User).had({ description: 3 as never })).message, 'schema(User).had({ description }) takes a string; got 3')
  t.match(structureError(() => schema(User).had({ title: null as never })).message, 'schema(User).had({ title }) takes a string; got null')
  t.match(structureError(() => schema(User).had({ examples: undefined } as never)).message, "schema(User).had({ examples }): 'examples' is undefined")

  const given = [{ id: 'u1', name: 'Ada' }]
  const had = schema(User).had({ examples: given, description: 'A person.' })
  t.equal(had.kind, 'schema.had')
  t.equal(had.name, undefined, 'no name: only annotations')
  t.strictSame(had.annotations, { examples: [{ id: 'u1', name: 'Ada' }], description: 'A person.' })
  t.not(had.annotations.examples, given, 'the examples are copied')
  t.ok(Object.isFrozen(had.annotations) && Object.isFrozen(had.annotations.examples), 'and frozen')
  t.strictSame(schema(User).had({ name: 'Person', title: 'Person' }).annotations, { title: 'Person' })
  t.strictSame(schema(User).had({ name: 'Person' }).annotations, {})
  t.equal(schema(Type.Object({ id: Type.String() })).had({ examples: [] }).kind, 'schema.had', 'a schema without $id can have had examples')
})

test('validator(name).existed needs the validator object; validator() needs a name', async (t) => {
  const byName = structureError(() => schema(User).validator('nameNotId').existed)
  t.equal(byName.code, STRUCTURE)
  t.match(byName.message, "schema(User).validator('nameNotId').existed needs the validator itself (made by defineValidator)")
  t.match(structureError(() => schema(User).validator('').didntExist).message, 'schema(User).validator(...) must be a non-empty string')
  t.match(structureError(() => schema(User).validator({} as NamedValidator).didntExist).message, 'must be a non-empty string')
  t.match(structureError(() => schema(User).validator({ name: 'x', fragment: 'x' } as unknown as NamedValidator).existed).message,
    'needs the validator itself')
})

test('enumeration().had() needs members with scalar values; didntHave() needs names', async (t) => {
  const empty = structureError(() => enumeration(Status).had({}))
  t.equal(empty.code, STRUCTURE)
  t.match(empty.message, 'enumeration(Status).had({}): had() needs at least one member, as { name: value }')
  t.match(structureError(() => enumeration(Status).had(null as never)).message, 'had() needs at least one member')
  for (const bad of [{}, ['a'], undefined, () => 'a', 10n]) {
    const error = structureError(() => enumeration(Status).had({ pending: bad as never }))
    t.equal(error.code, STRUCTURE)
    t.match(error.message, "member 'pending' must have a string, number, boolean or null value")
  }
  const noNames = structureError(() => enumeration(Status).didntHave())
  t.equal(noNames.code, STRUCTURE)
  t.match(noNames.message, 'enumeration(Status).didntHave(): didntHave() needs at least one member name')
  t.match(structureError(() => enumeration(Status).didntHave('active', '')).message, 'a member name must be a non-empty string')
})

test('valid instructions are frozen data that say how they were written', async (t) => {
  const validator = defineValidator('nameNotId', { not: { required: ['nameIsId'] } })
  const cases = [
    [schema(User).had({ name: 'OldUser' }), 'schema.had', "schema(User).had({ name: 'OldUser' })"],
    [schema(User).field('name').had({ name: 'fullName', minLength: 1 }), 'field.had', "schema(User).field('name').had({ name: 'fullName', minLength: 1 })"],
    [schema(User).field('name').had({ type: Type.Integer() }), 'field.had', "schema(User).field('name').had({ type: Integer })"],
    [schema(User).field('name').didntHave('minLength', 'maxLength'), 'field.didntHave', "schema(User).field('name').didntHave('minLength', 'maxLength')"],
    [schema(User).formerField('age').existedAs({ type: Type.Integer(), default: 1 }), 'field.existedAs', "schema(User).formerField('age').existedAs({ type: Integer, default: 1 })"],
    [schema(User).field('name').didntExist, 'field.didntExist', "schema(User).field('name').didntExist"],
    [schema(User).validator(validator).existed, 'validator.existed', "schema(User).validator('nameNotId').existed"],
    [schema(User).validator('nameNotId').didntExist, 'validator.didntExist', "schema(User).validator('nameNotId').didntExist"],
    [enumeration(Status).had({ pending: 'pending' }), 'enum.had', "enumeration(Status).had({ pending: 'pending' })"],
    [enumeration(Status).didntHave('archived'), 'enum.didntHave', "enumeration(Status).didntHave('archived')"]
  ] as const
  for (const [instruction, kind, display] of cases) {
    t.equal(instruction.kind, kind, display)
    t.equal(instruction.display, display)
    t.equal(String(instruction), display)
    t.ok(Object.isFrozen(instruction), `${display} is frozen`)
  }
  const had = schema(User).field('name').had({ name: 'fullName', type: Type.Integer(), optional: true, minimum: 1, description: 'd' })
  t.equal(had.name, 'fullName')
  t.equal(had.optional, true)
  t.strictSame({ ...had.keywords }, { minimum: 1, description: 'd' }, 'name, type and optional are not keywords')
  t.equal(schema(User).field('name').had({ optional: false }).optional, false, 'optional: false is accepted')
  t.equal(enumeration(Status).had({ none: null, one: 1, yes: true }).kind, 'enum.had', 'null, number and boolean members are accepted')
})

test('defineValidator, withValidators and extendSchema check their arguments', async (t) => {
  const validator = defineValidator('nameNotId', { not: { required: ['nameIsId'] } })
  t.equal(structureError(() => defineValidator('', {})).code, STRUCTURE)
  t.match(structureError(() => defineValidator('', {})).message, 'defineValidator(name, schema) needs a non-empty name')
  t.match(structureError(() => defineValidator('rule', 'x' as never)).message, "defineValidator('rule', schema) needs a JSON Schema object")
  t.match(structureError(() => defineValidator('rule', {}, { fields: [1] as never })).message, 'fields must be a list of field names')
  t.match(structureError(() => withValidators(Type.String() as never, validator)).message, 'withValidators(schema, ...) needs an object schema')
  t.match(structureError(() => withValidators(User, {} as NamedValidator)).message, 'takes validators made by defineValidator()')
  t.match(structureError(() => withValidators(withValidators(User, validator), validator)).message,
    "User already has a validator named 'nameNotId'")
  t.match(structureError(() => extendSchema(Type.String() as never, {})).message, 'extendSchema(parent, ...) needs an object schema as parent')
  t.match(structureError(() => extendSchema(User, null as never)).message, 'extendSchema(User, properties) needs an object of property schemas')
})
