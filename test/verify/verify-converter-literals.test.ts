// `verify` tries the values converters branch on (decision 0229): a converter wrong only where a field equals a string
// its code compares against (`plan === 'legacy'`, a table keyed by currency) is found, because the strings of the
// converter's own text, and of the module's declarations it names (a table, a helper), are put in the string fields
// whose schema accepts them, a few examples more per route, version and direction.
import { readFileSync } from 'node:fs'
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, HeadVersion, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { tokensOf } from '../../lib/tools/converter-literals'
import { declaringModuleTexts } from '../../lib/tools/declaring-module'
import { generateExamples } from '../../lib/tools/example-generation'
import { appWith, summary } from '../helpers/verify-apps'

/** The text of the module declaring `declared`, asked alone. */
const declaringModuleText = (declared: VersionChangeClass | typeof HeadVersion): string | undefined => declaringModuleTexts([declared]).get(declared)

const AccountCreate = Type.Object({ plan: Type.String({ maxLength: 20 }), quota: Type.Number({ minimum: 0, description: 'In thousandths.' }) }, { $id: 'AccountCreate' })

/** The decimals of a currency's smallest unit, where it is not 2 (a module's table: not in the converter's text). */
const CURRENCY_DECIMALS: Record<string, number> = { jpy: 0, krw: 0, kwd: 3 }

/** Whether a currency has no cents (a module's helper: its list is not in the converter's text). */
function withoutCents (currency: string): boolean {
  return ['jpy', 'vnd'].includes(currency.toLowerCase())
}

/** A change moving quotas to thousandths, on the way up except for the legacy plan, and back always unless `correct`. */
function thousandths (correct: boolean): VersionChangeClass {
  class QuotaInThousandths extends VersionChange {
    description = 'A quota is in thousandths (it was in units); the legacy plan kept its units.'
    instructionsToMigrateToPreviousVersion = [schema(AccountCreate).field('quota').had({ description: 'In units.' })]

    @ConvertRequestToNextVersionFor(AccountCreate)
    up (request: RequestInfo) {
      if (request.body.plan === 'legacy') return
      request.body.quota = request.body.quota * 1000
    }

    @ConvertResponseToPreviousVersionFor(AccountCreate)
    down (response: ResponseInfo) {
      if (correct && response.body.plan === 'legacy') return
      response.body.quota = response.body.quota / 1000
    }
  }
  return QuotaInThousandths
}

async function accounts (t: Parameters<typeof appWith>[0], change: VersionChangeClass, body: TSchema = AccountCreate): Promise<Awaited<ReturnType<typeof appWith>>> {
  return await appWith(t, change, (api) => {
    api.post('/accounts', { schema: { body, response: { 201: body } } }, async () => { throw new Error('not served in verify') })
  })
}

test('a converter losing a value only on its === \'legacy\' branch is found, the example holding the literal', async (t) => {
  const findings = await verify(await accounts(t, thousandths(false)), { examples: 5 })
  t.same(summary(findings), ['POST /accounts 2000-01-01 response round trip response 201/quota after QuotaInThousandths (2001-01-01) by QuotaInThousandths.up,QuotaInThousandths.down'])
  t.match(findings[0].message, /^the value sent at \/quota does not come back in the 201 response: \S+ comes back as \S+$/)
  t.match(findings[0].example, { plan: 'legacy' })
})

test('the same converter, correct on both branches, gets no finding', async (t) => {
  t.same(summary(await verify(await accounts(t, thousandths(true)), { examples: 5 })), [])
})

test('the literals are tried the same way under a seed: the same findings twice', async (t) => {
  const app = await accounts(t, thousandths(false))
  const [first, second] = [await verify(app, { examples: 5, seed: 7 }), await verify(app, { examples: 5, seed: 7 })]
  t.equal(first.length, 1)
  t.same(second, first)
})

