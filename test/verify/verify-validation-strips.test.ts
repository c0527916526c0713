// A union of closed members whose first member takes a subset of the second's fields: Fastify's Ajv, with its default
// `removeAdditional: true`, strips a business down to the person at HEAD as in every version (decision 0284). `verify`
// finds the loss, and says it is the application's validation, with its fixes, not a converter's (decision 0286).
import { test } from 'tap'
import { verify } from '../../tools'
import { appWith, closedCustomers } from '../helpers/verify-apps'

const personFirst = closedCustomers(false)
const businessFirst = closedCustomers(false, true)

test('a field the app\'s validation strips from a union\'s value (removeAdditional) is told as the validation\'s, with its fixes, not a converter\'s', async (t) => {
  const findings = await verify(await appWith(t, personFirst.change, personFirst.routes), { examples: 3 })
  t.same(findings.map((finding) => `${finding.kind} ${finding.part}${finding.pointer}`).sort(), ['lost body/customer/registry', 'round trip body/customer/registry'])
  for (const finding of findings) {
    t.match(finding.message, /the application's validation removed \/customer\/registry from the request as served, before any converter ran/, `${finding.kind}: what removed it`)
    t.match(finding.fix, /^No converter can carry what validation removed: put the union member with the most fields first or set removeAdditional: false/, `${finding.kind}: the fixes`)
    t.notMatch(finding.text, /Add a request converter|Make a request converter/, `${finding.kind}: no converter blamed`)
  }
  t.same(await verify(await appWith(t, businessFirst.change, businessFirst.routes), { examples: 3 }), [], 'the member with more fields first: clean')
  t.same(await verify(await appWith(t, personFirst.change, personFirst.routes, { fastify: { ajv: { customOptions: { removeAdditional: false } } } }), { examples: 3 }), [], 'removeAdditional: false: clean')
})
