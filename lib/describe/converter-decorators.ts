/**
 * The converter decorators and the one reader of what they record. A decorator only writes metadata under a symbol
 * key (legacy or TC39 decorators alike); nothing reads `design:*` metadata, which tsx and esbuild never emit.
 * @module
 */
import 'reflect-metadata'
import type { RequestInfo, ResponseInfo } from './converter-info'
import { VersionerStructureError } from '../core/errors'
import type { HttpMethod } from '../core/http-methods'
import { describeValue, type SchemaLike } from '../core/json-schema'
import { kConverters } from '../core/symbols'
import { ANOTHER_COPY, hasKeyOfAnotherCopy } from '../core/other-copies'
import { handCallMisuse, parameterOf } from './hand-called-decorators'
import {
  parseDeclaration, schemaKey, type ConverterDeclaration, type RequestConverterOptions, type ResponseConverterOptions,
  type ResponsePathConverterOptions
} from './converter-arguments'

// Node 20 has no Symbol.metadata; TypeScript and esbuild pass `context.metadata` only when it exists.
;(Symbol as any).metadata ??= Symbol.for('Symbol.metadata')

/** One converter, as read from a version change class. */
export interface ConverterEntry extends ConverterDeclaration {
  readonly methodName: string | symbol
  readonly isStatic: boolean
}

/**
 * A method decorator for converters, usable with `experimentalDecorators` and with standard decorators.
 * The decorated method takes exactly one parameter.
 * @example
 * ```ts
 * const UserResource = Type.Object({ id: Type.String() }, { $id: 'UserResource' })
 * // Our converters of user responses also run on error responses
 * function ForUserResponses (): ConverterDecorator<ResponseInfo<never>> {
 *   return ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true })
 * }
 * class PrefixedUserIds extends VersionChange {
 *   description = 'User ids start with usr_.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ForUserResponses()
 *   unprefixed (response: ResponseInfo) { response.body.id = response.body.id.replace(/^usr_/, '') }
 * }
 * ```
 */
export interface ConverterDecorator<Info> {
  <This, Method extends (this: This, info: Info) => unknown>(value: Method & ExactlyOneParameter<Method>, context: ClassMethodDecoratorContext<This, Method>): void
  <Method extends (info: Info) => unknown>(
    target: object, propertyKey: string | symbol, descriptor?: TypedPropertyDescriptor<Method> & ExactlyOneParameter<Method>
  ): void
}

/** Rejects (at compile time) a converter method that does not take exactly one parameter. */
type ExactlyOneParameter<Method extends (...args: never[]) => unknown> =
  Parameters<Method> extends [unknown] ? unknown : { readonly 'a converter takes exactly one parameter': never }

function checkArity (method: unknown, where: string, direction: 'request' | 'response'): void {
  const parameter = parameterOf(direction)
  if (typeof method !== 'function') {
    throw new VersionerStructureError(`Converter '${where}' is not a method; converters must be methods taking one parameter: ${parameter}.`)
  }
  if (method.length !== 1) {
    throw new VersionerStructureError(`Converter method '${where}' must have exactly 1 parameter: ${parameter}; it has ${method.length}` +
      `${method.length === 0 ? ' (JavaScript does not count a parameter with a default value, nor a rest parameter)' : ''}.`)
  }
}

function isDecoratorContext (value: unknown): value is DecoratorContext {
  return typeof value === 'object' && value !== null && 'kind' in value && 'name' in value
}