test('a literal is put only where a string field\'s schema accepts it, in a list\'s first item, at most 8 literals a schema, the same under a seed', async (t) => {
  const Form = Type.Object({ plan: Type.String({ maxLength: 6 }), code: Type.String({ pattern: '^[a-z]+$' }), tags: Type.Optional(Type.Array(Type.String({ format: 'uuid' }))), keys: Type.Array(Type.String({ maxLength: 8 }), { minItems: 2 }) })
  const options = { resolveRef: () => undefined, count: 2, seed: 3 }
  const plain = generateExamples(Form, options)
  const withLiterals = (literals: string[]): unknown[] => generateExamples(Form, { ...options, literals }).slice(plain.length).map(({ value }) => value)
  const [legacy, long, digits] = withLiterals(['legacy', 'premium', 'v2'])
  t.match(legacy, { plan: 'legacy', code: 'legacy', tags: [/^[0-9a-f-]{36}$/] }, 'optional fields present, lists not empty, a uuid not taken without its format known')
  const keys = (legacy as { keys: string[] }).keys
  t.same([keys[0], keys.slice(1).includes('legacy')], ['legacy', false], 'in the first item of a list only: two entries with one key are one in a map')
  t.match(long, { code: 'premium' })
  t.not((long as { plan: string }).plan, 'premium', 'longer than maxLength')
  t.match(digits, { plan: 'v2' })
  t.not((digits as { code: string }).code, 'v2', 'the pattern refuses it')
  t.equal(withLiterals(['Too long to be a plan']).length, 0, 'no field takes it: no example')
  t.equal(withLiterals(Array.from({ length: 20 }, (_, index) => `value${index}`)).length, 8)
  t.same(withLiterals(['legacy']), withLiterals(['legacy']))
})

test('the keys of a module\'s table and the strings of a module\'s helper the converter names are tried, in the case the code compares', async (t) => {
  const InvoiceCreate = Type.Object({
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    lines: Type.Array(Type.Object({ unitAmount: Type.Number({ minimum: 0 }) }))
  }, { $id: 'InvoiceCreate' })
  const change = (table: boolean): VersionChangeClass => {
    class AmountsInSmallestUnit extends VersionChange {
      description = 'Amounts are integers in the smallest unit of their currency (they were decimals).'
      instructionsToMigrateToPreviousVersion = [schema(InvoiceCreate).field('lines').had({ description: 'Amounts in currency units.' })]

      @ConvertRequestToNextVersionFor(InvoiceCreate)
      up (request: RequestInfo) {
        const decimals = table ? CURRENCY_DECIMALS[request.body.currency.toLowerCase()] ?? 2 : withoutCents(request.body.currency) ? 0 : 2
        for (const line of request.body.lines) line.unitAmount = Math.round(line.unitAmount * 10 ** decimals)
      }

      @ConvertResponseToPreviousVersionFor(InvoiceCreate)
      down (response: ResponseInfo) {
        for (const line of response.body.lines) line.unitAmount = line.unitAmount / 100
      }
    }
    return AmountsInSmallestUnit
  }
  for (const table of [true, false]) {
    const findings = await verify(await accounts(t, change(table), InvoiceCreate), { examples: 5 })
    t.same(summary(findings), ['POST /accounts 2000-01-01 response round trip response 201/lines/*/unitAmount after AmountsInSmallestUnit (2001-01-01) by AmountsInSmallestUnit.up,AmountsInSmallestUnit.down'], table ? 'table' : 'helper')
    t.match(findings[0].example, { currency: /^(JPY|KRW|KWD|VND)$/ }, table ? 'table' : 'helper')
  }
})

