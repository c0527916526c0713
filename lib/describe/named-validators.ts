/**
 * Named validators: cross-field JSON Schema rules kept in an object's `allOf` (so Fastify enforces them), which
 * version changes add or remove by name; a version lacking one of its fields is built without it.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { describeSchema, isSchemaObject, type ObjectSchemaLike, type SchemaLike, type SchemaObject } from '../core/json-schema'
import { kNamedValidator } from '../core/symbols'

/**
 * A cross-field rule with a name, made by {@link defineValidator}.
 * @example
 * ```ts
 * const endAfterStart = defineValidator('endAfterStart', Type.Object({ end: Type.String() }), { fields: ['end'] })
 * ```
 */
export interface NamedValidator {
  /** The name instructions use. */
  readonly name: string
  /** The fields the rule is about. */
  readonly fields: readonly string[]
  /** The JSON Schema fragment the object must satisfy. */
  readonly schema: TSchema
  /** The fragment as it stands in `allOf` (the same object wherever the validator is attached). */
  readonly fragment: TSchema
}

/** How a version names a HEAD field: its name there, or `undefined` where the version lacks it. */
export type FieldRename = (field: string) => string | undefined

/** Keywords keyed by the fields of the object they apply to. */
const BY_FIELD = ['properties', 'dependencies', 'dependentRequired', 'dependentSchemas']

/**
 * A rule about the fields of its object, at any depth of its subschemas, with each field named as `to` names it;
 * `undefined` when it names a field `to` removes (a name in a list is left out instead).
 * @example
 * ```ts
 * renameFields({ dependencies: { card: ['cvc'] } }, (field) => field === 'cvc' ? 'code' : field) // { dependencies: { card: ['code'] } }
 * ```
 */
export function renameFields (node: unknown, to: FieldRename): unknown {
  if (!isSchemaObject(node)) return node
  let gone = false
  const kept = (renamed: unknown): unknown => {
    gone ||= renamed === undefined
    return renamed
  }
  const name = (field: unknown): unknown => kept(typeof field === 'string' ? to(field) : field)
  const rule = (sub: unknown): unknown => kept(renameFields(sub, to))
  const names = (entries: object): Array<[string, unknown]> => Object.entries(entries).flatMap(([key, value]) => to(key) === undefined ? [] : [[to(key) as string, value]])
  const result: SchemaObject = { ...node }
  if (Array.isArray(node.required)) result.required = node.required.map(name)
  for (const keyword of BY_FIELD) {
    const entries = node[keyword]
    if (isSchemaObject(entries)) result[keyword] = Object.fromEntries(Object.entries(entries).map(([key, value]) => [name(key), keyword === 'properties' ? value : Array.isArray(value) ? value.map(name) : rule(value)]))
  }
  for (const keyword of ['if', 'then', 'else', 'not']) if (keyword in node) result[keyword] = rule(node[keyword])
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(node[keyword])) result[keyword] = (node[keyword] as unknown[]).map(rule)
  const { propertyNames, errorMessage, discriminator } = node
  if (isSchemaObject(discriminator) && typeof discriminator.propertyName === 'string') result.discriminator = { ...discriminator, propertyName: name(discriminator.propertyName) }
  if (isSchemaObject(propertyNames) && Array.isArray(propertyNames.enum)) {
    result.propertyNames = { ...propertyNames, enum: propertyNames.enum.flatMap((key) => typeof key === 'string' ? to(key) ?? [] : [key]) }
  }
  if (isSchemaObject(node.default)) result.default = Object.fromEntries(names(node.default))
  if (isSchemaObject(errorMessage)) {
    result.errorMessage = { ...errorMessage }
    for (const keyword of ['required', 'properties', 'dependencies']) if (isSchemaObject(errorMessage[keyword])) (result.errorMessage as SchemaObject)[keyword] = Object.fromEntries(names(errorMessage[keyword] as object))
  }
  return gone ? undefined : result
}

function inferFields (fragment: SchemaObject): string[] {
  const fields = new Set<string>()
  renameFields(fragment, (field) => { fields.add(field); return field })
  return [...fields]
}

/**
 * A validator's fragment in a version naming its fields by `to` (`undefined` for a field the version lacks): the same
 * fragment where none is renamed; renamed where its fields are all read from it; else `undefined`, not part of it.
 * @example
 * ```ts
 * validatorInVersion(cardNeedsNumber, (field) => field === 'cardNumber' ? 'number' : field) // then: { required: ['number'] }
 * ```
 */
