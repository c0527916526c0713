import { test } from 'tap'
import Fastify from 'fastify'
import fastifyFormbody from '@fastify/formbody'
import fastifyMultipart from '@fastify/multipart'
import fc from 'fast-check'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, HeadVersion, Version, VersionBundle, VersionChange, fastifyVersioner, isFormFile, schema, versioned, type FormFields, type FormFile, type RequestInfo, type FormValue } from '../../plugin'
import { verify } from '../../tools'
import { captureLogs, multipart, v } from '../helpers/request-pipeline'

const URLENCODED = { 'content-type': 'application/x-www-form-urlencoded' }

test('url-encoded bodies (@fastify/formbody) are converted through request.form; JSON bodies have no form', async (t) => {
  const Signup = Type.Object({ name: Type.String({ minLength: 1 }), tags: Type.Optional(Type.Array(Type.String())) })
  const seen: Array<{ form: FormFields | undefined, body: unknown }> = []
  class RenameFullName extends VersionChange {
    description = 'The sign-up form field full_name is called name.'
    instructionsToMigrateToPreviousVersion = [schema(Signup).field('name').had({ name: 'full_name', minLength: 0 })]

    @ConvertRequestToNextVersionFor(Signup)
    rename (request: RequestInfo) {
      seen.push({ form: request.form === undefined ? undefined : { ...request.form }, body: { ...request.body } })
      if (request.form === undefined) {
        request.body.name = request.body.full_name
        delete request.body.full_name
        return
      }
      request.form.name = String(request.form.full_name).trim()
      delete request.form.full_name
    }
  }
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameFullName), new Version('2000-01-01'))
  })
  const preHandlerBodies: unknown[] = []
  app.addHook('preHandler', async (request) => { preHandlerBodies.push(request.body) })
  await app.register(versioned(async (api) => {
    api.post('/signups', { schema: { body: Signup } }, async (request) => request.body)
  }))

  let response = await app.inject({ method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=+Ada+Lovelace+&tags=math&tags=poetry' })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { name: 'Ada Lovelace', tags: ['math', 'poetry'] }, 'the handler sees the HEAD form')
  t.same(preHandlerBodies, [{ name: 'Ada Lovelace', tags: ['math', 'poetry'] }], 'so does a preHandler hook')
  t.same(seen, [{
    form: { full_name: ' Ada Lovelace ', tags: ['math', 'poetry'] },
    body: { full_name: ' Ada Lovelace ', tags: ['math', 'poetry'] }
  }], 'the converter sees the fields as strings (repeated fields as lists), in form and body')

  seen.length = 0
  response = await app.inject({ method: 'POST', url: '/signups', headers: v('2000-01-01'), payload: { full_name: 'Grace' } })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { name: 'Grace' })
  t.same(seen, [{ form: undefined, body: { full_name: 'Grace' } }], 'a JSON body has no form')

  response = await app.inject({ method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'name=Ada' })
  t.equal(response.statusCode, 400, 'the form is validated against its version first')
  t.equal(response.json().message, "body must have required property 'full_name'")

  response = await app.inject({ method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=+++' })
  t.equal(response.statusCode, 500, 'a converted form invalid for HEAD is a migration error')
  t.equal(response.json().code, 'FST_VERSIONER_LATEST_REQUEST_VALIDATION')
  t.match(entries.find((entry) => entry.apiVersion === '2000-01-01'), { route: 'POST /signups', part: 'body', validation: [{ instancePath: '/name' }] })

  seen.length = 0
  response = await app.inject({ method: 'POST', url: '/signups', headers: v('2001-01-01', URLENCODED), payload: 'name=Bob' })
  t.same(response.json(), { name: 'Bob' }, 'the latest version is not converted')
  t.same(seen, [])
})

test('a converter may replace request.form or request.body of a url-encoded request as a whole; the next converter sees the replacement', async (t) => {
  const Search = Type.Object({ query: Type.String(), page: Type.Integer() })
  const seenBySecond: unknown[] = []
  class ReplaceSearchForm extends VersionChange {
    description = 'The search form has query and page instead of q and p.'
    instructionsToMigrateToPreviousVersion = [
      schema(Search).field('query').had({ name: 'q' }),
      schema(Search).field('page').had({ name: 'p' })
    ]

    @ConvertRequestToNextVersionFor(Search)
    replaceForm (request: RequestInfo) {
      const form = request.form as FormFields
      request.form = { query: String(form.q), page: String(Number(form.p) + 1) }
    }
  }
  class UpperCaseQueries extends VersionChange {
    description = 'Searches are upper case.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/search', ['POST'])
    replaceBody (request: RequestInfo) {
      seenBySecond.push({ ...request.body })
      request.body = { query: String(request.body.query).toUpperCase(), page: request.body.page }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2002-01-01', UpperCaseQueries), new Version('2001-01-01', ReplaceSearchForm),
      new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/search', { schema: { body: Search } }, async (request) => request.body)
    api.post('/lookup', { schema: { body: Search } }, async (request) => request.body)
  }))
  const post = (url: string, version: string, payload: string) => app.inject({ method: 'POST', url, headers: v(version, URLENCODED), payload })

  let response = await post('/lookup', '2000-01-01', 'q=shoes&p=0')
  t.equal(response.statusCode, 200)
  t.same(response.json(), { query: 'shoes', page: 1 }, 'a replaced form reaches the handler (page coerced by HEAD validation)')
  response = await post('/search', '2001-01-01', 'query=hats&page=3')
  t.equal(response.statusCode, 200)
  t.same(response.json(), { query: 'HATS', page: 3 }, 'a replaced body of a form request reaches the handler')

  seenBySecond.length = 0
  response = await post('/search', '2000-01-01', 'q=shoes&p=0')
  t.equal(response.statusCode, 200)
  t.same(seenBySecond, [{ query: 'shoes', page: '1' }])
  t.same(response.json(), { query: 'SHOES', page: 1 })
})

