/**
 * An object a converter hands out to more than one body (`verify`): a converter that assigns a module constant
 * (`response.body.paymentMethod = LINK_AS_CARD`), a default object or a cached record gives every body it converts
 * the same object, and a later converter (or, for a request, the handler) that changes that object in place changes
 * it for every later request of every version: Node's module cache keeps it
 * ([decision 0313](../../docs/decisions/0313-converters-hand-out-no-shared-object.md)).
 *
 * Each converter run of a `verify` run is watched: the objects its output holds that its argument did not (the body
 * it was given, the request's or response's other parts) are the ones it made. One made again by a later run (of any
 * example, or of another occurrence in the same body) came from neither run's argument: it is shared.
 * @module
 */
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { isThenable } from '../serve/step-runner'
import type { ConverterRun } from './converter-tracking'
import { nodesOf, pathIn } from './converted-twice'
import { pointerOfPath, type PathKey } from './data-flow'

/** What an object handed to two bodies is reported as: the replay issue's fields it fills. */
interface HandedTwice {
  readonly kind: 'shared object'
  readonly pointer: string
  readonly message: string
  readonly fix: string
}

/**
 * The objects converters made in a `verify` run, each noted once (the first run that made it); `found` holds the first
 * one a later run made again, until read.
 * @example
 * ```ts
 * const handedOut = new HandedOut() // one for the whole verify run
 * info.body = await runStepsToBody(tracked(steps, step, ran, handedOut.watching(context.runConverter, info.body)), info, info.body, at)
 * const shared = handedOut.take() // the first object two runs handed out, if any
 * ```
 */
export class HandedOut {
  private readonly made = new WeakSet<object>()
  private found: HandedTwice | undefined

  /** A converter run (with `run` when given) that notes the objects each run made; `root`: the body the level's runs start from. */
  watching (run: ConverterRun | undefined, root: unknown): ConverterRun {
    return (converter, argument) => {
      const given = nodesOf(argument)
      const occurrence = (argument as { body: unknown }).body
      // Where the occurrence sits, asked only for an object reported.
      const prefix = (): PathKey[] => occurrence === root ? [] : pathIn(root, occurrence as Record<string, unknown>) ?? []
      const note = (): void => this.note(converter, given, (argument as { body: unknown }).body, prefix)
      const result = run === undefined ? converter.run(argument) : run(converter, argument)
      if (!isThenable(result)) {
        note()
        return result
      }
      return Promise.resolve(result).then((value) => { note(); return value })
    }
  }

  /** The first object a run made that an earlier run had made, forgotten once read. */
  take (): HandedTwice | undefined {
    const found = this.found
    this.found = undefined
    return found
  }

  /** Notes the objects of `after` (at `prefix()` in the body) the run made: not in what it was `given`. */
  private note (converter: ConverterDescriptor, given: ReadonlySet<object>, after: unknown, prefix: () => readonly PathKey[]): void {
    for (const node of nodesOf(after)) {
      if (given.has(node)) continue
      if (!this.made.has(node)) {
        this.made.add(node)
        continue
      }
      // The path only for the one reported (objectsOf's, found by the same walk).
      this.found ??= reported(converter, [...prefix(), ...pathIn(after, node) ?? []])
    }
  }
}

function reported (converter: ConverterDescriptor, path: readonly PathKey[]): HandedTwice {
  const pointer = pointerOfPath(path)
  const request = converter.direction === 'request'
  const field = path.filter((key) => typeof key === 'string').at(-1)
  return {
    kind: 'shared object',
    pointer,
    message: `${converter.display} assigns one object to every body${field === undefined ? '' : ` (${field})`}: a later converter${request ? ' or the handler' : ''} ` +
      `that changes it changes every later ${request ? 'request' : 'answer'}`,
    fix: `Make ${converter.display} assign a copy each time it runs ({ ...DEFAULT }, structuredClone(DEFAULT)), never a module constant or a cached object.`
  }
}
