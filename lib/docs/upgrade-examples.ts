/**
 * The upgrade guide's before/after examples of one change, run through the real converters and checked against
 * each version's schema (decisions 0057 and 0070).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { UnconvertibleResponseError } from '../core/request-errors'
import { exampleOf } from '../values/examples'
import { applyShape } from '../values/shape-walk'
import { inSchemaOrder } from '../values/key-order'
import { copyJson, runStepsToBody } from '../serve/step-runner'
import { migrateAnswerWith, type MigrationEngine } from '../serve/migrate-response-body'
import type { VersionerState } from '../routes/versioner-state'
import type { PlannedRoute } from '../routes/converter-steps'
import { isEndpointInstruction } from '../describe/instructions'
import { ExampleCases, messageOf, type Case } from './example-cases'
import { withShownNumbers } from './shown-numbers'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'

/**
 * One payload before and after a change (`UpgradeChange.examples`).
 * @example
 * ```ts
 * const example: UpgradeExample = {
 *   operation: 'GET /orders/{id}', part: 'response body', status: '200', shows: 'the enum value "refunded", which 2000-01-01 lacks',
 *   before: { id: 'o-1', status: 'paid' }, after: { id: 'o-1', status: 'refunded' }
 * }
 * ```
 */
export interface UpgradeExample {
  /** `POST /users`, or `webhook user.created`. */
  readonly operation: string
  readonly part: 'request body' | 'request headers' | 'query string' | 'response body' | 'webhook payload'
  /** The response's status as the documents key it (`201`, `404`, `4XX`, `default`), for response bodies. */
  readonly status?: string
  /** The statuses the two versions answer an error with, when a converter of either changed the one of `status`. */
  readonly answered?: { readonly before: number, readonly after: number }
  /** What the example shows, when it was made for it: `the value "refunded" of OrderStatus, which 2000-01-01 lacks`. */
  readonly shows?: string
  /** The payload in the version before the change; absent for an operation or webhook the change added (decision 0333). */
  readonly before?: unknown
  /** The same payload in the version after it. */
  readonly after: unknown
}

/** Where the examples of one change go, and the versions around it. */
interface ExampleSink {
  readonly version: string
  readonly previousVersion: string
  readonly examples: UpgradeExample[]
  readonly notes: string[]
  /** Examples of payloads no converter of the change runs on: what differs may be another change's of the version (decision 0333). */
  readonly borrowed?: WeakSet<UpgradeExample>
}

/** What one example is of: the operation and part, and for a response the route's converters. */
interface Payload extends Pick<UpgradeExample, 'operation' | 'part' | 'status'> {
  readonly on?: Parameters<typeof migrateAnswerWith>[3]
}

/** The request part an example is of: the body, or headers or the query string (sent with the route's `body` schema's example). */
type RequestPart = { readonly part: 'body' } | { readonly part: 'headers' | 'querystring', readonly body: TSchema | undefined }

/** What a case of an example makes: the payload in both versions (and, for an error, the statuses they answer). */
type Pair = Pick<UpgradeExample, 'before' | 'after' | 'answered'>

function sameJson (left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right)
}

/** Converter steps, as the planner gives them: each names its change. */
type Steps = ReadonlyArray<{ readonly converter: { readonly change: VersionChangeDescriptor } }>

/** What to say of a payload whose examples are all the same in both versions: why, and whether to say it at all. */
interface Same {
  /** True when the change edits a schema of the payload or converts it (a note is then due). */
  readonly touched: boolean
  /** True when a converter of the change runs on the payload. */
  readonly owned: boolean
  readonly why?: string
  /** Cases holding each schema the change edits, tried when every pair is the same (the example held another union member). */
  readonly held?: () => Case[]
}

/**
 * The examples of one change (of step `level`): request bodies converted up, responses and webhook payloads migrated down.
 * @example
 * ```ts
 * const examples = new ChangeExamples(state, engine, entry, change, level)
 * await examples.request(route, { operation: 'POST /orders', part: 'request body', method: 'POST' }, body)
 * await examples.response({ operation: 'POST /orders', part: 'response body', status: '201', on: { route, method: 'POST' } }, schema, route)
 * ```
 */
export class ChangeExamples {
  /** The cases the examples are made of. */
  private readonly made: ExampleCases

  constructor (
    private readonly state: VersionerState, private readonly engine: MigrationEngine, private readonly sink: ExampleSink,
    readonly change: VersionChangeDescriptor, private readonly level: number
  ) {
    this.made = new ExampleCases(state, engine, change, { level, version: sink.version, previousVersion: sink.previousVersion })
  }

  /** The label of a payload in notes. */
  private label (at: Payload): string {
    return `${at.operation} ${at.part}${at.status === undefined ? '' : ` (${at.status})`}`
  }

  /** True when a schema or enum instruction of the change edits a schema data of `root` can hold at level `at`. */
  edits (root: TSchema, at: number): boolean {
    const { generation, planner } = this.state
    return this.change.instructions.some((instruction) => !isEndpointInstruction(instruction) &&
      (generation.canonical(root) === generation.canonical(instruction.schema) || planner.targets.occurs(root, instruction.schema, at)))
  }