test('multipart bodies (@fastify/multipart, attachFieldsToBody: true): converters change fields and files through request.form', async (t) => {
  const Part = Type.Object({ value: Type.String() })
  const FilePart = Type.Object({ filename: Type.String() })
  const Upload = Type.Object({ title: Part, avatar: FilePart, docs: Type.Optional(Type.Array(FilePart)) })
  const seen: FormFields[] = []
  class RenameCaptionAndAvatar extends VersionChange {
    description = 'The caption field is called title; avatars are stored upper case under a prefixed file name.'
    instructionsToMigrateToPreviousVersion = [schema(Upload).field('title').had({ name: 'caption' })]

    @ConvertRequestToNextVersionFor(Upload)
    convert (request: RequestInfo) {
      const form = request.form as FormFields
      seen.push({ ...form })
      form.title = form.caption
      delete form.caption
      const avatar = form.avatar as FormFile
      form.avatar = { ...avatar, filename: `v1-${avatar.filename}`, data: Buffer.from(avatar.data.toString('utf8').toUpperCase()) }
      form.source = 'converter'
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyMultipart, { attachFieldsToBody: true })
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameCaptionAndAvatar), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/uploads', { schema: { body: Upload } }, async (request) => {
      const body = request.body as Record<string, any>
      const describe = async (part: any): Promise<string> => part.type === 'file'
        ? `file ${part.fieldname as string} ${part.filename as string} ${part.mimetype as string} ${(await part.toBuffer()).toString() as string}`
        : `field ${part.fieldname as string} ${part.value as string}`
      const out: Record<string, string[]> = {}
      for (const [name, value] of Object.entries(body)) out[name] = await Promise.all((Array.isArray(value) ? value : [value]).map(describe))
      return out
    })
  }))

  const form = multipart([
    { name: 'caption', value: 'Holiday' },
    { name: 'avatar', filename: 'me.txt', contentType: 'text/plain', data: 'smile' },
    { name: 'docs', filename: 'a.txt', contentType: 'text/plain', data: 'one' },
    { name: 'docs', filename: 'b.txt', contentType: 'text/plain', data: 'two' }
  ])
  let response = await app.inject({ method: 'POST', url: '/uploads', headers: v('2000-01-01', form.headers), payload: form.payload })
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    title: ['field title Holiday'],
    avatar: ['file avatar v1-me.txt text/plain SMILE'],
    docs: ['file docs a.txt text/plain one', 'file docs b.txt text/plain two'],
    source: ['field source converter']
  }, 'the handler sees multipart parts built from the converted form')
  t.equal(seen.length, 1)
  t.equal(seen[0].caption, 'Holiday', 'text fields are strings')
  t.match(seen[0].avatar, { filename: 'me.txt', mimetype: 'text/plain', encoding: '7bit' }, 'files carry their name and type')
  t.equal((seen[0].avatar as FormFile).data.toString(), 'smile', 'and their content')
  t.same((seen[0].docs as FormFile[]).map((file) => [file.filename, file.data.toString()]), [['a.txt', 'one'], ['b.txt', 'two']],
    'repeated files are a list')

  const wrong = multipart([{ name: 'title', value: 'Holiday' }, { name: 'avatar', filename: 'me.txt', contentType: 'text/plain', data: 'x' }])
  response = await app.inject({ method: 'POST', url: '/uploads', headers: v('2000-01-01', wrong.headers), payload: wrong.payload })
  t.equal(response.statusCode, 400, 'the multipart body is validated against its version first')
  t.equal(response.json().message, "body must have required property 'caption'")

  response = await app.inject({ method: 'POST', url: '/uploads', headers: v('2001-01-01', wrong.headers), payload: wrong.payload })
  t.equal(response.statusCode, 200, 'the latest version takes title')
  t.same(response.json(), { title: ['field title Holiday'], avatar: ['file avatar me.txt text/plain x'] })
})

