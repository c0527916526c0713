// `verify` treats the items of a list alike (issue 31): where a converter carries one item's value to the other side
// and no field-by-field counterpart exists (the list becomes an internal HEAD field, or a list shaped differently),
// every item's value must get there. A converter that keeps the first item and drops the rest is found; one whose
// version can show a single item, or that leaves out the items the version cannot show, is not.
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, enumeration, HeadVersion, schema, Version, VersionBundle,
  VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import fc from 'fast-check'
import { verify } from '../../tools'
import { inSentOrder } from '../../lib/tools/round-trip-lists'
import { changedValue } from '../../lib/tools/value-comparison'
import type { FollowedValue, PathKey } from '../../lib/tools/data-flow'
import { versionedApp } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

test('a request converter that carries the first recipient of a list to HEAD and drops the others is found', async (t) => {
  // HEAD sends a message to one recipient; the internal extraRecipients keeps the others an older client may send.
  const MessageCreate = Type.Object({
    recipient: Type.String({ format: 'email' }),
    subject: Type.String(),
    extraRecipients: Type.Optional(Type.Array(Type.String({ format: 'email' })))
  }, { $id: 'MessageCreate' })
  class HideInternalFields extends VersionChange {
    description = 'extraRecipients is internal.'
    instructionsToMigrateToPreviousVersion = [schema(MessageCreate).field('extraRecipients').didntExist]
  }
  class OneRecipientPerMessage extends VersionChange {
    description = 'A message has one recipient (it had a list, to).'
    instructionsToMigrateToPreviousVersion = [
      schema(MessageCreate).field('recipient').didntExist,
      schema(MessageCreate).formerField('to').existedAs({ type: Type.Array(Type.String({ format: 'email' }), { minItems: 1 }) })
    ]

    @ConvertRequestToNextVersionFor(MessageCreate)
    firstRecipient (request: RequestInfo) {
      const { to, ...rest } = request.body as { to: string[], subject: string }
      request.body = { ...rest, recipient: to[0] } // the other recipients are forgotten
    }
  }
  const versions = new VersionBundle(new HeadVersion(HideInternalFields), new Version('2001-01-01', OneRecipientPerMessage), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/messages', { schema: { body: MessageCreate, response: { 202: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'm1' }))
  })
  await app.ready()
  const findings = await verify(app, { examples: 1 })
  t.same(summary(findings), ['POST /messages 2000-01-01 request lost body/to/* after OneRecipientPerMessage (2001-01-01) by OneRecipientPerMessage.firstRecipient'])
  t.match(findings[0].message, /^the value at \/to\/\* in 2000-01-01 does not reach HEAD: 'zq\w+@example\.com' \(item 1\) is found nowhere, where 'zq\w+@example\.com' \(item 0\) arrives$/)
  t.match(findings[0].fix, /OneRecipientPerMessage\.firstRecipient/)
})

