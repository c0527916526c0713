/**
 * Named validators: cross-field rules attached to an object schema, which version changes can add or
 * remove by name (`schema(S).validator(name).existed / .didntExist`).
 *
 * A validator is a JSON Schema fragment the whole object must also satisfy. It is kept in the object's
 * `allOf`, so Fastify's own validator enforces it, the OpenAPI document shows it, and it costs nothing extra
 * per request. It lists the fields it is about; a version that lacks one of them (removed or renamed) is built
 * without it, and gets it back in an older version where the fields are there again.
 * @module
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { registerDerivedSchema } from './extend-schema'
import { describeSchema, isSchemaObject, type SchemaObject } from '../core/json-schema'
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

function inferFields (fragment: SchemaObject): string[] {
  const fields = new Set<string>()
  const addFieldsOf = (node: unknown): void => {
    if (!isSchemaObject(node)) return
    if (Array.isArray(node.required)) for (const key of node.required) if (typeof key === 'string') fields.add(key)
    if (isSchemaObject(node.properties)) for (const key of Object.keys(node.properties)) fields.add(key)
    if (isSchemaObject(node.dependentRequired)) {
      for (const [key, list] of Object.entries(node.dependentRequired)) {
        fields.add(key)
        if (Array.isArray(list)) for (const item of list) if (typeof item === 'string') fields.add(item)
      }
    }
    for (const keyword of ['if', 'then', 'else', 'not']) addFieldsOf(node[keyword])
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
      const list = node[keyword]
      if (Array.isArray(list)) list.forEach(addFieldsOf)
    }
  }
  addFieldsOf(fragment)
  return [...fields]
}

/**
 * Defines a named validator: a JSON Schema fragment that objects carrying it must satisfy.
 * `fields` defaults to the fields the fragment mentions (`required`, `properties`, `dependentRequired`,
 * and the same inside `if`/`then`/`else`/`not`/`anyOf`/`oneOf`/`allOf`).
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
export function defineValidator (name: string, schema: TSchema | Record<string, unknown>, options: { fields?: readonly string[] } = {}): NamedValidator {
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
 * const Booking = withValidators(Type.Object({ start: Type.String(), end: Type.String() }), endAfterStart)
 * ```
 */
export function withValidators<S extends TObject> (schema: S, ...validators: NamedValidator[]): S {
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
  const result = { ...(schema as SchemaObject), allOf: [...allOf, ...validators.map((validator) => validator.fragment)] } as unknown as S
  registerDerivedSchema(result, schema)
  return result
}