test('multipart bodies with attachFieldsToBody: \'keyValues\' are converted through request.form too', async (t) => {
  const seen: FormFields[] = []
  class RenameNote extends VersionChange {
    description = 'The note field is called comment; attachments are reversed.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/notes', ['POST'])
    convert (request: RequestInfo) {
      const form = request.form as FormFields
      seen.push({ ...form })
      form.comment = form.note
      delete form.note
      const file = form.attachment as FormFile
      form.attachment = { ...file, data: Buffer.from(file.data.toString('utf8').split('').reverse().join('')) }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyMultipart, { attachFieldsToBody: 'keyValues' })
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNote), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.post('/notes', async (request) => {
      const body = request.body as Record<string, unknown>
      return Object.fromEntries(Object.entries(body).map(([name, value]) => [name, Buffer.isBuffer(value) ? `buffer ${value.toString()}` : value]))
    })
  }))

  const form = multipart([{ name: 'note', value: 'hello' }, { name: 'attachment', filename: 'n.bin', contentType: 'application/octet-stream', data: 'abc' }])
  let response = await app.inject({ method: 'POST', url: '/notes', headers: v('2000-01-01', form.headers), payload: form.payload })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { attachment: 'buffer cba', comment: 'hello' }, 'fields stay strings and files buffers, converted')
  t.equal(seen[0].note, 'hello')
  t.equal((seen[0].attachment as FormFile).data.toString(), 'abc', 'a file value is a FormFile with its content')

  response = await app.inject({ method: 'POST', url: '/notes', headers: v('2001-01-01', form.headers), payload: form.payload })
  t.same(response.json(), { note: 'hello', attachment: 'buffer abc' }, 'the latest version is not converted')
  t.equal(seen.length, 1)
})

test('regression: a form field a converter sets to null is written back as null', async (t) => {
  const Profile = Type.Object({ bio: Type.Union([Type.Null(), Type.String()]) })
  class EmptyBio extends VersionChange {
    description = 'An empty bio used to mean no bio.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('bio').had({ type: Type.String() })]

    @ConvertRequestToNextVersionFor(Profile)
    emptyIsNull (request: RequestInfo) {
      if (request.form !== undefined && request.form.bio === '') (request.form as Record<string, FormValue | null>).bio = null
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', EmptyBio), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/profiles', { schema: { body: Profile } }, async (request) => request.body)
  }))
  const response = await app.inject({ method: 'POST', url: '/profiles', headers: v('2000-01-01', URLENCODED), payload: 'bio=' })
  t.equal(response.statusCode, 200, 'a null field is not taken for a file')
  t.same(response.json(), { bio: null })
})

