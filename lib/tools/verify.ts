/**
 * `verify`: replays generated examples through the converters of every versioned route and version, the way
 * requests and responses go through them when served. A request example of a version (built from that
 * version's schemas, once with its required fields only and once with every field) is cleaned and migrated up
 * through the route's request steps, then must pass Fastify's validation against the HEAD schemas. A HEAD
 * response example is migrated down through the route's response steps and must match the version's response
 * schema. A failure is pinned to the first version change after which the data no longer matches the schema of
 * the version it has reached (the schema each step must produce), with the converters that ran there.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifySchema } from 'fastify'
import { createRequire } from 'node:module'
import { NotReadyError } from '../core/errors'
import type { GenerationStep } from '../describe/versions'
import type { ConverterStep } from '../routes/converter-steps'
import { REQUEST_PARTS, responseMapAt, type RequestPart, type VersionBehaviour } from '../routes/version-plan'
import { lowerCaseHeaders, prepareForFastify } from '../routes/prepared-schemas'
import { clientErrorOf, ConverterFailure, copyJson, runStepsToBody } from '../serve/step-runner'
import { exampleOf } from '../values/examples'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'

/** One problem `verify` found: where, in which version and direction, and which version change is at fault. */
export interface VerifyFinding {
  /** The route as the version serves it: `POST /users`. */
  readonly route: string
  /** The version whose example failed. */
  readonly version: string
  /** `'request'`: an example request of `version` migrated up fails HEAD validation; `'response'`: a HEAD response migrated down fails the version's schema. */
  readonly direction: 'request' | 'response'
  /** The request part (`body`, `querystring`, `params`, `headers`), or `response <status>`. */
  readonly part: string
  /** A JSON pointer into that part: where the data stopped matching. */
  readonly pointer: string
  /** What the validator said. */
  readonly message: string
  /** The version holding the change at fault (`'HeadVersion'` for HEAD changes). */
  readonly changeVersion: string
  /** The version change classes of that version. */
  readonly versionChanges: readonly string[]
  /** The converters of that version that ran on the example (`Class.method`); empty when none did. */
  readonly converters: readonly string[]
  /** Which example failed: the one with required fields only, or the one with every field. */
  readonly example: 'required fields' | 'all fields'
  /** The whole finding on one line. */
  readonly text: string
}

interface ValidationIssue {
  readonly instancePath?: string
  readonly message?: string
  readonly keyword?: string
  readonly params?: Record<string, unknown>
}

type Check = ((data: unknown) => boolean) & { errors?: ValidationIssue[] | null }
type CompileFn = (schema: TSchema, part: string) => Check

/** The JSON pointer an Ajv error points at (a missing or extra property included). */
function pointerOf (issue: ValidationIssue | undefined): string {
  if (issue === undefined) return ''
  const base = issue.instancePath ?? ''
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  return typeof extra === 'string' ? `${base}/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}` : base
}

/**
 * Fastify's validator compiler for the application (its Ajv, formats and options, or the one the application
 * set); when no route made Fastify build one, `@fastify/ajv-compiler` as Fastify would set it up.
 */
function validatorOf (fastify: FastifyInstance): CompileFn {
  type Compiler = (route: { schema: FastifySchema, method: string, url: string, httpPart?: string }) => Check
  let found = fastify.validatorCompiler as Compiler | undefined
  if (found === undefined) {
    const fromFastify = createRequire(require.resolve('fastify'))
    const { ValidatorSelector } = fromFastify('@fastify/ajv-compiler') as { ValidatorSelector: () => (schemas: object, options?: object) => Compiler }
    found = ValidatorSelector()(fastify.getSchemas(), undefined)
  }
  const compiler = found
  const cache = new Map<TSchema, Check>()
  return (schema, part) => {
    let check = cache.get(schema)
    if (check === undefined) {
      check = compiler({ schema: schema as FastifySchema, method: 'POST', url: '/', httpPart: part })
      cache.set(schema, check)
    }
    return check
  }
}

function firstLevelSteps (steps: readonly ConverterStep[], step: GenerationStep): ConverterStep[] {
  return steps.filter((candidate) => step.changes.includes(candidate.converter.change))
}

/** The state and application verify works on. */
export interface VerifyContext {
  readonly fastify: FastifyInstance
  readonly state: VersionerState
}