function makeDecorator<Info> (declaration: ConverterDeclaration): ConverterDecorator<Info> {
  function decorate (targetOrValue: unknown, keyOrContext: unknown, descriptor?: PropertyDescriptor): void {
    if (isDecoratorContext(keyOrContext)) {
      const context = keyOrContext
      const where = String(context.name)
      if (context.kind !== 'method') {
        throw new VersionerStructureError(`Converter decorators apply to methods; '${where}' is a ${context.kind}.`)
      }
      if (context.private) throw new VersionerStructureError(`Converter method '${where}' must not be private (#name).`)
      checkArity(targetOrValue, where, declaration.direction)
      const metadata = context.metadata as Record<symbol, unknown> | undefined
      if (metadata === undefined) {
        throw new VersionerStructureError(`Converter '${where}': the decorator received no metadata object: the compiler implements standard ` +
          "decorators without decorator metadata (TypeScript before 5.2, Babel's or SWC's 2022-03 decorators); use TypeScript 5.2 or later, " +
          "or experimentalDecorators; under Babel, its decorators plugin's `version: '2023-11'` (or `legacy: true`).")
      }
      if (!Object.hasOwn(metadata, kConverters)) metadata[kConverters] = []
      ;(metadata[kConverters] as ConverterEntry[]).push({ ...declaration, methodName: context.name, isStatic: context.static })
      return
    }
    const misuse = handCallMisuse(targetOrValue, keyOrContext, declaration.direction)
    if (misuse !== undefined) throw new VersionerStructureError(misuse)
    const target = targetOrValue as object & Record<string | symbol, unknown>
    const key = keyOrContext as string | symbol
    const isStatic = typeof target === 'function'
    const owner = (isStatic ? target : target.constructor) as object & { name?: string }
    const where = `${owner.name ?? 'anonymous'}.${String(key)}`
    // Read without calling an accessor (JavaScript by hand passes no descriptor).
    const own = descriptor ?? Object.getOwnPropertyDescriptor(target, key)
    if (own?.get !== undefined || own?.set !== undefined) {
      throw new VersionerStructureError(`Converter decorators apply to methods; '${where}' is a ${own.get !== undefined ? 'getter' : 'setter'}.`)
    }
    checkArity(own?.value, where, declaration.direction)
    const list = (Reflect.getOwnMetadata(kConverters, owner) ?? []) as ConverterEntry[]
    Reflect.defineMetadata(kConverters, [...list, { ...declaration, methodName: key, isStatic }], owner)
  }
  return decorate as ConverterDecorator<Info>
}

/**
 * Declares a request converter: it turns a request of the version before the change into a request of the
 * version with the change. By schema, it applies to every route whose request body uses one of the schemas
 * (nested, in arrays or unions too); by path and methods, to that route (matched by its HEAD route).
 * @example
 * ```ts
 * const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'UserCreateRequest' })
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses.'
 *   instructionsToMigrateToPreviousVersion = [schema(UserCreateRequest).field('addresses').had({ name: 'address', type: Type.String() })]
 *
 *   @ ConvertRequestToNextVersionFor(UserCreateRequest)
 *   addressToList (request: RequestInfo) {
 *     request.body.addresses = [request.body.address]
 *     delete request.body.address
 *   }
 *
 *   @ ConvertRequestToNextVersionFor('/users/:id', ['PUT'])
 *   emailOnUpdate (request: RequestInfo) { request.queryParams.notify = request.queryParams.sendEmail }
 * }
 * ```
 */
export function ConvertRequestToNextVersionFor (schema: SchemaLike, ...more: SchemaLike[]): ConverterDecorator<RequestInfo<never>>
export function ConvertRequestToNextVersionFor (
  schema: SchemaLike, ...more: [...SchemaLike[], RequestConverterOptions]
): ConverterDecorator<RequestInfo<never>>
export function ConvertRequestToNextVersionFor (path: string, methods: HttpMethod | Lowercase<HttpMethod> | ReadonlyArray<HttpMethod | Lowercase<HttpMethod>>): ConverterDecorator<RequestInfo<never>>
export function ConvertRequestToNextVersionFor (...args: unknown[]): ConverterDecorator<RequestInfo<never>> {
  return makeDecorator(parseDeclaration('request', args))
}

