/**
 * What is wrong with a converter decorator JavaScript called by hand with the wrong object or name, and how to call it.
 * @module
 */
import { describeValue } from '../core/json-schema'

/** What a converter of `direction` takes, for messages. */
export function parameterOf (direction: 'request' | 'response'): string {
  return direction === 'request' ? 'request (a RequestInfo)' : 'response (a ResponseInfo)'
}

/** The name of the converter decorator of `direction`, for messages. */
export function decoratorName (direction: 'request' | 'response'): string {
  return direction === 'request' ? 'ConvertRequestToNextVersionFor' : 'ConvertResponseToPreviousVersionFor'
}

function hasOwn (target: unknown, key: string | symbol): boolean {
  return (typeof target === 'object' || typeof target === 'function') && target !== null && Object.prototype.hasOwnProperty.call(target, key)
}

/** The methods a class declares, for a message: its prototype's (by name), then its static ones. */
function methodsOf (cls: { prototype?: unknown }): string[] {
  const isMethod = (owner: object, key: string): boolean => typeof Object.getOwnPropertyDescriptor(owner, key)?.value === 'function'
  const prototype = cls.prototype
  const own = typeof prototype === 'object' && prototype !== null
    ? Object.getOwnPropertyNames(prototype).filter((key) => key !== 'constructor' && isMethod(prototype, key))
    : []
  const statics = Object.getOwnPropertyNames(cls).filter((key) => !['length', 'name', 'prototype'].includes(key) && isMethod(cls, key))
  return [...own, ...statics.map((key) => `static ${key}`)]
}

/**
 * Why `Decorator(...)(target, key)` cannot declare a converter, or `undefined` when `target` holds a property `key`
 * (then `checkArity` checks it); decorator syntax never reaches these answers.
 * @example
 * ```ts
 * handCallMisuse(RenameName, 'renameUp', 'request')
 * // "Converter 'RenameName.renameUp' is an instance method, but the decorator was given the class RenameName, …"
 * ```
 */
export function handCallMisuse (target: unknown, key: unknown, direction: 'request' | 'response'): string | undefined {
  const name = decoratorName(direction)
  if ((typeof target !== 'object' && typeof target !== 'function') || target === null || (typeof key !== 'string' && typeof key !== 'symbol')) {
    return `${name}(...) was applied wrongly: a converter decorator called by hand takes the class's prototype (the class, ` +
      `for a static method) and the method's name, as in ${name}(...)(MyChange.prototype, 'method'); got ${describeValue(target)} ` +
      `and ${describeValue(key)}.`
  }
  const isClass = typeof target === 'function'
  const cls = (isClass ? target : (target as { constructor?: unknown }).constructor) as { name?: string, prototype?: unknown }
  const className = typeof cls?.name === 'string' && cls.name !== '' ? cls.name : 'anonymous'
  const member = `${className}.${String(key)}`
  const quoted = typeof key === 'string' ? `'${key}'` : String(key)
  if (!isClass && typeof cls === 'function' && cls.prototype !== target) {
    return `Converter '${member}': the decorator was given an instance of ${className}, not ${className}.prototype: ` +
      `call it as ${name}(...)(${className}.prototype, ${quoted}).`
  }
  if (hasOwn(target, key)) return undefined
  if (isClass && hasOwn(cls.prototype, key)) {
    return `Converter '${member}' is an instance method, but the decorator was given the class ${className}, not ` +
      `${className}.prototype: call it as ${name}(...)(${className}.prototype, ${quoted}).`
  }
  if (!isClass && typeof cls === 'function' && hasOwn(cls, key)) {
    return `Converter '${member}' is a static method, but the decorator was given ${className}.prototype: ` +
      `call it as ${name}(...)(${className}, ${quoted}).`
  }
  const methods = typeof cls === 'function' ? methodsOf(cls) : []
  return `Converter '${member}' is not a method; converters must be methods taking one parameter: ${parameterOf(direction)}, ` +
    `declared in the class body (an arrow function assigned to a field is no method: declare ${String(key)} ` +
    `(${direction}) { … }). ${methods.length === 0 ? `${className} has no methods.` : `${className}'s methods: ${methods.join(', ')}.`}`
}
