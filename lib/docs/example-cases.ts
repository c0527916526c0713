/**
 * The cases of a change's upgrade examples: the documents' own example, one per enum member that differs between the
 * versions around the change, one per schema the change edits (decisions 0070 and 0272).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { exampleOf } from '../values/examples'
import { copyJson } from '../values/json-copy'
import type { MigrationEngine } from '../serve/migrate-response-body'
import type { VersionerState } from '../routes/versioner-state'
import { isEndpointInstruction } from '../describe/instructions'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import { enumDifferences, type EnumDifference } from './enum-differences'

/**
 * An error's message (a converter's failure is wrapped, with what it threw).
 * @example
 * ```ts
 * messageOf(new Error('exampleOf: no value')) // 'no value'
 * ```
 */
export function messageOf (error: unknown): string {
  const thrown = (error as { thrown?: unknown }).thrown ?? error
  const message = thrown instanceof Error ? thrown.message : String(thrown)
  return message.replace(/^exampleOf: /, '')
}

/**
 * One example to make: the documents' own (no `toward`), or one holding an enum value or a schema the change edits;
 * with the generated numbers to make show a conversion, or a call naming each (./shown-numbers.ts).
 */
export interface Case {
  readonly toward?: { readonly isTarget: (node: object) => boolean, readonly value: unknown }
  readonly shows?: string
  readonly showing?: ReadonlySet<string>
  readonly onNumber?: (pointer: string, value: number) => void
}

/** The step of a change (its level) and the versions around it: the one holding it and the one before. */
interface Around {
  readonly level: number
  readonly version: string
  readonly previousVersion: string
}

/**
 * The cases of one change's examples (of step `level`).
 * @example
 * ```ts
 * const made = new ExampleCases(state, engine, change, { level, version: '2001-01-01', previousVersion: '2000-01-01' })
 * for (const item of made.cases(schema, 0, 'newer')) console.log(item.shows ?? 'the documents\' example')
 * ```
 */
export class ExampleCases {
  private readonly enums: readonly EnumDifference[]

  constructor (private readonly state: VersionerState, private readonly engine: MigrationEngine, private readonly change: VersionChangeDescriptor, private readonly around: Around) {
    this.enums = enumDifferences(state, change, around.level)
  }

  /** The documents' example, then one per enum value of `side` that can occur in data of `root` at `level`. */
  cases (root: TSchema, level: number, side: 'newer' | 'older'): Case[] {
    const { targets } = this.state.planner
    const cases: Case[] = [{}]
    for (const difference of this.enums) {
      if (difference[side].length === 0 || !targets.occurs(root, difference.head, level)) continue
      const isTarget = targets.formOf(difference.head, level) as (node: object) => boolean
      const lacking = side === 'newer' ? this.around.previousVersion : this.around.version
      const of = difference.display === 'schema' ? 'enum' : `enum ${difference.display}`
      for (const { value, toward } of difference[side]) cases.push({ toward: { isTarget, value: toward }, shows: `the ${of} value ${JSON.stringify(value)}, which ${lacking} lacks` })
    }
    return cases
  }

  /** One case per schema the change edits that data of `root` can hold at `level`, holding its example there. */
  held (root: TSchema, level: number): Case[] {
    const { generation, planner: { targets } } = this.state
    const seeds = new Set(this.change.instructions.flatMap((instruction) => isEndpointInstruction(instruction) ? [] : [generation.seedOf(instruction.schema)]))
    return [...seeds].flatMap((seed) => {
      if (seed === undefined || !targets.occurs(root, seed.head, level)) return []
      try {
        const value = exampleOf(generation.formAt(seed.head, level), this.options())
        const shows = seed.display === 'schema' ? 'the schema this change edits' : `a ${seed.display}, which this change edits`
        return [{ toward: { isTarget: targets.formOf(seed.head, level) as (node: object) => boolean, value }, shows }]
      } catch {
        return []
      }
    })
  }

  /** The options every example of the guide is built with (`toward` added per case). */
  options (): Parameters<typeof exampleOf>[1] & object {
    const { generation } = this.state
    return { includeOptional: true, resolveRef: (ref: string) => generation.resolveAnyId(ref), formats: this.engine.formats, samples: this.engine.samples }
  }

  /** Why a request the same in both versions is: the enum values only the version after the change accepts, if any. */
  accepted (body: TSchema): string | undefined {
    const { targets } = this.state.planner
    const values = this.enums.filter((difference) => targets.occurs(body, difference.head, this.around.level)).flatMap((difference) => difference.newer.map((member) => member.value))
    if (values.length === 0) return undefined
    return `a client of ${this.around.previousVersion} sends the same bodies; ${this.around.version} also accepts ${values.map((value) => JSON.stringify(value)).join(', ')}`
  }

  /** A request body example of a version's `form` (valid there), holding `item`'s value. */
  request (form: TSchema, version: string, item: Case = {}): unknown {
    const make = (from: TSchema): unknown => {
      try {
        return exampleOf(from, { ...this.options(), toward: item.toward, showing: item.showing, onNumber: item.onNumber })
      } catch (error) {
        throw new Error(`${messageOf(error)} in version ${version}`)
      }
    }
    const check = this.engine.validatorOf(form)
    let value = make(form)
    // A rebuilt form keeps HEAD's object-level examples, of HEAD's shape: one that fails the version's schema is
    // left out, as the version's document leaves it out, and the example is built from the form's keywords.
    if (!check(copyJson(value)) && Array.isArray(form.examples)) {
      const { examples, ...bare } = form
      value = make(bare as TSchema)
    }
    if (!check(copyJson(value))) throw new Error(`the example does not match version ${version}'s schema at '${check.errors?.[0]?.instancePath ?? ''}'`)
    return value
  }

  /** What `make` makes of HEAD's first example it takes (the first one the documents show); the first one's failure when none does. */
  async firstTaken<T> (answered: TSchema, make: (head: TSchema) => Promise<T>): Promise<T> {
    const examples = (answered as { examples?: unknown }).examples
    const heads = Array.isArray(examples) && examples.length > 1 ? examples.map((example) => ({ ...answered, examples: [example] })) : [answered]
    let failure: unknown
    for (const head of heads) {
      try {
        return await make(head)
      } catch (error) {
        failure ??= error
      }
    }
    throw failure
  }
}