test('a converter that rebuilds the body in a later version, dropping the internal list an earlier one wrote, is named for the loss', async (t) => {
  // 2001-01-01 carries every recipient (the first as recipient, the others in the internal extraRecipients, which no
  // version declares); 2002-01-01 makes recipient an object and rebuilds the body, which drops extraRecipients.
  const appOf = async (rebuild: (body: { subject: string, recipient: string, extraRecipients?: string[] }) => Record<string, unknown>) => {
    const MessageCreate = Type.Object({
      recipient: Type.Object({ address: Type.String({ format: 'email' }), name: Type.Optional(Type.String()) }),
      subject: Type.String(),
      extraRecipients: Type.Optional(Type.Array(Type.String({ format: 'email' })))
    }, { $id: 'MessageCreate' })
    class HideInternalFields extends VersionChange {
      description = 'extraRecipients is internal.'
      instructionsToMigrateToPreviousVersion = [schema(MessageCreate).field('extraRecipients').didntExist]
    }
    class NamedRecipients extends VersionChange {
      description = 'A recipient is an object: its address and an optional name.'
      instructionsToMigrateToPreviousVersion = [schema(MessageCreate).field('recipient').had({ type: Type.String({ format: 'email' }) })]

      @ConvertRequestToNextVersionFor(MessageCreate)
      recipientToObject (request: RequestInfo) {
        request.body = rebuild(request.body as { subject: string, recipient: string, extraRecipients?: string[] })
      }
    }
    class OneRecipientPerMessage extends VersionChange {
      description = 'A message has one recipient (it had a list, to).'
      instructionsToMigrateToPreviousVersion = [
        schema(MessageCreate).field('recipient').didntExist,
        schema(MessageCreate).formerField('to').existedAs({ type: Type.Array(Type.String({ format: 'email' }), { minItems: 1 }) })
      ]

      @ConvertRequestToNextVersionFor(MessageCreate)
      everyRecipient (request: RequestInfo) {
        const { to, ...rest } = request.body as { to: string[], subject: string }
        request.body = { ...rest, recipient: to[0], ...(to.length > 1 ? { extraRecipients: to.slice(1) } : {}) }
      }
    }
    const versions = new VersionBundle(new HeadVersion(HideInternalFields), new Version('2002-01-01', NamedRecipients), new Version('2001-01-01', OneRecipientPerMessage), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.post('/messages', { schema: { body: MessageCreate, response: { 202: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'm1' }))
    })
    await app.ready()
    return app
  }
  const kept = await appOf(({ recipient, ...rest }) => ({ ...rest, recipient: { address: recipient } }))
  t.same((await verify(kept, { examples: 20 })).map((finding) => finding.text), [])
  const findings = await verify(await appOf(({ subject, recipient }) => ({ subject, recipient: { address: recipient } })), { examples: 1 })
  t.same(summary(findings), ['POST /messages 2000-01-01 request lost body/to/* after NamedRecipients (2002-01-01) by NamedRecipients.recipientToObject'])
  t.match(findings[0].fix, /^Make NamedRecipients\.recipientToObject carry every item/)
})

test('a response converter that shows the first track of a playlist in a list shaped differently is found', async (t) => {
  const Playlist = Type.Object({ id: Type.String(), trackIds: Type.Array(Type.String()) }, { $id: 'Playlist' })
  class TracksBecameIds extends VersionChange {
    description = 'A playlist lists its track ids (it listed tracks, objects holding an id).'
    instructionsToMigrateToPreviousVersion = [
      schema(Playlist).field('trackIds').didntExist,
      schema(Playlist).formerField('tracks').existedAs({ type: Type.Array(Type.Object({ id: Type.String() })) })
    ]

    @ConvertResponseToPreviousVersionFor(Playlist)
    idsToTracks (response: ResponseInfo) {
      const [first] = response.body.trackIds as string[]
      response.body = { id: response.body.id, tracks: first === undefined ? [] : [{ id: first }] }
    }
  }
  const app = await appWith(t, TracksBecameIds, (api) => {
    api.get('/playlists/:id', { schema: { response: { 200: Playlist } } }, async () => ({ id: 'p1', trackIds: [] }))
  })
  const findings = await verify(app, { examples: 1 })
  t.same(summary(findings), ['GET /playlists/:id 2000-01-01 response lost response 200/trackIds/* after TracksBecameIds (2001-01-01) by TracksBecameIds.idsToTracks'])
  t.match(findings[0].message, /^the value at \/trackIds\/\* in HEAD does not reach 2000-01-01: 'zq\w+ Łódź 🙂zq\w+' \(item 1\) is found nowhere, where 'zq\w+ Łódź 🙂zq\w+' \(item 0\) arrives$/)
})

