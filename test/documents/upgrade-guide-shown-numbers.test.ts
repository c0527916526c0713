/**
 * The numbers of the upgrade guide's examples show what a converter does to them (decision 0336): a number the
 * example generates (no `examples` or `default` on its schema) that a converter changes is 12.34 or 1234 within its
 * schema's keywords, not 0 (0 -> 0 teaches nothing); one copied as it is, or moved to a renamed field, stays plain;
 * one a probe's converter refuses stays plain; a given example stays as it is.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { guideOf } from '../helpers/docs-pages'

const Price = Type.Object({
  amount: Type.Integer({ minimum: 0, description: 'In cents.' }),
  count: Type.Integer({ minimum: 0 }),
  size: Type.Integer({ minimum: 0 }),
  fee: Type.Integer({ minimum: 0, maximum: 500 }),
  tax: Type.Integer({ minimum: 0 }),
  given: Type.Integer({ minimum: 0, examples: [0] })
}, { $id: 'Price' })

class AmountsInCents extends VersionChange {
  description = 'amount and fee are cents (they were units); size was length; display is gone.'
  instructionsToMigrateToPreviousVersion = [
    schema(Price).field('amount').had({ type: Type.Number({ minimum: 0 }) }),
    schema(Price).field('fee').had({ type: Type.Number({ minimum: 0, maximum: 5 }) }),
    schema(Price).field('given').had({ type: Type.Number({ minimum: 0, examples: [0] }) }),
    schema(Price).field('size').had({ name: 'length' }),
    schema(Price).formerField('display').existedAs({ type: Type.String() })
  ]

  @ConvertRequestToNextVersionFor(Price)
  up (request: RequestInfo) {
    request.body.amount = Math.round(request.body.amount * 100)
    // A fee above a unit is refused by this converter: the probe showing it fails, and the fee stays plain.
    if (request.body.fee > 1) throw new Error('fee too high')
    request.body.fee = Math.round(request.body.fee * 100)
    request.body.given = Math.round(request.body.given * 100)
    request.body.size = request.body.length
    delete request.body.length
    delete request.body.display
  }

  @ConvertResponseToPreviousVersionFor(Price)
  down (response: ResponseInfo) {
    response.body.amount = response.body.amount / 100
    if (response.body.fee > 100) throw new Error('fee too high')
    response.body.fee = response.body.fee / 100
    response.body.given = response.body.given / 100
    response.body.length = response.body.size
    delete response.body.size
    // Read, and written elsewhere: tax itself is the same in both versions.
    response.body.display = `${(response.body.tax / 100).toFixed(2)} USD`
  }
}

test('a number a converter changes is shown as one that shows it; one copied or moved, refused, or given stays as it was', async (t) => {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AmountsInCents), new Version('2000-01-01')), async (api) => {
    api.post('/prices', { schema: { body: Price, response: { 200: Price } } }, async (request) => request.body)
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.notes, [], 'every example made')
  t.same(change.examples.map((example) => ({ part: example.part, before: example.before, after: example.after })), [{
    part: 'request body',
    // tax has no converter in a request: it is copied, and stays 0.
    before: { amount: 12.34, count: 0, fee: 0, tax: 0, given: 0, length: 0, display: 'example' },
    after: { amount: 1234, count: 0, size: 0, fee: 0, tax: 0, given: 0 }
  }, {
    part: 'response body',
    before: { amount: 12.34, count: 0, fee: 0, tax: 1234, given: 0, length: 0, display: '12.34 USD' },
    after: { amount: 1234, count: 0, size: 0, fee: 0, tax: 1234, given: 0 }
  }], 'amount converted both ways, tax read to write display: shown; count copied, size moved to length, fee refused, given given: as they were')
})

test('numbers a converter changes that it refuses together, and one with no other value, are shown plain', async (t) => {
  const Split = Type.Object({
    left: Type.Integer({ minimum: 0 }),
    right: Type.Integer({ minimum: 0 }),
    none: Type.Integer({ minimum: 0, maximum: 0 }),
    label: Type.String()
  }, { $id: 'Split' })
  class LabelWasName extends VersionChange {
    description = 'label was name; left and right were tenths.'
    instructionsToMigrateToPreviousVersion = [schema(Split).field('label').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Split)
    down (response: ResponseInfo) {
      // Each alone is converted; both at once are refused, as a converter may refuse a combination.
      if (response.body.left !== 0 && response.body.right !== 0) throw new Error('one side at a time')
      response.body.left = response.body.left / 10
      response.body.right = response.body.right / 10
      response.body.none = response.body.none * 10
      response.body.name = response.body.label
      delete response.body.label
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelWasName), new Version('2000-01-01')), async (api) => {
    api.get('/split', { schema: { response: { 200: Split } } }, async () => ({ left: 0, right: 0, none: 0, label: 'x' }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples.map((example) => ({ before: example.before, after: example.after })), [{
    before: { left: 0, right: 0, none: 0, name: 'example' },
    after: { left: 0, right: 0, none: 0, label: 'example' }
  }], 'the plain pair: left and right shown together are refused; none has no value but 0')
  t.same(change.notes, [])
})
