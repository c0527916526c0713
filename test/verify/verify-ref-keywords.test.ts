// `verify` on a field that is a `$ref` with keywords of its own beside it (`Type.Ref(Name, { pattern })`, which
// Fastify's Ajv applies with the schema it names): the examples follow the keywords, as they do the same keywords
// written inline. Examples that ignored them were refused by the version and skipped: a converter cutting every value
// to one character went unseen.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import type { Teardown } from '../helpers/apps'
import { convertedFindings, roundTrip, summary } from '../helpers/verify-apps'

/** The findings on `POST /things` (a round trip) whose `value` is `{ $ref: 'Name', ...beside }`, or inline, converted up by `convert`. */
async function findings (t: Teardown, beside: Record<string, unknown>, written: 'beside a $ref' | 'inline', convert: (value: string) => string): Promise<string[]> {
  const Name = Type.String({ $id: 'Name', minLength: 1 })
  const value: TSchema = written === 'inline' ? Type.String({ minLength: 1, ...beside }) : Type.Ref(Name, beside)
  const routes = (Thing: TSchema) => (api: FastifyInstance): void => {
    api.addSchema(Name)
    roundTrip(Thing)(api)
  }
  return summary(await convertedFindings(t, value, convert, routes, 10))
}

const FIRST = 'POST /things 2000-01-01 response round trip response 200/value after RefBecameReference (2001-01-01) by RefBecameReference.up,RefBecameReference.down'

test('regression: verify follows the keywords beside a $ref as it does them inline; a converter cutting the value was unseen', async (t) => {
  const cut = (value: string): string => value.slice(0, 1)
  for (const beside of [{ pattern: '^[a-z]+$' }, { maxLength: 6 }, { maxLength: 6, pattern: '^[a-z0-9]+$' }]) {
    const inline = await findings(t, beside, 'inline', cut)
    t.same(await findings(t, beside, 'beside a $ref', cut), inline, `${JSON.stringify(beside)}: as inline`)
    t.same(inline, [FIRST], `${JSON.stringify(beside)}: the value cut`)
    t.same(await findings(t, beside, 'beside a $ref', (value) => value), [], `${JSON.stringify(beside)}: carried whole, nothing to report`)
  }
})
