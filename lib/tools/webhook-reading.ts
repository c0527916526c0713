/**
 * A helper for applications' own test suites: a webhook delivery the application sent, read as its subscriber reads
 * it. The signature must be the body's, the version header a version the API has, and the body the webhook's
 * payload in that version. It finds what `verify` cannot see, as it never runs the application's code: a body sent
 * as HEAD builds it with a version's rendered headers, a delivery re-signed for the wrong body, a version header
 * dropped ([decision 0142](../../docs/decisions/0142-webhook-deliveries-read-as-subscribers-read-them.md)).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { NotReadyError, UnknownWebhookError } from '../core/errors'
import { prepareSchema } from '../routes/prepared-schemas'
import { strictValidator, appAjvSetup } from '../core/strict-validator'
import { webhookKeys, webhookSignature } from '../core/webhook-signatures'
import { singleApi, versionerStateOf } from './versioned-apis'
import { toolFacts } from './export'
import type { HttpMethod } from '../core/http-methods'
import type { DeclaredWebhook } from '../routes/webhooks'

/**
 * A delivery as the application sent it: the body text and the headers.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * declare const request: { body: string, headers: Record<string, string | undefined> } // what the subscriber's endpoint received
 * const sent: SentWebhook = { body: request.body, headers: request.headers }
 * const findings = readWebhookDelivery(app, sent, { name: 'invoice.paid', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
 * ```
 */
export interface SentWebhook {
  readonly body: string
  readonly headers: Readonly<Record<string, string | undefined>>
}

/**
 * Options of {@link readWebhookDelivery}.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * declare const sent: SentWebhook
 * const options: ReadWebhookDeliveryOptions = { name: 'invoice.paid', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }
 * const findings = readWebhookDelivery(app, sent, options)
 * ```
 */
export interface ReadWebhookDeliveryOptions {
  /** The webhook the delivery is an event of (the name given to `webhooks.add()`). */
  readonly name: string
  /** The subscriber's secret (`whsec_…`), or its secrets while one is rotated. */
  readonly secret: string | readonly string[]
  /** Its method, when two webhooks are declared with the name (as `render` takes it). */
  readonly method?: HttpMethod | Lowercase<HttpMethod>
  /** The header naming the version, when the deliveries were rendered with `versionHeader` (default: the application's version header). */
  readonly versionHeader?: string
}

/**
 * What a subscriber would refuse or misread in a delivery:
 * - `'signature'`: no `webhook-signature` is the body's, by the secret (the subscriber refuses the delivery);
 * - `'version'`: the version header is missing, names no version of the API, or one that lacks the webhook;
 * - `'body'`: the body is not JSON, or not the webhook's payload in the version the header names.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * declare const sent: SentWebhook
 * const findings: WebhookDeliveryFinding[] = readWebhookDelivery(app, sent, { name: 'invoice.paid', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
 * for (const { kind, message } of findings) console.error(`${kind}: ${message}`) // 'version': the header names no version…
 * ```
 */
export interface WebhookDeliveryFinding {
  readonly kind: 'signature' | 'version' | 'body'
  readonly message: string
}

/** A header of the delivery, whatever the case of its name. */
function headerOf (sent: SentWebhook, name: string): string | undefined {
  return Object.entries(sent.headers).find(([key]) => key.toLowerCase() === name)?.[1]
}

/** True when one of the delivery's `v1` signatures is the one of its id, timestamp and body. */
function signedBody (sent: SentWebhook, secret: string | readonly string[]): boolean {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headerOf(sent, name))
  if (id === undefined || timestamp === undefined || signatures === undefined) return false
  const expected = webhookSignature(webhookKeys(secret, () => 'the secret given to readWebhookDelivery'), `${id}.${timestamp}.${sent.body}`).split(' ')
  return signatures.split(' ').some((signature) => expected.includes(signature))
}

/**
 * Reads a delivery the application sent (`sent`: its body text and headers, as your delivery double received them)
 * as its subscriber does, and returns what that subscriber would refuse or misread: `[]` when the signature is the
 * body's, the version header names a version with the webhook, and the body is its payload there. After `app.ready()`.
 * @example
 * ```ts
 * import { test } from 'tap'
 * declare const app: FastifyInstance, secret: string // the application, ready; the subscriber's signing secret
 * test('every invoice.paid delivery reads as its subscriber reads it', async (t) => {
 *   const sent: SentWebhook[] = [] // what the app's deliver function was given, in a test
 *   for (const delivery of sent) t.same(readWebhookDelivery(app, delivery, { name: 'invoice.paid', secret }), [])
 * })
 * ```
 */
export function readWebhookDelivery (app: FastifyInstance, sent: SentWebhook, options: ReadWebhookDeliveryOptions): WebhookDeliveryFinding[] {
  const { context } = singleApi(app, 'readWebhookDelivery')
  const state = versionerStateOf(context)
  if (!state.ready) throw new NotReadyError('readWebhookDelivery(app)')
  let webhook: DeclaredWebhook
  try {
    webhook = context.versioner.webhooks.named(options.name, options.method)
  } catch (error) {
    throw new UnknownWebhookError(`readWebhookDelivery: ${(error as Error).message}`)
  }
  const found: WebhookDeliveryFinding[] = []
  if (!signedBody(sent, options.secret)) {
    found.push({ kind: 'signature', message: 'no webhook-signature of the delivery is the one of its body by the secret: its subscriber refuses it. Send the body as rendered (delivery.body) with its headers, and re-sign a retry with signWebhook(secret, { id, body }).' })
  }
  const header = options.versionHeader ?? toolFacts(context).headerName
  const version = headerOf(sent, header.toLowerCase())
  const level = version !== undefined && state.generation.levels.includes(version) ? state.generation.levelOf(version) : undefined
  if (level === undefined || level === 0 || !webhook.timeline[level].exists) {
    found.push({
      kind: 'version',
      message: `the ${header} header is ${version === undefined ? 'missing' : `'${version}'`}: the subscriber cannot tell which version the body is in. Send the headers of the delivery as rendered ` +
        '(deliveries rendered with a versionHeader option: give it to readWebhookDelivery as well).' +
      (level !== undefined && level > 0 ? ` That version has no webhook '${options.name}'.` : '')
    })
    return found
  }
  let body: unknown
  try {
    body = JSON.parse(sent.body)
  } catch {
    found.push({ kind: 'body', message: `the body is not JSON (${sent.body.slice(0, 80)}).` })
    return found
  }
  const schema = prepareSchema(state.generation.formAt(webhook.body, level), state.generation, 'fastify')
  const check = strictValidator((ref) => state.generation.resolveAnyId(ref) ?? context.getSchema(ref.replace(/#$/, '')), appAjvSetup(context))(schema)
  if (!check(structuredClone(body))) {
    const [error] = check.errors ?? []
    found.push({
      kind: 'body',
      message: `the body is not the '${options.name}' payload of ${version} (${error?.instancePath === '' ? 'the body' : error?.instancePath ?? ''} ${error?.message ?? ''}): ` +
      'its subscriber reads fields it does not have. Send each subscriber the body rendered for its version (webhooks.render(...).deliveries[i].body).'
    })
  }
  return found
}
