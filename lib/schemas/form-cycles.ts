/**
 * Forms of schemas that refer to themselves through other named schemas (`Folder` → `File` → `Folder`): while the form
 * of one at a level is built, the forms met inside it are built with a guess of it; where the guess's name was not
 * the form's, they are built again with the form, until the names agree (./generation.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { nameOf } from '../core/json-schema'
import { refersTo } from '../core/subschemas'

/** What ./generation.ts keeps of a schema's forms: the forms by level, the last level's inputs, the seeds it depends on. */
interface CycleRecord {
  readonly forms: TSchema[]
  inputs: readonly unknown[]
  deps: unknown
}

/** A schema whose form at `level` is being built: the guess of it met inside, and the records built meanwhile, as they were before. */
interface Watch {
  readonly schema: object
  readonly level: number
  guess: TSchema
  met: boolean
  readonly touched: Map<CycleRecord, Pick<CycleRecord, 'inputs' | 'deps'>>
}

/**
 * The schemas whose forms are being built, innermost last.
 * @example
 * ```ts
 * const cycles = new FormCycles()
 * cycles.build(Folder, record, 1, (built) => advance(Folder, built, 1)) // advance meets Folder inside: cycles.metInside(Folder)
 * ```
 */
export class FormCycles {
  private readonly watches: Watch[] = []

  /**
   * Runs `advance` (which builds `record`'s form of `schema` at `level`) until the forms built meanwhile refer to the
   * form's name: a named form among them that refers to the guess, where the guess's name was not the form's, is stale.
   */
  build<R extends CycleRecord> (schema: TSchema, record: R, level: number, advance: (record: R) => void): void {
    const watch: Watch = { schema, level, guess: schema, met: false, touched: new Map() }
    this.watches.push(watch)
    try {
      // Each round settles at least one more schema of the cycle: more rounds than schemas built would not settle.
      for (let round = 0; ; round++) {
        watch.met = false
        advance(record)
        const form = record.forms[level]
        const guessed = nameOf(watch.guess)
        if (!watch.met || guessed === undefined || nameOf(form) === guessed || round > watch.touched.size) return
        const stale = [...watch.touched.keys()].some((each) => {
          const built = each.forms[level]
          return built !== form && nameOf(built) !== undefined && refersTo(built, guessed)
        })
        if (!stale) return
        watch.guess = form
        // The form's own record is among those touched (advance touches it first).
        for (const [each, was] of watch.touched) {
          each.forms.length = level
          each.inputs = was.inputs
          each.deps = was.deps
        }
        watch.touched.clear()
      }
    } finally {
      this.watches.pop()
    }
  }

  /** Notes that `record`'s form at `level` is about to be built: inside every schema being built at that level. */
  touch (record: CycleRecord, level: number): void {
    for (const watch of this.watches) {
      if (watch.level === level && !watch.touched.has(record)) watch.touched.set(record, { inputs: record.inputs, deps: record.deps })
    }
  }

  /** `schema` met inside its own form: its guess (itself at first). */
  metInside (schema: TSchema): TSchema {
    const watch = this.watches.findLast((each) => each.schema === schema)
    if (watch === undefined) return schema
    watch.met = true
    return watch.guess
  }
}
