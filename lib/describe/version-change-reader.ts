/**
 * The one reader of version change classes: checks a class and turns it, with its decorator metadata, into plain data.
 * @module
 */
import { readConverters, type ConverterEntry } from './converter-decorators'
import { VersionerStructureError } from '../core/errors'
import { isInstruction, type Instruction } from './instructions'
import { describeValue } from '../core/json-schema'
import { VersionChange, VersionChangeWithSideEffects } from './version-change'
import { ANOTHER_COPY, hasKeyOfAnotherCopy, ofAnotherCopy } from '../core/other-copies'
import { kInstruction } from '../core/symbols'

/**
 * A version change class: a concrete subclass of `VersionChange`.
 * @example
 * ```ts
 * class NothingChanged extends VersionChange {
 *   description = 'Nothing a client sees changed.'
 *   instructionsToMigrateToPreviousVersion = []
 * }
 * const changes: VersionChangeClass[] = [NothingChanged]
 * new Version('2001-01-01', ...changes)
 * ```
 */
export type VersionChangeClass = new () => VersionChange

/** One converter of a version change, ready to run. */
export interface ConverterDescriptor extends ConverterEntry {
  /** `ChangeName.methodName`, for messages. */
  readonly display: string
  /** The version change it belongs to. */
  readonly change: VersionChangeDescriptor
  /** Runs the converter on its argument (a `RequestInfo` or `ResponseInfo`). */
  readonly run: (info: unknown) => unknown
}

/** A version change class, read. */
export interface VersionChangeDescriptor {
  readonly name: string
  readonly description: string
  readonly instructions: readonly Instruction[]
  readonly converters: readonly ConverterDescriptor[]
  readonly hasSideEffects: boolean
  /** The version holding the change (`'head'` for `HeadVersion`). */
  readonly version: string
}

const ALLOWED_INSTANCE_KEYS = new Set(['description', 'instructionsToMigrateToPreviousVersion'])
const IGNORED_STATIC_KEYS = new Set(['length', 'name', 'prototype'])

/** True for an error of this package's own (`FST_VERSIONER_*` code). */
function isVersionerError (error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false
  const code = (error as Error & { code?: unknown }).code
  return typeof code === 'string' && code.startsWith('FST_VERSIONER_')
}

/**
 * Reads and checks a version change class held by `version` (`'head'` for `HeadVersion`); `VersionerStructureError`
 * naming the class for anything but a direct subclass with a description, instructions and decorated converters.
 */
