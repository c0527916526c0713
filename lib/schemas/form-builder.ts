/**
 * How the form of a schema at a level is built once ./generation.ts finds its inputs changed.
 * @module
 */
import { Kind, type TSchema } from '@sinclair/typebox'
import { objectSchema } from '../describe/extend-schema'
import { InvalidGenerationInstructionError } from '../core/errors'
import { renameFields, validatorInVersion, type FieldRename } from '../describe/named-validators'
import { fieldsById, keywordsOf, visibleValidators } from './object-fields'
import type { EnumState, FieldState, ObjectState, SeedState } from './seeds'
import { deepEqual, idSafe, isOptional, isReadonly, isSchemaObject, nameOf, pointerKey, refId, setModifiers, withRefId, type SchemaObject } from '../core/json-schema'
import { mapSubschemas, replaceSubschemas, refersTo, rewriteSelfReferences } from '../core/subschemas'
import { kGenerated, kGivenExamples, kHeadSchema, kSchemaName } from '../core/symbols'

/** An enum's keywords in a version: a `default` the version lacks follows its rename, or goes (validation would refuse it). */
function enumTemplate (state: EnumState): SchemaObject {
  const { template, members } = state
  if (!('default' in template) || members.some((member) => deepEqual(member.value, template.default))) return template
  const { default: value, ...rest } = template
  const renamed = members.find((member) => member.head !== undefined && deepEqual(member.head, value))
  return renamed === undefined ? rest : { ...rest, default: renamed.value }
}

/** The subschema of `schema` at the JSON pointer `pointer` (`/properties/address`), if any. */
export function pointedAt (schema: TSchema, pointer: string): TSchema | undefined {
  let target: unknown = schema
  for (const segment of pointer.split('/').slice(1)) target = isSchemaObject(target) ? target[pointerKey(segment)] : undefined
  return isSchemaObject(target) ? target as TSchema : undefined
}

/** How a schema's form follows the levels. */
export type Plan =
  | { kind: 'identity' }
  | { kind: 'wrapper', base: TSchema }
  | { kind: 'state', head: TSchema }
  | { kind: 'ref', target: TSchema }
  | { kind: 'generic' }

/** What building a form reads: other forms and seed states at the same level, and the version values. */
interface FormSource {
  readonly levels: readonly string[]
  formAt: (schema: TSchema, level: number) => TSchema
  stateAt: (head: TSchema, level: number) => SeedState
}

/** Builds forms, and keeps every generated schema with an `$id` by `$id`. */
export class FormBuilder {
  readonly builtById = new Map<string, TSchema>()

  constructor (private readonly source: FormSource) {}

  /** The form of `schema` (planned as `plan`) at `level`, from its inputs at that level. */
  build (schema: TSchema, plan: Plan, level: number, inputs: readonly unknown[]): TSchema {
    switch (plan.kind) {
      case 'identity': return schema
      case 'wrapper': {
        const base = inputs[0] as TSchema
        return base === plan.base ? schema : setModifiers(base, isOptional(schema), isReadonly(schema))
      }
      case 'ref': {
        const ref = (schema as SchemaObject).$ref as string
        // A pointer into a schema (`Customer#/properties/address`): its form's subschema there, where that changed.
        if (ref.includes('#/')) {
          const pointer = ref.slice(ref.indexOf('#') + 1)
          const pointed = pointedAt(inputs[0] as TSchema, pointer)
          return pointed === undefined || pointed === pointedAt(plan.target, pointer) ? schema : pointed
        }
        const id = nameOf(inputs[0] as TSchema)
        if (id === undefined || id === refId(ref)) return schema
        return { ...(schema as SchemaObject), $ref: withRefId(ref, id) } as TSchema
      }
      case 'generic': {
        const rebuilt = this.withDiscriminator(replaceSubschemas(schema, inputs as TSchema[]), schema, level)
        const name = nameOf(schema)
        if (rebuilt === schema) return rebuilt
        return name === undefined ? { ...(rebuilt as SchemaObject), [kHeadSchema]: schema } as TSchema : this.named(rebuilt, schema, name, level)
      }
      case 'state': {
        const state = inputs[0] as SeedState
        const built = this.withAnnotations(this.buildState(state, level, plan.head), state)
        if (state.name !== undefined) return this.named(built, schema, state.name, level)
        return built === schema ? built : { ...(built as SchemaObject), [kHeadSchema]: schema } as TSchema
      }
    }
  }

  private buildState (state: SeedState, level: number, head: TSchema): TSchema {
    if (state.kind === 'object') return this.buildObject(state, level, head)
    if (state.kind === 'plain') return mapSubschemas(state.body, (sub) => this.source.formAt(sub, level))
    // Every member removed: a schema no value matches (`enum: []` and `anyOf: []` are invalid), decision 0069.
    const template = enumTemplate(state)
    if (state.members.length === 0) return { ...template, [Kind]: 'Never', not: {} } as TSchema
    return (state.form === 'union'
      ? { ...template, anyOf: state.members.map((member) => member.schema ?? literalSchema(member.value)) }
      : { ...template, enum: state.members.map((member) => member.value) }) as TSchema
  }

