/**
 * The files the docs pages load, served under `<docs URL>/assets/` (or `<redoc URL>/assets/`): Swagger UI's
 * bundle, preset, CSS, favicons and OAuth2 redirect page (from `@fastify/swagger-ui`'s static folder, the
 * only files of it used: its own page is not registered), the ReDoc bundle shipped with this package
 * (`vendor/redoc`), and the pages' own style sheet and Swagger UI initializer. Any other name is a 404.
 * @module
 */
import { createReadStream, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { runInNewContext } from 'node:vm'
import type { FastifyInstance, RouteShorthandOptions } from 'fastify'
import type { ResolvedDocsOptions } from './options'
import { DOCS_CSS, SWAGGER_INITIALIZER } from './page-assets'

/** One served file: its media type and where its bytes come from. */
interface Asset {
  readonly type: string
  /** A file streamed from disk, or bytes built once on first use. */
  readonly file?: string
  readonly body?: () => string | Buffer
}

const JS = 'application/javascript; charset=utf-8'

/** The folder of Swagger UI's files in `@fastify/swagger-ui`. */
function swaggerUiFolder (): string {
  return join(dirname(createRequire(__filename).resolve('@fastify/swagger-ui/package.json')), 'static')
}

/**
 * ReDoc's standalone bundle: `vendor/redoc` at the package root (copied to `dist/vendor/redoc` by the build, so
 * the path is the same from `lib/docs` and `dist/lib/docs`).
 */
const REDOC_FILE = join(__dirname, '..', '..', 'vendor', 'redoc', 'redoc.standalone.js')

/** ReDoc's sidebar shows Redocly's logo from their CDN: a `data:` image keeps the page offline (and within `img-src 'self' data:`). */
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg'
/** ReDoc starts its search worker from a `blob:` URL, which `script-src 'self'` forbids: its code becomes a served file. */
const REDOC_WORKER_BLOB = 'URL.createObjectURL(new Blob(['

/**
 * ReDoc's bundle as served: the logo is an empty `data:` image, the search worker is loaded from `workerUrl`
 * (its code is the second file), and the source map comment is dropped (the map is not shipped).
 */
function redocFiles (workerUrl: string): { bundle: Buffer, worker: Buffer } {
  const text = readFileSync(REDOC_FILE, 'utf8')
  const start = text.indexOf(REDOC_WORKER_BLOB)
  const literal = start + REDOC_WORKER_BLOB.length
  const quote = text[literal]
  if (start === -1 || text.includes(REDOC_WORKER_BLOB, literal) || (quote !== "'" && quote !== '"')) {
    throw new Error(`${REDOC_FILE}: its search worker is not started from one Blob of a string literal; see vendor/redoc/README.md`)
  }
  let end = literal + 1
  while (end < text.length && text[end] !== quote) end += text[end] === '\\' ? 2 : 1
  if (text.slice(end + 1, end + 4) !== ']))') throw new Error(`${REDOC_FILE}: unexpected code after its search worker's source`)
  // The slice is one string literal (scanned to its closing quote): evaluating it runs no code.
  const worker = runInNewContext(text.slice(literal, end + 1)) as string
  const bundle = (text.slice(0, start) + JSON.stringify(workerUrl) + text.slice(end + 4))
    .split(REDOC_REMOTE_LOGO).join('data:,')
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
  return { bundle: Buffer.from(bundle), worker: Buffer.from(worker.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')) }
}

function once<T> (build: () => T): () => T {
  let built: T | undefined
  return () => (built ??= build())
}

/** The assets the configured pages need, by file name. */
function docsAssets (docs: ResolvedDocsOptions, assetsPrefix: string): Map<string, Asset> {
  const assets = new Map<string, Asset>([['docs.css', { type: 'text/css; charset=utf-8', body: () => DOCS_CSS }]])
  if (docs.docsUrl !== null) {
    const folder = swaggerUiFolder()
    for (const [name, type] of [['swagger-ui-bundle.js', JS], ['swagger-ui-standalone-preset.js', JS], ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['oauth2-redirect.html', 'text/html; charset=utf-8'], ['oauth2-redirect.js', JS]]) {
      assets.set(name, { type, file: join(folder, name) })
    }
    assets.set('swagger-initializer.js', { type: JS, body: () => SWAGGER_INITIALIZER })
  }
  if (docs.docsUrl !== null || docs.redocUrl !== null) {
    const folder = swaggerUiFolder()
    for (const name of ['favicon-32x32.png', 'favicon-16x16.png']) assets.set(name, { type: 'image/png', file: join(folder, name) })
  }
  if (docs.redocLocal) {
    const redoc = once(() => redocFiles(`${assetsPrefix}/redoc-search-worker.js`))
    assets.set('redoc.standalone.js', { type: JS, body: () => redoc().bundle })
    assets.set('redoc-search-worker.js', { type: JS, body: () => redoc().worker })
  }
  return assets
}

/** Serves the assets at `<assetsPrefix>/<name>`; `hooks` are the docs routes' hooks (`uiHooks`). */
export function registerAssets (fastify: FastifyInstance, docs: ResolvedDocsOptions, hooks: RouteShorthandOptions): void {
  if (docs.assetsPrefix === null) return
  // The search worker's URL is a link: it starts with the context's prefix.
  const assets = docsAssets(docs, `${fastify.prefix}${docs.assetsPrefix}`)
  fastify.get(`${docs.assetsPrefix}/:name`, {
    ...hooks,
    schema: { hide: true, params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
  }, async (request, reply) => {
    const { name } = request.params as { name: string }
    const asset = assets.get(name)
    if (asset === undefined) return reply.callNotFound()
    reply.header('x-content-type-options', 'nosniff').type(asset.type).header('cache-control', 'public, max-age=3600')
    return reply.send(asset.file === undefined ? asset.body?.() : createReadStream(asset.file))
  })
}