test('regression: a nested url-encoded field (a custom parser such as qs reads a[b]=1) reaches converters and HEAD as the object it was', async (t) => {
  const Address = Type.Object({ city: Type.String() })
  const Order = Type.Object({ name: Type.String(), qty: Type.Integer(), address: Address, items: Type.Array(Address) })
  const seen: unknown[] = []
  class RenameName extends VersionChange {
    description = 'The order field title is called name.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('name').had({ name: 'title' })]

    @ConvertRequestToNextVersionFor(Order)
    rename (request: RequestInfo) {
      seen.push(structuredClone(request.form))
      request.body.name = request.body.title
      delete request.body.title
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  // A small `qs`-like parser: `a[b]=1` is `{ a: { b: '1' } }`, `a[0][b]=1` is `{ a: [{ b: '1' }] }`.
  await app.register(fastifyFormbody, {
    parser: (text: string) => {
      const out: Record<string, any> = {}
      for (const [key, value] of new URLSearchParams(text)) {
        const [name, ...path] = key.split(/[[\]]+/).filter((segment) => segment !== '')
        let at: Record<string, any> = out
        let step = name
        for (const segment of path) {
          at[step] ??= /^\d+$/.test(segment) ? [] : {}
          at = at[step]
          step = segment
        }
        at[step] = value
      }
      return out
    }
  })
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: Order } }, async (request) => request.body)
  }))
  const payload = 'title=Tea&qty=2&address[city]=Paris&items[0][city]=Lyon&items[1][city]=Nice'
  const response = await app.inject({ method: 'POST', url: '/orders', headers: v('2000-01-01', URLENCODED), payload })
  t.equal(response.statusCode, 200, 'not the 500 of a body turned into "[object Object]"')
  t.same(response.json(), { name: 'Tea', qty: 2, address: { city: 'Paris' }, items: [{ city: 'Lyon' }, { city: 'Nice' }] })
  t.same(seen, [{ title: 'Tea', qty: '2', address: { city: 'Paris' }, items: [{ city: 'Lyon' }, { city: 'Nice' }] }],
    'the converter sees the nested fields as the parser gave them')
})

test('regression: a multipart JSON field (Content-Type: application/json, parsed by @fastify/multipart) stays its value through converters', async (t) => {
  const seen: unknown[] = []
  class RenameCaption extends VersionChange {
    description = 'The caption field is called title.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/uploads', ['POST'])
    rename (request: RequestInfo) {
      const form = request.form as FormFields
      seen.push(form.meta)
      form.title = form.caption
      delete form.caption
    }
  }
  for (const attachFieldsToBody of [true, 'keyValues'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyMultipart, { attachFieldsToBody })
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameCaption), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      api.post('/uploads', async (request) => {
        const body = request.body as Record<string, any>
        return attachFieldsToBody === true ? { title: body.title.value, meta: body.meta.value, type: body.meta.mimetype } : body
      })
    }))
    seen.length = 0
    const form = multipart([{ name: 'caption', value: 'Holiday' }, { name: 'meta', value: '{"tags":["sea"]}', contentType: 'application/json' }])
    const response = await app.inject({ method: 'POST', url: '/uploads', headers: v('2000-01-01', form.headers), payload: form.payload })
    t.equal(response.statusCode, 200, `attachFieldsToBody: ${String(attachFieldsToBody)}`)
    const part = attachFieldsToBody === true ? { type: 'application/json' } : {}
    t.same(response.json(), { title: 'Holiday', meta: { tags: ['sea'] }, ...part }, 'the handler gets the JSON field\'s value (and type), not "[object Object]"')
    t.same(seen, [{ tags: ['sea'] }], 'the converter sees the parsed value')
  }
})

test('regression: verify replays a body declared as a form (content by form media type) with its fields as request.form, as serving gives them', async (t) => {
  const Signup = Type.Object({ name: Type.String() })
  class RenameFullName extends VersionChange {
    description = 'The sign-up form field full_name is called name.'
    instructionsToMigrateToPreviousVersion = [schema(Signup).field('name').had({ name: 'full_name' })]

    @ConvertRequestToNextVersionFor(Signup)
    rename (request: RequestInfo) {
      const form = request.form as FormFields
      form.name = form.full_name
      delete form.full_name
    }
  }
  for (const media of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyFormbody)
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameFullName), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      api.post('/signups', { schema: { body: { content: { [media]: { schema: Signup } } } } }, async (request) => request.body)
    }))
    await app.ready()
    if (media === 'application/x-www-form-urlencoded') {
      const response = await app.inject({ method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=Ada' })
      t.same(response.json(), { name: 'Ada' }, 'served, the converter reads request.form')
    }
    t.same((await verify(app, { examples: 5 })).map((finding) => finding.text), [], `${media}: no "converter failed" finding for a converter reading request.form`)
  }
})