  /** The annotations `schema(S).had({...})` gave, over the schema's own; given `examples` are marked as such. */
  private withAnnotations (built: TSchema, state: SeedState): TSchema {
    if (Object.keys(state.annotations).length === 0) return built
    const marks = state.annotations.examples === undefined ? {} : { [kGivenExamples]: true }
    return { ...(built as SchemaObject), ...state.annotations, ...marks } as TSchema
  }

  private buildObject (state: ObjectState, level: number, head: TSchema): TSchema {
    const stateOf = (schema: TSchema): SeedState => this.source.stateAt(schema, level)
    const visible = fieldsById(head, stateOf)
    const properties: Record<string, TSchema> = Object.fromEntries([...visible.values()].map(({ key, field }) => [key, this.fieldForm(field, level)]))
    // Keywords naming fields follow their renames; a rule naming a field the version lacks is not part of it.
    const to = this.fieldRename(head, level, visible)
    const options = rulesInVersion(mapSubschemas(state.options, (sub) => this.source.formAt(sub, level)) as SchemaObject, to)
    const fields = Object.keys(properties)
    // A field the version has and HEAD lacks is a name the version takes: it joins a `propertyNames` list.
    const { propertyNames } = options
    if (isSchemaObject(propertyNames) && Array.isArray(propertyNames.enum)) {
      const headNames = Object.keys((head as SchemaObject).properties as object).map(to)
      options.propertyNames = { ...propertyNames, enum: [...propertyNames.enum, ...fields.filter((field) => !headNames.includes(field) && !(propertyNames.enum as unknown[]).includes(field))] }
    }
    const { minProperties: min, maxProperties: max } = options
    const required = fields.filter((field) => !isOptional(properties[field]))
    const list = (names: string[]): string => names.map((field) => `'${field}'`).join(', ')
    const unmet = typeof min === 'number' && min > fields.length && options.additionalProperties === false
      ? `minProperties: ${min}, and only the fields ${list(fields)} and no other`
      : typeof max === 'number' && max < required.length ? `maxProperties: ${max}, and the required fields ${list(required)}` : undefined
    if (unmet !== undefined) {
      throw new InvalidGenerationInstructionError(`${nameOf(head) ?? 'An object schema'} has ${unmet} in version '${this.source.levels[level]}': ` +
        'no body can meet both. Write the rule as a named validator (defineValidator) listing the fields it needs, which versions lacking one of them leave out.')
    }
    // A validator about a field this version lacks would reject every request: it is not part of that version.
    const has = (field: string): string | undefined => { const name = to(field); return name !== undefined && Object.hasOwn(properties, name) ? name : undefined }
    const validators = visibleValidators(state, stateOf).map((validator) => validatorInVersion(validator, has)).filter((fragment) => fragment !== undefined)
    const allOf = [...(Array.isArray(options.allOf) ? options.allOf : []), ...validators]
    const { allOf: _allOf, ...rest } = options
    const built = objectSchema(properties, { ...(allOf.length > 0 ? { ...rest, allOf } : rest), [kGenerated]: true }) as SchemaObject
    // Keywords in HEAD's order (`required` before `properties`, as TypeBox writes them): a version's document is then
    // the same bytes whether a build generates its schema or serves it as HEAD, and so is its ETag (decision 0083).
    const ordered: Record<string, unknown> = {}
    for (const key of Object.keys(head)) if (Object.hasOwn(built, key)) ordered[key] = built[key]
    return Object.assign(ordered, built) as TSchema
  }

  /** How the version at `level` names the fields of the HEAD object schema `head` (./../describe/named-validators.ts); `there` are its fields there. */
  private fieldRename (head: TSchema, level: number, there = fieldsById(head, (schema) => this.source.stateAt(schema, level))): FieldRename {
    const names = new Set([...there.values()].map(({ key }) => key))
    const headKeys = new Map([...fieldsById(head, (schema) => this.source.stateAt(schema, 0)).values()].map(({ key, field }) => [key, there.get(field.id)?.key]))
    return (field) => headKeys.has(field) ? headKeys.get(field) ?? (names.has(field) ? field : undefined) : field
  }

