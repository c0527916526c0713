import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import fastifyCompress from '@fastify/compress'
import fastifyStatic from '@fastify/static'
import {
  ConvertResponseToPreviousVersionFor, endpoint, Version, VersionBundle, VersionChange, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'

interface Seen {
  route: string
  body: unknown
  rawKind: string
  status: number
}

function kindOf (value: unknown): string {
  if (Buffer.isBuffer(value)) return 'buffer'
  if (value instanceof Readable) return 'stream'
  return typeof value
}

test('streams and buffers pass untouched; by-path converters see them on raw and may change status and headers', async (t) => {
  const Any = Type.Object({ ok: Type.Boolean() })
  const seen: Seen[] = []
  let bySchemaCalls = 0

  class LegacyDownloads extends VersionChange {
    description = 'Downloads used to answer 203 with an x-legacy header.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/stream', ['GET'])
    stream (response: ResponseInfo) {
      seen.push({ route: 'stream', body: response.body, rawKind: kindOf(response.raw), status: response.statusCode })
      response.statusCode = 203
      response.headers['x-legacy'] = 'stream'
    }

    @ConvertResponseToPreviousVersionFor('/buffer', ['GET'])
    buffer (response: ResponseInfo) {
      seen.push({ route: 'buffer', body: response.body, rawKind: kindOf(response.raw), status: response.statusCode })
      response.headers['x-legacy'] = 'buffer'
      response.headers['content-disposition'] = 'attachment; filename="old.bin"'
    }

    @ConvertResponseToPreviousVersionFor(Any)
    bySchema (response: ResponseInfo) {
      bySchemaCalls++
      response.body.ok = false
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', LegacyDownloads), new Version('2000-01-01'))
  const bytes = Buffer.from([0, 1, 2, 254, 255, 10, 13])
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/stream', { schema: { response: { 200: Any } } }, async (_request, reply) => {
      return reply.type('text/plain').send(Readable.from(['chunk-1;', 'chunk-2']) as never)
    })
    api.get('/buffer', async (_request, reply) => reply.type('application/octet-stream').send(bytes))
    api.get('/json', { schema: { response: { 200: Any } } }, async () => ({ ok: true }))
  })

  const stream = await call(app, '2000-01-01', '/stream')
  t.equal(stream.statusCode, 203, 'the converter changed the status')
  t.equal(stream.headers['x-legacy'], 'stream')
  t.equal(stream.headers['content-type'], 'text/plain')
  t.equal(stream.body, 'chunk-1;chunk-2', 'the stream content is untouched')
  t.equal(stream.headers['x-api-version'], '2000-01-01')

  const buffer = await call(app, '2000-01-01', '/buffer')
  t.equal(buffer.statusCode, 200)
  t.same(buffer.rawPayload, bytes, 'the buffer is untouched, byte for byte')
  t.equal(buffer.headers['x-legacy'], 'buffer')
  t.equal(buffer.headers['content-disposition'], 'attachment; filename="old.bin"')

  t.same(seen, [
    { route: 'stream', body: undefined, rawKind: 'stream', status: 200 },
    { route: 'buffer', body: undefined, rawKind: 'buffer', status: 200 }
  ], 'by-path converters got body undefined and the payload on raw')
  t.equal(bySchemaCalls, 0, 'the by-schema converter of the stream route\'s schema never saw the stream')

  const object = await call(app, '2000-01-01', '/json')
  t.same(jsonOf(object), { ok: false }, 'the by-schema converter does run for objects')
  t.equal(bySchemaCalls, 1)

  seen.length = 0
  const latestStream = await call(app, '2001-01-01', '/stream')
  t.equal(latestStream.statusCode, 200)
  t.equal(latestStream.body, 'chunk-1;chunk-2')
  t.equal(latestStream.headers['x-legacy'], undefined)
  const latestBuffer = await call(app, '2001-01-01', '/buffer')
  t.same(latestBuffer.rawPayload, bytes)
  t.same(seen, [], 'no converter for latest')
})

