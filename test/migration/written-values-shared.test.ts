// One object a handler returns at two places its schemas write otherwise (a Date under `date` and `date-time`): each
// place's converters see, and an old client gets, what HEAD writes at that place (decision 0285).
import { test } from 'tap'
import fc from 'fast-check'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, type ResponseInfo, type VersionChangeClass } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call } from '../helpers/http'

const SEED = Number(process.env.FC_SEED ?? 20261202)

test('regression: a holder returned at a date place and a date-time place gave the date-time place the date text once a converter moved it', async (t) => {
  const Due = Type.Object({ at: Type.String({ format: 'date' }) })
  const Audit = Type.Object({ at: Type.String({ format: 'date-time' }) })
  const Body = Type.Object({ due: Due, audit: Audit })
  const seen: unknown[] = []
  class AuditAtWasWhen extends VersionChange {
    description = 'The audit instant was `when`.'
    instructionsToMigrateToPreviousVersion = [schema(Audit).field('at').had({ name: 'when' })]
    @ConvertResponseToPreviousVersionFor(Audit)
    rename (response: ResponseInfo): void {
      seen.push(response.body.at)
      response.body.when = response.body.at
      delete response.body.at
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', AuditAtWasWhen), new Version('2000-01-01')), async (api) => {
    api.get('/task', { schema: { response: { 200: Body } } }, async () => {
      const shared = { at: new Date('2024-03-05T10:11:12Z') }
      return { due: shared, audit: shared } as never
    })
  })
  const head = await call(app, '2001-01-01', '/task')
  t.same(head.json(), { due: { at: '2024-03-05' }, audit: { at: '2024-03-05T10:11:12.000Z' } })
  const old = await call(app, '2000-01-01', '/task')
  t.equal(old.statusCode, 200, old.body)
  t.same(old.json(), { due: { at: '2024-03-05' }, audit: { when: '2024-03-05T10:11:12.000Z' } }, 'the old client gets the instant HEAD writes there')
  t.same(seen, ['2024-03-05T10:11:12.000Z'], 'the converter saw the instant HEAD writes there')
})