/** Checks every versioned route in every version; an empty list means every version migrates cleanly. */
export async function verifyMigrations ({ fastify, state }: VerifyContext): Promise<VerifyFinding[]> {
  if (!state.ready) throw new NotReadyError('app.versioner.verify()')
  const compile = validatorOf(fastify)
  const findings = new Map<string, VerifyFinding>()
  const resolveRef = (ref: string): unknown => state.generation.resolveAnyId(ref) ?? fastify.getSchema(ref.replace(/#$/, ''))
  const add = (finding: Omit<VerifyFinding, 'text'>): void => {
    const where = finding.direction === 'request'
      ? `request ${finding.part}${finding.pointer} migrated up from ${finding.version} fails HEAD validation`
      : `${finding.part}${finding.pointer} migrated down from HEAD fails the schema of ${finding.version}`
    const by = finding.converters.length === 0 ? 'no converter ran' : `converters ${finding.converters.join(', ')}`
    const changes = finding.versionChanges.length === 0 ? 'no version change' : finding.versionChanges.join(', ')
    const text = `${finding.route} (${finding.version}): ${where}: ${finding.message}; first wrong after ${changes} ` +
      `(${finding.changeVersion}), ${by}; example with ${finding.example}`
    const key = [finding.route, finding.version, finding.direction, finding.part, finding.pointer, finding.changeVersion].join('\n')
    if (!findings.has(key)) findings.set(key, { ...finding, text })
  }
  for (const head of state.headRoutes) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
        for (const includeOptional of [false, true]) {
          const example = includeOptional ? 'all fields' : 'required fields'
          await verifyRequest(state, head, behaviour, compile, resolveRef, includeOptional, (issue) => add({ route, version: behaviour.version, example, ...issue }))
          await verifyResponses(state, head, behaviour, compile, resolveRef, includeOptional, (issue) => add({ route, version: behaviour.version, example, ...issue }))
        }
      }
    }
  }
  return [...findings.values()]
}

type Report = (issue: Omit<VerifyFinding, 'text' | 'route' | 'version' | 'example'>) => void

function changeFacts (step: GenerationStep): { changeVersion: string, versionChanges: string[] } {
  return { changeVersion: step.origin, versionChanges: step.changes.map((change) => change.name) }
}

