/**
 * The mutation score of the proof (docs/decisions/0074-a-corpus-of-realistic-mistakes.md): each mistake of the corpus
 * (test/fixtures/mutations/) is applied, as text edits, to a copy of its example app's sources; the copy is loaded in
 * this process and `check` runs on it against the example's committed snapshot, then `verify` when check found
 * nothing. A mistake is caught when check reports a break, verify a finding, or the application (or a tool) refuses
 * it with a coded error (`FST_VERSIONER_*`): each fails CI. Notes are not: they never fail CI.
 */
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { checkDocuments, readTraffic, replayTraffic, verify, type SentWebhook, type Traffic } from '../../tools'
import { recordTraffic } from '../../examples/traffic'
import { shareCompiledSchemas, shareToolCompilers } from './compiled-schemas'
import { exampleTestFindings } from './example-tests'

const ROOT = resolve(__dirname, '..', '..')

/** The example apps the corpus mutates: `examples/<app>`, with its snapshot in `examples/<app>/openapi`. */
export type ExampleApp = 'users' | 'billing'

/** What the team got wrong. */
export type MistakeKind =
  /** A converter that loses or garbles data. */
  | 'lossy'
  /** A converter that puts values in each other's place, or maps them the wrong way round. */
  | 'swapped'
  /** A converter (or a conversion) left out. */
  | 'skipped'
  /** A converter that handles one direction, one member, one level of the data. */
  | 'partial'
  /** A wrong or missing instruction. */
  | 'instruction'
  /** HEAD changed in a way old clients see, without a version change. */
  | 'contract'

/** Where the mistake shows. */
export type Surface =
  | 'request' | 'response' | 'webhook' | 'query' | 'enum' | 'nested' | 'union' | 'header' | 'endpoint' | 'put' | 'version'
  /** Status codes and error bodies. */
  | 'status'
  /** Query strings of GET routes and path parameters (`query` is a QUERY route's body). */
  | 'params'
  /** `default` values of a schema. */
  | 'default'

/** One text edit of one file of the example (its name in `examples/<app>/`): `find` must occur exactly once. */
export interface Edit {
  readonly file: string
  readonly find: string
  readonly replace: string
}

/**
 * One request of a witness, through `app.inject()`. `{name}` in the URL or in a string of the payload is the `id` of
 * an earlier answer saved under that name.
 */
export interface Exchange {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'QUERY'
  readonly url: string
  /** Sent as `x-api-version`; none when omitted. */
  readonly version?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly payload?: unknown
  /** Keeps the answer's `id` under this name. */
  readonly save?: string
}

/** What a client saw: the status, the body (UUIDs masked), the headers, and the webhooks delivered so far. */
export interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, unknown>>
  readonly delivered: readonly unknown[]
}

/**
 * How an old client sees the mistake: the requests it sends. By default, the last answer differs between the
 * mistaken app and the correct one; `sees`, when given, holds on the mistaken app's answers and not on the correct
 * app's (for a harm a plain comparison cannot isolate).
 */
export interface Witness {
  readonly exchanges: readonly Exchange[]
  readonly sees?: (answers: readonly Answer[]) => boolean
}

/** A realistic mistake: the diff a team commits, and what an old client then sees. */
export interface Mistake {
  /** Unique in the corpus, `<app>/<name>`. */
  readonly id: string
  readonly app: ExampleApp
  readonly kind: MistakeKind
  readonly surface: Surface
  /** One line: what the team did, and what an old client then sees. */
  readonly description: string
  readonly edits: readonly Edit[]
  /** Requests that show the mistake to a client (the corpus holds no mistake nobody would notice). */
  readonly witness: Witness
}

/** What the tools made of one mistake (or of a correct app: `mistake` undefined). */
export interface Verdict {
  readonly mistake: Mistake | undefined
  readonly app: ExampleApp
  /**
   * Who failed CI: the start-up (a coded error), `check` (a break), `verify` (a finding), `handlers` (a finding of the
   * example's own tests that run its handlers, asked for with `handlers`), `replay` (a finding on the example's recorded traffic, asked
   * for with `traffic`); `undefined` when all passed.
   */
  readonly caughtBy: 'start-up' | 'check' | 'verify' | 'handlers' | 'replay' | undefined
  /** The first break, finding or error, as the command prints it. */
  readonly detail: string
  /** check's breaks and verify's findings (verify runs only when check found none, unless `both`). */
  readonly breaks: number
  readonly findings: number
  readonly milliseconds: number
  /** The witness's answers on the mistaken app (none when it did not start, or witnesses were not asked for). */
  readonly answers: readonly Answer[] | undefined
}

