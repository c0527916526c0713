/**
 * Standard Webhooks signatures: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed with the bytes of
 * a `whsec_` secret; one per secret, space-separated, while a secret rotates.
 * @module
 */
import { createHmac } from 'node:crypto'
import { InvalidOptionError, InvalidWebhookSecretError } from './errors'
import { describeValue } from './json-schema'

const PREFIX = 'whsec_'
/** Canonical base64 (padded, standard alphabet): what `Buffer.from(text, 'base64')` would otherwise read loosely. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
/** The key sizes the specification allows: 24 bytes (192 bits) to 64 bytes (512 bits). */
const MIN_KEY_BYTES = 24
const MAX_KEY_BYTES = 64

const ACCEPTED = `a secret is 'whsec_' and the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes ` +
  "(e.g. 'whsec_' + randomBytes(32).toString('base64')), or a list of them while one rotates"

/**
 * A `webhook-id` a header carries as it was signed: printable ASCII, no space at either end (a receiver trims it) and,
 * checked apart, no `.` (it would make `id.timestamp.body` ambiguous).
 */
const WEBHOOK_ID = /^[!-~](?:[ -~]*[!-~])?$/

/**
 * `id`, when it can be a `webhook-id`; else `FST_VERSIONER_INVALID_OPTION` naming `owner` (`render`, `signWebhook`).
 * @example
 * ```ts
 * const id = checkedWebhookId(options.id ?? `msg_${randomUUID()}`, 'render')
 * ```
 */
export function checkedWebhookId (id: unknown, owner: string): string {
  if (typeof id === 'string' && WEBHOOK_ID.test(id) && !id.includes('.')) return id
  throw new InvalidOptionError(`${owner}'s id (webhook-id) must be a non-empty string without '.' (it is signed as id.timestamp.body), of printable ` +
    `ASCII with no space at either end (it is sent as a header, which a receiver reads trimmed); got ${describeValue(id)}.`)
}

/** The key a secret encodes, or what is wrong with it (never the secret itself). */
function keyOf (secret: unknown): Buffer | string {
  if (typeof secret !== 'string') return `is ${secret === null ? 'null' : typeof secret}, not a string`
  if (!secret.startsWith(PREFIX)) return `does not start with '${PREFIX}'`
  const encoded = secret.slice(PREFIX.length)
  if (!BASE64.test(encoded)) return `is not base64 after '${PREFIX}'`
  const key = Buffer.from(encoded, 'base64')
  return key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES ? `holds ${key.length} bytes` : key
}

/**
 * The signing keys of a subscriber's secret (or secrets, while one rotates), each checked: throws
 * `FST_VERSIONER_INVALID_WEBHOOK_SECRET` naming the owner (asked only then), never the secret.
 * @example `const keys = webhookKeys(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], () => "subscriber 'ep_1'")`
 */
export function webhookKeys (secret: unknown, owner: () => string): readonly Buffer[] {
  const secrets = Array.isArray(secret) ? secret as unknown[] : [secret]
  if (secrets.length === 0) throw new InvalidWebhookSecretError(`The secret of ${owner()} is an empty list; ${ACCEPTED}.`)
  return secrets.map((one, index) => {
    const key = keyOf(one)
    if (typeof key !== 'string') return key
    const which = secrets.length === 1 ? 'The secret' : `Secret ${index + 1} of ${secrets.length}`
    throw new InvalidWebhookSecretError(`${which} of ${owner()} ${key}; ${ACCEPTED}.`)
  })
}

/**
 * The `webhook-signature` header of `content` (`<id>.<timestamp>.<body>`): `v1,<base64 HMAC-SHA256>` for each key,
 * separated by spaces.
 * @example
 * ```ts
 * headers['webhook-signature'] = webhookSignature(keys, `${id}.${timestamp}.${body}`)
 * ```
 */
export function webhookSignature (keys: readonly Buffer[], content: string): string {
  let signature = ''
  for (const key of keys) signature += `${signature === '' ? '' : ' '}v1,${createHmac('sha256', key).update(content).digest('base64')}`
  return signature
}

/**
 * The Standard Webhooks headers of one delivery attempt.
 * @example
 * ```ts
 * const headers: WebhookSignatureHeaders = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { id: 'msg_1', body: '{}' })
 * ```
 */
export interface WebhookSignatureHeaders {
  readonly 'webhook-id': string
  readonly 'webhook-timestamp': string
  readonly 'webhook-signature': string
}

/**
 * Signs one attempt of a rendered webhook: a retry is a new attempt, with its own `webhook-timestamp` (receivers refuse
 * old ones) and the same `webhook-id` and body. Throws a coded error for a malformed secret, id or timestamp.
 * @example
 * ```ts
 * declare const delivery: WebhookDelivery // a rendered delivery, stored to be retried
 * declare function secretOf (subscriberId: string): string // the subscriber's current secret, from your store
 * const headers = { ...delivery.headers, ...signWebhook(secretOf(delivery.subscriber.id), { id: delivery.headers['webhook-id'], body: delivery.body }) }
 * ```
 */
export function signWebhook (secret: string | readonly string[], message: { readonly id: string, readonly body: string, readonly timestamp?: Date }): WebhookSignatureHeaders {
  const { body, timestamp = new Date() } = message ?? {}
  const id = checkedWebhookId(message?.id, 'signWebhook')
  if (typeof body !== 'string') throw new InvalidOptionError(`signWebhook's body must be the text sent, a string; got ${describeValue(body)}.`)
  if (!(timestamp instanceof Date) || Number.isNaN(timestamp.getTime())) {
    throw new InvalidOptionError(`signWebhook's timestamp must be a valid Date; got ${describeValue(timestamp)}.`)
  }
  const seconds = String(Math.floor(timestamp.getTime() / 1000))
  const signature = webhookSignature(webhookKeys(secret, () => 'signWebhook'), `${id}.${seconds}.${body}`)
  return { 'webhook-id': id, 'webhook-timestamp': seconds, 'webhook-signature': signature }
}
