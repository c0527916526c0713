/**
 * What `verify` replays for one route version or webhook: request examples of the version (body, query string,
 * headers) up to HEAD (and, where the route's response holds fields of the body, back down again in the response
 * echoing them: ./verify-trips.ts), HEAD response examples of every documented status down to the version (and,
 * where the route returns the schema it takes, back up again), HEAD webhook payloads down to every version that has
 * the webhook.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { lowerCaseHeaders, prepareSchema } from '../routes/prepared-schemas'
import { headPart, isSuccessKey, REQUEST_PARTS, requestPlanOf, type RequestPart, type VersionBehaviour } from '../routes/version-plan'
import { isJsonMediaType, responseSlot, slotParts } from '../routes/schema-forms'
import type { DeclaredWebhook } from '../routes/webhooks'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import { copyJson } from '../serve/step-runner'
import type { FollowedValue } from './data-flow'
import { followedWithMoves, joinedValues } from './moved-values'
import { generateExamples, type GeneratedExample, type GenerationOptions } from './example-generation'
import { replayExample, type ReplayIssue, type Report, type Target, type Trail } from './verify-replay'
import { lostMessage } from './verify-finding'
import { verifyRoundTrip, verifyTripBack, type RequestSide, type ResponseTarget, type TripEnvironment } from './verify-trips'
import { twinIssues, type TwinPart } from './verify-twins'
import type { AlikeEnvironment } from './verify-retyped-alike'
import { otherSentinels, requiredValues, type Expected } from './list-items'
import { sharesFields } from './echo-response'
import { Coverage, type CoverageEnvironment } from './verify-coverage'
import { unexpressedIn } from './unexpressed-values'
import type { DerivedEnvironment } from './verify-replace'
import { isPartialUpdate } from './verify-updates'
import { sendable } from './text-parts'
import { FormerFields } from './former-fields'
import { NewFieldDefaults } from './new-field-defaults'
import type { LiteralEnvironment } from './converter-literals'
import { servedRequest } from './validation-in-force'
import { answeredSlots, answeredStatuses, statusesOf } from './answered-statuses'
import { answeredHeaders } from './answered-headers'
import { completedStarts } from './open-patterns'
import { asServed, toldAsStripped } from './validation-strips'

/** What every target needs: the replay context, how examples are generated, where findings go. */
export interface VerifyEnvironment extends TripEnvironment, GenerationOptions, CoverageEnvironment, DerivedEnvironment, AlikeEnvironment, LiteralEnvironment {
  readonly state: VersionerState
  /** The examples generated so far, by form and by the converter literals they were generated with (one map for a whole run). */
  readonly examples: Map<TSchema, Map<string, GeneratedExample[]>>
}

/**
 * What must arrive of `value` (an example of `headSchema`'s form at level `from`, with the sentinels of `example`)
 * at level `to`, and at the levels between (its values followed to each, once).
 */
function expectedOf (env: VerifyEnvironment, headSchema: unknown, example: GeneratedExample, levels: { from: number, to: number, lowerCase?: boolean }): Expected {
  const lineage = { generation: env.generation, resolveRef: env.resolveRef, pairings: env.pairings, ...levels }
  const followed = new Map<number, FollowedValue[]>()
  const sentinels = requiredValues(lineage, headSchema, example.value, example.sentinels)
  return {
    example: example.value,
    sentinels,
    ...otherSentinels(example, sentinels, levels.to),
    byWords: true,
    followedTo: (level) => followed.get(level) ?? followed.set(level, followedWithMoves({ ...lineage, to: level }, headSchema, example.value)).get(level) as FollowedValue[],
    joinedTo: (level) => joinedValues({ ...lineage, to: level }, headSchema, example.value)
  }
}

/** A value of a response header's schema, as the text a client reads (`undefined` where none is generated). */
function headerText (env: VerifyEnvironment, schema: TSchema): string | undefined {
  const value = examplesOf(env, schema)[0]?.value
  return value === undefined || typeof value === 'object' ? undefined : String(value)
}

/**
 * The forms of HEAD schemas (a route's request parts, or one response body) at any level, prepared as Fastify
 * validates them (headers lower-cased once per level).
 */