export function readVersionChange (cls: unknown, version: string): VersionChangeDescriptor {
  const where = version === 'head' ? 'HeadVersion' : `Version('${version}')`
  if (typeof cls !== 'function' || !(cls.prototype instanceof VersionChange)) {
    throw new VersionerStructureError(`${where} was given ${describeValue(cls)}, which ` +
      (ofAnotherCopy(cls, VersionChange) ? `extends VersionChange ${ANOTHER_COPY}.` : 'is not a class extending VersionChange.'))
  }
  const name = cls.name === '' ? '(anonymous version change)' : cls.name
  const parent = Object.getPrototypeOf(cls) as unknown
  if (parent !== VersionChange && parent !== VersionChangeWithSideEffects) {
    throw new VersionerStructureError(`Version change '${name}' extends '${(parent as { name?: string }).name ?? 'another class'}'. ` +
      'A version change must extend VersionChange or VersionChangeWithSideEffects directly: version changes cannot be subclassed.')
  }
  let instance: VersionChange
  try {
    instance = new (cls as VersionChangeClass)()
  } catch (error) {
    // A versioner error thrown by the class body (an instruction builder given a bad argument) keeps its own class
    // and code; its message gains the class's name.
    if (isVersionerError(error)) {
      error.message = `Version change '${name}': ${error.message}`
      throw error
    }
    throw new VersionerStructureError(`Version change '${name}' could not be created: ${error instanceof Error ? error.message : String(error)}`)
  }
  const { description, instructionsToMigrateToPreviousVersion: instructions } = instance as Partial<VersionChange>
  if (typeof description !== 'string' || description.trim() === '') {
    throw new VersionerStructureError(`Version change description is not set on '${name}' but is required: ` +
      'say what changed and why, naming the schemas and fields.')
  }
  if (instructions === undefined) {
    throw new VersionerStructureError(`Attribute 'instructionsToMigrateToPreviousVersion' is not set on '${name}' but is required (it may be []).`)
  }
  if (!Array.isArray(instructions)) {
    throw new VersionerStructureError(`Attribute 'instructionsToMigrateToPreviousVersion' must be an array in '${name}'.`)
  }
  instructions.forEach((instruction, index) => {
    if (!isInstruction(instruction)) throw notAnInstruction(instruction, `Instruction ${index} of '${name}'`)
  })
  // Symbol-named members too: an undecorated `[key] (request) { … }` would be a converter that never runs.
  for (const key of Reflect.ownKeys(instance)) {
    if (!ALLOWED_INSTANCE_KEYS.has(key as string)) throw strayMember(name, key, false)
  }
  // Every request of every app serving the bundle runs the converters on this one instance: a converter writing on
  // `this` (a request's value kept for its response) would hand it to another request, so it throws instead.
  Object.freeze(instance)
  const entries = readConverters(cls as VersionChangeClass)
  // A static converter's `this` is the class, as shared: it takes no new property (spies may still replace a method).
  if (entries.some((entry) => entry.isStatic)) Object.preventExtensions(cls)
  const decorated = (isStatic: boolean): Set<string | symbol> => new Set(entries.filter((entry) => entry.isStatic === isStatic).map((entry) => entry.methodName))
  const methods = decorated(false)
  for (const key of Reflect.ownKeys(cls.prototype)) {
    if (key !== 'constructor' && !ALLOWED_INSTANCE_KEYS.has(key as string) && !methods.has(key)) throw strayMember(name, key, false)
  }
  const statics = decorated(true)
  // Standard decorators give the class its metadata object (under Symbol.metadata, ./converter-decorators.ts).
  const metadataKey = (Symbol as unknown as { metadata: symbol }).metadata
  for (const key of Reflect.ownKeys(cls)) {
    if (!IGNORED_STATIC_KEYS.has(key as string) && key !== metadataKey && !statics.has(key)) throw strayMember(name, key, true)
  }
  const converters: ConverterDescriptor[] = []
  const descriptor: VersionChangeDescriptor = {
    name,
    description,
    instructions: Object.freeze([...instructions]),
    converters,
    hasSideEffects: cls.prototype instanceof VersionChangeWithSideEffects,
    version
  }
  for (const entry of entries) {
    const owner = (entry.isStatic ? cls : instance) as unknown as Record<string | symbol, unknown>
    const method = owner[entry.methodName]
    if (typeof method !== 'function') {
      throw new VersionerStructureError(`Converter '${name}.${String(entry.methodName)}' is not a method of '${name}'.`)
    }
    converters.push(Object.freeze({
      ...entry,
      display: `${name}.${String(entry.methodName)}`,
      change: descriptor,
      run: (method as (info: unknown) => unknown).bind(owner)
    }))
  }
  Object.freeze(converters)
  return Object.freeze(descriptor)
}

/** The error for an element of `instructionsToMigrateToPreviousVersion` that is not an instruction (`where` names it). */
function notAnInstruction (instruction: unknown, where: string): Error {
  const isObject = typeof instruction === 'object' && instruction !== null
  if (isObject && hasKeyOfAnotherCopy(Object.getOwnPropertySymbols(instruction), kInstruction)) {
    return new VersionerStructureError(`${where} was made by schema(...), enumeration(...) or endpoint(...) ${ANOTHER_COPY}.`)
  }
  return new VersionerStructureError(isObject && Object.values(instruction).some((value) => typeof value === 'function')
    ? `${where} is an unfinished builder: end it with .had(...), .didntHave(...), .existedAs(...), ` +
      '.didntExist or .existed, as in schema(User).field(\'name\').didntExist.'
    : `${where} (${describeValue(instruction)}) is not an instruction: use schema(...), enumeration(...) or endpoint(...).`)
}

function strayMember (name: string, key: string | symbol, isStatic: boolean): Error {
  const shown = `${isStatic ? 'static ' : ''}${String(key)}`
  const member = `${isStatic ? name : `${name}.prototype`}, ${typeof key === 'symbol' ? `${key.description ?? 'key'} (the symbol)` : `'${key}'`}`
  return new VersionerStructureError(`Found '${shown}' in version change '${name}'. A version change class holds only description, ` +
    'instructionsToMigrateToPreviousVersion and converter methods (decorated with @ConvertRequestToNextVersionFor or ' +
    `@ConvertResponseToPreviousVersionFor, or in JavaScript, ConvertRequestToNextVersionFor(...)(${member}) after the class); ` +
    'move helpers out of the class.')
}