test('a class declared in a function, not exported, is found in its module\'s file; an exported one in the module exporting it', async (t) => {
  const change = (): VersionChangeClass => {
    class LegacyPlanInUnits extends VersionChange {
      description = 'A quota is in thousandths (it was in units), except for the plans without cents.'
      instructionsToMigrateToPreviousVersion = [schema(AccountCreate).field('quota').had({ description: 'In units.' })]

      @ConvertRequestToNextVersionFor(AccountCreate)
      up (request: RequestInfo) {
        if (!withoutCents(request.body.plan)) request.body.quota = request.body.quota * 1000
      }

      @ConvertResponseToPreviousVersionFor(AccountCreate)
      down (response: ResponseInfo) {
        response.body.quota = response.body.quota / 1000
      }
    }
    return LegacyPlanInUnits
  }
  const first = summary(await verify(await accounts(t, change()), { examples: 5 }))
  t.equal(first.length, 1, 'the helper\'s strings, read from the module, take the branch')
  t.same(summary(await verify(await accounts(t, change()), { examples: 5 })), first, 'the same again, the file read from the cache')
  t.equal(declaringModuleText(change()), readFileSync(__filename, 'utf8'), 'this file, as written')
  t.equal(declaringModuleText(HeadVersion), readFileSync(require.resolve('../../lib/describe/version'), 'utf8'), 'the module exporting it')
})

test('a class no loaded CommonJS module declares (an ES module, a bundle, code built at run time): its converters\' own text only', async (t) => {
  const name = ['Built', 'At', 'Run', 'Time'].join('')
  // eslint-disable-next-line no-new-func
  const built = new Function('VersionChange', `return class ${name} extends VersionChange {}`)(VersionChange) as VersionChangeClass
  t.equal(built.name, name)
  t.equal(declaringModuleText(built), undefined)
  const anonymous = (() => class extends VersionChange { description = ''; instructionsToMigrateToPreviousVersion = [] })()
  t.equal(declaringModuleText(anonymous), undefined, 'no name to look for')
  class DeclaredHere extends VersionChange { description = ''; instructionsToMigrateToPreviousVersion = [] }
  const together = declaringModuleTexts([built, DeclaredHere, anonymous, HeadVersion])
  t.same([...together.values()], [undefined, readFileSync(__filename, 'utf8'), undefined, readFileSync(require.resolve('../../lib/describe/version'), 'utf8')],
    'asked together, each class gets the text it gets alone, in the order asked')
})

/** The plans a quota is counted in units for (a module's enum: its members' values are in no converter's text). */
enum Plan { Legacy = 'legacy-units' }

test('the values of a module\'s enum a converter compares against are tried', async (t) => {
  class QuotaInThousandthsButLegacy extends VersionChange {
    description = 'A quota is in thousandths (it was in units); the legacy plan kept its units.'
    instructionsToMigrateToPreviousVersion = [schema(AccountCreate).field('quota').had({ description: 'In units.' })]

    @ConvertRequestToNextVersionFor(AccountCreate)
    up (request: RequestInfo) {
      if (request.body.plan !== Plan.Legacy) request.body.quota = request.body.quota * 1000
    }

    @ConvertResponseToPreviousVersionFor(AccountCreate)
    down (response: ResponseInfo) {
      response.body.quota = response.body.quota / 1000
    }
  }
  const findings = await verify(await accounts(t, QuotaInThousandthsButLegacy), { examples: 5 })
  t.equal(findings.length, 1)
  t.match(findings[0].example, { plan: 'legacy-units' })
})

test('the tokens of a converter\'s source: strings, names and punctuators, comments, numbers and regular expressions skipped', async (t) => {
  const tokens = tokensOf("if (a.b === 'x\\'y' /* 'no' */ && /'re'/.test(c) && d / 2 > 1) return { key: `t`, 'q': 3 } // 'nor'")
  t.same(tokens.filter((token) => token.kind === 'string').map((token) => token.text), ["x'y", 't', 'q'])
  t.same(tokens.filter((token) => token.kind === 'name').map((token) => token.text), ['if', 'a', 'b', 'test', 'c', 'd', 'return', 'key'])
})