function formsOf (env: VerifyEnvironment, headSchemaOf: (part: RequestPart, level: number) => TSchema): (part: RequestPart, level: number) => TSchema {
  const headers = new Map<number, TSchema>()
  return (part, level) => {
    const prepared = prepareSchema(env.state.generation.formAt(headSchemaOf(part, level), level), env.state.generation, 'fastify')
    if (part !== 'headers') return prepared
    if (!headers.has(level)) headers.set(level, lowerCaseHeaders(prepared))
    return headers.get(level) as TSchema
  }
}

/**
 * The success response of a route a round trip comes back in, for the body of slot `slot`: one returning the schema
 * the body takes, else the first holding fields of it (at HEAD: a handler storing the body echoes them), not declared
 * by a media type other than JSON (`application/json`, or a `+json` one).
 */
function echoKey (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour, slot: string | undefined): string | undefined {
  const body = slot === undefined ? undefined : headPart(head, 'body', slot)
  if (body === undefined) return undefined
  return roundTripKey(env, head, behaviour, slot) ?? Object.entries(head.forms.responses[behaviour.level].schemas).find(([key, schema]) =>
    isSuccessKey(key) && (!key.includes(' ') || isJsonMediaType(slotParts(key)[1])) && sharesFields(body, schema, env.resolveRef))?.[0]
}

/** A form's examples with the converter literals `literals` (and, `bare`, one with no optional field: a partial update's body, decision 0295), generated once for the run. */
export function examplesOf (env: VerifyEnvironment, form: TSchema, literals: readonly string[] = [], bare = false): GeneratedExample[] {
  const byLiterals = env.examples.get(form) ?? env.examples.set(form, new Map()).get(form) as Map<string, GeneratedExample[]>
  let found = byLiterals.get(JSON.stringify([literals, bare]))
  if (found === undefined) byLiterals.set(JSON.stringify([literals, bare]), found = generateExamples(form, { ...env, literals, bare }))
  return found
}

/** The success response of a route that returns the schema its body (of slot `slot`) takes, if any: a trip down and back up. */
function roundTripKey (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour, slot: string | undefined): string | undefined {
  const body = slot === undefined ? undefined : headPart(head, 'body', slot)
  if (body === undefined) return undefined
  const seed = env.state.generation.seedOf(body)?.head ?? body
  return Object.entries(head.forms.responses[behaviour.level].schemas).find(([key, schema]) =>
    isSuccessKey(key) && (env.state.generation.seedOf(schema)?.head ?? schema) === seed)?.[0]
}

/**
 * Request examples of one version replayed up to HEAD (and back down, for a round trip), with a body of slot `body`
 * (`''` for the short form, a media type for the `content` form, `undefined` for none) through the plan serving
 * picks for it.
 */
