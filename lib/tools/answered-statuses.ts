/**
 * The status a HEAD response reaches a version with, and what the version documents for it: serving serializes a
 * response by the version's slot for the status its converters leave (`response.statusCode`), so `verify` judges the
 * body by that slot's schema, and a status the version documents no slot for is a finding
 * ([decision 0286](../../docs/decisions/0286-verify-follows-the-status-a-version-answers.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { responseSlot, type SchemaSlots } from '../routes/schema-forms'
import { isSuccessKey } from '../routes/version-plan'
import type { HeadRoute } from '../routes/versioner-state'

/**
 * The statuses a response slot answers that a replay takes it with: its own status, the first of its `Nxx` range
 * without a schema of its own; for `default` (Fastify's schema for every status without one), the first success
 * without one and, when the route has a success schema of its own (`default` is then how it declares its errors),
 * the first error without one.
 * @example
 * ```ts
 * statusesOf(slots, '4xx') // [400], where the route documents no 400 of its own
 * ```
 */
export function statusesOf (slots: SchemaSlots, slot: string): number[] {
  const key = slot.split(' ')[0]
  const falls = (status: number): boolean => !slots.byStatus.has(String(status)) && !slots.byStatus.has(`${String(status)[0]}xx`)
  if (/^\d+$/.test(key)) return [Number(key)]
  const first = (from: number, to: number, test: (status: number) => boolean): number[] => {
    for (let status = from; status <= to; status++) if (test(status)) return [status]
    return []
  }
  if (key !== 'default') return first(Number(key[0]) * 100, Number(key[0]) * 100 + 99, (status) => !slots.byStatus.has(String(status)))
  const errors = [...slots.byStatus.keys()].some(isSuccessKey) ? first(400, 599, falls) : []
  return [...first(200, 299, falls), ...errors]
}

/** What a level documents for the status a response has there: the schema of its slot, or none (with what it documents). */
export type Answered = { readonly form: TSchema | undefined } | Undocumented

/** A status a level documents no slot for: what is wrong, and the fix given the converters that ran and the changes at fault. */
interface Undocumented {
  readonly message: string
  readonly fix: (ran: readonly string[], changes: readonly string[]) => string
}

/** The response a replay answers: a HEAD route's slot `slot` (of media type `media`) at status `status`. */
interface Answering {
  readonly head: HeadRoute
  readonly slot: string
  readonly status: number
  readonly media: string
  readonly versionAt: (level: number) => string
}

/** The finding of HEAD's `from` answered `status` at a level documenting only `documented`, in version `version`. */
function undocumented (from: number, status: number, documented: readonly string[], version: string): Undocumented {
  const how = status === from ? 'as HEAD answers it' : `(HEAD's ${from}, as the converters set it)`
  return {
    message: `answered ${status} ${how}, a status ${version} does not document for the operation (it documents ${documented.join(', ')}): ` +
      `a client of ${version} reads a response its documents do not describe`,
    fix: (ran, changes) => `${ran.length === 0 ? `Add a response converter${from < 300 ? '' : ' with migrateHttpErrors'} to ${changes.join(', ')} that sets` : `Make ${ran.join(', ')} set`} ` +
      `response.statusCode to a status ${version} documents (and the body to its schema), or document ${status} in the responses of ${version} ` +
      `(endpoint(...).had({ response }) of ${changes.join(', ')}).`
  }
}

/**
 * How a replay of HEAD's response `slot` reads the status a converter leaves at a level: `undefined` where nothing
 * changes (the status it started with, whose slot the level has: the target's own forms apply), the form of the
 * slot answering another status, or the statuses the level documents where none answers it. A slot HEAD does not
 * document (one an endpoint instruction gives an older version only) is never sent by HEAD's handlers, and a level
 * documenting no response at all, or giving every success one status (`had({ statusCode })`), is not judged.
 * @example
 * ```ts
 * const answered = answeredStatuses({ head, slot: '422', status: 422, media: 'application/json', versionAt }, formOf)
 * answered(404, 2) // { form: NotFound } where 2025-03-31 documents 404
 * ```
 */
export function answeredStatuses (at: Answering, formOf: (schema: TSchema, level: number) => TSchema): ((status: number, level: number) => Answered | undefined) | undefined {
  const { head, slot, media } = at
  if (head.forms.responses[0].schemas[slot] === undefined) return undefined
  const reply = { getHeader: () => media }
  return (status, level) => {
    const slots: SchemaSlots | undefined = head.forms.responses[level]
    if (slots === undefined || slots.byStatus.size === 0) return undefined
    if (status === at.status && slots.schemas[slot] !== undefined) return undefined
    if (status < 300 && head.timeline[level]?.attributes.statusCode !== undefined) return undefined
    const exact = String(status)
    if (![exact, `${exact[0]}xx`, 'default'].some((key) => slots.byStatus.has(key))) return undocumented(at.status, status, [...slots.byStatus.keys()], at.versionAt(level))
    // A status documented without a schema for the media type (a description only) has no body to judge.
    const key = responseSlot(slots, status, reply)
    return { form: key === undefined ? undefined : formOf(slots.schemas[key], level) }
  }
}

/**
 * The response slots replayed for the version at `level`: its own (with their schemas), then HEAD's it has no slot
 * for (`undefined`), which HEAD's handlers answer all the same.
 * @example
 * ```ts
 * answeredSlots(head.forms.responses, 2) // [['200', Invoice], ['404', NotFound], ['422', undefined]]
 * ```
 */
export function answeredSlots (responses: readonly SchemaSlots[], level: number): Array<[string, TSchema | undefined]> {
  const own = responses[level].schemas
  return [...Object.entries(own), ...Object.keys(responses[0].schemas).filter((slot) => !Object.hasOwn(own, slot)).map((slot): [string, undefined] => [slot, undefined])]
}
