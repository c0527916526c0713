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
 * The names the request converters of one replay of a request read, each run handed a request whose parts note every
 * name read (one noting object per part object for the whole replay: a converter comparing what two runs were handed
 * sees one object).
 * @example
 * ```ts
 * const reads = new NameReads()
 * info.body = await runStepsToBody(tracked(steps, step, ran, reads.watching(context.runConverter, info.body)), info, info.body, at)
 * const stale = reads.staleIssue(index, replay, context)
 * ```
 */
export class NameReads {
  private readonly reads: Read[] = []
  private readonly proxies = new WeakMap<object, object>()
  private readonly targets = new WeakMap<object, object>()
  /** The run going on: its converter, and whether it was handed the whole body (`root`, the level's body as the runs before left it). */
  private running: { converter: string, change: string, whole: boolean } | undefined
  private root: unknown

  /** A converter run handing `run` (or the converter) a request that notes the names read; `body` is the level's body before its runs. */
  watching (run: ConverterRun | undefined, body: unknown): ConverterRun {
    this.root = body
    return (converter, argument) => {
      const info = argument as Record<PropertyKey, unknown>
      this.running = { converter: converter.display, change: converter.change.name, whole: info.body === this.root }
      const request = this.noting(info, undefined)
      // What the converter leaves or returns is the request's own, never the noting one.
      const settled = (value: unknown): unknown => {
        info.body = this.own(info.body)
        if (this.running?.whole === true) this.root = info.body
        this.running = undefined
        return this.own(value)
      }
      const result = run === undefined ? converter.run(request) : run(converter, request)
      return isThenable(result) ? Promise.resolve(result).then(settled) : settled(result)
    }
  }

  /** The object `value` notes the reads of, else `value`. */
  private own (value: unknown): unknown {
    return isRecord(value) ? this.targets.get(value) ?? value : value
  }

  /** `value` noting the reads of its names as `part` (`undefined`: the request, whose parts it hands out noting). */
  private noting (value: unknown, part: RequestPart | undefined): unknown {
    if (!isRecord(value)) return value
    let proxy = this.proxies.get(value)
    if (proxy !== undefined) return proxy
    const note = (target: object, key: PropertyKey): void => {
      const running = this.running
      if (part === undefined || running === undefined || typeof key !== 'string' || (part === 'body' && !running.whole)) return
      this.reads.push({ converter: running.converter, change: running.change, part, key, absent: !Object.hasOwn(target, key) })
    }
    proxy = new Proxy(value, {
      get: (target, key) => {
        note(target, key)
        const found = Reflect.get(target, key)
        const inner = part === undefined ? PARTS.get(key) : undefined
        return inner === undefined || (inner === 'body' && this.running?.whole !== true) ? found : this.noting(found, inner)
      },
      has: (target, key) => { note(target, key); return Reflect.has(target, key) },
      getOwnPropertyDescriptor: (target, key) => { note(target, key); return Reflect.getOwnPropertyDescriptor(target, key) },
      // A write is no read (through the proxy, an assignment would ask it for the field first), and writes the object itself.
      set: (target, key, written) => Reflect.set(target, key, this.own(written))
    })
    this.proxies.set(value, proxy)
    this.targets.set(proxy, value)
    return proxy
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

/**
 * Runs a replay of a request (`request` true) with its converters' reads noted, and once more without, when a converter
 * failed under the notes: a converter may refuse a noting object (`structuredClone` throws on one), so that failure is
 * told as the converter fails unwatched, or not at all. A replay of a response runs once, unwatched.
 * @example
 * ```ts
 * const result = await withNameReads(replay.status === undefined, async (reads) => await replayAt(context, replay, reads))
 * ```
 */
export async function withNameReads<T> (request: boolean, replay: (reads?: NameReads) => Promise<T>): Promise<T> {
  if (!request) return await replay()
  const noted = await replay(new NameReads())
  return isRecord(noted) && noted.kind === 'converter failed' ? await replay() : noted
}