/** A person record class as ORMs make them: its fields behind getters. */
class Person {
  #name: string
  constructor (name: string) { this.#name = name }
  get name (): string { return this.#name }
  get id (): string { return `id-${this.#name}` }
}

/** A class teams give a `toString` and no `toJSON`: the serializer writes its text under a string. */
class Slug {
  constructor (readonly parts: string[]) {}
  toString (): string { return this.parts.join('-') }
}

const PLACES = {
  date: Type.String({ format: 'date' }),
  time: Type.String({ format: 'time' }),
  dateTime: Type.String({ format: 'date-time' }),
  string: Type.String(),
  unknown: Type.Unknown(),
  timeOrNull: Type.Union([Type.String({ format: 'time' }), Type.Null()]),
  named: Type.Object({ name: Type.String() }),
  identified: Type.Object({ id: Type.String() }),
  open: Type.Object({ name: Type.String() }, { additionalProperties: true }),
  integer: Type.Integer(),
  number: Type.Number()
} satisfies Record<string, TSchema>

test('regression: one getter class instance at two places declaring different fields gave an old client whose converter ran a 500, or fields HEAD leaves out', async (t) => {
  const Named = Type.Object({ name: Type.String() })
  const Identified = Type.Object({ id: Type.String() })
  const Body = Type.Object({ owner: Named, ref: Identified, raw: Type.Unknown(), note: Type.String() })
  class NoteChanged extends VersionChange {
    description = 'Notes were written otherwise.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Body)
    note (response: ResponseInfo): void { response.body.note = 'old' }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', NoteChanged), new Version('2000-01-01')), async (api) => {
    api.get('/people', { schema: { response: { 200: Body } } }, async () => {
      const person = new Person('ada')
      return { owner: person, ref: person, raw: person, note: 'new' } as never
    })
  })
  const head = await call(app, '2001-01-01', '/people')
  t.same(head.json(), { owner: { name: 'ada' }, ref: { id: 'id-ada' }, raw: {}, note: 'new' })
  const old = await call(app, '2000-01-01', '/people')
  t.equal(`${old.statusCode} ${old.body}`, `200 ${head.body.replace('"note":"new"', '"note":"old"')}`, 'the old client gets each place as HEAD writes it')
})

type Place = keyof typeof PLACES
const NAMES = Object.keys(PLACES) as Place[]
const PAIRS = NAMES.flatMap((first) => NAMES.filter((second) => second !== first).map((second) => [first, second] as const))
const VERSIONS = ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01']

/** How the answer `{ a, b }` holds the value at `a.v` and `b.v`: in one holder, in two holding one value, or two values alike. */
const SHARING = {
  holder: (make: () => unknown) => { const holder = { v: make() }; return [holder, holder] },
  value: (make: () => unknown) => { const value = make(); return [{ v: value }, { v: value }] },
  none: (make: () => unknown) => [{ v: make() }, { v: make() }]
}

test('property: one holder (or value) at any two places, converters renaming its field at either: each client gets what two alike answer', async (t) => {
  // Routes `/<a>/<b>` answer `{ a, b, note }`; 2002 renames b.v to w, 2001 a.v too, 2000 changes the note too.
  const holders = Object.fromEntries(PAIRS.map(([first, second]) => [`${first}/${second}`, {
    a: Type.Object({ v: PLACES[first] }, { title: `A ${first} ${second}` }),
    b: Type.Object({ v: PLACES[second] }, { title: `B ${first} ${second}` })
  }]))
  const bodies = Object.fromEntries(Object.entries(holders).map(([route, { a, b }]) => [route, Type.Object({ a, b, note: Type.String() })]))
  const renames = (place: 'a' | 'b'): VersionChangeClass => {
    class Renamed extends VersionChange {
      description = `${place}.v was w.`
      instructionsToMigrateToPreviousVersion = Object.values(holders).map((pair) => schema(pair[place]).field('v').had({ name: 'w' }))
    }
    for (const [route, pair] of Object.entries(holders)) {
      Object.defineProperty(Renamed.prototype, route, {
        value: (response: ResponseInfo) => {
          if (Object.hasOwn(response.body, 'v')) response.body.w = response.body.v
          delete response.body.v
        },
        configurable: true
      })
      ConvertResponseToPreviousVersionFor(pair[place])(Renamed.prototype, route, Object.getOwnPropertyDescriptor(Renamed.prototype, route) as never)
    }
    return Renamed
  }
  class NoteChanged extends VersionChange {
    description = 'Notes were written otherwise.'
    instructionsToMigrateToPreviousVersion = []
  }
  for (const [route, body] of Object.entries(bodies)) {
    Object.defineProperty(NoteChanged.prototype, route, { value: (response: ResponseInfo) => { response.body.note = 'old' }, configurable: true })
    ConvertResponseToPreviousVersionFor(body)(NoteChanged.prototype, route, Object.getOwnPropertyDescriptor(NoteChanged.prototype, route) as never)
  }
  const pending = new Map<string, () => unknown>()
  const app = await versionedApp(t, new VersionBundle(
    new Version(VERSIONS[0], renames('b')), new Version(VERSIONS[1], renames('a')), new Version(VERSIONS[2], NoteChanged), new Version(VERSIONS[3])
  ), async (api) => {
    for (const [route, body] of Object.entries(bodies)) {
      api.get(`/${route}`, { schema: { response: { 200: body } } }, async (request) => {
        const { id, sharing } = request.query as { id: string, sharing: keyof typeof SHARING }
        const [a, b] = SHARING[sharing](pending.get(id) as () => unknown)
        return { a, b, note: 'new' } as never
      })
    }
  })
  const leaf: fc.Arbitrary<() => unknown> = fc.oneof(
    fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((date) => () => new Date(date)),
    fc.constantFrom('ada', 'alan').map((name) => () => new Person(name)),
    fc.array(fc.constantFrom('a', 'b'), { minLength: 1, maxLength: 2 }).map((parts) => () => new Slug(parts)),
    fc.constantFrom(1.5, 3, '07:08:09', '2024-03-05', null).map((value) => () => value)
  )
  let next = 0
  await fc.assert(fc.asyncProperty(fc.constantFrom(...PAIRS), leaf, fc.constantFrom('holder' as const, 'value' as const), async ([first, second], make, sharing) => {
    const id = String(next++)
    pending.set(id, make)
    const answers = async (how: keyof typeof SHARING): Promise<string[]> => await Promise.all(VERSIONS.map(async (version) => {
      const response = await call(app, version, `/${first}/${second}?id=${id}&sharing=${how}`)
      return `${response.statusCode} ${response.body}`
    }))
    const [shared, apart] = [await answers(sharing), await answers('none')]
    pending.delete(id)
    for (const [index, version] of VERSIONS.entries()) {
      if (shared[index] === apart[index]) continue
      t.fail(`${first} and ${second}, one ${sharing}, ${version}: ${shared[index]}, where two alike get ${apart[index]}`)
      return false
    }
    return true
  }), { seed: SEED, numRuns: 300 })
})

test('regression: an answer holding itself under a recursive schema ran an old client\'s conversion out of memory (the process died); it answers HEAD\'s 500', async (t) => {
  // A date under the recursive schema (the date walk), or only objects declaring fields (the walk for class instances).
  const Dated = Type.Recursive((This) => Type.Object({ due: Type.String({ format: 'date' }), next: Type.Optional(This) }), { $id: 'DatedNode' })
  const Named = Type.Recursive((This) => Type.Object({ name: Type.String(), next: Type.Array(This) }), { $id: 'NamedNode' })
  const Body = Type.Object({ dated: Type.Optional(Dated), named: Type.Optional(Named), note: Type.String() })
  class NoteChanged extends VersionChange {
    description = 'Notes were written otherwise.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Body)
    note (response: ResponseInfo): void { response.body.note = 'old' }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', NoteChanged), new Version('2000-01-01')), async (api) => {
    api.get('/loop', { schema: { response: { 200: Body } } }, async (request) => {
      const { cycle, kind } = request.query as { cycle: string, kind: 'dated' | 'named' }
      if (kind === 'dated') {
        const first: Record<string, unknown> = { due: new Date('2024-03-05T10:11:12Z') }
        const second = { due: new Date('2024-03-06T10:11:12Z'), next: first }
        if (cycle === '1') first.next = second
        return { dated: second, note: 'new' } as never
      }
      const first: { name: string, next: unknown[] } = { name: 'a', next: [] }
      const second = { name: 'b', next: [first] }
      if (cycle === '1') first.next.push(second)
      return { named: second, note: 'new' } as never
    })
  })
  for (const kind of ['dated', 'named']) {
    for (const cycle of ['0', '1']) {
      const [head, old] = [await call(app, '2001-01-01', `/loop?kind=${kind}&cycle=${cycle}`), await call(app, '2000-01-01', `/loop?kind=${kind}&cycle=${cycle}`)]
      if (cycle === '1') t.equal(head.statusCode, 500, 'HEAD\'s serializer cannot write it')
      t.equal(`${old.statusCode} ${old.body}`, `${head.statusCode} ${head.body.replace('"note":"new"', '"note":"old"')}`, `${kind}, cycle ${cycle}`)
    }
  }
})