/** How to measure. */
export interface MeasureOptions {
  /** The folder mutants are written to (one sub-folder each, emptied first). */
  readonly base: string
  /** verify's examples per route, version, direction and part. */
  readonly examples: number
  /** Run verify even when check found a break (for the correct apps, and for reports of what each tool catches). */
  readonly both?: boolean
  /** Also play each mistake's witness on the mistaken app. */
  readonly witness?: boolean
  /**
   * Run the example's own tests that run its handlers (test/helpers/example-tests.ts: `replaceFromEveryVersion`,
   * `readWebhookDelivery`) when check and verify found nothing, as a team's test suite runs them in CI.
   */
  readonly handlers?: boolean
  /**
   * Replay the example's traffic when check, verify and the example's tests found nothing: the exchanges of `examples/traffic.ts`'s clients
   * (not the witnesses), recorded once from the correct app, as a team records its own and replays it in CI.
   */
  readonly traffic?: boolean
  /** Called after each mistake, e.g. to print progress. */
  readonly onVerdict?: (verdict: Verdict) => void
}

/** A webhook subscriber pinned to the oldest version, and a fixed clock: what witnesses see (billing's options; users' app ignores them). */
const SUBSCRIBER = { id: 'ep_1', url: 'https://subscriber.test/hooks', version: '2023-10-16', secret: `whsec_${'A'.repeat(32)}` }
const NOW = Date.UTC(2025, 5, 1)

/** An app of an example module, built with what witnesses need; `delivered` collects its webhooks. */
type AppFunction = (options: Record<string, unknown>) => Promise<FastifyInstance>