  /** A union's OpenAPI `discriminator` naming the tag field as its members do in the version at `level`. */
  private withDiscriminator (rebuilt: TSchema, head: TSchema, level: number): TSchema {
    const { discriminator, anyOf, oneOf } = head as SchemaObject
    if (rebuilt === head || !isSchemaObject(discriminator) || typeof discriminator.propertyName !== 'string') return rebuilt
    const tag = discriminator.propertyName
    const members = [...(Array.isArray(anyOf) ? anyOf : []), ...(Array.isArray(oneOf) ? oneOf : [])] as TSchema[]
    // A member that is a `$ref` stands for the HEAD schema its form in the version was built from.
    const headOf = (member: TSchema): TSchema => {
      const ref = (this.source.formAt(member, level) as SchemaObject).$ref
      return (typeof ref === 'string' ? this.builtById.get(refId(ref)) as SchemaObject | undefined : undefined)?.[kHeadSchema] as TSchema | undefined ?? member
    }
    const names = [...new Set(members.map((member) => this.fieldRename(headOf(member), level)(tag)))]
    if (names.length === 1 && names[0] !== undefined) return names[0] === tag ? rebuilt : { ...(rebuilt as SchemaObject), discriminator: { ...discriminator, propertyName: names[0] } } as TSchema
    const display = members.map((member) => nameOf(member) ?? 'schema').join(' | ')
    throw new InvalidGenerationInstructionError(`The discriminator of the union ${nameOf(head) ?? display} names the field '${tag}', which its members call ` +
      `${names.map((name) => name === undefined ? '(no field)' : `'${name}'`).join(', ')} in version '${this.source.levels[level]}': no one propertyName fits. ` +
      'Rename (or remove) the tag field in every member alike, or drop the discriminator and write the rule as a named validator (defineValidator).')
  }

  private fieldForm (field: FieldState, level: number): TSchema {
    const base = this.source.formAt(field.type, level)
    if (field.optional === undefined && field.unset.length === 0 && Object.keys(field.set).length === 0) return base
    const copy = keywordsOf(field, base)
    const id = nameOf(base)
    // Edited, a named schema is another schema: under the same $id as the schema itself (used elsewhere in the
    // version), one $id would name two schemas. A recursive one keeps it: its references to itself need it.
    if (id !== undefined && (field.unset.length > 0 || Object.keys(field.set).length > 0) && !refersTo(copy, id)) {
      delete copy.$id
      delete copy[kSchemaName]
      delete copy[kHeadSchema]
    }
    // Examples the field's own instructions wrote or removed are the field's, not its schema's.
    if ('examples' in field.set || field.unset.includes('examples')) {
      delete copy[kHeadSchema]
      delete copy[kGivenExamples]
    }
    return setModifiers(copy as TSchema, field.optional ?? isOptional(base), isReadonly(base))
  }

  /** Gives a rebuilt schema its versioned `$id`, its names, and points its references to itself at the new id. */
  private named (built: TSchema, head: TSchema, name: string, level: number): TSchema {
    const headId = nameOf(head)
    const base = `${idSafe(name)}__${idSafe(this.source.levels[level])}`
    // Two schemas may reach the same name (one renamed onto another's): each generated schema keeps its own $id.
    let id = base
    for (let suffix = 2; this.builtById.has(id) && (this.builtById.get(id) as SchemaObject)[kHeadSchema] !== head; suffix++) id = `${base}_${suffix}`
    const named = { ...(built as SchemaObject), $id: id, [kSchemaName]: name, [kHeadSchema]: head } as TSchema
    const result = headId === undefined ? named : rewriteSelfReferences(named, headId, id)
    this.builtById.set(id, result)
    return result
  }
}

/** Keywords of an object schema holding one rule per field, and the keywords that together make one rule. */
const PER_FIELD = ['dependencies', 'dependentRequired', 'dependentSchemas']
const RULES = [['if', 'then', 'else'], ['not'], ['anyOf'], ['oneOf'], ['propertyNames'], ['errorMessage'], ['discriminator'], ['default']]

/** An object's keywords with their rules as a version has them (./../describe/named-validators.ts renameFields). */
function rulesInVersion (options: SchemaObject, to: FieldRename): SchemaObject {
  const result: SchemaObject = { ...options }
  const groups: Array<Record<string, unknown>> = RULES.map((group) => Object.fromEntries(group.filter((keyword) => keyword in options).map((keyword) => [keyword, options[keyword]])))
  for (const keyword of PER_FIELD) {
    const entries = options[keyword]
    if (isSchemaObject(entries)) groups.push(...Object.entries(entries).map(([field, rule]) => ({ [keyword]: { [field]: rule } })))
  }
  if (Array.isArray(options.allOf)) groups.push(...options.allOf.map((fragment) => ({ allOf: [fragment] })))
  for (const keyword of [...RULES.flat(), ...PER_FIELD, 'allOf']) delete result[keyword]
  for (const group of groups) {
    const kept = renameFields(group, to) as SchemaObject | undefined
    for (const [keyword, value] of Object.entries(kept ?? {})) {
      result[keyword] = keyword === 'allOf' ? [...(result.allOf as unknown[] ?? []), ...value as unknown[]] : PER_FIELD.includes(keyword) ? { ...result[keyword] as object, ...value as object } : value
    }
  }
  return result
}

function literalSchema (value: unknown): TSchema {
  const type = value === null ? 'null' : typeof value
  return { [Kind]: 'Literal', const: value, type } as unknown as TSchema
}
