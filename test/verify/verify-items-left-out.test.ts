// A response converter may leave out, for an older version, the list items that version cannot express (issue 31):
// a discount line (a negative unitAmount an older version's line had a minimum of 0 for), an item of an enum member
// the version lacks. verify reports no value lost for such items; it still finds an item the version can express
// that a converter drops, and the harm of a converter that leaves one it cannot express in the list.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, VersionChange, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'

type Line = { description: string, quantity: number, unitAmount: number }

/** An invoice whose lines may be discounts since 2001-01-01, and the converter leaving them out for 2000-01-01. */
async function invoices (t: Parameters<typeof appWith>[0], leaveOut: (lines: Line[]) => Line[] | void) {
  const InvoiceLine = Type.Object({
    description: Type.String({ minLength: 1 }),
    quantity: Type.Integer({ minimum: 1 }),
    unitAmount: Type.Integer({ description: 'In cents; negative on a discount line.' })
  }, { $id: 'InvoiceLine' })
  const Invoice = Type.Object({ id: Type.String(), lines: Type.Array(InvoiceLine), total: Type.Integer() }, { $id: 'Invoice' })
  class DiscountLines extends VersionChange {
    description = 'A line may be a discount, with a negative unit amount.'
    instructionsToMigrateToPreviousVersion = [schema(InvoiceLine).field('unitAmount').had({ minimum: 0 })]

    @ConvertResponseToPreviousVersionFor(Invoice)
    discountsLeftOut (response: ResponseInfo) {
      const kept = leaveOut(response.body.lines as Line[])
      if (kept !== undefined) response.body.lines = kept
    }
  }
  return await appWith(t, DiscountLines, (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => { throw new Error('not served in verify') })
  })
}

test('discount lines filtered out for a version whose lines cannot be negative: no finding', async (t) => {
  const app = await invoices(t, (lines) => lines.filter((line) => line.unitAmount >= 0))
  t.same((await verify(app, { examples: 20 })).map((finding) => finding.text), [])
})

test('discount lines spliced out while counting up: the second of two in a row is found, as the line the version cannot show it leaves in', async (t) => {
  const app = await invoices(t, (lines) => {
    for (let index = 0; index < lines.length; index++) {
      if (lines[index].unitAmount < 0) lines.splice(index, 1)
    }
  })
  // The negative boundary's example holds two discount lines in a row: no random example is needed.
  const findings = await verify(app, { examples: 1 })
  t.same(summary(findings), ['GET /invoices/:id 2000-01-01 response invalid response 200/lines/*/unitAmount after DiscountLines (2001-01-01) by DiscountLines.discountsLeftOut'])
  t.match(findings[0].text, /must be >= 0 \(the value -\d+\)/)
})

test('a line the version can show that the converter leaves out with the discounts is still found lost', async (t) => {
  // A free line (0) and a line of several seats are lines 2000-01-01 has.
  for (const leaveOut of [(line: Line) => line.unitAmount > 0, (line: Line) => line.unitAmount >= 0 && line.quantity === 1]) {
    const app = await invoices(t, (lines) => lines.filter(leaveOut))
    const found = summary(await verify(app, { examples: 20 }))
    t.same(found, ['GET /invoices/:id 2000-01-01 response lost response 200/lines/*/description after DiscountLines (2001-01-01) by DiscountLines.discountsLeftOut'], String(leaveOut))
  }
})
