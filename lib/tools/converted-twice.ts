/**
 * One place converted twice in one migration (`verify`): within one version change, two different converters that
 * both write the same field of the same object of a body, in one replay of one example, are almost always one
 * conversion applied twice: a converter of a schema already runs wherever the schema is embedded (routes, webhooks,
 * lists), so a webhook's or a list route's converter converting the embedded field again gives old clients the value
 * converted twice (0.1999 for 19.99), a valid value with no round trip to show it
 * ([decision 0223](../../docs/decisions/0223-verify-reports-a-place-converted-twice-in-one-change.md)).
 *
 * A write is a field of an object left holding another scalar (a string, number, boolean or null) than it held before
 * the converter ran, or one it did not hold: objects are followed by identity, so a converter moving, reordering or
 * filtering objects writes nothing in them, and one replacing an object by a new one (`{ ...invoice, total }`) writes
 * the fields of the new object that differ from the one it replaced at its place. Removing a field is no write.
 * @module
 */
import { nameOf } from '../core/json-schema'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import type { ConverterStep } from '../routes/converter-steps'
import { isThenable } from '../serve/step-runner'
import { tracked, type ConverterRun } from './converter-tracking'
import type { GenerationStep } from '../describe/versions'
import { pointerOfPath, type PathKey } from './data-flow'
import { shown } from './value-comparison'

/** One converter's write of one field: the value before (`undefined`: absent) and after, and how deep its occurrence was. */
interface Write {
  readonly converter: ConverterDescriptor
  readonly before: unknown
  readonly after: unknown
  /** The field's path in the body (numbers for list items). */
  readonly path: readonly PathKey[]
  /** The length of the path of the object the converter ran on (0: the whole body). */
  readonly depth: number
}

/** What a place converted twice is reported as: the replay issue's fields it fills. */
interface ConvertedTwice {
  readonly kind: 'converted twice'
  readonly pointer: string
  readonly message: string
  readonly value: unknown
  readonly fix: string
  /** The two converters, in the order they ran. */
  readonly converters: readonly string[]
  /** The version change both belong to. */
  readonly changes: readonly string[]
}

type Node = Record<string, unknown>

function isNode (value: unknown): value is Node {
  return typeof value === 'object' && value !== null
}

/**
 * Every object of `value` (itself included) by identity, with its path from `value`, each once. Only objects are put
 * on the walk's stack (a scalar field costs no path), which leaves the order objects are found in as it was.
 * @example
 * ```ts
 * const body = { customer: { id: 'cus_1' }, lines: [{ amount: 1 }] }
 * objectsOf(body).get(body.lines[0]) // ['lines', 0]
 * ```
 */
export function objectsOf (value: unknown): Map<Node, PathKey[]> {
  const found = new Map<Node, PathKey[]>()
  const pending: Array<[Node, PathKey[]]> = isNode(value) ? [[value, []]] : []
  while (pending.length > 0) {
    const [node, path] = pending.pop() as [Node, PathKey[]]
    if (found.has(node)) continue
    found.set(node, path)
    const list = Array.isArray(node)
    for (const key of Object.keys(node)) {
      const child = node[key]
      if (isNode(child) && !found.has(child)) pending.push([child, [...path, list ? Number(key) : key]])
    }
  }
  return found
}

/**
 * The objects of `value` (itself included), each once, in the order {@link objectsOf} finds them, without their
 * paths ({@link pathIn} gives one's when it is needed).
 * @example
 * ```ts
 * const body = { customer: { id: 'cus_1' } }
 * nodesOf(body).has(body.customer) // true
 * ```
 */
export function nodesOf (value: unknown): Set<Node> {
  const found = new Set<Node>()
  const pending: Node[] = isNode(value) ? [value] : []
  while (pending.length > 0) {
    const node = pending.pop() as Node
    if (found.has(node)) continue
    found.add(node)
    for (const key of Object.keys(node)) {
      const child = node[key]
      if (isNode(child) && !found.has(child)) pending.push(child)
    }
  }
  return found
}