test('no finding where the version shows one item, or leaves out the items it cannot show, or carries every item', async (t) => {
  const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')], { $id: 'Status' })
  const Account = Type.Object({
    id: Type.String(),
    emails: Type.Array(Type.String({ format: 'email' }), { minItems: 1 }),
    tags: Type.Array(Type.String()),
    projects: Type.Array(Type.Object({ name: Type.String(), status: Status })),
    members: Type.Array(Type.String())
  }, { $id: 'Account' })
  class SeveralEmails extends VersionChange {
    description = 'An account has several emails (it had one); projects can be archived; members are listed by name.'
    instructionsToMigrateToPreviousVersion = [
      schema(Account).field('emails').didntExist,
      schema(Account).formerField('email').existedAs({ type: Type.String({ format: 'email' }) }),
      enumeration(Status).didntHave('archived'),
      schema(Account).field('members').didntExist,
      schema(Account).formerField('team').existedAs({ type: Type.Array(Type.Object({ name: Type.String() })) })
    ]

    @ConvertResponseToPreviousVersionFor(Account)
    oneEmail (response: ResponseInfo) {
      const { emails, projects, members, ...rest } = response.body as { emails: string[], projects: Array<{ status: string }>, members: string[] }
      // The version shows one email (it has no list for them), the projects it can show, every member.
      response.body = { ...rest, email: emails[0], projects: projects.filter((project) => project.status !== 'archived'), team: members.map((name) => ({ name })) }
    }
  }
  const app = await appWith(t, SeveralEmails, (api) => {
    api.get('/accounts/:id', { schema: { response: { 200: Account } } }, async () => { throw new Error('not served in verify') })
  })
  t.same((await verify(app, { examples: 20 })).map((finding) => finding.text), [])
})

