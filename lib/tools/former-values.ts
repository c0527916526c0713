/**
 * The values of a former request field that `verify` cannot follow by a sentinel (decision 0227): a number, a flag, an
 * enum member, or a string whose sentinel another part of the request holds too. Such a value is judged by a second
 * replay of its example with the value changed (a neighbouring number, the other flag, another member): it is carried
 * when HEAD's request (what its schemas declare, in every part) changes with it, or when the replay is refused with
 * a 4xx. A change seen is confirmed by a third replay of the example unchanged, which must give HEAD's first request
 * again: a converter making ids or reading the clock changes HEAD's request on every replay, and says nothing.
 * @module
 */
import { copyJson } from '../serve/step-runner'
import { setOwn } from '../core/own-properties'
import type { RequestPart } from '../routes/version-plan'
import type { JsonSchema } from '../values/examples'
import { asNode, declaredChildren, readingNode, type PathKey, type RefResolver } from './data-flow'
import { twinNumber } from './boundary-values'
import { replayExample, type Replay, type ReplayContext, type Trail } from './verify-replay'

/** The parts of a request HEAD reads, by part: their HEAD schema and the data a replay gave them. */
export type HeadRequest = ReadonlyArray<readonly [RequestPart, unknown, unknown]>

/**
 * Another value than `value` that the schema node of a field takes (the node read for the value, a union by its
 * member): another enum member, the other flag, a neighbouring number, a string written backwards; `undefined` for
 * none (an object, a list, `null`, a one-member enum).
 * @example
 * ```ts
 * otherValue({ type: 'integer', minimum: 1, maximum: 100 }, 1, resolveRef) // 2
 * otherValue({ enum: ['paid', 'open'] }, 'paid', resolveRef)               // 'open'
 * ```
 */
export function otherValue (schema: unknown, value: unknown, resolveRef: RefResolver): unknown {
  const bare = asNode(schema, resolveRef)
  if (bare === undefined || typeof value === 'object') return undefined
  const node = readingNode(bare, value, resolveRef)
  const members = membersOf(bare, resolveRef) ?? membersOf(node, resolveRef)
  if (members !== undefined) return members.find((member) => member !== value)
  if (typeof value === 'boolean') return !value
  if (typeof value === 'number') {
    const other = twinNumber(node as JsonSchema, node.type === 'integer', value)
    return other === value ? undefined : other
  }
  if (typeof value !== 'string') return undefined
  const backwards = [...value].reverse().join('')
  return backwards === value ? undefined : backwards
}

/** The members of an enum (`enum`, `const`, or a union of `const`s, TypeBox's union of literals); `undefined` for another node. */
function membersOf (node: JsonSchema, resolveRef: RefResolver): unknown[] | undefined {
  if (Array.isArray(node.enum)) return node.enum
  if ('const' in node) return [node.const]
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  const consts = Array.isArray(union) ? union.map((member) => asNode(member, resolveRef)) : []
  return consts.length > 0 && consts.every((member) => member !== undefined && 'const' in member) ? consts.map((member) => member?.const) : undefined
}

/**
 * What HEAD's request holds under the fields its schemas declare, as lines (each scalar by its place, sorted): two
 * requests a handler typed by the schemas reads alike give the same lines.
 * @example
 * ```ts
 * declaredRequest([['querystring', InvoiceQuery, { limit: 5, status: 'paid' }]], resolveRef) // ['querystring/limit=5']
 * ```
 */
export function declaredRequest (request: HeadRequest, resolveRef: RefResolver): string[] {
  const found: string[] = []
  const stack: Array<[unknown, unknown, string]> = request.map(([part, schema, data]) => [schema, data, part])
  while (stack.length > 0) {
    const [rawSchema, value, place] = stack.pop() as [unknown, unknown, string]
    if (typeof value !== 'object' || value === null) {
      found.push(`${place}=${JSON.stringify(value) ?? ''}`)
      continue
    }
    const bare = asNode(rawSchema, resolveRef)
    if (bare === undefined || rawSchema === true) continue
    const node = readingNode(bare, value, resolveRef)
    if (Array.isArray(node.allOf)) for (const part of node.allOf as unknown[]) stack.push([part, value, place])
    for (const [key, sub] of declaredChildren(node, value)) stack.push([sub, (value as Record<PathKey, unknown>)[key], `${place}/${String(key)}`])
  }
  return [...new Set(found)].sort()
}

/** An example's replay to change one value of: its replay, the parts as the client sent them, HEAD's request read as lines. */
export interface FlippedExample {
  readonly replay: Replay
  readonly sent: Partial<Record<RequestPart, unknown>>
  readonly head: readonly string[]
  /** HEAD's request of a replay that reached HEAD (from its trail), read as `head` was. */
  readonly read: (trail: Trail) => string[]
}

/**
 * True when HEAD's request changes with the value at `path` of part `part` (or the replay changed is refused with a
 * 4xx) at a place where the example replayed unchanged again gives HEAD's first request (a place that changes on every
 * replay, an id made or the clock read, is left out); `undefined` when no valid other value exists or a replay fails.
 * Each replay is counted in `context.replayed`.
 * @example
 * ```ts
 * await changesHead(env, example, { part: 'querystring', path: ['status'], other: 'open', valid }) // true when a converter maps it
 * ```
 */
export async function changesHead (context: ReplayContext & { replayed: number }, example: FlippedExample,
  at: { part: RequestPart, path: readonly PathKey[], other: unknown, valid: (data: unknown) => boolean }): Promise<boolean | undefined> {
  const replayed = async (change: boolean): Promise<string[] | null | undefined> => {
    const data = copyJson(example.sent) as Record<string, unknown>
    if (change) {
      const holder = at.path.slice(0, -1).reduce<unknown>((value, key) => (value as Record<PathKey, unknown>)[key], data[at.part])
      setOwn(holder as Record<PathKey, unknown>, at.path[at.path.length - 1], at.other)
      if (!at.valid(data[at.part])) return undefined
    }
    const trail: Trail = new Map()
    context.replayed++
    const result = await replayExample(context, { ...example.replay, data, required: new Map(), trail })
    if (result === undefined) return null
    return 'body' in result ? example.read(trail) : undefined
  }
  const changed = await replayed(true)
  if (changed === undefined || (changed !== null && same(changed, example.head))) return changed === undefined ? undefined : false
  const again = await replayed(false)
  if (again === undefined || again === null) return undefined
  const placeOf = (line: string): string => line.slice(0, line.indexOf('='))
  const noisy = new Set([...again.filter((line) => !example.head.includes(line)), ...example.head.filter((line) => !again.includes(line))].map(placeOf))
  const quiet = (lines: readonly string[]): string[] => lines.filter((line) => !noisy.has(placeOf(line)))
  return changed === null || !same(quiet(changed), quiet(example.head))
}

/** True when two lists of lines are the same. */
function same (one: readonly string[], other: readonly string[]): boolean {
  return one.length === other.length && one.every((line, index) => line === other[index])
}