test('files sent with @fastify/static and compressed responses from versioned routes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'versioner-streams-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const fileContent = 'line one\nline two\n'.repeat(20)
  writeFileSync(join(dir, 'report.txt'), fileContent)

  const Report = Type.Object({ rows: Type.Array(Type.Object({ n: Type.Integer(), label: Type.String() })) })
  const seen: Seen[] = []

  class LegacyReports extends VersionChange {
    description = 'Reports used to be served with x-report-format: v1; rows had a label in capitals.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/report.txt', ['GET'])
    file (response: ResponseInfo) {
      seen.push({ route: 'file', body: response.body, rawKind: kindOf(response.raw), status: response.statusCode })
      response.headers['x-report-format'] = 'v1'
    }

    @ConvertResponseToPreviousVersionFor(Report)
    capitals (response: ResponseInfo) {
      for (const row of response.body.rows) row.label = String(row.label).toUpperCase()
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', LegacyReports), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/report.txt', async (_request, reply) => reply.sendFile('report.txt'))
    api.get('/report', { schema: { response: { 200: Report } } }, async () => ({
      rows: Array.from({ length: 200 }, (_, n) => ({ n, label: `row number ${n}` }))
    }))
  }, {
    beforeVersioner: async (app) => {
      await app.register(fastifyStatic, { root: dir, serve: false })
      await app.register(fastifyCompress, { global: true, threshold: 1024 })
    }
  })

  const file = await call(app, '2000-01-01', '/report.txt')
  t.equal(file.statusCode, 200)
  t.equal(file.body, fileContent, 'the file content is untouched')
  t.equal(file.headers['x-report-format'], 'v1')
  t.equal(seen.length, 1)
  t.equal(seen[0].body, undefined)
  t.equal(seen[0].rawKind, 'stream', 'the converter saw the file stream on raw')

  const latestFile = await call(app, '2001-01-01', '/report.txt')
  t.equal(latestFile.body, fileContent)
  t.equal(latestFile.headers['x-report-format'], undefined)

  const compressed = await call(app, '2000-01-01', '/report', { headers: { 'accept-encoding': 'gzip' } })
  t.equal(compressed.statusCode, 200)
  t.equal(compressed.headers['content-encoding'], 'gzip', 'the converted body is compressed')
  const rows = (JSON.parse(gunzipSync(compressed.rawPayload).toString()) as { rows: Array<{ n: number, label: string }> }).rows
  t.equal(rows.length, 200)
  t.same(rows[7], { n: 7, label: 'ROW NUMBER 7' }, 'converted before compression')

  const latestCompressed = await call(app, '2001-01-01', '/report', { headers: { 'accept-encoding': 'gzip' } })
  const latestRows = (JSON.parse(gunzipSync(latestCompressed.rawPayload).toString()) as { rows: Array<{ n: number, label: string }> }).rows
  t.same(latestRows[7], { n: 7, label: 'row number 7' })
})

test('@fastify/static inside versioned(...) with path versions: with wildcard: false (as the docs say) each version serves the files, converted by path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'versioner-static-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'report.txt'), 'the report')
  class LegacyFiles extends VersionChange {
    description = 'Files used to be served with x-files: v1.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/files/report.txt', ['GET'])
    legacy (response: ResponseInfo) { response.headers['x-files'] = 'v1' }
  }
  const versions = new VersionBundle(new Version('2001-01-01', LegacyFiles), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    await api.register(fastifyStatic, { root: dir, prefix: '/files/', wildcard: false })
  }, { versioner: { apiVersionLocation: 'path' } })

  const old = await app.inject('/2000-01-01/files/report.txt')
  t.equal(old.statusCode, 200)
  t.equal(old.body, 'the report')
  t.equal(old.headers['x-files'], 'v1', 'the old version\'s by-path converter ran')
  t.equal(old.headers['x-api-version'], '2000-01-01')
  const newest = await app.inject('/2001-01-01/files/report.txt')
  t.equal(newest.body, 'the report')
  t.equal(newest.headers['x-files'], undefined)
})