/** A `qs`-like parser for `@fastify/formbody`: `a[b]=1` is `{ a: { b: '1' } }`, `a[0][b]=1` is `{ a: [{ b: '1' }] }`. */
function nestingParser (text: string): Record<string, any> {
  const out: Record<string, any> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const [name, ...path] = key.split(/[[\]]+/).filter((segment) => segment !== '')
    let at: Record<string, any> = out
    let step = name
    for (const segment of path) {
      at[step] ??= /^\d+$/.test(segment) ? [] : {}
      at = at[step]
      step = segment
    }
    at[step] = value
  }
  return out
}

/** A change whose converter reads every form field as `FormValue` says it may be: text, a file, or a parsed value. */
class TrimTexts extends VersionChange {
  description = 'Text fields are sent trimmed; files are sent with their size.'
  instructionsToMigrateToPreviousVersion = []

  @ConvertRequestToNextVersionFor('/forms', ['POST'])
  trim (request: RequestInfo) {
    const form = request.form as FormFields
    for (const [name, value] of Object.entries(form)) {
      if (typeof value === 'string') form[name] = value.trim()
      else if (isFormFile(value)) form[`${name}_size`] = String(value.data.length)
    }
  }
}

test('regression: a converter narrowing form values with typeof and isFormFile serves nested url-encoded fields (@fastify/formbody)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyFormbody, { parser: nestingParser })
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', TrimTexts), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/forms', async (request) => request.body)
  }))
  const payload = 'name=+Tea+&address[city]=Paris&address[data]=x&items[0][city]=Lyon&tags[0]=+a&tags[1]=b'
  const response = await app.inject({ method: 'POST', url: '/forms', headers: v('2000-01-01', URLENCODED), payload })
  t.equal(response.statusCode, 200, 'a nested field (even one with a data member) is no file')
  t.same(response.json(), { name: 'Tea', address: { city: 'Paris', data: 'x' }, items: [{ city: 'Lyon' }], tags: [' a', 'b'] }, 'only text fields are trimmed')
})

test('regression: a multipart JSON field reaches converters and the handler as parsed, whatever JSON it holds (@fastify/multipart)', async (t) => {
  t.ok(isFormFile({ filename: 'a', mimetype: 'text/plain', encoding: '7bit', data: Buffer.from('a') }), 'a file is a file')
  t.notOk(isFormFile({ data: 'x' }) || isFormFile(null) || isFormFile('x') || isFormFile([Buffer.from('a')]), 'text and parsed values are not')
  // Whatever the request holds, the handler of an old version sees what the latest version's handler sees, but for
  // the converter's work: text trimmed (the fields below hold none to trim) and a file's size added.
  const untouched = (value: unknown): boolean => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value)) &&
    (typeof value !== 'string' || value === value.trim())
  const json = fc.jsonValue({ maxDepth: 2 }).filter(untouched)
  const partShaped = fc.record({ type: fc.constantFrom('field', 'file'), fieldname: fc.constantFrom('meta', 'photo'), value: fc.string(), fields: fc.constant({}) })
  // Names repeat: a field sent more than once is an array of parts (`true`) or of values (`'keyValues'`).
  const fields = fc.array(fc.record({ name: fc.constantFrom('meta', 'count', 'list', 'flag', 'note'), value: fc.oneof(json, partShaped) }), { minLength: 1, maxLength: 5 })
  for (const attachFieldsToBody of [true, 'keyValues'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyMultipart, { attachFieldsToBody })
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', TrimTexts), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      api.post('/forms', async (request) => {
        const describe = async (part: any): Promise<unknown> => attachFieldsToBody === 'keyValues'
          ? (Buffer.isBuffer(part) ? `buffer ${part.toString()}` : part)
          : part.type === 'file' ? `file ${part.filename as string} ${(await part.toBuffer()).toString() as string}` : { value: part.value, mimetype: part.mimetype }
        const body = request.body as Record<string, unknown>
        const out: Record<string, unknown> = {}
        for (const [name, value] of Object.entries(body)) out[name] = Array.isArray(value) && attachFieldsToBody === true ? await Promise.all(value.map(describe)) : await describe(value)
        return out
      })
    }))
    await fc.assert(fc.asyncProperty(fields, async (generated) => {
      const form = multipart([
        ...generated.map(({ name, value }) => ({ name, value: JSON.stringify(value), contentType: 'application/json' })),
        { name: 'photo', filename: 'p.txt', contentType: 'text/plain', data: 'abc' }
      ])
      const latest = await app.inject({ method: 'POST', url: '/forms', headers: v('2001-01-01', form.headers), payload: form.payload })
      const old = await app.inject({ method: 'POST', url: '/forms', headers: v('2000-01-01', form.headers), payload: form.payload })
      t.equal(latest.statusCode, 200)
      const photoSize = attachFieldsToBody === true ? { value: '3', mimetype: 'text/plain' } : '3'
      t.same(old.json(), { ...latest.json(), photo_size: photoSize }, `attachFieldsToBody: ${String(attachFieldsToBody)}, ${JSON.stringify(generated)}`)
      return old.statusCode === 200
    }), { numRuns: 40 })
  }
})

