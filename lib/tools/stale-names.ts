/**
 * Names a request converter reads that the request no longer has where it runs (`verify`): converters run in order,
 * each on the request as the older versions' converters left it, so a converter of a new version reading a header or
 * field by a name an older change renamed or removed (`x-idempotency-key` where the older change made it
 * `idempotency-key`) never sees what any client sends: not the oldest clients' (converted past that name before it
 * runs), not the clients of the versions between (who send the new name). What it meant to carry is then lost, with
 * every value still valid and arriving where it was (decision 0320).
 *
 * A read is judged where the name is absent: it is a finding when the version the converter runs on declares no such
 * name in that part (headers compared in lower case, as Fastify names them) and an older version does, and the
 * converter read none of the names its version declares in that part that the older one did not (the name it became:
 * a converter reading both, as a fallback, is right). The body is watched where the converter runs on the whole body.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { RequestPart } from '../routes/version-plan'
import { isThenable } from '../serve/step-runner'
import type { ConverterRun } from './converter-tracking'
import { asNode, pointerOfPath, type RefResolver } from './data-flow'
import type { ReplayIssue } from './verify-finding'

/** One read of a name of a request part by a converter, and whether the part held it then. */
interface Read {
  readonly converter: string
  readonly change: string
  readonly part: RequestPart
  readonly key: string
  readonly absent: boolean
}

/** The request parts converters read by name, by the property of the request they are at. */
const PARTS = new Map<PropertyKey, RequestPart>([['body', 'body'], ['form', 'body'], ['queryParams', 'querystring'], ['headers', 'headers']])

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** True when `schema` (or a member of its union or intersection) names the field `key` (`lowerCase`: a header, in any case). */
function declares (schema: unknown, key: string, lowerCase: boolean, resolveRef: RefResolver): boolean {
  const node = asNode(schema, resolveRef)
  if (node === undefined) return false
  const members = (node.anyOf ?? node.oneOf ?? node.allOf) as unknown[] | undefined
  if (members !== undefined) return members.some((member) => declares(member, key, lowerCase, resolveRef))
  const properties = node.properties
  return isRecord(properties) && Object.keys(properties).some((name) => (lowerCase ? name.toLowerCase() : name) === key)
}

/**
 * The names the request converters of one level of a request's replay read, each run handed a request whose parts
 * note every name read; `body` is the body the level starts with.
 * @example
 * ```ts
 * const reads = new NameReads(info.body)
 * info.body = await runStepsToBody(tracked(steps, step, ran, reads.watching(context.runConverter)), info, info.body, at)
 * const stale = reads.staleIssue(index, replay.formAt, context)
 * ```
 */
export class NameReads {
  private readonly reads: Read[] = []

  constructor (private root: unknown) {}

  /** A converter run handing `run` (or the converter) a request that notes the names read. */
  watching (run: ConverterRun | undefined): ConverterRun {
    return (converter, argument) => {
      const info = argument as Record<PropertyKey, unknown>
      const whole = info.body === this.root
      const targets = new Map<unknown, object>()
      const proxies = new Map<object, object>()
      const note = (part: RequestPart, target: object, key: PropertyKey): void => {
        if (typeof key === 'string') this.reads.push({ converter: converter.display, change: converter.change.name, part, key, absent: !Object.hasOwn(target, key) })
      }
      const noting = (value: unknown, part: RequestPart): unknown => {
        if (!isRecord(value)) return value
        let proxy = proxies.get(value)
        if (proxy === undefined) {
          proxy = new Proxy(value, {
            get: (target, key) => { note(part, target, key); return Reflect.get(target, key) },
            has: (target, key) => { note(part, target, key); return Reflect.has(target, key) },
            getOwnPropertyDescriptor: (target, key) => { note(part, target, key); return Reflect.getOwnPropertyDescriptor(target, key) },
            // A write is no read (through the proxy, an assignment would ask it for the field first).
            set: (target, key, value) => Reflect.set(target, key, value)
          })
          proxies.set(value, proxy)
          targets.set(proxy, value)
        }
        return proxy
      }
      const request = new Proxy(info, {
        get: (target, key) => {
          const value = Reflect.get(target, key)
          const part = PARTS.get(key)
          return part === undefined || (part === 'body' && !whole) ? value : noting(value, part)
        },
        set: (target, key, value) => Reflect.set(target, key, targets.get(value) ?? value)
      })
      // What the converter leaves or returns is the request's own, never the noting one.
      const settled = (value: unknown): unknown => {
        const body = targets.get(info.body)
        if (body !== undefined) info.body = body
        if (whole) this.root = info.body
        return value === request ? info : targets.get(value) ?? value
      }
      const result = run === undefined ? converter.run(request) : run(converter, request)
      return isThenable(result) ? Promise.resolve(result).then(settled) : settled(result)
    }
  }

  /**
   * The issue of the first name the converters of generation step `index` read that the request no longer has
   * there (they run on level `index + 1`; `replay.formAt` gives a part's form at a level, of the parts `replay.data`
   * holds); the reads are then forgotten.
   */
  staleIssue (index: number, replay: { readonly formAt: (part: RequestPart, level: number) => TSchema, readonly data: Partial<Record<RequestPart, unknown>> }, context: { readonly steps: readonly GenerationStep[], readonly resolveRef: RefResolver }): Omit<ReplayIssue, 'step' | 'reached'> | undefined {
    const reads = this.reads.splice(0).filter((read) => Object.hasOwn(replay.data, read.part))
    const at = (part: RequestPart, level: number, key: string): boolean => declares(replay.formAt(part, level), key, part === 'headers', context.resolveRef)
    for (const read of reads) {
      // Present, declared where it runs, or declared where it converts to (a field its change adds, given a default): no stale name.
      if (!read.absent || at(read.part, index + 1, read.key) || at(read.part, index, read.key)) continue
      let older = index + 2
      while (older < context.steps.length && !at(read.part, older, read.key)) older++
      if (older >= context.steps.length) continue
      // A fallback: the converter also reads the name the value has where it runs.
      if (reads.some((other) => other.converter === read.converter && other.part === read.part && at(other.part, index + 1, other.key) && !at(other.part, older, other.key))) continue
      const { changes, origin } = context.steps[older - 1]
      const naming = changes.filter((change) => change.instructions.some((instruction) => [(instruction as { field?: unknown }).field, (instruction as { name?: unknown }).name]
        .some((name) => typeof name === 'string' && (read.part === 'headers' ? name.toLowerCase() : name) === read.key)))
      const renamed = (naming.length === 0 ? changes : naming).map((change) => change.name).join(', ')
      return {
        kind: 'lost',
        part: read.part,
        pointer: pointerOfPath([read.key]),
        message: `read by ${read.converter} where no request has it: ${renamed} (${origin}) renamed or removed it and runs first, so the value clients send there never reaches that converter`,
        fix: `Make ${read.converter} read the name the request has where it runs (the one ${renamed} gave it): each converter runs on the request as the older versions' converters left it.`,
        converters: [read.converter],
        changes: [read.change],
        whole: true
      }
    }
    return undefined
  }
}
