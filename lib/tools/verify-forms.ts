/**
 * Stage `lib/tools/`: `verify`'s first look at a version of a route or webhook: do its schemas compile? An instruction
 * can give a version's schema a keyword, a format or a `$ref` the application's Ajv refuses. Serving builds an older
 * version's validators on its first request (decision 0018), so every request of that version would answer 500: such a
 * request schema is a finding naming the version change whose instructions made it; a response's, a part not
 * verified. Either way the version is not replayed (its checks could not be compiled).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { prepareSchema } from '../routes/prepared-schemas'
import { headPart, REQUEST_PARTS, type VersionBehaviour } from '../routes/version-plan'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import type { DeclaredWebhook } from '../routes/webhooks'
import type { Check } from '../core/strict-validator'
import type { Report, Target } from './verify-replay'
import type { UnverifiedPart } from './verify-coverage'

/** What the check needs of `verify`'s environment. */
interface FormsEnvironment {
  readonly state: VersionerState
  readonly compile: (schema: TSchema) => Check
  readonly report: Report
  readonly unverified?: (part: UnverifiedPart) => void
}

/** Why `schema` does not compile (Ajv's message), or `undefined` when it does. */
function compileProblem (env: FormsEnvironment, schema: TSchema): string | undefined {
  try {
    env.compile(schema)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message.replace(/\.$/, '') : String(error)
  }
}

/**
 * Reports the first level from the newest version down to `level` whose form of `headSchema` does not compile (the
 * step before it made it so); true when one does not. A request part's is a finding (serving validates it: each
 * request of the version answers 500); a response's or payload's is a part not verified (serving only serializes it,
 * but verify cannot check data against it).
 */
function reportUncompilable (env: FormsEnvironment, at: { target: Target, part: string, level: number }, headSchema: TSchema): boolean {
  for (let level = 1; level <= at.level; level++) {
    const message = compileProblem(env, prepareSchema(env.state.generation.formAt(headSchema, level), env.state.generation, 'fastify'))
    if (message === undefined) continue
    const { target, part } = at
    const step = env.state.steps[level - 1]
    if (target.direction === 'request') {
      env.report(target, {
        kind: 'uncompilable',
        part,
        pointer: '',
        message: `its schema in this version does not compile: ${message}`,
        converters: [],
        step: level - 1,
        reached: level,
        fix: `Fix the instructions of that version change: each request of ${target.version} answers 500 until its schema compiles with the application's Ajv.`
      })
    } else {
      const changes = step.changes.map((change) => change.name).join(', ')
      // No version change on the way: HEAD's own schema does not compile (an instruction is not at fault).
      const since = changes === '' ? ', nor does HEAD\'s; nothing of this version was replayed: make it compile (give the application\'s Ajv its formats and keywords)' : `, since the instructions of ${changes} (${step.origin}); nothing of this version was replayed: fix those instructions`
      env.unverified?.({ route: target.route, version: target.version, direction: 'response', part, reason: `its schema in this version does not compile with the application's Ajv (${message})${since}` })
    }
    return true
  }
  return false
}

/**
 * Reports each request part and response of one version of a route whose schema in that version does not compile;
 * true when one does not (the version cannot be replayed).
 * @example
 * ```ts
 * if (!uncompilableRoute(env, head, behaviour)) await verifyRoute(env, head, behaviour)
 * ```
 */
export function uncompilableRoute (env: FormsEnvironment, head: HeadRoute, behaviour: VersionBehaviour): boolean {
  const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
  let found = false
  const bodies = Object.keys(head.forms.body.schemas)
  for (const body of bodies.length === 0 ? [undefined] : bodies) {
    for (const part of REQUEST_PARTS) {
      const schema = headPart(head, part, body)
      const target = { route, version: behaviour.version, direction: 'request' as const, example: undefined }
      if (schema !== undefined && reportUncompilable(env, { target, part, level: behaviour.level }, schema)) found = true
    }
  }
  for (const [slot, schema] of Object.entries(head.forms.responses[behaviour.level].schemas)) {
    const target = { route, version: behaviour.version, direction: 'response' as const, example: undefined }
    if (reportUncompilable(env, { target, part: `response ${slot}`, level: behaviour.level }, schema)) found = true
  }
  return found
}

/**
 * Reports a webhook's payload in each version that has it whose schema there does not compile; true when one does not.
 * @example
 * ```ts
 * if (!uncompilableWebhook(env, webhook)) await verifyWebhook(env, webhook)
 * ```
 */
export function uncompilableWebhook (env: FormsEnvironment, webhook: Pick<DeclaredWebhook, 'name' | 'body' | 'timeline'>): boolean {
  let found = false
  for (let level = 1; level < webhook.timeline.length; level++) {
    if (!webhook.timeline[level].exists) continue
    const target = { route: `webhook ${webhook.name}`, version: env.state.versionAt(level), direction: 'response' as const, example: undefined }
    if (reportUncompilable(env, { target, part: 'payload', level }, webhook.body)) found = true
  }
  return found
}
