/**
 * The files the docs pages load under `<docs URL>/assets/`: Swagger UI's, ReDoc's, and the pages' own script and
 * style (files, so the pages work under a strict Content-Security-Policy). Any other name is a 404.
 * @module
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { InvalidOptionError } from '../core/errors'
import { strongEntityTag } from '../core/entity-tags'
import type { ResolvedDocsOptions } from './options'
import { sendText } from './sent-texts'

/** The style sheet of the version list, the navigation bar and the not-found page. */
const DOCS_CSS = `body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:56rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.6rem}table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.6rem .8rem;border-bottom:1px solid #d0d7de}th{background:#eaeef2}a{color:#0969da}
.badge{display:inline-block;font-size:.75rem;padding:.1rem .45rem;border-radius:1rem;margin-left:.4rem}
.deprecated{background:#fff8c5;color:#7d4e00}.sunset{background:#ffebe9;color:#a40e26}.preview{background:#ddf4ff;color:#0550ae}
nav.versions{padding:.5rem 1rem;background:#1f2328;color:#fff;font-size:.9rem}nav.versions a{color:#9ecbff;margin-right:.8rem}
nav.versions strong{margin-right:.8rem}p.lifecycle{margin:.5rem 1rem}
section.change{background:#fff;border:1px solid #d0d7de;border-radius:.4rem;padding:0 1rem 1rem;margin:1rem 0}
.example{display:grid;grid-template-columns:1fr 1fr;gap:.6rem}.example h4{grid-column:1/-1;margin:.8rem 0 0}.example h5{margin:.2rem 0}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5rem;overflow:auto;margin:0;font-size:.85rem}form.range{margin:1rem 0}
`

/** The id of the element holding a Swagger UI page's settings (JSON, read by {@link SWAGGER_INITIALIZER}). */
export const SWAGGER_SETTINGS_ID = 'fastify-versioner-swagger-settings'

/**
 * Starts Swagger UI with the page's settings; `pages` (document URL → docs page) makes the switcher open that
 * version's page, so title, links and UI agree.
 */
const SWAGGER_INITIALIZER = `'use strict';
(function () {
  var element = document.getElementById(${JSON.stringify(SWAGGER_SETTINGS_ID)});
  var settings = JSON.parse(element.textContent);
  var config = Object.assign({}, settings.config);
  config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset];
  if (config.oauth2RedirectUrl === undefined) config.oauth2RedirectUrl = new URL(settings.oauth2RedirectUrl, window.location.href).href;
  // Swagger UI opens the definition ?urls.primaryName= names over the page's own, and writes it into the address when
  // switching (the entry Back returns to): taken out first, the page shows the version its title and links name.
  var search = new URLSearchParams(window.location.search);
  if (search.has('urls.primaryName')) {
    search.delete('urls.primaryName');
    var query = search.toString();
    window.history.replaceState(window.history.state, '', window.location.pathname + (query === '' ? '' : '?' + query) + window.location.hash);
  }
  var ui = SwaggerUIBundle(config);
  if (settings.initOAuth) ui.initOAuth(settings.initOAuth);
  window.ui = ui;
  var pages = settings.pages;
  document.addEventListener('change', function (event) {
    var target = event.target;
    if (target && target.id === 'select' && Object.prototype.hasOwnProperty.call(pages, target.value)) window.location.assign(pages[target.value]);
  });
})();
`

/** One served file: its media type and where its bytes come from. */
interface Asset {
  readonly type: string
  /** A file streamed from disk (its path), or bytes built once on first use. */
  readonly source: string | (() => string | Buffer)
  /** The strong `ETag` of its bytes, computed on first use. */
  etag?: string
}

const JS = 'application/javascript; charset=utf-8'

/**
 * Where the pages' files are looked for: this module's folder is not enough for an application bundled into one
 * file, which finds them in the node_modules shipped beside the bundle (decision 0190).
 */
const WHERE_TO_SHIP = 'An application bundled into one file finds them only in a node_modules folder shipped beside the bundle ' +
  '(with esbuild, leave the package out of the bundle, --external:fastify-versioner, and install it there).'

/** A package's folder, resolved as this module's `require` does; `undefined` when it is not installed. */
function packageFolder (name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`))
  } catch {
    return undefined
  }
}

/** The folder of Swagger UI's files in `@fastify/swagger-ui`. */
function swaggerUiFolder (): string {
  const folder = packageFolder('@fastify/swagger-ui')
  if (folder === undefined || !existsSync(join(folder, 'static', 'swagger-ui-bundle.js'))) {
    throw new InvalidOptionError("The docs pages serve Swagger UI's files and favicons from the package @fastify/swagger-ui, which is not " +
      `installed where the application runs. ${WHERE_TO_SHIP} Or turn the pages off: docsUrl: null, redocUrl: null (the documents ` +
      'stay served at openapiUrl).')
  }
  return join(folder, 'static')
}

/** ReDoc's standalone bundle: `vendor/redoc` (the same relative path from `lib/docs` and `dist/lib/docs`), else installed. */
function redocFile (): string {
  const name = join('vendor', 'redoc', 'redoc.standalone.js')
  const root = packageFolder('fastify-versioner')
  const candidates = [
    ...typeof __dirname === 'string' ? [join(__dirname, '..', '..', name)] : [],
    ...root === undefined ? [] : [join(root, 'dist', name), join(root, name)]
  ]
  const found = candidates.find((file) => existsSync(file))
  if (found === undefined) {
    throw new InvalidOptionError(`The ReDoc page serves the ReDoc bundle shipped with fastify-versioner (dist/${name}), which was not found. ` +
      `${WHERE_TO_SHIP} Or set redocJsUrl to a hosted copy of ReDoc's standalone bundle, or redocUrl: null.`)
  }
  return found
}

