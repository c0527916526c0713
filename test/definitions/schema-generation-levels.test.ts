import { test, type Test } from 'tap'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import { generateVersionedSchemas, HeadVersion, schema, Version, VersionBundle, type Instruction } from '../../plugin'
import { changeClass } from '../helpers/version-changes'

// A level whose instructions change none of the schemas a form depends on keeps the form of the level before it
// without recomputing it (SchemaGeneration.formAt). These properties check that shortcut against what each
// version must look like, whatever order the forms are asked for in: nested schemas several levels deep, and a
// field added in an older version whose type a still older version changes (a form's dependencies grow).

/** Fresh HEAD schemas: Address inside Person inside Team (an array and an optional field), Pet added to Person later. */
function schemas (): Record<'Address' | 'Pet' | 'Person' | 'Team', TSchema> {
  const Address = Type.Object({ street: Type.String({ maxLength: 10 }) }, { $id: 'Address' })
  const Pet = Type.Object({ kind: Type.String({ maxLength: 10 }) }, { $id: 'Pet' })
  const Person = Type.Object({ name: Type.String({ maxLength: 10 }), address: Address }, { $id: 'Person' })
  const Team = Type.Object({ members: Type.Array(Person), lead: Type.Optional(Person), label: Type.String() }, { $id: 'Team' })
  return { Address, Pet, Person, Team }
}

/** One instruction of a version: a new maxLength for a seed's string field, or Pet added to Person. */
type Edit = { kind: 'maxLength', target: 'Address' | 'Pet' | 'Person', value: number } | { kind: 'addPet' }

const FIELD = { Address: 'street', Pet: 'kind', Person: 'name' } as const

const editArbitrary: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('maxLength' as const), target: fc.constantFrom('Address' as const, 'Pet' as const, 'Person' as const), value: fc.integer({ min: 11, max: 99 }) }),
  fc.constant({ kind: 'addPet' as const })
)

interface Case {
  /** Per version but the oldest, newest first: its edits (at most one per target). */
  versions: Edit[][]
  /** The order forms are asked for in: [schema, level]. */
  order: Array<['Address' | 'Pet' | 'Person' | 'Team', number]>
}

const caseArbitrary: fc.Arbitrary<Case> = fc.array(fc.uniqueArray(editArbitrary, { selector: (edit) => edit.kind === 'addPet' ? 'pet' : edit.target, maxLength: 3 }), { minLength: 1, maxLength: 7 })
  .chain((versions) => fc.record({
    versions: fc.constant(versions),
    order: fc.array(fc.tuple(fc.constantFrom('Address' as const, 'Pet' as const, 'Person' as const, 'Team' as const), fc.integer({ min: 1, max: versions.length + 1 })), { minLength: 1, maxLength: 30 })
  }))

/** What each version must look like: a field's maxLength and whether Person has pet, per level (1 = latest). */
function expected (versions: Edit[][]): Array<{ maxLength: Record<'Address' | 'Pet' | 'Person', number>, pet: boolean }> {
  const levels = []
  let state = { maxLength: { Address: 10, Pet: 10, Person: 10 }, pet: false }
  levels.push(state, state)
  for (const edits of versions) {
    state = { maxLength: { ...state.maxLength }, pet: state.pet }
    for (const edit of edits) {
      if (edit.kind === 'addPet') state.pet = true
      else state.maxLength[edit.target] = edit.value
    }
    levels.push(state)
  }
  return levels
}

function build (versions: Edit[][]): { bundle: VersionBundle, heads: ReturnType<typeof schemas>, valid: boolean } {
  const heads = schemas()
  let petAdded = false
  let valid = true
  const current = { Address: 10, Pet: 10, Person: 10 }
  const versionList = versions.map((edits, index) => {
    const instructions: Instruction[] = []
    for (const edit of edits) {
      if (edit.kind === 'addPet') {
        // Added once: an older version cannot add a field an older one already has.
        if (petAdded) valid = false
        petAdded = true
        instructions.push(schema(heads.Person).field('pet').existedAs({ type: Type.Optional(heads.Pet) }))
      } else {
        // An instruction must change something.
        if (current[edit.target] === edit.value) valid = false
        current[edit.target] = edit.value
        instructions.push(schema(heads[edit.target]).field(FIELD[edit.target]).had({ maxLength: edit.value }))
      }
    }
    return new Version(`2000-01-${String(30 - index).padStart(2, '0')}`, changeClass(`Change${index}`, instructions))
  })
  return { bundle: new VersionBundle(new HeadVersion(), ...versionList, new Version('1999-01-01')), heads, valid }
}

interface Node { properties?: Record<string, Node>, items?: Node, maxLength?: number }

/** Checks one form of one schema against the expected state of its level. */
function check (t: Test, name: string, form: Node, level: ReturnType<typeof expected>[number], where: string): boolean {
  const person = (node: Node | undefined, at: string): boolean => {
    if (node?.properties === undefined) return t.fail(`${at}: a Person form`)
    const own = node.properties.name.maxLength === level.maxLength.Person
    const address = node.properties.address.properties?.street.maxLength === level.maxLength.Address
    const pet = level.pet
      ? node.properties.pet?.properties?.kind.maxLength === level.maxLength.Pet
      : node.properties.pet === undefined
    return own && address && pet
  }
  switch (name) {
    case 'Address': return form.properties?.street.maxLength === level.maxLength.Address
    case 'Pet': return form.properties?.kind.maxLength === level.maxLength.Pet
    case 'Person': return person(form, where)
    default: return person(form.properties?.members.items, `${where} members`) && person(form.properties?.lead, `${where} lead`)
  }
}

test('forms are right at every level whatever order they are asked for in (nested seeds, dependencies that grow)', async (t) => {
  let checked = 0
  fc.assert(fc.property(caseArbitrary, ({ versions, order }) => {
    const { bundle, heads, valid } = build(versions)
    fc.pre(valid)
    const generated = generateVersionedSchemas(bundle)
    const values = generated.versions
    const levels = expected(versions)
    for (const [name, level] of order) {
      const form = generated.get(values[level - 1]).get(heads[name]) as Node
      checked++
      if (!check(t, name, form, levels[level], `${name} at level ${level}`)) return false
      // A form that nothing changed is the form of the newer level: the same object.
      if (level > 1 && JSON.stringify(levels[level]) === JSON.stringify(levels[level - 1])) {
        if (generated.get(values[level - 2]).get(heads[name]) !== generated.get(values[level - 1]).get(heads[name])) return false
      }
    }
    return true
  }), { numRuns: 300 })
  t.ok(checked > 300, `${checked} forms checked`)
})

test('a field added in an older version follows the changes of its type in still older versions', async (t) => {
  const { bundle, heads } = build([[{ kind: 'addPet' }], [], [{ kind: 'maxLength', target: 'Pet', value: 42 }], []])
  const generated = generateVersionedSchemas(bundle)
  const values = generated.versions
  // Asked oldest first, then newest first: Team's form must not keep a stale Pet.
  const pet = (level: number): unknown => ((generated.get(values[level - 1]).get(heads.Team) as Node).properties?.lead.properties?.pet?.properties?.kind.maxLength)
  t.equal(pet(5), 42)
  t.equal(pet(2), 10)
  t.equal(pet(3), 10)
  t.equal(pet(4), 42)
  t.equal(pet(1), undefined, 'the latest version has no pet')
})