test('a streamed error response: migrateHttpErrors by-path converters and the FSTVRS001 warning', async (t) => {
  const seen: Seen[] = []
  const warnings: string[] = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push(String(warning.code)) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })

  class StreamedErrors extends VersionChange {
    description = 'Missing exports used to answer 204.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/export', ['GET'], { migrateHttpErrors: true })
    noContent (response: ResponseInfo) {
      seen.push({ route: 'export', body: response.body, rawKind: kindOf(response.raw), status: response.statusCode })
      if (response.statusCode === 404) response.statusCode = 410
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', StreamedErrors), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/export', async (_request, reply) => reply.code(404).type('text/plain').send(Readable.from(['no export'])))
  })

  const response = await call(app, '2000-01-01', '/export')
  t.equal(response.body, 'no export', 'the stream content is untouched')
  t.equal(response.headers['content-type'], 'text/plain')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(response.statusCode, 410, 'the converter changed the status of the streamed 404')
  if (seen.length === 0) t.same(warnings, ['FSTVRS001'], 'when it is not migrated, FSTVRS001 says so')
  else t.same(seen, [{ route: 'export', body: undefined, rawKind: 'stream', status: 404 }])

  const latest = await call(app, '2001-01-01', '/export')
  t.equal(latest.statusCode, 404)
  t.equal(latest.body, 'no export')
})

test('regression: a Web Response answers with its version\'s status and the by-path converters\' status and headers', async (t) => {
  const Created = Type.Object({ id: Type.String() })
  const seen: string[] = []
  class CreatedWas200 extends VersionChange {
    description = 'Creating answered 200; an export answered 203 with x-legacy.'
    instructionsToMigrateToPreviousVersion = [endpoint('/things', ['POST']).had({ statusCode: 200 }), endpoint('/web-stream', ['POST']).had({ statusCode: 200 })]

    @ConvertResponseToPreviousVersionFor('/export', ['GET'])
    legacyExport (response: ResponseInfo) {
      seen.push(kindOf(response.raw) === 'object' ? Object.prototype.toString.call(response.raw) : kindOf(response.raw))
      response.statusCode = 203
      response.headers['x-legacy'] = 'yes'
    }
  }
  const json = JSON.stringify({ id: 't1' })
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', CreatedWas200), new Version('2000-01-01')), async (api) => {
    api.post('/things', { schema: { response: { 201: Created } } }, async () => new Response(json, { status: 201, headers: { 'content-type': 'application/json', 'x-from': 'response' } }) as never)
    api.post('/web-stream', { schema: { response: { 201: Created } } }, async (_request, reply) => {
      return reply.code(201).type('application/json').send(new ReadableStream({ start (controller) { controller.enqueue(new TextEncoder().encode(json)); controller.close() } }) as never)
    })
    api.get('/export', async () => new Response('a,b', { headers: { 'content-type': 'text/csv' } }))
  })
  for (const url of ['/things', '/web-stream']) {
    const newest = await call(app, '2001-01-01', url, { method: 'POST' })
    t.equal(newest.statusCode, 201, `${url}: the newest version answers the handler's status`)
    t.equal(newest.body, json)
    const oldest = await call(app, '2000-01-01', url, { method: 'POST' })
    t.equal(oldest.statusCode, 200, `${url}: the oldest version answers its own status`)
    t.equal(oldest.body, json)
    t.equal(oldest.headers['x-api-version'], '2000-01-01')
  }
  t.equal((await call(app, '2000-01-01', '/things', { method: 'POST' })).headers['x-from'], 'response', 'the Response\'s headers are sent')
  const exported = await call(app, '2000-01-01', '/export')
  t.equal(exported.statusCode, 203, 'the by-path converter\'s status')
  t.equal(exported.headers['x-legacy'], 'yes', 'the by-path converter\'s header')
  t.equal(exported.headers['content-type'], 'text/csv')
  t.equal(exported.body, 'a,b')
  t.same(seen, ['[object ReadableStream]'], 'the converter sees the Response\'s body stream on raw, as for any stream')
})