function failureMessage (failure: unknown): string {
  // A converter's failure carries what it threw.
  const error = failure instanceof ConverterFailure ? failure.thrown : failure
  return error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`
}

/** A request example of the behaviour's version migrated up; reports where it stops matching. */
async function verifyRequest (
  state: VersionerState, head: HeadRoute, behaviour: VersionBehaviour, compile: CompileFn,
  resolveRef: (ref: string) => unknown, includeOptional: boolean, report: Report
): Promise<void> {
  if (behaviour.requestSteps.length === 0 && behaviour.validate.length === 0) return
  const parts = REQUEST_PARTS.filter((part) => head.schema[part] !== undefined)
  const formAt = (part: RequestPart, level: number): TSchema => {
    const prepared = prepareForFastify(state.generation.formAt(head.schema[part] as TSchema, level), state.generation)
    return part === 'headers' ? lowerCaseHeaders(prepared) : prepared
  }
  const data: Partial<Record<RequestPart, unknown>> = {}
  for (const part of parts) {
    let value: unknown
    try {
      value = exampleOf(formAt(part, behaviour.level), { includeOptional, resolveRef })
    } catch {
      return // a schema the generator cannot fill (a required recursion): nothing to replay
    }
    // An example the version's own schema rejects says nothing about migrations.
    if (!compile(formAt(part, behaviour.level), part)(copyJson(value))) return
    data[part] = value
  }
  for (const [part, clean] of behaviour.cleaners) {
    const value = data[part]
    if (typeof value === 'object' && value !== null) clean(value)
  }
  const failing = (level: number, values: Partial<Record<RequestPart, unknown>>): { part: RequestPart, issue: ValidationIssue | undefined } | undefined => {
    for (const part of parts) {
      const schema = level === 0 ? head.schema[part] as TSchema : formAt(part, level)
      const check = compile(part === 'headers' && level === 0 ? lowerCaseHeaders(schema) : schema, part)
      if (!check(copyJson(values[part]))) return { part, issue: check.errors?.[0] }
    }
    return undefined
  }
  const info = {
    body: data.body as unknown,
    queryParams: (data.querystring ?? {}) as Record<string, unknown>,
    headers: { ...(data.headers as Record<string, unknown> | undefined) },
    cookies: {},
    form: undefined
  }
  let firstFailure: { step: number, failure: NonNullable<ReturnType<typeof failing>>, ran: string[] } | undefined
  for (let step = behaviour.level - 1; step >= 1; step--) {
    const steps = firstLevelSteps(behaviour.requestSteps, state.steps[step])
    const ran: string[] = []
    const tracked = steps.map((planned) => ({ ...planned, converter: { ...planned.converter, run: (arg: unknown) => { ran.push(planned.converter.display); return planned.converter.run(arg) } } }))
    try {
      info.body = await runStepsToBody(tracked, info, info.body, behaviour.state.methods[0], undefined)
    } catch (error) {
      // A converter refusing the example with a client error (a 4xx) answers the client clearly: no finding.
      if (clientErrorOf(error instanceof ConverterFailure ? error.thrown : error) !== undefined) return
      report({ direction: 'request', part: 'converter', pointer: '', message: failureMessage(error), ...changeFacts(state.steps[step]), converters: ran })
      return
    }
    const current = { ...data, body: info.body, querystring: info.queryParams, headers: info.headers }
    const failure = failing(step, current)
    if (failure !== undefined && firstFailure === undefined) firstFailure = { step, failure, ran: [...new Set(ran)] }
  }
  const final = failing(0, { ...data, body: info.body, querystring: info.queryParams, headers: info.headers })
  if (final === undefined) return
  const at = firstFailure ?? { step: 0, failure: final, ran: [] }
  report({
    direction: 'request',
    part: final.part,
    pointer: pointerOf(final.issue),
    message: final.issue?.message ?? 'does not match',
    ...changeFacts(state.steps[at.step]),
    converters: at.ran
  })
}

/** The status a response key stands for (`2xx` → 200, `default` → 200). */
function statusOf (key: string): number {
  const status = Number(key.replace(/xx$/i, '00'))
  return Number.isInteger(status) && status >= 100 ? status : 200
}

/** HEAD response examples of every status, migrated down to the behaviour's version. */
async function verifyResponses (
  state: VersionerState, head: HeadRoute, behaviour: VersionBehaviour, compile: CompileFn,
  resolveRef: (ref: string) => unknown, includeOptional: boolean, report: Report
): Promise<void> {
  for (const [key, headSchema] of Object.entries(responseMapAt(head, behaviour.level))) {
    const stepsOfKey = behaviour.responseSteps.get(key) ?? []
    const versionForm = behaviour.responseForms.get(key)
    if (versionForm === undefined) continue
    const headForm = prepareForFastify(headSchema, state.generation)
    if (stepsOfKey.length === 0 && headForm === versionForm) continue
    let body: unknown
    try {
      body = exampleOf(headForm, { includeOptional, resolveRef })
    } catch {
      continue
    }
    if (!compile(headForm, 'body')(copyJson(body))) continue
    const status = statusOf(key)
    const info = { body, statusCode: status, headers: {}, raw: body, setCookie () {}, deleteCookie () {} }
    const part = `response ${key}`
    const checkAt = (level: number): ValidationIssue | undefined | false => {
      const schema = level === behaviour.level ? versionForm : prepareForFastify(state.generation.formAt(headSchema, level), state.generation)
      const check = compile(schema, 'body')
      return check(copyJson(info.body)) ? false : check.errors?.[0]
    }
    // Level 1 (the latest version) is HEAD data with the HEAD changes' instructions applied: no converter runs.
    const latest = checkAt(1)
    if (latest !== false) {
      report({ direction: 'response', part, pointer: pointerOf(latest), message: latest?.message ?? 'does not match', ...changeFacts(state.steps[0]), converters: [] })
      continue
    }
    for (let step = 1; step < behaviour.level; step++) {
      const ran: string[] = []
      const steps = firstLevelSteps(stepsOfKey, state.steps[step])
      const tracked = steps.map((planned) => ({ ...planned, converter: { ...planned.converter, run: (arg: unknown) => { ran.push(planned.converter.display); return planned.converter.run(arg) } } }))
      try {
        info.body = await runStepsToBody(tracked, info, info.body, behaviour.state.methods[0], { statusCode: status })
      } catch (error) {
        report({ direction: 'response', part, pointer: '', message: failureMessage(error), ...changeFacts(state.steps[step]), converters: [...new Set(ran)] })
        break
      }
      const issue = checkAt(step + 1)
      if (issue !== false) {
        report({ direction: 'response', part, pointer: pointerOf(issue), message: issue?.message ?? 'does not match', ...changeFacts(state.steps[step]), converters: [...new Set(ran)] })
        break
      }
    }
  }
}