async function verifyRequests (env: VerifyEnvironment, at: { head: HeadRoute, behaviour: VersionBehaviour, route: string }, body: string | undefined): Promise<void> {
  const { head, behaviour, route } = at
  const plan = requestPlanOf(behaviour, body)
  const parts = REQUEST_PARTS.filter((part) => headPart(head, part, body) !== undefined)
  const formAt = formsOf(env, (part) => headPart(head, part, body) as TSchema)
  if (parts.length === 0 || (plan.requestSteps.length === 0 && parts.every((part) => formAt(part, behaviour.level) === formAt(part, 0)))) return
  const examples = new Map(parts.map((part) => [part, sendable(part, examplesOf(env, formAt(part, behaviour.level), env.literalsOf(plan.requestSteps), part === 'body' && isPartialUpdate(head)))] as const))
  const count = Math.max(...[...examples.values()].map((list) => list.length))
  const tripKey = echoKey(env, head, behaviour, body)
  const trip = tripKey === undefined ? undefined : responseTarget(env, { head, behaviour, route }, tripKey)[0]
  const overs = trip === undefined ? [] : examplesOf(env, trip.formAt('body', 0)).map(completedStarts(env, trip.formAt('body', 0), trip.formAt('body', behaviour.level)))
  // A body declared by media type is named with it.
  const report: Report = body === undefined || body === '' ? env.report : (target, issue) => env.report(target, issue.part === 'body' ? { ...issue, part: `body (${body})` } : issue)
  const former = new FormerFields(env, { level: behaviour.level, heads: (part) => headPart(head, part, body), formAt })
  const defaults = new NewFieldDefaults(env, { target: { route, version: behaviour.version, direction: 'request' }, level: behaviour.level, heads: (part) => headPart(head, part, body), formAt, head }, report)
  const [coverage, trips] = (['request', 'response'] as const).map((direction) => new Coverage(env, { route, version: behaviour.version, direction }))
  // The fields declared derived that a full replace from this version sets: some example must set each.
  const derived = env.derived?.watch(head, behaviour, body)
  const served = servedRequest(head.validation, env.compile, plan)
  const named = (part: RequestPart): string => part === 'body' && body !== undefined && body !== '' ? `body (${body})` : part
  for (let index = 0; index < count; index++) {
    const picked = new Map(parts.map((part) => [part, (examples.get(part) as GeneratedExample[])[index % (examples.get(part) as GeneratedExample[]).length]] as const))
    // The example's parts (with `twin`, their twins where they have one), validated and cleaned as serving does.
    const dataOf = (twin: boolean): Partial<Record<RequestPart, unknown>> => {
      const data: Partial<Record<RequestPart, unknown>> = {}
      for (const [part, example] of picked) data[part] = copyJson(twin && example.twin !== undefined ? example.twin.value : example.value)
      served(data)
      return data
    }
    // An example the version's own schema rejects says nothing about migrations (none accepted: not verified).
    if (![...picked].every(([part, example]) => coverage.accepts(env.compile(formAt(part, behaviour.level)), example.value, named(part)))) continue
    // The converters change `data` in place: a finding shows the example as validated (`sentParts`), its headers or query string where it is on them.
    const [data, sentParts] = [dataOf(false), dataOf(false)]
    const required = new Map<RequestPart, Expected>()
    for (const part of ['body', 'querystring', 'headers'] as const) {
      const example = picked.get(part)
      if (example !== undefined) required.set(part, expectedOf(env, headPart(head, part, body), asServed(example, sentParts[part]), { from: behaviour.level, to: 0, lowerCase: part === 'headers' }))
    }
    env.replayed++
    const target: Target = { route, version: behaviour.version, direction: 'request', example: sentParts.body ?? sentParts.querystring ?? sentParts.headers }
    // A value the version's own validation removed (a union's first closed member) is told as the validation's.
    const told = (issue: ReplayIssue): ReplayIssue => toldAsStripped(picked.get(issue.part as RequestPart)?.value, sentParts[issue.part as RequestPart])(issue)
    const reportOn = (issue: ReplayIssue): void => report(issue.part === 'headers' || issue.part === 'querystring' ? { ...target, example: sentParts[issue.part] } : target, told(lostMessage(issue, behaviour.version, 'HEAD')))
    const sent = trip === undefined ? undefined : { body: copyJson(data.body), headSchema: headPart(head, 'body', body) as TSchema, trail: new Map() }
    const trail = sent?.trail ?? new Map()
    const replay = { data, required, formAt, steps: plan.requestSteps, method: behaviour.state.methods[0], level: behaviour.level, status: undefined, trail, mediaType: body === '' ? undefined : body }
    const result = await replayExample(env, { ...replay, refused: (refusal) => coverage.refusedBy(parts.map(named).join(', '), refusal) })
    if (result === undefined) continue
    coverage.through()
    if (!('body' in result)) {
      reportOn(result)
      continue
    }
    derived?.saw(result.body, sentParts.body, trail)
    await former.sent({ sent: sentParts, picked, replay }, trail)
    defaults.sent(sentParts, trail)
    if (trip !== undefined && sent !== undefined) {
      const echo = { target: trip, headSchema: head.forms.responses[behaviour.level].schemas[tripKey as string], over: overs[index % overs.length]?.value, coverage: trips }
      await verifyRoundTrip(env, echo, sent, result.body)
    }
    const issues = required.has('body') ? env.alikeIssues({ level: behaviour.level, end: 0, body: dataOf(false).body, trail, expected: required.get('body') as Expected }, 'body') : []
    // The parts holding numbers, each with its twin (the query string and headers as well as the body).
    const twins = (['body', 'querystring', 'headers'] as const).flatMap((part) => [{ part, numbers: picked.get(part)?.twin?.numbers, expected: required.get(part) }])
      .filter((found): found is TwinPart => found.numbers !== undefined && found.expected !== undefined)
    if (twins.length > 0) issues.push(...await twinIssues(env, { twin: { ...replay, data: dataOf(true), trail: undefined }, parts: twins, trail, sent: () => dataOf(false) }))
    issues.forEach(reportOn)
  }
  for (const issue of former.issues()) report({ route, version: behaviour.version, direction: 'request', example: undefined }, issue)
  for (const each of [coverage, trips, derived, defaults]) each?.done()
}