export function validatorInVersion (validator: NamedValidator, to: FieldRename): TSchema | undefined {
  const names = validator.fields.map(to)
  if (names.some((name) => name === undefined)) return undefined
  if (names.every((name, index) => name === validator.fields[index])) return validator.fragment
  const inferred = inferFields(validator.schema as SchemaObject)
  if (inferred.length !== validator.fields.length || inferred.some((field) => !validator.fields.includes(field))) return undefined
  return renameFields(validator.fragment, to) as TSchema | undefined
}

/**
 * Defines a named validator: a JSON Schema fragment that objects carrying it must satisfy.
 * `fields` defaults to the fields the fragment mentions (`required`, `properties`, `dependencies`, `dependentRequired`,
 * `dependentSchemas`, and the same inside `if`/`then`/`else`/`not`/`anyOf`/`oneOf`/`allOf`).
 * @example
 * ```ts
 * // "a card payment needs a card number"
 * const cardNeedsNumber = defineValidator('cardNeedsNumber', {
 *   if: { properties: { method: { const: 'card' } }, required: ['method'] },
 *   then: { required: ['cardNumber'] }
 * })
 * const Payment = withValidators(Type.Object({ method: Type.String(), cardNumber: Type.Optional(Type.String()) }), cardNeedsNumber)
 * ```
 */
export function defineValidator (name: string, schema: SchemaLike | Record<string, unknown>, options: { fields?: readonly string[] } = {}): NamedValidator {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new VersionerStructureError('defineValidator(name, schema) needs a non-empty name.')
  }
  if (!isSchemaObject(schema)) {
    throw new VersionerStructureError(`defineValidator('${name}', schema) needs a JSON Schema object as its rule.`)
  }
  const fields = options.fields ?? inferFields(schema)
  if (!Array.isArray(fields) || fields.some((field) => typeof field !== 'string')) {
    throw new VersionerStructureError(`defineValidator('${name}', …): fields must be a list of field names.`)
  }
  const validator = { name, fields: Object.freeze([...fields]), schema: schema as TSchema, fragment: {} as TSchema }
  validator.fragment = Object.freeze({ ...(schema as SchemaObject), [kNamedValidator]: validator }) as TSchema
  return Object.freeze(validator)
}

/** The named validator a fragment of `allOf` stands for, if it is one. */
export function validatorOfFragment (fragment: unknown): NamedValidator | undefined {
  return isSchemaObject(fragment) ? fragment[kNamedValidator] as NamedValidator | undefined : undefined
}

/** The named validators attached to `schema`, in order. */
export function validatorsOf (schema: TSchema): NamedValidator[] {
  const allOf = (schema as SchemaObject).allOf
  if (!Array.isArray(allOf)) return []
  return allOf.map(validatorOfFragment).filter((validator): validator is NamedValidator => validator !== undefined)
}

/**
 * A copy of the object schema `schema` that also carries `validators` (in its `allOf`). The original is not
 * changed; a schema made with `extendSchema` keeps its link to its parent.
 * @example
 * ```ts
 * const endNeedsStart = defineValidator('endNeedsStart', { dependentRequired: { end: ['start'] } }) // no end without a start
 * const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }), endNeedsStart)
 * ```
 */
export function withValidators<S extends ObjectSchemaLike> (schema: S, ...validators: NamedValidator[]): S {
  if (!isSchemaObject(schema) || schema.type !== 'object') {
    throw new VersionerStructureError(`withValidators(schema, ...) needs an object schema; got ${describeSchema(schema)}.`)
  }
  const existing = validatorsOf(schema).map((validator) => validator.name)
  for (const validator of validators) {
    if (!isSchemaObject(validator) || !isSchemaObject(validator.fragment) || typeof validator.name !== 'string') {
      throw new VersionerStructureError(`withValidators(${describeSchema(schema)}, ...) takes validators made by defineValidator().`)
    }
    if (existing.includes(validator.name)) {
      throw new VersionerStructureError(`${describeSchema(schema)} already has a validator named '${validator.name}'.`)
    }
    existing.push(validator.name)
  }
  const allOf = Array.isArray(schema.allOf) ? schema.allOf : []
  // The copy shares the schema's `properties`: a schema made with `extendSchema` keeps its link (./extend-schema.ts).
  return { ...(schema as SchemaObject), allOf: [...allOf, ...validators.map((validator) => validator.fragment)] } as unknown as S
}