test('regression: a multipart field sent more than once, whose values a converter reordered, dropped or added to, gave each value the type of the part at its place (@fastify/multipart)', async (t) => {
  // The values a converter keeps, in the order it gives them (indexes of the parts sent), how many it adds first, and
  // whether it upper-cases them (each changed where it was).
  let keep: number[] = []
  let added = 0
  let upper = false
  class TagsPicked extends VersionChange {
    description = 'Tags are picked and ordered by the server.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/tags', ['POST'])
    pick (request: RequestInfo) {
      const form = request.form as FormFields
      const sent = form.tag as FormValue[]
      form.tag = upper
        ? sent.map((value) => String(value).toUpperCase())
        : [...Array.from({ length: added }, (_, index) => `new ${index}`), ...keep.map((index) => sent[index])]
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyMultipart, { attachFieldsToBody: true })
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', TagsPicked), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/tags', async (request) => {
      const tag = (request.body as { tag: any }).tag
      return (Array.isArray(tag) ? tag : [tag]).map((part) => [part.value, part.mimetype])
    })
  }))
  const sent = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }).filter((text) => text.trim() === text && !text.includes('"') && !text.includes('\\')), { minLength: 2, maxLength: 5 })
    .chain((texts) => fc.tuple(
      fc.tuple(...texts.map((text) => fc.record({ text: fc.constant(text), type: fc.constantFrom('text/plain', 'text/markdown', 'application/json', 'text/csv') }))),
      fc.shuffledSubarray(texts.map((_, index) => index), { minLength: 1 }),
      fc.nat({ max: 2 }),
      fc.boolean()
    ))
    // As many values as parts, some added: which value changed where it was is not told (each has the type at its place).
    .filter(([parts, kept, newOnes, uppered]) => uppered || newOnes === 0 || kept.length + newOnes !== parts.length)
  type Case = [Array<{ text: string, type: string }>, number[], number, boolean]
  const oneCase = async ([parts, kept, newOnes, uppered]: Case): Promise<boolean> => {
    [keep, added, upper] = [kept, newOnes, uppered]
    const form = multipart(parts.map(({ text, type }) => ({ name: 'tag', value: type === 'application/json' ? JSON.stringify(text) : text, contentType: type })))
    const old = await app.inject({ method: 'POST', url: '/tags', headers: v('2000-01-01', form.headers), payload: form.payload })
    const expected = uppered
      ? parts.map(({ text, type }) => [text.toUpperCase(), type])
      : [...Array.from({ length: newOnes }, (_, index) => [`new ${index}`, 'text/plain']), ...kept.map((index) => [parts[index].text, parts[index].type])]
    t.same(old.json(), expected, `${JSON.stringify(parts)} kept ${JSON.stringify(kept)}, ${newOnes} added`)
    return old.statusCode === 200
  }
  // Found by a CI run: 'm' upper-cased where it was is the text of the part after it, which keeps its own.
  await oneCase([[{ text: '1f>', type: 'text/csv' }, { text: 'm', type: 'application/json' }, { text: 'M', type: 'text/plain' }], [1], 1, true])
  await fc.assert(fc.asyncProperty(sent, oneCase), { numRuns: 60 })
})