  /** True when the change edits a schema data of `root` can hold (in either version), or one of `steps` is its converter. */
  private touches (root: TSchema, steps: Steps): boolean {
    return steps.some((step) => step.converter.change === this.change) || [this.level, this.level + 1].some((at) => this.edits(root, at))
  }

  /** Adds the examples of `cases` made by `make`, or notes: a pair the same in both versions is not shown. */
  private async add (at: Payload, cases: readonly Case[], make: (item: Case) => Promise<Pair>, same: Same): Promise<void> {
    let unchanged = 0
    const shown: UpgradeExample[] = []
    for (const item of cases) {
      try {
        const pair = await withShownNumbers(item, make)
        const { before, after } = pair
        if (sameJson(before, after) && pair.answered === undefined) {
          unchanged++
          continue
        }
        const status = at.status === undefined ? {} : { status: at.status }
        const example = { operation: at.operation, part: at.part, ...status, ...(item.shows === undefined ? {} : { shows: item.shows }), ...pair }
        // The same pair as an earlier case's (HEAD's example already holds the enum value): shown once, saying what it shows.
        const repeated = shown.find((earlier) => sameJson(earlier.before, before) && sameJson(earlier.after, after))
        if (repeated !== undefined) {
          if (repeated.shows === undefined) {
            this.sink.examples.splice(this.sink.examples.indexOf(repeated), 1, example)
            shown.splice(shown.indexOf(repeated), 1, example)
          }
          continue
        }
        shown.push(example)
        this.sink.examples.push(example)
      } catch (error) {
        this.sink.notes.push(`${this.label(at)}${item.shows === undefined ? '' : `, ${item.shows}`}: ${this.failure(item, error)}`)
      }
    }
    const mark = (examples: readonly UpgradeExample[]): void => { if (!same.owned) for (const example of examples) this.sink.borrowed?.add(example) }
    mark(shown)
    if (unchanged === cases.length && same.touched) {
      const from = this.sink.examples.length
      if (await this.addHeld(at, make, same.held?.() ?? [])) return mark(this.sink.examples.slice(from))
      const why = same.why ?? 'this change does not alter this example (what differs is in the two versions\' schemas)'
      this.sink.notes.push(`${this.label(at)}: not shown, the same in ${this.sink.previousVersion} and ${this.sink.version}: ${why}`)
    }
  }

  /** Adds the pairs of `cases` that differ (none that fails: the note that the pair is the same stands); true when one was added. */
  private async addHeld (at: Payload, make: (item: Case) => Promise<Pair>, cases: readonly Case[]): Promise<boolean> {
    const added = this.sink.examples.length
    for (const item of cases) {
      const pair = await withShownNumbers(item, make).catch(() => undefined)
      if (pair === undefined || (sameJson(pair.before, pair.after) && pair.answered === undefined)) continue
      this.sink.examples.push({ operation: at.operation, part: at.part, ...(at.status === undefined ? {} : { status: at.status }), shows: item.shows, ...pair })
    }
    return this.sink.examples.length > added
  }

  /** `value` with its keys in the order the version's `form` lists them (../values/key-order.ts). */
  private ordered (form: TSchema, value: unknown): unknown {
    return inSchemaOrder(form, value, (ref) => this.state.generation.resolveAnyId(ref))
  }

  /** Why an example could not be made. */
  private failure (item: Case, error: unknown): string {
    if (item.toward !== undefined && error instanceof UnconvertibleResponseError) {
      return `a client of ${this.sink.previousVersion} receives a 500 FST_VERSIONER_UNCONVERTIBLE_RESPONSE instead: no response converter maps ` +
        `${JSON.stringify(item.toward.value)} to a value that version has (add one)`
    }
    return `no example (${messageOf(error)})`
  }

  /**
   * The example of a payload of an operation or webhook the change added: the version after it only, `before` left
   * out (decision 0333); a request body as the version takes it, a response or webhook payload as HEAD's example
   * migrated to the version (`schema` the version's, `answered` HEAD's).
   */
  async added (at: Payload, part: { readonly request: TSchema } | { readonly schema: TSchema, readonly answered?: TSchema }): Promise<void> {
    const { generation } = this.state
    const { level, sink } = this
    try {
      let after: unknown
      if ('request' in part) {
        const form = generation.formAt(part.request, level)
        after = this.ordered(form, this.made.request(form, sink.version))
      } else {
        const { schema, answered = schema } = part
        after = await this.made.firstTaken(answered, async (head) => {
          const migrated = await migrateAnswerWith(this.engine, schema, { latestBody: exampleOf(head, this.made.options()), version: sink.version }, at.on)
          return this.ordered(generation.formAt(schema, level), migrated.body)
        })
      }
      sink.examples.push({ operation: at.operation, part: at.part, ...(at.status === undefined ? {} : { status: at.status }), after })
    } catch (error) {
      sink.notes.push(`${this.label(at)}: no example (${messageOf(error)})`)
    }
  }