test('regression: a Web Response of a preview version stays private, and a deprecated version keeps its Link', async (t) => {
  class Preview extends VersionChange {
    description = 'A preview.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new Version('2027-01-01.preview', Preview, { channel: 'preview' }),
    new Version('2026-06-01', { deprecatedAt: '2026-07-01', link: 'https://example.com/upgrade' }), new Version('2026-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/report', async () => new Response('{"ok":true}', {
      headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=60', link: '<https://example.com/help>; rel="help"' }
    }))
  })
  const preview = await call(app, '2027-01-01.preview', '/report')
  t.equal(preview.headers['cache-control'], 'private, max-age=60', 'no shared cache stores a preview\'s answer (decision 0066)')
  t.equal(preview.body, '{"ok":true}')
  const deprecated = await call(app, '2026-06-01', '/report')
  t.equal(deprecated.headers.link, '<https://example.com/help>; rel="help", <https://example.com/upgrade>; rel="deprecation"', 'the Response\'s Link and the version\'s')
  t.equal(deprecated.headers['cache-control'], 'public, max-age=60', 'a released version\'s answer keeps the Response\'s Cache-Control')
})

test('regression: a body a by-path converter sets on a stream, a buffer or a Web Response replaces it', async (t) => {
  const User = Type.Object({ id: Type.String(), name: Type.String() })
  const head = { id: 'u1', fullName: 'Ada Lovelace' }
  let unread: Readable | undefined
  class FullNameWasName extends VersionChange {
    description = 'A user\'s name was its name.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:mode', ['GET'])
    async name (response: ResponseInfo) {
      if (response.raw instanceof Readable && response.raw === unread) {
        response.body = 'replaced unread' as never
        return
      }
      const text = Buffer.isBuffer(response.raw) ? response.raw.toString() : await new Response(response.raw as ReadableStream).text()
      const { fullName, ...rest } = JSON.parse(text) as typeof head
      response.body = { ...rest, name: fullName, internal: 'dropped by the version\'s schema' }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')), async (api) => {
    api.get('/users/:mode', { schema: { response: { 200: User } } }, async (request, reply) => {
      const json = JSON.stringify(head)
      switch ((request.params as { mode: string }).mode) {
        case 'buffer': return reply.type('application/json').send(Buffer.from(json) as never)
        case 'stream': return reply.type('application/json').send(Readable.from([json.slice(0, 9), json.slice(9)]) as never)
        case 'unread': return reply.type('text/plain').header('content-length', 99).send((unread = new Readable({ read () {} })) as never)
        default: return new Response(json, { headers: { 'content-type': 'application/json' } }) as never
      }
    })
  })
  for (const mode of ['buffer', 'stream', 'web']) {
    const old = await call(app, '2000-01-01', `/users/${mode}`)
    t.equal(old.statusCode, 200, mode)
    t.same(JSON.parse(old.body), { id: 'u1', name: 'Ada Lovelace' }, `${mode}: the converter's body, in the version's schema`)
    t.match(old.headers['content-type'], /^application\/json/)
    t.same(JSON.parse((await call(app, '2001-01-01', `/users/${mode}`)).body), head, `${mode}: the newest version is untouched`)
  }
  const replaced = await call(app, '2000-01-01', '/users/unread')
  t.equal(replaced.body, 'replaced unread')
  t.equal(replaced.headers['content-length'], String('replaced unread'.length), 'the length of what is sent')
  t.equal(unread?.destroyed, true, 'the stream no one reads is destroyed')
})

test('regression: a stream whose by-path converter fails is ended, not left holding its file', async (t) => {
  const streams: Readable[] = []
  class BrokenExport extends VersionChange {
    description = 'Exports were named otherwise.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/export', ['GET'])
    broken (_response: ResponseInfo) {
      throw new Error('a converter bug')
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', BrokenExport), new Version('2000-01-01')), async (api) => {
    api.get('/export', async (_request, reply) => {
      const stream = new Readable({ read () {} })
      streams.push(stream)
      return reply.type('text/csv').send(stream as never)
    })
  })
  const failed = await call(app, '2000-01-01', '/export')
  t.equal(failed.statusCode, 500)
  t.equal(jsonOf(failed).code, 'FST_VERSIONER_CONVERTER_FAILED')
  t.equal(streams[0].destroyed, true, 'the stream no one will read is destroyed (a file\'s descriptor closed)')
})