/**
 * Declares a response converter: it turns a response of the version with the change into a response of the
 * version before it. By schema, it applies to every route whose response uses one of the schemas (nested,
 * in arrays or unions too); by path and methods, to that route. Error responses (status ≥ 300) reach it only
 * with `migrateHttpErrors: true`.
 * @example
 * ```ts
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses; an unknown user is 404, not 401.'
 *   instructionsToMigrateToPreviousVersion = [schema(UserResource).field('addresses').had({ name: 'address', type: Type.String() })]
 *
 *   @ ConvertResponseToPreviousVersionFor(UserResource)
 *   addressesToSingleItem (response: ResponseInfo) {
 *     response.body.address = response.body.addresses[0]
 *     delete response.body.addresses
 *   }
 *
 *   @ ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
 *   notFoundWasUnauthorized (response: ResponseInfo) { if (response.statusCode === 404) response.statusCode = 401 }
 * }
 * ```
 */
export function ConvertResponseToPreviousVersionFor (schema: SchemaLike, ...more: SchemaLike[]): ConverterDecorator<ResponseInfo<never>>
export function ConvertResponseToPreviousVersionFor (
  schema: SchemaLike, ...more: [...SchemaLike[], ResponseConverterOptions]
): ConverterDecorator<ResponseInfo<never>>
export function ConvertResponseToPreviousVersionFor (
  path: string,
  methods: HttpMethod | Lowercase<HttpMethod> | ReadonlyArray<HttpMethod | Lowercase<HttpMethod>>,
  options?: ResponsePathConverterOptions
): ConverterDecorator<ResponseInfo<never>>
export function ConvertResponseToPreviousVersionFor (...args: unknown[]): ConverterDecorator<ResponseInfo<never>> {
  return makeDecorator(parseDeclaration('response', args))
}

/**
 * The converters declared on a version change class, in declaration order: instance methods (symbol-named last),
 * then static ones; several decorators on one method as written.
 */
export function readConverters (cls: abstract new () => unknown): ConverterEntry[] {
  const legacy = (Reflect.getOwnMetadata(kConverters, cls) ?? []) as ConverterEntry[]
  const metadataKey = (Symbol as unknown as { metadata: symbol }).metadata
  const metadata = Object.hasOwn(cls, metadataKey) ? (cls as unknown as Record<symbol, Record<symbol, unknown> | undefined>)[metadataKey] : undefined
  const standard = metadata !== undefined && Object.hasOwn(metadata, kConverters) ? metadata[kConverters] as ConverterEntry[] : []
  if (hasKeyOfAnotherCopy([...Reflect.getOwnMetadataKeys(cls), ...Object.getOwnPropertySymbols(metadata ?? {})], kConverters)) {
    throw new VersionerStructureError(`Version change '${cls.name}': its converters are decorated with the decorators ${ANOTHER_COPY}.`)
  }
  // As JavaScript lists own keys: symbol-named methods after the others, each kind in the order declared.
  const instanceOrder = Reflect.ownKeys(cls.prototype)
  const staticOrder = Reflect.ownKeys(cls)
  const position = (entry: ConverterEntry): number => {
    const order = entry.isStatic ? staticOrder : instanceOrder
    const index = order.indexOf(entry.methodName)
    return (entry.isStatic ? 1_000_000 : 0) + (index === -1 ? 999_999 : index)
  }
  // Decorators on one method are applied bottom-up; reversing restores the order they are written in (sort is stable).
  const entries = [...legacy, ...standard].reverse().sort((a, b) => position(a) - position(b))
  refuseTwice(entries, cls.name)
  return entries
}

/** Throws for a method declared twice in one direction for one schema or route: it would run twice on each occurrence. */
function refuseTwice (entries: readonly ConverterEntry[], className: string): void {
  const targets = new Map<string, Set<unknown>>()
  for (const { direction, isStatic, methodName, target } of entries) {
    const key = `${direction} ${isStatic ? 'static ' : ''}${String(methodName)}`
    const seen = targets.get(key) ?? new Set()
    targets.set(key, seen)
    for (const one of target.kind === 'schema' ? target.schemas : target.methods.map((method) => `${method} ${target.path}`)) {
      const key = typeof one === 'string' ? one : schemaKey(one)
      if (seen.has(key)) {
        throw new VersionerStructureError(`Converter '${className}.${String(methodName)}' is declared twice for ` +
          `${typeof one === 'string' ? one : describeValue(one)}: it would run twice on each occurrence.`)
      }
      seen.add(key)
    }
  }
}