/** A route version's requests with a body of slot `body`, for a trip down and back up. */
function requestSide (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour, body: string): RequestSide {
  const plan = requestPlanOf(behaviour, body)
  return { formAt: formsOf(env, (part) => headPart(head, part, body) as TSchema), steps: plan.requestSteps, served: servedRequest(head.validation, env.compile, plan), part: body === '' ? 'body' : `body (${body})` }
}

/**
 * The replay targets of the response of slot `slot` of a route version, one per status it answers: with the
 * converters serving runs on it, found as serving finds them (the slot of the status and media type, and none when
 * the version has no work for the status), so that a response a version would send in HEAD's shape is found.
 */
export function responseTarget (env: VerifyEnvironment, at: { head: HeadRoute, behaviour: VersionBehaviour, route: string }, slot: string): ResponseTarget[] {
  const { behaviour } = at
  const headSchema = at.head.forms.responses[behaviour.level].schemas[slot] ?? at.head.forms.responses[0].schemas[slot]
  const media = slot.includes(' ') ? slot.slice(slot.indexOf(' ') + 1) : 'application/json'
  return statusesOf(behaviour.responses, slot).map((status) => {
    const served = (status < 300 ? behaviour.successWork : behaviour.errorWork) ? responseSlot(behaviour.responses, status, { getHeader: () => media }) : undefined
    return {
      route: at.route,
      version: behaviour.version,
      level: behaviour.level,
      part: `response ${slot}`,
      mediaType: media,
      status,
      method: behaviour.state.methods[0],
      steps: behaviour.responseSteps.get(served ?? '') ?? [],
      // At each level, the response the route has there: an endpoint instruction (`had({ response })`) may give a version another.
      formAt: formsOf(env, (_part, level) => at.head.forms.responses[level].schemas[slot] ?? headSchema),
      unexpressed: unexpressedIn(env.state, headSchema),
      answered: answeredStatuses({ head: at.head, slot, status, media, versionAt: (level) => env.state.versionAt(level) }, (schema, level) => formsOf(env, () => schema)('body', level)),
      headers: answeredHeaders({ head: at.head, status, level: behaviour.level, steps: env.steps, versionAt: (level) => env.state.versionAt(level), valueOf: (schema) => headerText(env, schema), compile: env.compileText ?? env.compile })
    }
  })
}

/**
 * HEAD examples of a schema replayed down to a version (and, with `back`, sent back up as a request of it). With no
 * `headSchema` (an endpoint instruction gave the version another response than HEAD's: `had({ response })`), each
 * step's data is checked against its version's schema, but no value is followed: the two have no fields in common.
 */
