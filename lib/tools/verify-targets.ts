/**
 * What `verify` replays for one route version or webhook: request examples of the version up to HEAD (and, where
 * the route returns the schema it takes, back down again), HEAD response examples of every documented status down
 * to the version, HEAD webhook payloads down to every version that has the webhook.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { lowerCaseHeaders, prepareSchema } from '../routes/prepared-schemas'
import { isSuccessKey, REQUEST_PARTS, responseMapAt, type RequestPart, type VersionBehaviour } from '../routes/version-plan'
import type { DeclaredWebhook } from '../routes/webhooks'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import { copyJson } from '../serve/step-runner'
import { requiredValues, type RequiredValue } from './data-flow'
import { generateExamples, type GeneratedExample, type GenerationOptions } from './example-generation'
import { replayExample, type Replay, type ReplayContext, type ReplayIssue, type VerifyFinding } from './verify-replay'

/** Where a finding was made. */
export type Target = Pick<VerifyFinding, 'route' | 'version' | 'direction' | 'example'>

export type Report = (target: Target, issue: ReplayIssue) => void

/** What every target needs: the replay context, how examples are generated, where findings go. */
interface VerifyEnvironment extends ReplayContext, GenerationOptions {
  readonly state: VersionerState
  readonly report: Report
  /** Counts the examples replayed. */
  replayed: number
}

/** The status a response key stands for (`2xx` → 200, `default` → 200). */
function statusOf (key: string): number {
  const status = Number(key.replace(/xx$/i, '00'))
  return Number.isInteger(status) && status >= 100 ? status : 200
}

/** Messages of lost values, by direction. */
function lostMessage (issue: ReplayIssue, from: string, to: string): ReplayIssue {
  return issue.kind === 'lost' ? { ...issue, message: `the value at ${issue.pointer} in ${from} does not reach ${to}` } : issue
}

/**
 * The forms of HEAD schemas (a route's request parts, or one response body) at any level, prepared as Fastify
 * validates them (headers lower-cased once per level).
 */
function formsOf (env: VerifyEnvironment, headSchemaOf: (part: RequestPart) => TSchema): (part: RequestPart, level: number) => TSchema {
  const headers = new Map<number, TSchema>()
  return (part, level) => {
    const prepared = prepareSchema(env.state.generation.formAt(headSchemaOf(part), level), env.state.generation, 'fastify')
    if (part !== 'headers') return prepared
    if (!headers.has(level)) headers.set(level, lowerCaseHeaders(prepared))
    return headers.get(level) as TSchema
  }
}

/** The success response of a route that returns the schema its body takes (a round trip), if any. */
function roundTripKey (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour): string | undefined {
  const body = head.schema.body
  if (body === undefined) return undefined
  const seed = env.state.generation.seedOf(body)?.head ?? body
  return Object.entries(responseMapAt(head, behaviour.level)).find(([key, schema]) =>
    isSuccessKey(key) && (env.state.generation.seedOf(schema)?.head ?? schema) === seed)?.[0]
}

/** Request examples of one version replayed up to HEAD (and back down, for a round trip). */
async function verifyRequests (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour, route: string): Promise<void> {
  const parts = REQUEST_PARTS.filter((part) => head.schema[part] !== undefined)
  const formAt = formsOf(env, (part) => head.schema[part] as TSchema)
  if (parts.length === 0 || (behaviour.requestSteps.length === 0 && parts.every((part) => formAt(part, behaviour.level) === formAt(part, 0)))) return
  const examples = new Map(parts.map((part) => [part, generateExamples(formAt(part, behaviour.level), env)] as const))
  const count = Math.max(...[...examples.values()].map((list) => list.length))
  const tripKey = roundTripKey(env, head, behaviour)
  const trip = tripKey === undefined ? undefined : responseTarget(env, { head, behaviour, route }, tripKey)
  const lineage = { generation: env.state.generation, resolveRef: env.resolveRef, from: behaviour.level, to: 0 }
  for (let index = 0; index < count; index++) {
    const data: Partial<Record<RequestPart, unknown>> = {}
    const required = new Map<RequestPart, RequiredValue[]>()
    let valid = true
    for (const part of parts) {
      const list = examples.get(part) as GeneratedExample[]
      const example = list[index % list.length]
      data[part] = copyJson(example.value)
      valid &&= env.compile(formAt(part, behaviour.level))(copyJson(data[part]))
      if (part === 'body' || part === 'querystring') required.set(part, requiredValues(lineage, head.schema[part], data[part], example.sentinels))
    }
    if (!valid) continue // an example the version's own schema rejects says nothing about migrations
    env.replayed++
    for (const [part, clean] of behaviour.cleaners) if (typeof data[part] === 'object' && data[part] !== null) clean(data[part])
    const target: Target = { route, version: behaviour.version, direction: 'request', example: data.body ?? data.querystring }
    const result = await replayExample(env, { data, required, formAt, steps: behaviour.requestSteps, method: behaviour.state.methods[0], level: behaviour.level, status: undefined })
    if (result === undefined) continue
    if (!('body' in result)) {
      env.report(target, lostMessage(result, behaviour.version, 'HEAD'))
      continue
    }
    if (trip !== undefined) await verifyRoundTrip(env, trip, result.body, required.get('body') ?? [])
  }
}