/** Relative imports that leave the example's folder (`'../../plugin'`), rewritten to reach the same file from `to`. */
function rewriteImports (text: string, from: string, to: string): string {
  return text.replace(/(from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g, (whole, lead: string, specifier: string) => {
    const target = resolve(from, specifier)
    if (target.startsWith(from + sep)) return whole
    const moved = relative(to, target).split(sep).join('/')
    return `${lead}'${moved.startsWith('.') ? moved : `./${moved}`}'`
  })
}

/** The example's sources with the mistake's edits applied; throws when an edit's `find` does not occur exactly once. */
async function mutatedSources (app: ExampleApp, mistake: Pick<Mistake, 'id' | 'edits'> | undefined): Promise<Map<string, string>> {
  const folder = join(ROOT, 'examples', app)
  const sources = new Map<string, string>()
  for (const name of (await readdir(folder)).filter((file) => file.endsWith('.ts') && file !== 'server.ts')) {
    sources.set(name, await readFile(join(folder, name), 'utf8'))
  }
  for (const edit of mistake?.edits ?? []) {
    const text = sources.get(edit.file)
    if (text === undefined) throw new Error(`mistake ${mistake?.id}: examples/${app}/${edit.file} does not exist`)
    const count = text.split(edit.find).length - 1
    if (count !== 1) {
      throw new Error(`mistake ${mistake?.id}: its find text occurs ${count} times in examples/${app}/${edit.file}, where it must occur once ` +
        `(the example changed: update the mistake so that it still reads as the diff a team would commit):\n${edit.find}`)
    }
    if (edit.find === edit.replace) throw new Error(`mistake ${mistake?.id}: an edit of ${edit.file} changes nothing`)
    sources.set(edit.file, text.replace(edit.find, () => edit.replace))
  }
  return sources
}

/** Writes the (mutated) example to `dir` and returns its app module's path (also for test/tools/replay-traffic.test.ts). */
export async function writeMutant (app: ExampleApp, mistake: Pick<Mistake, 'id' | 'edits'> | undefined, dir: string): Promise<string> {
  const sources = await mutatedSources(app, mistake)
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  for (const [name, text] of sources) await writeFile(join(dir, name), rewriteImports(text, join(ROOT, 'examples', app), dir))
  return join(dir, 'app.ts')
}

/** A coded error of the plugin (`FST_VERSIONER_*`): the application or a tool refused the mistake, and CI fails. */
function codedError (error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('FST_VERSIONER_') ? `${code}: ${(error as Error).message}` : undefined
}

/**
 * Loads the app module (the test's TypeScript loader compiles it; Node caches it) and readies an app of its default
 * export, its webhooks collected in `delivered` (each body, parsed) and in `sent` (as sent). The apps share the
 * schemas Fastify compiled for them, and the tools' Ajv instances their compilations (test/helpers/compiled-schemas.ts,
 * decision 0240).
 */
async function loadMutant (file: string, delivered: unknown[], sent: SentWebhook[] = [], now: () => number = () => NOW): Promise<FastifyInstance> {
  shareToolCompilers()
  const build = (require(file) as { default: AppFunction }).default
  // What a subscriber reads: the body it was sent (the signatures change with the random event id).
  const deliver = async (delivery: SentWebhook): Promise<void> => {
    sent.push(delivery)
    delivered.push(JSON.parse(delivery.body))
  }
  const app = await build({ subscribers: [SUBSCRIBER], deliver, now })
  shareCompiledSchemas(app)
  try {
    await app.ready()
  } catch (error) {
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const VOLATILE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length'])

/** Plays a witness's requests on a readied app; returns every answer. */
async function play (app: FastifyInstance, witness: Witness, delivered: readonly unknown[]): Promise<Answer[]> {
  const saved = new Map<string, string>()
  const fill = (text: string): string => text.replace(/\{(\w+)\}/g, (whole, name: string) => saved.get(name) ?? whole)
  const answers: Answer[] = []
  for (const exchange of witness.exchanges) {
    const response = await app.inject({
      method: exchange.method ?? 'GET',
      url: fill(exchange.url),
      headers: { ...(exchange.version === undefined ? {} : { 'x-api-version': exchange.version }), ...exchange.headers },
      ...(exchange.payload === undefined ? {} : { payload: JSON.parse(fill(JSON.stringify(exchange.payload))) as object })
    })
    let body: unknown = response.body
    try { body = response.json() } catch {}
    if (exchange.save !== undefined) saved.set(exchange.save, String((body as { id?: unknown } | null)?.id))
    const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !VOLATILE_HEADERS.has(name)))
    answers.push(JSON.parse(JSON.stringify({ status: response.statusCode, body, headers, delivered }).replace(UUID, '<uuid>')) as Answer)
  }
  return answers
}

/** The witness's answers on a fresh app of the module `file` (loaded once, then from Node's cache). */
async function playOn (file: string, witness: Witness): Promise<Answer[]> {
  const delivered: unknown[] = []
  const instance = await loadMutant(file, delivered)
  try {
    return await play(instance, witness, delivered)
  } finally {
    await instance.close()
  }
}

/** The witness's answers on a fresh correct app of the example (written to `base` once). */
async function correctAnswers (app: ExampleApp, witness: Witness, base: string): Promise<Answer[]> {
  const dir = join(base, `${app}-correct`)
  const file = join(dir, 'app.ts')
  if (require.cache[file] === undefined) await writeMutant(app, undefined, dir)
  return await playOn(file, witness)
}

/** True when the witness shows the mistake: `sees` holds on the mistaken app only, or else the last answers differ. */
function witnessed (witness: Witness, mistaken: readonly Answer[], correct: readonly Answer[]): boolean {
  if (witness.sees !== undefined) return witness.sees(mistaken) && !witness.sees(correct)
  return JSON.stringify(mistaken.at(-1)) !== JSON.stringify(correct.at(-1))
}

/** What the tools made of one mistake. */
type Judged = Pick<Verdict, 'caughtBy' | 'detail' | 'breaks' | 'findings'>

/** check's breaks: a verdict when they catch the mistake (and `both` is not asked for), else their number and the first. */
async function judgeDocuments (app: FastifyInstance, example: ExampleApp, options: MeasureOptions): Promise<Judged> {
  const { breaks } = await checkDocuments(app, join(ROOT, 'examples', example, 'openapi'))
  const detail = breaks.length > 0 ? `break: ${breaks[0].text}` : ''
  return { caughtBy: breaks.length > 0 && options.both !== true ? 'check' : undefined, detail, breaks: breaks.length, findings: 0 }
}

/**
 * Runs the tools after check (`checked`: what it found, which ended nothing) on a readied app whose requests were only
 * the documents'.
 */
async function judge (app: FastifyInstance, example: ExampleApp, options: MeasureOptions, made: { sent: readonly SentWebhook[], build: () => Promise<FastifyInstance> }, checked: Judged): Promise<Judged> {
  const { sent } = made
  const breaks = { length: checked.breaks, first: checked.detail }
  const findings = await verify(app, { examples: options.examples, seed: 1 })
  const detail = breaks.length > 0 ? breaks.first : findings.length > 0 ? `finding: ${findings[0].text}` : ''
  const caughtBy = breaks.length > 0 ? 'check' : findings.length > 0 ? 'verify' : undefined
  if (caughtBy !== undefined) return { caughtBy, detail, breaks: breaks.length, findings: findings.length }
  const tested = options.handlers === true ? await exampleTestFindings(app, example, sent, SUBSCRIBER.secret) : []
  if (tested.length > 0) return { caughtBy: 'handlers', detail: tested[0], breaks: 0, findings: tested.length }
  if (options.traffic !== true) return { caughtBy, detail, breaks: 0, findings: 0 }
  // Through the converters, and through the handlers of fresh apps of the mutant (decision 0234).
  const replayed = await replayTraffic(app, await trafficOf(example), { handlers: made.build })
  const [first] = replayed.findings
  return first === undefined
    ? { caughtBy, detail, breaks: 0, findings: 0 }
    : { caughtBy: 'replay', detail: `replay: ${first.text}`, breaks: 0, findings: replayed.findings.length }
}

/**
 * Rounds of the example's clients recorded for replay: every route and version, lists of one to three items (a
 * customer's invoices, a user's addresses), and requests their version refuses.
 */
const TRAFFIC_ROUNDS = 6
const recorded = new Map<ExampleApp, Promise<Traffic>>()

/**
 * The example's traffic, recorded from the correct app on first use: every version's exchanges (`everyVersion`), so
 * that the handlers' replay sees every client, as a team replaying through the handlers records it (decision 0237);
 * and the billing app's webhook renders, its production configuration having a subscriber pinned to each of its
 * versions (decision 0238: no client scenario is added, the pay requests render them).
 */
async function trafficOf (example: ExampleApp): Promise<Traffic> {
  let traffic = recorded.get(example)
  if (traffic === undefined) {
    recorded.set(example, traffic = recordTraffic(example, TRAFFIC_ROUNDS, { everyVersion: true }, { subscribers: true }).then((lines) => readTraffic(lines.join('\n'))))
  }
  return await traffic
}

/**
 * Measures one mistake (or, with `mistake` undefined, the correct app `app`): writes the mutant, loads it, runs the
 * tools. A failure that is not a coded error of the plugin (a syntax error, a `TypeError` at start-up) is a defect of
 * the corpus, and is thrown.
 */
export async function measureOne (app: ExampleApp, mistake: Mistake | undefined, options: MeasureOptions): Promise<Verdict> {
  const started = performance.now()
  const dir = join(options.base, mistake === undefined ? `${app}-correct` : mistake.id.replace(/\//g, '-'))
  const file = await writeMutant(app, mistake, dir)
  try {
    return await measureMutant({ app, mistake, options, file, started })
  } finally {
    unloadMutant(dir)
  }
}

/**
 * measureOne's work on the written mutant `file`. The witness is played first, on a fresh app (as the correct app's
 * answers are), and check runs on the same app: it reads only the documents, which no request changes. What sends
 * requests of its own (verify, the example's handler tests, the replay) runs on a fresh app when check caught nothing,
 * of freshly loaded modules when the witness was played (its requests may have changed a module's state, which a
 * team's CI never saw): a mistake check catches starts one app, not two.
 */
async function measureMutant ({ app, mistake, options, file, started }: { app: ExampleApp, mistake: Mistake | undefined, options: MeasureOptions, file: string, started: number }): Promise<Verdict> {
  let answers: Answer[] | undefined
  const done = (result: Judged): Verdict => ({ mistake, app, ...result, milliseconds: Math.round(performance.now() - started), answers })
  let sent: SentWebhook[] = []
  const delivered: unknown[] = []
  let instance: FastifyInstance
  try {
    instance = await loadMutant(file, delivered, sent)
  } catch (error) {
    const coded = codedError(error)
    if (coded === undefined) throw new Error(`${mistake?.id ?? `the correct ${app} app`} failed to load with an error that is no refusal of the plugin: ${String(error)}`, { cause: error })
    return done({ caughtBy: 'start-up', detail: coded, breaks: 0, findings: 0 })
  }
  let closed = false
  try {
    if (options.witness === true && mistake !== undefined) answers = await play(instance, mistake.witness, delivered)
    const checked = await refusalCaught(async () => await judgeDocuments(instance, app, options))
    if (checked.caughtBy !== undefined) return done(checked)
    if (answers !== undefined) {
      closed = true
      await instance.close()
      // The witness's requests may have changed the mutant's module state (a constant one converter hands out and
      // another changes in place): verify reads the modules as loaded.
      unloadMutant(dirname(file))
      instance = await loadMutant(file, [], sent = [])
      closed = false
    }
    // The replay's fresh apps read the real clock, as a team's do (the recording app did): their event times are then the replay's.
    const build = async (): Promise<FastifyInstance> => await loadMutant(file, [], [], Date.now)
    return done(await refusalCaught(async () => await judge(instance, app, options, { sent, build }, checked)))
  } finally {
    if (!closed) await instance.close()
  }
}

/** What the tools made of the mistake; a coded error a tool throws is a catch, like a break. */
async function refusalCaught (run: () => Promise<Judged>): Promise<Judged> {
  try {
    return await run()
  } catch (error) {
    const coded = codedError(error)
    if (coded === undefined) throw error
    return { caughtBy: 'check', detail: coded, breaks: 0, findings: 0 }
  }
}

/**
 * Lets go of a mutant's modules once it is measured (its witness played): fifty apps kept alive through Node's module
 * cache made each garbage collection longer than the last.
 */
function unloadMutant (dir: string): void {
  const inside = (id: string): boolean => id.startsWith(dir + sep)
  for (const id of Object.keys(require.cache)) if (inside(id)) delete require.cache[id]
  module.children = module.children.filter((child) => !inside(child.id))
}

/**
 * The mistakes whose witness shows nothing: played on a fresh mistaken app and on a fresh correct app,
 * the answers do not tell them apart. Such a mistake is equivalent to the correct app, or its witness is wrong:
 * either way a defect of the corpus. Mistakes refused at start-up have no answers, and are not judged.
 */
export async function unwitnessed (verdicts: readonly Verdict[], base: string): Promise<string[]> {
  const silent: string[] = []
  for (const { mistake, answers } of verdicts) {
    if (mistake === undefined || answers === undefined) continue
    if (!witnessed(mistake.witness, answers, await correctAnswers(mistake.app, mistake.witness, base))) silent.push(mistake.id)
  }
  return silent
}

/** Measures every mistake of the corpus, one after the other. */
export async function measureCorpus (corpus: readonly Mistake[], options: MeasureOptions): Promise<Verdict[]> {
  const verdicts: Verdict[] = []
  for (const mistake of corpus) {
    const verdict = await measureOne(mistake.app, mistake, options)
    verdicts.push(verdict)
    options.onVerdict?.(verdict)
  }
  return verdicts
}

/** What a score counts: `check`, `verify` and the start-up; also the example's handler tests; also the replayed traffic. */
type Counted = 'proof' | 'handlers' | 'replay'

/** Whether a verdict counts as caught in a score of `counted`. */
function caughtIn (verdict: Verdict, counted: Counted): boolean {
  const by = verdict.caughtBy
  return by !== undefined && (counted === 'replay' || by !== 'replay') && (counted !== 'proof' || by !== 'handlers')
}

/**
 * How many mistakes were caught, counting what `counted` says (default: check, verify and the start-up).
 *
 * @example
 * caughtCount(verdicts, 'replay') // 239
 */
export function caughtCount (verdicts: readonly Verdict[], counted: Counted = 'proof'): number {
  return verdicts.filter((verdict) => caughtIn(verdict, counted)).length
}

/** The score: the share of mistakes caught, in percent (one decimal), counting what `counted` says (default: check, verify and the start-up). */
export function scoreOf (verdicts: readonly Verdict[], counted: Counted = 'proof'): number {
  return Math.round(1000 * caughtCount(verdicts, counted) / verdicts.length) / 10
}

/**
 * Where a mistake was made: in the app's routes and handlers only (its `app.ts`, what `check` and `verify` do not
 * run), or in its version changes or schemas (what they read).
 */
function placeOf (mistake: Mistake | undefined): 'version changes and schemas' | 'routes and handlers only' {
  return mistake !== undefined && mistake.edits.every((edit) => edit.file === 'app.ts') ? 'routes and handlers only' : 'version changes and schemas'
}

/**
 * What check and verify catch by where the mistakes were made.
 *
 * @example
 * byPlace(verdicts) // [{ place: 'version changes and schemas', caught: 178, of: 216 }, { place: 'routes and handlers only', caught: 13, of: 42 }]
 */
export function byPlace (verdicts: readonly Verdict[]): Array<{ place: ReturnType<typeof placeOf>, caught: number, of: number }> {
  return (['version changes and schemas', 'routes and handlers only'] as const).map((place) => {
    const of = verdicts.filter((verdict) => placeOf(verdict.mistake) === place)
    return { place, caught: caughtCount(of), of: of.length }
  })
}

/** The report, one line each: the score, the score by kind, by place and by tool, then every mistake missed. */
export function scoreReport (verdicts: readonly Verdict[]): string[] {
  const caught = verdicts.filter((verdict) => verdict.caughtBy !== undefined)
  const proof = verdicts.filter((verdict) => caughtIn(verdict, 'proof'))
  const tested = verdicts.filter((verdict) => caughtIn(verdict, 'handlers'))
  const lines = [`mutation score: ${scoreOf(verdicts)} % (${proof.length} of ${verdicts.length} mistakes caught by check and verify)`]
  if (proof.length < tested.length) lines.push(`with the example's handler tests: ${scoreOf(verdicts, 'handlers')} % (${tested.length} of ${verdicts.length})`)
  if (tested.length < caught.length) lines.push(`with the example's recorded traffic replayed: ${scoreOf(verdicts, 'replay')} % (${caught.length} of ${verdicts.length})`)
  const kinds = [...new Set(verdicts.map((verdict) => verdict.mistake?.kind))]
  lines.push(`by kind: ${kinds.map((kind) => {
    const of = verdicts.filter((verdict) => verdict.mistake?.kind === kind)
    return `${kind} ${of.filter((verdict) => caughtIn(verdict, 'proof')).length}/${of.length}`
  }).join(', ')}`)
  lines.push(`by place: ${byPlace(verdicts).map(({ place, caught, of }) => `${place} ${caught}/${of}`).join(', ')}`)
  lines.push(`caught by: ${(['start-up', 'check', 'verify', 'handlers', 'replay'] as const).map((by) => `${by} ${caught.filter((verdict) => verdict.caughtBy === by).length}`).join(', ')}`)
  const missed = verdicts.filter((verdict) => !caughtIn(verdict, 'proof'))
  const caughtLater = { handlers: ' (the example\'s handler tests catch it)', replay: ' (the replayed traffic catches it)' } as const
  lines.push(missed.length === 0 ? 'missed by check and verify: none' : `missed by check and verify (${missed.length}):`)
  for (const verdict of missed) lines.push(`- ${verdict.mistake?.id}: ${verdict.mistake?.description}${verdict.caughtBy === 'handlers' || verdict.caughtBy === 'replay' ? caughtLater[verdict.caughtBy] : ''}`)
  return lines
}

/** A folder for mutants under test/.tmp. */
export function mutantsFolder (name: string): string {
  return join(ROOT, 'test', '.tmp', name)
}

/**
 * Type-checks every mutant written to `base` with the project's compiler options (a mistake a team commits compiles:
 * one that does not is caught by its compiler, not by the proof); tsc's errors, or `undefined` when there are none.
 * The files each mistake changed, and their importers, are checked against the correct copies written beside them
 * (test/helpers/mutant-type-check.js); lib/ and the examples' own files are `npm run typecheck`'s.
 */
export async function mutantTypeErrors (base: string): Promise<string | undefined> {
  for (const app of ['users', 'billing'] as const) await writeMutant(app, undefined, join(base, `${app}-correct`))
  const config = join(base, 'tsconfig.json')
  writeFileSync(config, JSON.stringify({ extends: relative(base, join(ROOT, 'tsconfig.json')), compilerOptions: { noEmit: true }, include: ['**/*.ts'], exclude: [] }))
  // In a child process, without blocking: the mutation score's test measures the corpus meanwhile.
  return await new Promise((resolve) => {
    execFile(process.execPath, [join(__dirname, 'mutant-type-check.js'), config], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve(error === null ? undefined : `${stdout}${stderr}${stdout === '' && stderr === '' ? String(error) : ''}`)
    })
  })
}