  /** A request body of the version before the change, converted up by the change's request converters. */
  async request (route: PlannedRoute, at: Payload & { readonly method: string }, schema: TSchema, of: RequestPart = { part: 'body' }): Promise<void> {
    const { generation, planner } = this.state
    const { level, sink } = this
    const beforeForm = generation.formAt(schema, level + 1)
    const afterForm = generation.formAt(schema, level)
    const body = of.part === 'body' ? schema : of.body
    const steps = planner.requestSteps(route, body, level + 1)
    // Headers and the query string are the change's when it edits their schema: its converters on the route may be the body's.
    const edited = [level, level + 1].some((version) => this.edits(schema, version))
    const touched = of.part === 'body' ? this.touches(schema, steps) : edited
    if (!touched) return
    // The version's request converters, this change's and those of the changes it was released with: a body of the
    // version before it becomes one of the version after it only when all of them have run (decision 0271).
    const { changes } = this.state.steps[level]
    const converters = steps.filter((step) => changes.includes(step.converter.change))
    await this.add(at, this.made.cases(schema, level + 1, 'older'), async (item) => {
      const before = this.made.request(beforeForm, sink.previousVersion, item)
      // Headers and a query string are sent with the body the version's clients send (converters by path may read it).
      const sent = of.part === 'body' ? before : of.body === undefined ? undefined : this.made.request(generation.formAt(of.body, level + 1), sink.previousVersion)
      const own = (part: RequestPart['part']): object => of.part === part ? copyJson(before) as object : {}
      const info = { body: sent === undefined ? undefined : copyJson(sent), queryParams: own('querystring'), headers: own('headers'), cookies: {}, form: undefined }
      const converted = await runStepsToBody(converters, info, info.body, { method: at.method, reply: undefined })
      // What the version after the change takes: fields the converters wrote for later versions (HEAD's internal ones) left out.
      const after = applyShape(afterForm, planner.requestRules, of.part === 'body' ? converted : of.part === 'headers' ? info.headers : info.queryParams)
      const checkAfter = this.engine.validatorOf(afterForm)
      // Keys in the order each version's schema lists them, as a client writes them from its document.
      if (checkAfter(copyJson(after))) return { before: this.ordered(beforeForm, before), after: this.ordered(afterForm, after) }
      if (item.toward !== undefined) {
        throw new Error(`no request converter of this change turns it into a value ${sink.version} has: such a request fails on the server (add one)`)
      }
      throw new Error(`the converted example does not match version ${sink.version}'s schema at '${checkAfter.errors?.[0]?.instancePath ?? ''}'`)
    }, {
      // Only a converter by path of the change (one of a header, say) ran on a body the same before and after: nothing to say.
      touched: of.part !== 'body' || edited || steps.some((step) => step.converter.change === this.change && step.converter.target.kind !== 'path'),
      owned: steps.some((step) => step.converter.change === this.change),
      why: this.made.accepted(schema),
      held: () => this.made.held(schema, level + 1)
    })
  }

  /**
   * A HEAD response (of `route`, when given) or webhook payload of `schema` migrated to the versions before and after
   * the change: `schema` is the one both versions answer, `answered` HEAD's (the handler's), when a newer change
   * gave the route other responses (`had({ response })`): the example is HEAD's, converted down through every change.
   */
  async response (at: Payload, schema: TSchema, route?: PlannedRoute, answered: TSchema = schema): Promise<void> {
    const { planner } = this.state
    const sent = at.on?.status ?? 200
    // An error reaches only the converters declared with migrateHttpErrors, a success schema's among them (as served).
    const responses = sent >= 300 ? route?.forms?.responses[this.level + 1]?.schemas : undefined
    const steps = planner.responseSteps(route, schema, this.level + 1, responses, at.on?.slot).filter((step) => sent < 300 || step.converter.migrateHttpErrors)
    // A payload the change does not touch differs only by the other changes of its version: theirs to show.
    const touched = this.touches(schema, steps)
    if (!touched) return
    const migrated = async (item: Case, from: TSchema): Promise<Pair> => {
      const head = exampleOf(from, { ...this.made.options(), toward: item.toward, showing: item.showing, onNumber: item.onNumber })
      const before = await migrateAnswerWith(this.engine, schema, { latestBody: head, version: this.sink.previousVersion }, at.on)
      const after = await migrateAnswerWith(this.engine, schema, { latestBody: head, version: this.sink.version }, at.on)
      const answered = before.status === sent && after.status === sent ? {} : { answered: { before: before.status, after: after.status } }
      // Keys in the order each version's serializer writes them: what its clients read (decision 0325).
      const { generation } = this.state
      return { before: this.ordered(generation.formAt(schema, this.level + 1), before.body), after: this.ordered(generation.formAt(schema, this.level), after.body), ...answered }
    }
    // HEAD's first example a converter takes (the first one the documents show).
    await this.add(at, this.made.cases(answered, 0, 'newer'), async (item) => item.toward !== undefined
      ? await migrated(item, answered)
      : await this.made.firstTaken(answered, async (head) => await migrated(item, head)), { touched, owned: steps.some((step) => step.converter.change === this.change), held: () => this.made.held(answered, 0) })
  }
}
