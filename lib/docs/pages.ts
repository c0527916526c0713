/**
 * The HTML of the docs pages: the version list, Swagger UI for one version (with a switcher between all
 * versions), ReDoc for one version, and the page for a version that has no document. Every value that
 * reaches a page is escaped for where it lands (HTML text, attribute, or JSON inside a script).
 * @module
 */

/** Escapes text for HTML content and quoted attributes. */
export function escapeHtml (text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => `&#${character.charCodeAt(0)};`)
}

/** Serializes a value as JSON that is safe inside an HTML `<script>` element. */
export function scriptJson (value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** One row of the version list. */
export interface VersionEntry {
  readonly key: string
  readonly label: string
  readonly deprecatedAt?: string
  readonly sunsetAt?: string
  readonly link?: string
}

/** What every page needs. */
export interface PageContext {
  readonly title: string
  readonly openapiUrl: string
  readonly docsUrl: string | null
  readonly redocUrl: string | null
  readonly faviconUrl: string | null
}

const STYLE = `body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
main{max-width:56rem;margin:2rem auto;padding:0 1rem}h1{font-size:1.6rem}table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.6rem .8rem;border-bottom:1px solid #d0d7de}th{background:#eaeef2}a{color:#0969da}
.badge{display:inline-block;font-size:.75rem;padding:.1rem .45rem;border-radius:1rem;margin-left:.4rem}
.deprecated{background:#fff8c5;color:#7d4e00}.sunset{background:#ffebe9;color:#a40e26}
nav.versions{padding:.5rem 1rem;background:#1f2328;color:#fff;font-size:.9rem}nav.versions a{color:#9ecbff;margin-right:.8rem}
nav.versions strong{margin-right:.8rem}`

function head (title: string, favicon: string | null, extra = ''): string {
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title>${favicon === null ? '' : `<link rel="icon" href="${escapeHtml(favicon)}">`}` +
    `<style>${STYLE}</style>${extra}</head>`
}

function documentUrl (context: PageContext, key: string): string {
  return `${context.openapiUrl}?version=${encodeURIComponent(key)}`
}

function pageUrl (base: string, key: string): string {
  return `${base}?version=${encodeURIComponent(key)}`
}

function badges (entry: VersionEntry): string {
  return (entry.deprecatedAt === undefined ? '' : `<span class="badge deprecated">deprecated since ${escapeHtml(entry.deprecatedAt)}</span>`) +
    (entry.sunsetAt === undefined ? '' : `<span class="badge sunset">sunset ${escapeHtml(entry.sunsetAt)}</span>`)
}

/** The page listing every version (and the unversioned routes) with links to their pages and documents. */
export function versionListPage (context: PageContext, entries: readonly VersionEntry[]): string {
  const rows = entries.map((entry) => {
    const links = [
      context.docsUrl === null ? '' : `<a href="${escapeHtml(pageUrl(context.docsUrl, entry.key))}">Swagger UI</a>`,
      context.redocUrl === null ? '' : `<a href="${escapeHtml(pageUrl(context.redocUrl, entry.key))}">ReDoc</a>`,
      `<a href="${escapeHtml(documentUrl(context, entry.key))}">OpenAPI JSON</a>`
    ].filter((link) => link !== '').join(' · ')
    const more = entry.link === undefined ? '' : ` <a href="${escapeHtml(entry.link)}">migration guide</a>`
    return `<tr><td><strong>${escapeHtml(entry.label)}</strong>${badges(entry)}${more}</td><td>${links}</td></tr>`
  }).join('\n')
  return `${head(`${context.title}: API versions`, context.faviconUrl)}<body><main><h1>${escapeHtml(context.title)}: API versions</h1>` +
    `<table><thead><tr><th>Version</th><th>Documentation</th></tr></thead><tbody>\n${rows}\n</tbody></table></main></body></html>\n`
}

/** Swagger UI for one version, with a switcher (Swagger UI's `urls`) between every version. */
export function swaggerPage (context: PageContext, assets: { js: string, preset: string, css: string }, entries: readonly VersionEntry[], current: VersionEntry): string {
  const pages = Object.fromEntries(entries.map((entry) => [documentUrl(context, entry.key), pageUrl(context.docsUrl ?? '', entry.key)]))
  const config = {
    urls: entries.map((entry) => ({ url: documentUrl(context, entry.key), name: entry.label })),
    'urls.primaryName': current.label,
    dom_id: '#swagger-ui',
    deepLinking: true,
    layout: 'StandaloneLayout'
  }
  return `${head(`${context.title}: ${current.label}: Swagger UI`, context.faviconUrl, `<link rel="stylesheet" href="${escapeHtml(assets.css)}">`)}<body>` +
    `${navigation(context, entries, current, context.docsUrl)}` +
    (current.deprecatedAt === undefined && current.sunsetAt === undefined ? '' : `<p style="margin:.5rem 1rem">${badges(current)}</p>`) +
    '<div id="swagger-ui"></div>' +
    `<script src="${escapeHtml(assets.js)}"></script><script src="${escapeHtml(assets.preset)}"></script>` +
    `<script>window.ui = SwaggerUIBundle(Object.assign(${scriptJson(config)}, { presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset] }))\n` +
    // Picking another definition in the switcher opens that version's page, so that title, links and UI agree.
    `document.addEventListener('change', function (event) { var pages = ${scriptJson(pages)}; var target = event.target; ` +
    'if (target && target.id === \'select\' && pages[target.value]) window.location.assign(pages[target.value]) })</script>' +
    '</body></html>\n'
}

/** ReDoc for one version, with links to the other versions. */
export function redocPage (context: PageContext, script: string, entries: readonly VersionEntry[], current: VersionEntry): string {
  return `${head(`${context.title}: ${current.label}: ReDoc`, context.faviconUrl)}<body>` +
    `${navigation(context, entries, current, context.redocUrl)}` +
    `<redoc spec-url="${escapeHtml(documentUrl(context, current.key))}"></redoc><script src="${escapeHtml(script)}"></script></body></html>\n`
}

function navigation (context: PageContext, entries: readonly VersionEntry[], current: VersionEntry, base: string | null): string {
  const links = entries.map((entry) => entry.key === current.key
    ? `<strong>${escapeHtml(entry.label)}</strong>`
    : `<a href="${escapeHtml(pageUrl(base ?? context.openapiUrl, entry.key))}">${escapeHtml(entry.label)}</a>`).join('')
  const all = context.docsUrl === null ? '' : `<a href="${escapeHtml(context.docsUrl)}">All versions</a>`
  return `<nav class="versions" aria-label="API versions">${all}${links}</nav>`
}

/** The page for a version that has no documentation. */
export function notFoundPage (context: PageContext, requested: string, entries: readonly VersionEntry[]): string {
  const available = entries.map((entry) => entry.label).join(', ')
  return `${head(`${context.title}: unknown version`, context.faviconUrl)}<body><main><h1>No documentation for version ` +
    `'${escapeHtml(requested)}'</h1><p>Available versions: ${escapeHtml(available)}.</p>` +
    (context.docsUrl === null ? '' : `<p><a href="${escapeHtml(context.docsUrl)}">All versions</a></p>`) + '</main></body></html>\n'
}
