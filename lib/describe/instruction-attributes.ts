/**
 * What the instruction builders accept: a field's keywords and attributes, a schema's annotations and name, an
 * endpoint's attributes, and the source of a derived field.
 * @module
 */
import type { HttpMethod } from '../core/http-methods'
import type { SchemaLike } from '../core/json-schema'
import type { FieldDeprecationOptions } from './field-deprecation'

/**
 * JSON Schema keywords a field can have, change or lack in an older version. Any other keyword is allowed
 * too (it is written into the field's schema as given).
 * @example
 * ```ts
 * const shorter: FieldKeywords = { maxLength: 40, pattern: '^[a-z]+$' }
 * ```
 */
export interface FieldKeywords {
  default?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
  exclusiveMaximum?: number
  multipleOf?: number
  pattern?: string
  format?: string
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  minProperties?: number
  maxProperties?: number
  title?: string
  description?: string
  examples?: unknown[]
  /** A request that sends the field gets `Deprecation` and `Link` response headers (docs/field-deprecations.md). */
  deprecated?: boolean | FieldDeprecationOptions
  readOnly?: boolean
  writeOnly?: boolean
  nullable?: boolean
  [keyword: string]: unknown
}

/**
 * Names of {@link FieldKeywords}, for `didntHave(...)`; any other keyword name is accepted as well.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const added: FieldKeywordName[] = ['maxLength', 'pattern']
 * schema(User).field('name').didntHave(...added)
 * ```
 */
export type FieldKeywordName = Exclude<keyof FieldKeywords, number> | (string & {})

/**
 * What `schema(S).field(f).had({...})` accepts.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const before: FieldHadAttributes = { name: 'fullName', maxLength: 40 }
 * schema(User).field('name').had(before)
 * ```
 */
export interface FieldHadAttributes extends FieldKeywords {
  /** The field's name in the previous version. */
  name?: string
  /** The field's type (schema) in the previous version. */
  type?: SchemaLike
  /** Whether the field was optional (`true`) or required (`false`) in the previous version. */
  optional?: boolean
}

/**
 * What `schema(S).field(f).existedAs({...})` accepts.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const legacyId: FieldExistedAsAttributes = { type: Type.Integer(), optional: true }
 * schema(User).formerField('legacyId').existedAs(legacyId)
 * ```
 */
export interface FieldExistedAsAttributes extends FieldKeywords {
  /** The field's type (schema) in the previous version. */
  type: SchemaLike
  /** Whether the field was optional; by default it was required, unless a `default` is given. */
  optional?: boolean
}

/**
 * Route attributes an endpoint had in the previous version (`endpoint(path, methods).had({...})`).
 * @example
 * ```ts
 * const before: EndpointHadAttributes = { path: '/accounts/:id', statusCode: 200, tags: ['accounts'] }
 * endpoint('/users/:id', ['GET']).had(before)
 * ```
 */
export interface EndpointHadAttributes {
  /** The path in the previous version; its path parameters must be the same as the route's. */
  path?: string
  /** The methods in the previous version. */
  methods?: HttpMethod | Lowercase<HttpMethod> | ReadonlyArray<HttpMethod | Lowercase<HttpMethod>>
  /** The status code of a successful response in the previous version (replaces the handler's 2xx status). */
  statusCode?: number
  summary?: string
  description?: string
  tags?: string[]
  /** Whether the operation was deprecated. */
  deprecated?: boolean
  operationId?: string
  /** Whether the route was hidden from the OpenAPI document. */
  hide?: boolean
  /** Response schemas by status code in the previous version (HEAD schemas, versioned like any other). */
  response?: Record<string | number, SchemaLike>
}

/** Names accepted by {@link EndpointHadAttributes}. */
export const ENDPOINT_ATTRIBUTES = ['path', 'methods', 'statusCode', 'summary', 'description', 'tags', 'deprecated',
  'operationId', 'hide', 'response'] as const

/**
 * Object-level annotations a schema can have had in the previous version (`schema(S).had({...})`).
 * @example
 * ```ts
 * const annotations: SchemaAnnotations = { examples: [{ name: 'Ada' }], description: 'A user.', title: 'User' }
 * ```
 */
export interface SchemaAnnotations {
  /** Example values of the whole schema, as that version's clients saw them. */
  examples?: unknown[]
  description?: string
  title?: string
}

/**
 * The attributes of `schema(S).had({...})`, each optional.
 * @example
 * ```ts
 * const values: SchemaHadAttributeValues = { name: 'Person', description: 'A person.' }
 * ```
 */
export interface SchemaHadAttributeValues extends SchemaAnnotations {
  /** The schema's name (its `$id`, the OpenAPI component name) in the previous version. */
  name?: string
}

/**
 * What `schema(S).had({...})` accepts: the schema's name and/or its object-level annotations in the previous
 * version, at least one of them.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String() }, { $id: 'User' })
 * const attributes: SchemaHadAttributes = { name: 'Person', examples: [{ name: 'Ada' }] }
 * schema(User).had(attributes)
 * ```
 */
export type SchemaHadAttributes = SchemaHadAttributeValues &
  ({ name: string } | { examples: unknown[] } | { description: string } | { title: string })

/**
 * Names of {@link SchemaHadAttributes}.
 * @example
 * ```ts
 * SCHEMA_ATTRIBUTES.includes('examples') // true
 * ```
 */
export const SCHEMA_ATTRIBUTES = ['name', 'examples', 'description', 'title'] as const

/**
 * A field of another schema that holds the one a `derivedFrom` field is in (at any depth), in the previous version: a
 * field moved into a nested object (`{ schema: Customer, field: 'city' }` for `Address.city`). `through` names the
 * field of `schema` leading to the derived one, when `schema` holds it in more than one place (decision 0263).
 * @example
 * ```ts
 * const Address = Type.Object({ city: Type.String() }, { $id: 'Address' })
 * const Customer = Type.Object({ city: Type.String(), address: Address }, { $id: 'Customer' })
 * const Order = Type.Object({ billingCity: Type.String(), billing: Address, shipping: Address }, { $id: 'Order' })
 * schema(Address).field('city').derivedFrom({ schema: Customer, field: 'city' })
 * schema(Address).field('city').derivedFrom({ schema: Order, field: 'billingCity', through: 'billing' })
 * ```
 */
export interface DerivationSource {
  readonly schema: SchemaLike
  readonly field: string
  readonly through?: string
}