/** ReDoc's sidebar shows Redocly's logo from their CDN: a `data:` image keeps the page offline (and within `img-src 'self' data:`). */
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg'
/** ReDoc starts its search worker from a `blob:` URL, which `script-src 'self'` forbids: its code becomes a served file. */
const REDOC_WORKER_BLOB = 'URL.createObjectURL(new Blob(['

/** ReDoc's bundle as served: an empty logo, the search worker from `workerUrl`, no source map comment. */
function redocFiles (file: string, workerUrl: string): { bundle: Buffer, worker: Buffer } {
  const text = readFileSync(file, 'utf8')
  const start = text.indexOf(REDOC_WORKER_BLOB)
  const literal = start + REDOC_WORKER_BLOB.length
  const quote = text[literal]
  if (start === -1 || text.includes(REDOC_WORKER_BLOB, literal) || (quote !== "'" && quote !== '"')) {
    throw new Error(`${file}: its search worker is not started from one Blob of a string literal; see vendor/redoc/README.md`)
  }
  let end = literal + 1
  while (end < text.length && text[end] !== quote) end += text[end] === '\\' ? 2 : 1
  if (text.slice(end + 1, end + 4) !== ']))') throw new Error(`${file}: unexpected code after its search worker's source`)
  // The slice is one string literal (scanned to its closing quote): evaluating it runs no code.
  const worker = runInNewContext(text.slice(literal, end + 1)) as string
  const bundle = (text.slice(0, start) + JSON.stringify(workerUrl) + text.slice(end + 4))
    .split(REDOC_REMOTE_LOGO).join('data:,')
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
  return { bundle: Buffer.from(bundle), worker: Buffer.from(worker.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')) }
}

/** The assets the configured pages (the docs page, the ReDoc page or both) need, by file name. */
function docsAssets (docs: ResolvedDocsOptions, assetsPrefix: string): Map<string, Asset> {
  const assets = new Map<string, Asset>([['docs.css', { type: 'text/css; charset=utf-8', source: () => DOCS_CSS }]])
  const folder = swaggerUiFolder()
  for (const name of ['favicon-32x32.png', 'favicon-16x16.png']) assets.set(name, { type: 'image/png', source: join(folder, name) })
  if (docs.docsUrl !== null) {
    for (const [name, type] of [['swagger-ui-bundle.js', JS], ['swagger-ui-standalone-preset.js', JS], ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['oauth2-redirect.html', 'text/html; charset=utf-8'], ['oauth2-redirect.js', JS]]) {
      assets.set(name, { type, source: join(folder, name) })
    }
    assets.set('swagger-initializer.js', { type: JS, source: () => SWAGGER_INITIALIZER })
  }
  if (docs.redocLocal) {
    const file = redocFile()
    let files: ReturnType<typeof redocFiles> | undefined
    const redoc = (): ReturnType<typeof redocFiles> => (files ??= redocFiles(file, `${assetsPrefix}/redoc-search-worker.js`))
    assets.set('redoc.standalone.js', { type: JS, source: () => redoc().bundle })
    assets.set('redoc-search-worker.js', { type: JS, source: () => redoc().worker })
  }
  return assets
}

/** Serves the assets at `<assetsPrefix>/<name>`, behind the docs routes' `uiHooks`. */
export function registerAssets (fastify: FastifyInstance, docs: ResolvedDocsOptions): void {
  if (docs.assetsPrefix === null) return
  // The search worker's URL is a link: it starts with the context's prefix.
  const assets = docsAssets(docs, `${fastify.prefix}${docs.assetsPrefix}`)
  fastify.get(`${docs.assetsPrefix}/:name`, {
    ...docs.uiHooks,
    // A TypeBox schema, which an application's TypeBox validator compiler compiles too (as Ajv does).
    schema: { hide: true, params: Type.Object({ name: Type.String() }) }
  }, async (request, reply) => {
    const { name } = request.params as { name: string }
    const asset = assets.get(name)
    if (asset === undefined) return reply.callNotFound()
    const { source } = asset
    // Revalidated as the pages are: a page of one build never runs another build's cached scripts (decision 0172).
    asset.etag ??= strongEntityTag(typeof source === 'string' ? readFileSync(source) : source())
    return sendText(request, reply, { etag: asset.etag, text: () => typeof source === 'string' ? createReadStream(source) : source() }, asset.type)
  })
}