async function verifyResponseSchema (env: VerifyEnvironment, headSchema: TSchema | undefined, target: ResponseTarget, back?: RequestSide): Promise<void> {
  const headForm = target.formAt('body', 0)
  if (target.steps.length === 0 && headForm === target.formAt('body', target.level) && target.answered?.(target.status as number, target.level) === undefined && target.headers?.differ !== true) return
  const [coverage, tripsBack] = (['response', 'request'] as const).map((direction) => new Coverage(env, { route: target.route, version: target.version, direction }))
  for (const example of examplesOf(env, headForm, env.literalsOf(target.steps)).map(completedStarts(env, headForm, target.formAt('body', target.level)))) {
    if (!coverage.accepts(env.compile(headForm), example.value, target.part)) continue
    env.replayed++
    const expected = headSchema === undefined
      ? { example: example.value, sentinels: [], byWords: true, followedTo: () => [] }
      : expectedOf(env, headSchema, example, { from: 0, to: target.level })
    const trail: Trail = new Map()
    const replay = { ...target, data: { body: example.value }, required: new Map([['body' as const, expected]]), trail }
    const result = await replayExample(env, replay)
    if (result === undefined) continue
    const headers = 'body' in result ? target.headers?.judge((level) => { const at = trail.get(level); return at?.answered && { ...at.answered, converters: at.converters } }) : undefined
    if (headers !== undefined) env.report({ route: target.route, version: target.version, direction: 'response', example: example.value }, headers)
    // Answered with another status, the body is another schema's: nothing of it is followed.
    if ('body' in result && result.status !== undefined) continue
    if ('body' in result) {
      if (back !== undefined) await verifyTripBack(env, { target, request: back, coverage: tripsBack }, example, result.body)
      const issues = env.alikeIssues({ level: 0, end: target.level, body: example.value, trail, expected }, target.part)
      if (example.twin !== undefined) issues.push(...await twinIssues(env, { twin: { ...replay, data: { body: example.twin.value }, trail: undefined }, parts: [{ part: 'body', numbers: example.twin.numbers, expected }], trail, sent: () => ({ body: copyJson(example.value) }) }))
      for (const issue of issues) env.report({ route: target.route, version: target.version, direction: 'response', example: example.value }, lostMessage({ ...issue, part: target.part }, 'HEAD', target.version))
      continue
    }
    env.report({ route: target.route, version: target.version, direction: 'response', example: example.value },
      lostMessage({ ...result, part: result.part === 'converter' ? 'converter' : target.part }, 'HEAD', target.version))
  }
  for (const each of [coverage, tripsBack]) each.done()
}

/** Every replay of one version of a route. */
export async function verifyRoute (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour): Promise<void> {
  const at = { head, behaviour, route: `${behaviour.state.methods.join(',')} ${behaviour.state.path}` }
  const bodies = Object.keys(head.forms.body.schemas)
  // The response slot each round-tripping body comes back in (the first body, for a slot several return).
  const trips = new Map<string, string>()
  for (const body of bodies.length === 0 ? [undefined] : bodies) {
    await verifyRequests(env, at, body)
    const key = roundTripKey(env, head, behaviour, body)
    if (key !== undefined && body !== undefined && !trips.has(key)) trips.set(key, body)
  }
  // The version's responses, and those HEAD's handlers answer which the version does not document (decision 0286).
  for (const [slot, schema] of answeredSlots(head.forms.responses, behaviour.level)) {
    const body = trips.get(slot)
    const back = body === undefined ? undefined : requestSide(env, head, behaviour, body)
    // Handlers answer HEAD's response (responseTarget generates it), whatever response an endpoint instruction gives the version.
    const head0 = head.forms.responses[0].schemas[slot]
    const replaced = head0 !== undefined && head.forms.responses.slice(1, behaviour.level + 1).some((slots) => slots.schemas[slot] !== head0)
    for (const target of responseTarget(env, at, slot)) await verifyResponseSchema(env, replaced ? undefined : schema, target, target.status !== undefined && target.status < 300 ? back : undefined)
  }
}

/** Every replay of a webhook's payload: HEAD examples down to each version that has the webhook. */
export async function verifyWebhook (env: VerifyEnvironment, webhook: DeclaredWebhook): Promise<void> {
  for (let level = 1; level < webhook.timeline.length; level++) {
    if (!webhook.timeline[level].exists) continue
    await verifyResponseSchema(env, webhook.body, {
      route: `webhook ${webhook.name}`,
      version: env.state.versionAt(level),
      level,
      part: 'payload',
      status: 200,
      method: undefined,
      steps: env.state.planner.responseSteps(undefined, webhook.body, level),
      formAt: formsOf(env, () => webhook.body),
      unexpressed: unexpressedIn(env.state, webhook.body)
    })
  }
}