/** The HEAD body of a request example, sent back down as the response it returns: what went up must come back. */
async function verifyRoundTrip (env: VerifyEnvironment, target: ResponseTarget, body: unknown, required: readonly RequiredValue[]): Promise<void> {
  if (required.length === 0) return
  env.replayed++
  const result = await replayExample(env, { ...target, data: { body }, required: new Map([['body', required]]) })
  if (result === undefined || 'body' in result || result.kind !== 'lost') return
  env.report({ route: target.route, version: target.version, direction: 'response', example: body },
    { ...result, kind: 'round trip', part: target.part, message: `the value sent at ${result.pointer} does not come back in the ${target.part.slice('response '.length)} response` })
}

/** What a response replay of one schema needs besides the examples, and where its findings are. */
type ResponseTarget = Omit<Replay, 'data' | 'required'> & { readonly route: string, readonly version: string, readonly part: string }

/** The replay target of the response of status `key` of a route version. */
function responseTarget (env: VerifyEnvironment, at: { head: HeadRoute, behaviour: VersionBehaviour, route: string }, key: string): ResponseTarget {
  const { behaviour } = at
  const headSchema = responseMapAt(at.head, behaviour.level)[key]
  return {
    route: at.route,
    version: behaviour.version,
    level: behaviour.level,
    part: `response ${key}`,
    status: statusOf(key),
    method: behaviour.state.methods[0],
    steps: behaviour.responseSteps.get(key) ?? [],
    formAt: formsOf(env, () => headSchema)
  }
}

/** HEAD examples of a schema replayed down to a version. */
async function verifyResponseSchema (env: VerifyEnvironment, headSchema: TSchema, target: ResponseTarget): Promise<void> {
  const headForm = target.formAt('body', 0)
  if (target.steps.length === 0 && headForm === target.formAt('body', target.level)) return
  const lineage = { generation: env.state.generation, resolveRef: env.resolveRef, from: 0, to: target.level }
  for (const example of generateExamples(headForm, env)) {
    if (!env.compile(headForm)(copyJson(example.value))) continue
    env.replayed++
    const required = requiredValues(lineage, headSchema, example.value, example.sentinels)
    const result = await replayExample(env, { ...target, data: { body: example.value }, required: new Map([['body', required]]) })
    if (result === undefined || 'body' in result) continue
    env.report({ route: target.route, version: target.version, direction: 'response', example: example.value },
      lostMessage({ ...result, part: result.part === 'converter' ? 'converter' : target.part }, 'HEAD', target.version))
  }
}

/** Every replay of one version of a route. */
export async function verifyRoute (env: VerifyEnvironment, head: HeadRoute, behaviour: VersionBehaviour): Promise<void> {
  const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
  await verifyRequests(env, head, behaviour, route)
  for (const [key, headSchema] of Object.entries(responseMapAt(head, behaviour.level))) {
    await verifyResponseSchema(env, headSchema, responseTarget(env, { head, behaviour, route }, key))
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
      formAt: formsOf(env, () => webhook.body)
    })
  }
}