/** The path {@link objectsOf} gives `target` in `value` (the same walk, in the same order), found without walking past it. */
export function pathIn (value: unknown, target: Node): PathKey[] | undefined {
  const seen = new Set<Node>()
  const pending: Array<[Node, PathKey[]]> = isNode(value) ? [[value, []]] : []
  while (pending.length > 0) {
    const [node, path] = pending.pop() as [Node, PathKey[]]
    if (seen.has(node)) continue
    if (node === target) return path
    seen.add(node)
    const list = Array.isArray(node)
    for (const key of Object.keys(node)) {
      const child = node[key]
      if (isNode(child)) pending.push([child, [...path, list ? Number(key) : key]])
    }
  }
  return undefined
}

/** The scalar fields of each object of a body before a converter runs, and the object at each path. */
interface Before {
  readonly fields: Map<Node, Map<string, unknown>>
  readonly atPath: Map<string, Node>
}

function beforeOf (value: unknown): Before {
  const fields = new Map<Node, Map<string, unknown>>()
  const atPath = new Map<string, Node>()
  for (const [node, path] of objectsOf(value)) {
    fields.set(node, new Map(Object.entries(node).filter(([, field]) => !isNode(field))))
    atPath.set(JSON.stringify(path), node)
  }
  return { fields, atPath }
}

/** The steps of one level of a replay, each run noted in `ran` (`Class.method`), and the watch of their writes when it may find some. */
interface WatchedSteps {
  readonly steps: ConverterStep[]
  readonly watch: ConversionWatch | undefined
  readonly ran: string[]
}

/**
 * The steps of `candidates` that belong to generation step `step` (as {@link tracked}), their runs watched for places
 * converted twice when two converters of one version change are among them; `body` is the body before they run.
 * @example
 * ```ts
 * const { steps, watch, ran } = watchedSteps(candidates, generationSteps[2], { run: undefined, body: info.body })
 * ```
 */
export function watchedSteps (candidates: readonly ConverterStep[], step: GenerationStep, at: { run: ConverterRun | undefined, body: unknown }): WatchedSteps {
  const ran: string[] = []
  const watch = mayConvertTwice(candidates.filter((candidate) => step.changes.includes(candidate.converter.change))) ? new ConversionWatch(at.body) : undefined
  return { steps: tracked(candidates, step, ran, watch?.watching(at.run) ?? at.run), watch, ran }
}

/**
 * True when the steps of one level can write one place twice: two different converters of one version change among
 * them (a replay only watches those levels; the others cost nothing).
 */
function mayConvertTwice (steps: readonly ConverterStep[]): boolean {
  const seen = new Map<unknown, string>()
  for (const { converter } of steps) {
    const other = seen.get(converter.change)
    if (other !== undefined && other !== converter.display) return true
    seen.set(converter.change, converter.display)
  }
  return false
}

/**
 * Watches the converter runs of one level of a replay: each run's writes, by the object (its identity, or the object
 * it replaced) and field, and at the end the first field two converters of one change wrote.
 * @example
 * ```ts
 * const watch = new ConversionWatch(info.body)
 * info.body = await runStepsToBody(tracked(steps, step, ran, watch.watching(context.runConverter)), info, info.body, at)
 * const twice = watch.convertedTwice()
 * ```
 */
class ConversionWatch {
  /** The object each replacing object stands for (the one it replaced at its place). */
  private readonly standsFor = new Map<Node, Node>()
  private readonly writes = new Map<Node, Map<string, Write[]>>()

  /** `root`: the body before the level's converters run. */
  constructor (private root: unknown) {}