test('a map (a record) and a list of entries are alike items: a converter keeping one entry of several is found both ways; every entry kept is no finding', async (t) => {
  const Entry = Type.Object({ key: Type.String(), value: Type.String() })
  type Entries = Array<{ key: string, value: string }>
  const appOf = async (keep: (entries: Entries) => Entries) => {
    const Product = Type.Object({ name: Type.String(), metadata: Type.Record(Type.String(), Type.String()) }, { $id: 'Product' })
    class MetadataIsAMap extends VersionChange {
      description = 'metadata is a map (it was a list of key and value).'
      instructionsToMigrateToPreviousVersion = [schema(Product).field('metadata').had({ type: Type.Array(Entry) })]

      @ConvertRequestToNextVersionFor(Product)
      toMap (request: RequestInfo) {
        request.body.metadata = Object.fromEntries(keep(request.body.metadata as Entries).map((entry) => [entry.key, entry.value]))
      }

      @ConvertResponseToPreviousVersionFor(Product)
      toList (response: ResponseInfo) {
        response.body.metadata = keep(Object.entries(response.body.metadata as Record<string, string>).map(([key, value]) => ({ key, value })))
      }
    }
    return await appWith(t, MetadataIsAMap, (api) => {
      api.post('/products', { schema: { body: Product, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
      api.get('/products/:id', { schema: { response: { 200: Product } } }, async () => { throw new Error('not served in verify') })
    })
  }
  t.same((await verify(await appOf((entries) => entries), { examples: 20 })).map((finding) => finding.text), [])
  const findings = await verify(await appOf((entries) => entries.slice(0, 1)), { examples: 20 })
  t.same(summary(findings), [
    'POST /products 2000-01-01 request lost body/metadata/*/value after MetadataIsAMap (2001-01-01) by MetadataIsAMap.toMap',
    'GET /products/:id 2000-01-01 response lost response 200/metadata/* after MetadataIsAMap (2001-01-01) by MetadataIsAMap.toList'
  ])
  t.match(findings[1].message, /^the value at \/metadata\/\* in HEAD does not reach 2000-01-01: 'zq\w+[^']*' \(entry extraTwo\) is found nowhere, where 'zq\w+[^']*' \(entry extraOne\) arrives$/)
})

/**
 * A version change renaming the list `name` (it was `from`, of `type`), whose request converter keeps what `keep`
 * keeps (of a record, its truthy entries, with `truthy`); with `page`, the converter of that direction keeps the
 * first 10 items instead.
 */
function renamedList<T> (target: TSchema, name: string, from: string, keep: (items: T[]) => T[], type?: TSchema, truthy = false, page?: 'up' | 'down'): VersionChangeClass {
  class ListRenamed extends VersionChange {
    description = `${name} was ${from}.`
    instructionsToMigrateToPreviousVersion = [schema(target).field(name).had(type === undefined ? { name: from } : { name: from, type })]

    @ConvertRequestToNextVersionFor(target)
    up (request: RequestInfo) {
      const { [from]: items, ...rest } = request.body as Record<string, T[]>
      request.body = { ...rest, [name]: truthy ? Object.fromEntries(Object.entries(items).filter(([, value]) => value)) : page === 'up' ? items.slice(0, 10) : keep(items) }
    }

    @ConvertResponseToPreviousVersionFor(target)
    down (response: ResponseInfo) {
      const { [name]: items, ...rest } = response.body as Record<string, T[]>
      response.body = { ...rest, [from]: page === 'down' ? items.slice(0, 10) : items }
    }
  }
  return ListRenamed
}

test('a request converter dropping falsy or empty items (0, \'\', {}, a row\'s zeros) is found: one way at a renamed list of scalars, else by the round trip (the old client\'s list comes back shorter)', async (t) => {
  // Before: the boundary examples held no falsy item in a list (the empty boundary's lists are empty), and the round
  // trip compared only the places HEAD's echo held: an item that never reached HEAD had none, and verify passed.
  const Post = Type.Object({ id: Type.String(), labels: Type.Array(Type.String()) }, { $id: 'Post' })
  const posts = await appWith(t, renamedList<string>(Post, 'labels', 'tags', (items) => items.filter((s) => s !== '')), (api) => {
    api.post('/posts', { schema: { body: Post, response: { 200: Post } } }, async (request) => request.body)
  })
  const served = await posts.inject({ method: 'POST', url: '/posts', headers: { 'x-api-version': '2000-01-01' }, payload: { id: 'p1', tags: ['', 'news'] } })
  t.same(served.json().tags, ['news'], 'the old client\'s empty tag is lost')
  const findings = await verify(posts, { examples: 1 })
  // A renamed list of scalars arrives with every item, one way (decision 0270): found before the round trip.
  t.same(summary(findings), ['POST /posts 2000-01-01 request lost body/tags after ListRenamed (2001-01-01) by ListRenamed.up'])
  t.match(findings[0].message, /^the value at \/tags in 2000-01-01 does not reach HEAD: \['', '(zq\w+ Łódź 🙂zq\w+)', '\1'\] arrives as \['\1', '\1'\], without '' \(2 of its 3 items\)$/)
  t.match(findings[0].fix, /not lose part of it \(a list's items/)

  const Order = Type.Object({
    id: Type.String(),
    quantities: Type.Array(Type.Integer({ minimum: 0 })),
    lines: Type.Array(Type.Object({ note: Type.Optional(Type.String()) })),
    grid: Type.Array(Type.Array(Type.Number()))
  }, { $id: 'Order' })
  const cases: Array<[string, VersionChangeClass, string]> = [
    ['quantities', renamedList<number>(Order, 'quantities', 'amounts', (items) => items.filter(Boolean)), 'lost /amounts'],
    ['lines', renamedList<object>(Order, 'lines', 'items', (items) => items.filter((item) => Object.keys(item).length > 0)), 'round trip /items'],
    ['grid', renamedList<number[]>(Order, 'grid', 'rows', (rows) => rows.map((row) => row.filter(Boolean))), 'round trip /rows/*']
  ]
  for (const [name, change, pointer] of cases) {
    const app = await appWith(t, change, (api) => {
      api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
    })
    t.same((await verify(app, { examples: 1 })).map((finding) => `${finding.kind} ${finding.pointer}`), [pointer], name)
  }
})

test('no finding for duplicates merged where HEAD\'s list declares uniqueItems; found where it takes duplicates', async (t) => {
  const Color = Type.Union([Type.Literal('red'), Type.Literal('blue')])
  const Palette = Type.Object({ id: Type.String(), colors: Type.Array(Color) }, { $id: 'Palette' })
  const Unique = Type.Object({ id: Type.String(), colors: Type.Array(Color, { uniqueItems: true }) }, { $id: 'Palette' })
  // The version's shades took duplicates; HEAD's colors, in Unique, take none.
  const appOf = async (target: TSchema, keep: (items: string[]) => string[]) => await appWith(t, renamedList<string>(target, 'colors', 'shades', keep, target === Unique ? Type.Array(Color) : undefined), (api) => {
    api.post('/palettes', { schema: { body: target, response: { 200: target } } }, async (request) => request.body)
  })
  t.same(summary(await verify(await appOf(Palette, (items) => items), { examples: 20 })), [], 'kept')
  t.same(summary(await verify(await appOf(Unique, (items) => [...new Set(items)]), { examples: 20 })), [], 'deduplicated, HEAD taking no duplicates')
  const findings = await verify(await appOf(Palette, (items) => [...new Set(items)]), { examples: 20 })
  t.same(summary(findings), ['POST /palettes 2000-01-01 response round trip response 200/shades after ListRenamed (2001-01-01) by ListRenamed.up,ListRenamed.down'], 'deduplicated, HEAD taking duplicates: found')
  t.match(findings[0].message, /^the list sent at \/shades does not come back whole in the 200 response: \[.* comes back as \[.*, without '(red|blue)'(, '(red|blue)')*( and \d+ more)? \(\d+ of its \d+ items\)$/)
})

test('regression: a converter dropping a record\'s empty entries (\'\') is found: the items boundary gives a record a bare entry', async (t) => {
  // Before: every boundary gave a record one entry, never a bare one beside another (its empty boundary has none):
  // a converter keeping the truthy entries only (Object.fromEntries(Object.entries(m).filter(([, v]) => v))) verified
  // cleanly where they are strings (a 0 or false entry is the negative boundary's).
  const Labels = Type.Object({ id: Type.String(), labels: Type.Record(Type.String(), Type.String()) }, { $id: 'Labels' })
  const appOf = async (truthy: boolean) => await appWith(t, renamedList<string>(Labels, 'labels', 'tags', (entries) => entries, undefined, truthy), (api) => {
    api.post('/labels', { schema: { body: Labels, response: { 200: Labels } } }, async (request) => request.body)
  })
  const findings = await verify(await appOf(true), { examples: 1 })
  t.same(summary(findings), ['POST /labels 2000-01-01 request lost body/tags/extraOne after ListRenamed (2001-01-01) by ListRenamed.up'])
  t.match(findings[0].message, /^the value at \/tags\/extraOne in 2000-01-01 does not reach HEAD: '' is dropped/)
  t.same(summary(await verify(await appOf(false), { examples: 20 })), [], 'every entry kept')
})

test('regression: a list of free strings or numbers deduplicated (new Set) where HEAD\'s list takes duplicates is found with one example: the items boundary repeats its last item', async (t) => {
  // Before: no generated list repeated a string (each holds its own sentinel) nor a boundary number, so
  // [...new Set(tags)] verified cleanly.
  const Post = Type.Object({ id: Type.String(), labels: Type.Array(Type.String()), scores: Type.Array(Type.Number()) }, { $id: 'Post' })
  const UniquePost = Type.Object({ id: Type.String(), labels: Type.Array(Type.String(), { uniqueItems: true }), scores: Type.Array(Type.Number()) }, { $id: 'Post' })
  const appOf = async (target: TSchema, list: string, keep: (items: unknown[]) => unknown[], type?: TSchema) => await appWith(t, renamedList<unknown>(target, list, 'old', keep, type), (api) => {
    api.post('/posts', { schema: { body: target, response: { 200: target } } }, async (request) => request.body)
  })
  const unique = (items: unknown[]): unknown[] => [...new Set(items)]
  for (const list of ['labels', 'scores']) {
    const findings = await verify(await appOf(Post, list, unique), { examples: 1 })
    // Renamed, its type unchanged: found one way (decision 0270), before the round trip.
    t.same(summary(findings), ['POST /posts 2000-01-01 request lost body/old after ListRenamed (2001-01-01) by ListRenamed.up'], list)
    t.match(findings[0]?.message, /^the value at \/old in 2000-01-01 does not reach HEAD: \[.*\] arrives as \[.*\], without .+ \(\d of its \d items\)$/, list)
    t.same(summary(await verify(await appOf(Post, list, (items) => items), { examples: 20 })), [], `${list} kept`)
  }
  t.same(summary(await verify(await appOf(UniquePost, 'labels', unique, Type.Array(Type.String())), { examples: 20 })), [], 'deduplicated, HEAD taking no duplicates')
})

test('regression: a converter sorting an old client\'s list on purpose is no finding: a round trip counts its items, in any order', async (t) => {
  // Before: the round trip compared a list's items by place, so an old version whose documented behaviour is to
  // sort (the lowest first) was reported as losing values, though every item came back.
  const Order = Type.Object({
    id: Type.String(),
    quantities: Type.Array(Type.Integer()),
    lines: Type.Array(Type.Object({ rank: Type.Integer(), note: Type.String() }))
  }, { $id: 'Order' })
  const byNumber = (a: number, b: number): number => a - b
  const cases: Array<[string, string, (items: unknown[]) => unknown[]]> = [
    ['quantities', 'amounts', (items) => [...items as number[]].sort(byNumber)],
    ['lines', 'items', (items) => [...items as Array<{ rank: number }>].sort((a, b) => byNumber(b.rank, a.rank))]
  ]
  for (const [name, from, sort] of cases) {
    const app = await appWith(t, renamedList<unknown>(Order, name, from, sort), (api) => {
      api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
    })
    t.same(summary(await verify(app, { examples: 20 })), [], `${name} sorted`)
    const cut = await appWith(t, renamedList<unknown>(Order, name, from, (items) => sort(items).slice(0, 1)), (api) => {
      api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
    })
    // A renamed list of numbers cut is found one way (decision 0270), before the round trip; a list of objects by the round trip.
    t.ok((await verify(cut, { examples: 20 })).some((finding) => finding.kind === (name === 'quantities' ? 'lost' : 'round trip') && finding.pointer === `/${from}`), `${name} sorted and cut`)
  }
})

test('regression: a one-way list of strings cut to a page (slice(0, 10)) is found both ways: the large boundary lists 101 items', async (t) => {
  // Before: no generated list held more than 10 items, so a request-only or response-only list cut to its first 10
  // verified cleanly. A version that shows 10 at most says so with maxItems, and is no finding.
  const Message = Type.Object({ id: Type.String(), recipients: Type.Array(Type.String({ format: 'email' })) }, { $id: 'Message' })
  const appOf = async (cut: 'up' | 'down', type?: TSchema) => await appWith(t, renamedList<string>(Message, 'recipients', 'to', (items) => items, type, false, cut), (api) => {
    api.post('/messages', { schema: { body: Message, response: { 202: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'm1' }))
    api.get('/messages/:id', { schema: { response: { 200: Message } } }, async () => ({ id: 'm1', recipients: [] }))
  })
  t.same(summary(await verify(await appOf('up'), { examples: 1 })), ['POST /messages 2000-01-01 request lost body/to/* after ListRenamed (2001-01-01) by ListRenamed.up'])
  t.same(summary(await verify(await appOf('down'), { examples: 1 })), ['GET /messages/:id 2000-01-01 response lost response 200/recipients/* after ListRenamed (2001-01-01) by ListRenamed.down'])
  t.same(summary(await verify(await appOf('down', Type.Array(Type.String({ format: 'email' }), { maxItems: 10 })), { examples: 20 })), [], 'the version shows 10 at most, and says so')
})

test('regression: a list of objects cut to a page of 10 (slice(0, 10)) is found by the round trip: the large boundary lists 11 objects', async (t) => {
  // Before: lists of objects were generated 1 or 2 items long, so a converter keeping the first 10 rows never cut one.
  const Line = Type.Object({ sku: Type.String({ pattern: '^[A-Z]{3}$' }), quantity: Type.Integer() })
  const Order = Type.Object({ id: Type.String(), lines: Type.Array(Line) }, { $id: 'Order' })
  const appOf = async (type?: TSchema) => await appWith(t, renamedList<unknown>(Order, 'lines', 'items', (items) => items, type, false, 'down'), (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
  })
  t.same(summary(await verify(await appOf(), { examples: 1 })), ['POST /orders 2000-01-01 response round trip response 200/items after ListRenamed (2001-01-01) by ListRenamed.up,ListRenamed.down'])
  t.same(summary(await verify(await appOf(Type.Array(Line, { maxItems: 10 })), { examples: 20 })), [], 'the version shows 10 at most, and says so')
})

test('regression: a response converter reversing a list of union members (a page shown oldest first) is no finding; one dropping a member\'s field is', async (t) => {
  // Before: one way, a list that kept its length was compared item by item by place, so a reversed page put a card
  // where HEAD had a bank account, and the bank account's `bankName` was reported dropped: a false red on a correct
  // converter. Items are now matched wherever they arrive in the list, as a round trip matches them.
  const Card = Type.Object({ type: Type.Literal('card'), brand: Type.String(), last4: Type.String() })
  const Bank = Type.Object({ type: Type.Literal('bank_account'), bankName: Type.String(), last4: Type.String() })
  const Payment = Type.Object({ id: Type.String(), method: Type.Union([Card, Bank]) })
  const PaymentList = Type.Object({ data: Type.Array(Payment) }, { $id: 'PaymentList' })
  const changeOf = (convert: (data: Array<{ method: Record<string, unknown> }>) => void): VersionChangeClass => {
    class PageNewestFirst extends VersionChange {
      description = 'A page lists its payments newest first (it listed them oldest first).'
      instructionsToMigrateToPreviousVersion = []

      @ConvertResponseToPreviousVersionFor(PaymentList)
      oldestFirst (response: ResponseInfo) {
        convert((response.body as { data: Array<{ method: Record<string, unknown> }> }).data)
      }
    }
    return PageNewestFirst
  }
  const routes = (api: Parameters<Parameters<typeof appWith>[2]>[0]): void => {
    api.get('/payments', { schema: { response: { 200: PaymentList } } }, async () => ({ data: [] }))
  }
  const reversed = await appWith(t, changeOf((data) => { data.reverse() }), routes)
  t.same(summary(await verify(reversed, { examples: 20 })), [], 'reversed')
  const lossy = await appWith(t, changeOf((data) => {
    data.reverse()
    for (const item of data) if (item.method.type === 'bank_account') item.method.bankName = ''
  }), routes)
  t.ok((await verify(lossy, { examples: 20 })).length > 0, 'reversed, and every bank name lost')
})

test('regression: a converter reversing an old client\'s list whose items hold optional fields is no finding (an item holding fewer values took one holding more)', async (t) => {
  // Before: each item sent took the first item returned holding its values, so a line without its optional fields took
  // the line after it that holds them too, and that line's sent item was reported as losing its sku.
  const Order = Type.Object({ id: Type.String(), lines: Type.Array(Type.Object({ sku: Type.Optional(Type.String()), note: Type.Optional(Type.String()) })) }, { $id: 'Order' })
  const reversed = await appWith(t, renamedList<unknown>(Order, 'lines', 'items', (items) => [...items].reverse()), (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
  })
  t.same(summary(await verify(reversed, { examples: 30 })), [], 'every line comes back, in the order HEAD keeps them')
  const dropped = await appWith(t, renamedList<{ sku?: string }>(Order, 'lines', 'items', (items) => [...items].reverse().map(({ sku, ...rest }) => rest)), (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
  })
  t.match(summary(await verify(dropped, { examples: 30 })).join('\n'), /items\/\*\/sku/, 'a sku the converter drops is still found')
})

test('the round trip puts a list\'s items back in the order sent, whatever order they come back in, when some hold fewer values than others', async (t) => {
  /** Every place of a value, followed to the same place. */
  const placesOf = (value: unknown, path: PathKey[] = [], into: FollowedValue[] = []): FollowedValue[] => {
    if (path.length > 0) into.push({ from: path, to: path, sameType: true })
    if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) placesOf(item, [...path, Array.isArray(value) ? Number(key) : key], into)
    return into
  }
  // Few values on purpose: items alike, items holding another's values and more, items holding none.
  const leaf = fc.constantFrom('x', 'y', 1)
  const item = fc.record({ a: leaf, b: leaf, c: fc.record({ d: leaf }, { requiredKeys: [] }) }, { requiredKeys: [] })
  const cases = fc.array(item, { minLength: 2, maxLength: 6 }).chain((items) => fc.tuple(fc.constant(items), fc.shuffledSubarray(items.map((_, index) => index), { minLength: items.length })))
  fc.assert(fc.property(cases, ([items, order]) => {
    const sent = { lines: items }
    const compared = placesOf(sent)
    const returned = { lines: order.map((index) => items[index]) }
    return changedValue(compared, sent, inSentOrder(compared, sent, returned)) === undefined
  }), { numRuns: 500 })
  t.pass('no list reordered is reported as changed')
})
