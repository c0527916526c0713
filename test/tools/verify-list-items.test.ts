// `verify` treats the items of a list alike (issue 31): where a converter carries one item's value to the other side
// and no field-by-field counterpart exists (the list becomes an internal HEAD field, or a list shaped differently),
// every item's value must get there. A converter that keeps the first item and drops the rest is found; one whose
// version can show a single item, or that leaves out the items the version cannot show, is not.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, enumeration, HeadVersion, schema, Version, VersionBundle,
  VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
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
