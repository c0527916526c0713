/**
 * What a failed validation of `verify` says of the data (./verify-replay.ts): where it stopped matching, as a JSON
 * pointer, the message, the value there, and a fix where Ajv's rule, not the converter, refused it.
 * @module
 */
import type { ValidationIssue } from '../core/strict-validator'
import { pointerKey, pointerSegment } from '../core/json-schema'
import { valueAt } from './data-flow'
import { shownValue } from './document-places'

/** The value at a JSON pointer of `data`. */
function valueAtPointer (data: unknown, pointer: string): unknown {
  return valueAt(data, pointer === '' ? [] : pointer.slice(1).split('/').map(pointerKey))
}

/** A JSON pointer with array indices as `*` (the same mistake shows at one place, whatever the example). */
function pointerOf (issue: ValidationIssue | undefined): string {
  if (issue === undefined) return ''
  const base = (issue.instancePath ?? '').replace(/\/\d+(?=\/|$)/g, '/*')
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  return typeof extra === 'string' ? `${base}/${pointerSegment(extra)}` : base
}

/**
 * The fix of a `multipleOf` refusal of a value that is a multiple, but not in floating point (8.77 of 0.01): Ajv
 * refuses it whatever the converter, unless the application sets `multipleOfPrecision`. Fastify's validator refuses
 * it in a request; its serializer sends it in a response, which a client validating with Ajv refuses.
 */
function floatingMultipleFix (issue: ValidationIssue | undefined, value: unknown, validated: boolean): string | undefined {
  const step = issue?.keyword === 'multipleOf' ? issue.params?.multipleOf : undefined
  if (typeof step !== 'number' || typeof value !== 'number' || Math.abs(Math.round(value / step) - value / step) > 1e-9) return undefined
  const who = validated
    ? 'Fastify refuses it too'
    : 'Fastify sends it (its serializer does not check multipleOf), and a client validating with Ajv refuses it'
  return `${value} is a multiple of ${step}, but not in floating point, where Ajv checks it: ${who}. ` +
    'Set Fastify({ ajv: { customOptions: { multipleOfPrecision: 9 } } }), or drop multipleOf from the schema.'
}

/**
 * The issue that says why data fails: Ajv's first, unless a union (`anyOf`, the last issue: the one that stopped
 * validation) refused it. Then the members of another type than the value are left aside (a `Type.Null()` beside a
 * string); one left, its issue is the reason; literals only, the members are named; else the union's place, rather
 * than a field of its first member.
 */
function tellingIssue (issues: readonly ValidationIssue[]): ValidationIssue | undefined {
  const last = issues.at(-1)
  if (last?.keyword !== 'anyOf') return issues[0]
  const at = last.instancePath ?? ''
  const members = issues.slice(0, -1).filter((issue) => !(issue.keyword === 'type' && (issue.instancePath ?? '') === at))
  if (members.length === 1) return members[0]
  if (members.length > 0 && members.every((issue) => issue.keyword === 'const' && (issue.instancePath ?? '') === at)) {
    return { ...last, message: `must be one of ${members.map((issue) => shownValue(issue.params?.allowedValue)).join(', ')}` }
  }
  return { ...last, message: 'matches none of its union\'s members' }
}

/**
 * What Ajv's telling issue says of `data`: the pointer (array indices as `*`), the message, the value at the issue's
 * place, and the fix of a `multipleOf` refused only in floating point (`validated`: a request's data, which Fastify
 * validates; a response's it only serializes).
 * @example
 * ```ts
 * invalidData([{ instancePath: '/qty', message: 'must be integer' }], { qty: 1.5 }, true) // { pointer: '/qty', message: 'must be integer', value: 1.5 }
 * ```
 */
export function invalidData (issues: readonly ValidationIssue[], data: unknown, validated: boolean): { pointer: string, message: string, value: unknown, fix?: string } {
  const issue = tellingIssue(issues)
  const value = valueAtPointer(data, issue?.instancePath ?? '')
  const fix = floatingMultipleFix(issue, value, validated)
  return { pointer: pointerOf(issue), message: issue?.message ?? 'does not match', value, ...(fix === undefined ? {} : { fix }) }
}