  /** A converter run that notes what each run writes, running each converter with `run` when given. */
  watching (run: ConverterRun | undefined): ConverterRun {
    return (converter, argument) => {
      const info = argument as { body: unknown }
      const occurrence = info.body
      const prefix = occurrence === this.root ? [] : isNode(occurrence) ? pathIn(this.root, occurrence) : undefined
      const before = prefix === undefined ? undefined : beforeOf(occurrence)
      const note = (): void => {
        if (occurrence === this.root) this.root = info.body
        if (prefix !== undefined && before !== undefined) this.note(converter, before, info.body, prefix)
      }
      const result = run === undefined ? converter.run(argument) : run(converter, argument)
      if (!isThenable(result)) {
        note()
        return result
      }
      return Promise.resolve(result).then((value) => { note(); return value })
    }
  }

  /** Notes the fields of `after` (the occurrence after the run, at `prefix` in the body) the run wrote. */
  private note (converter: ConverterDescriptor, before: Before, after: unknown, prefix: readonly PathKey[]): void {
    const objects = objectsOf(after)
    for (const [node, path] of objects) {
      // An object the run made stands for the one it replaced at its place (not one it moved elsewhere).
      const there = before.fields.has(node) ? node : before.atPath.get(JSON.stringify(path))
      const previous = there !== undefined && there !== node && objects.has(there) ? undefined : there
      const replaced = previous !== undefined && previous !== node && !before.fields.has(node)
      if (replaced && this.standsFor.get(node) === undefined) this.standsFor.set(node, this.standsFor.get(previous) ?? previous)
      const held = previous === undefined ? undefined : before.fields.get(previous)
      const list = Array.isArray(node)
      for (const [key, value] of Object.entries(node)) {
        if (isNode(value) || value === undefined || (held?.has(key) === true && Object.is(held.get(key), value))) continue
        const write = { converter, before: held?.get(key), after: value, path: [...prefix, ...path, list ? Number(key) : key], depth: prefix.length }
        const owner = this.standsFor.get(node) ?? node
        const byField = this.writes.get(owner) ?? new Map<string, Write[]>()
        this.writes.set(owner, byField)
        byField.set(key, [...byField.get(key) ?? [], write])
      }
    }
  }

  /** The first field two different converters of one version change wrote, in the order the writes were made. */
  convertedTwice (): ConvertedTwice | undefined {
    for (const byField of this.writes.values()) {
      for (const writes of byField.values()) {
        const first = writes[0]
        const second = writes.find((write) => write.converter.change === first.converter.change && write.converter.display !== first.converter.display)
        if (second !== undefined) return reported(first, second)
      }
    }
    return undefined
  }
}

/** How a write is told: `A changed 1999 to 19.99`, `A wrote 19.99`. */
function told (write: Write): string {
  return `${write.converter.display} ${write.before === undefined ? 'wrote' : `changed ${shown(write.before)} to`} ${shown(write.after)}`
}

/** The schemas a converter targets, by name (`Invoice`, `Card or BankAccount`); undefined for a by-path converter. */
function schemasOf (converter: ConverterDescriptor): string | undefined {
  if (converter.target.kind !== 'schema') return undefined
  const names = converter.target.schemas.map((schema) => nameOf(schema) ?? 'its schema')
  return names.join(' or ')
}

function reported (first: Write, second: Write): ConvertedTwice {
  // The converter of the embedded schema: the one that ran deeper in the body (the first, when both ran as deep).
  const embedded = [first, second].find((write) => write.depth === Math.max(first.depth, second.depth) && schemasOf(write.converter) !== undefined) ??
    [first, second].find((write) => schemasOf(write.converter) !== undefined)
  const schemas = embedded === undefined ? undefined : schemasOf(embedded.converter)
  const already = schemas === undefined
    ? `${first.converter.display} already converts it`
    : `a converter on ${schemas} already runs on every ${schemas} the body embeds`
  return {
    kind: 'converted twice',
    pointer: pointerOfPath(second.path),
    message: `converted twice in ${first.converter.change.name}: ${told(first)}, then ${told(second)}`,
    value: first.before,
    fix: `${already[0].toUpperCase()}${already.slice(1)}; remove the second conversion, or if both are meant, merge them into one converter.`,
    converters: [first.converter.display, second.converter.display],
    changes: [first.converter.change.name]
  }
}
