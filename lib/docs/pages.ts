/**
 * The HTML of the docs pages; every value is escaped for where it lands, and no page holds inline script or style.
 * @module
 */
import { SWAGGER_SETTINGS_ID } from './assets'
import type { UpgradeChange, UpgradeGuide } from './upgrade-guide'
import type { SwaggerAssets } from './options'

/** Escapes text for HTML content and quoted attributes. */
function escapeHtml (text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => `&#${character.charCodeAt(0)};`)
}

/** Serializes a value as JSON that is safe inside an HTML `<script>` element. */
function scriptJson (value: unknown): string {
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
  /** Its scheduled brownouts (ISO instants), when it has some. */
  readonly brownouts?: ReadonlyArray<{ readonly start: string, readonly end: string }>
  /** A preview version (its links ask for `channel=preview`). */
  readonly preview?: boolean
  /** The latest version, for the link to the upgrade guide from this one (versions older than the latest). */
  readonly upgradeTo?: string
}

/** What every page needs. */
export interface PageContext {
  readonly title: string
  readonly openapiUrl: string
  readonly docsUrl: string | null
  readonly redocUrl: string | null
  readonly faviconUrl: string | null
  /** The pages' style sheet (`<assets>/docs.css`). */
  readonly stylesheetUrl: string
  /** The upgrade guide (`<docsUrl>/upgrade`), or `null` without the docs page. */
  readonly upgradeUrl: string | null
  /** `'preview'` when the page was asked with `?channel=preview`: every link it holds asks for it too. */
  readonly channel?: 'preview'
}

/** The address of the upgrade guide between two versions (asking for `channel=preview` when `channel` says so). */
function upgradeUrl (base: string, from: string, to: string, channel?: 'preview'): string {
  return `${base}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${channel === 'preview' ? '&channel=preview' : ''}`
}

/** The "All versions" link, keeping the channel the page was asked with (`''` without the docs page). */
function allVersions ({ docsUrl, channel }: PageContext): string {
  return docsUrl === null ? '' : `<a href="${escapeHtml(channel === 'preview' ? `${docsUrl}?channel=preview` : docsUrl)}">All versions</a>`
}

/** The start of a page, up to `</head>`. No inline script or style: the pages work under a strict Content-Security-Policy. */
function head (context: PageContext, title: string, extra = ''): string {
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex">' +
    `<title>${escapeHtml(title)}</title>${context.faviconUrl === null ? '' : `<link rel="icon" href="${escapeHtml(context.faviconUrl)}">`}` +
    `<link rel="stylesheet" href="${escapeHtml(context.stylesheetUrl)}">${extra}</head>`
}

/** A version's page or document; a preview's asks for `channel=preview`, and every one does from a page asked with it. */
function pageUrl (base: string, entry: VersionEntry, context: PageContext): string {
  return `${base}?version=${encodeURIComponent(entry.key)}${entry.preview === true || context.channel === 'preview' ? '&channel=preview' : ''}`
}

/** The link from a version to its upgrade guide, after `before` (`''` when it has none). */
function upgradeLink (context: PageContext, entry: VersionEntry, before: string, word: string): string {
  if (entry.upgradeTo === undefined || context.upgradeUrl === null) return ''
  const href = escapeHtml(upgradeUrl(context.upgradeUrl, entry.key, entry.upgradeTo, context.channel))
  return `${before}<a class="upgrade" href="${href}">${word} guide to ${escapeHtml(entry.upgradeTo)}</a>`
}

function badges (entry: VersionEntry): string {
  return (entry.deprecatedAt === undefined ? '' : `<span class="badge deprecated">deprecated since ${escapeHtml(entry.deprecatedAt)}</span>`) +
    (entry.sunsetAt === undefined ? '' : `<span class="badge sunset">sunset ${escapeHtml(entry.sunsetAt)}</span>`) +
    (entry.preview === true ? '<span class="badge preview">preview</span>' : '')
}

/** The schedule of a version's brownouts (`''` when it has none): when its requests are answered as after its sunset. */
function brownoutSchedule (entry: VersionEntry): string {
  if (entry.brownouts === undefined) return ''
  const windows = entry.brownouts.map(({ start, end }) => `<li><time datetime="${escapeHtml(start)}">${escapeHtml(start)}</time> to ` +
    `<time datetime="${escapeHtml(end)}">${escapeHtml(end)}</time></li>`).join('')
  return `<div class="brownouts"><span class="badge sunset">brownouts</span> answered 410 Gone, as after its sunset, during:<ul>${windows}</ul></div>`
}

/** The page listing every version (and the unversioned routes) with links to their pages and documents. */
export function versionListPage (context: PageContext, entries: readonly VersionEntry[]): string {
  const rows = entries.map((entry) => {
    const links = [
      context.docsUrl === null ? '' : `<a href="${escapeHtml(pageUrl(context.docsUrl, entry, context))}">Swagger UI</a>`,
      context.redocUrl === null ? '' : `<a href="${escapeHtml(pageUrl(context.redocUrl, entry, context))}">ReDoc</a>`,
      `<a href="${escapeHtml(pageUrl(context.openapiUrl, entry, context))}">OpenAPI JSON</a>`
    ].filter((link) => link !== '').join(' · ')
    const more = (entry.link === undefined ? '' : ` <a href="${escapeHtml(entry.link)}">migration guide</a>`) + upgradeLink(context, entry, ' ', 'upgrade')
    return `<tr><td><strong>${escapeHtml(entry.label)}</strong>${badges(entry)}${more}${brownoutSchedule(entry)}</td><td>${links}</td></tr>`
  }).join('\n')
  return `${head(context, `${context.title}: API versions`)}<body><main><h1>${escapeHtml(context.title)}: API versions</h1>` +
    `<table><thead><tr><th>Version</th><th>Documentation</th></tr></thead><tbody>\n${rows}\n</tbody></table></main></body></html>\n`
}

/** The name of a version in Swagger UI's switcher: deprecated versions say so. */
function switcherName (entry: VersionEntry): string {
  const name = entry.preview === true ? `${entry.label} (preview)` : entry.label
  return entry.deprecatedAt === undefined ? name : `${name} (deprecated)`
}

/** Swagger UI for one version, with a switcher; its settings are a JSON data block the served initializer reads. */
export function swaggerPage (context: PageContext, assets: SwaggerAssets, entries: readonly VersionEntry[], current: VersionEntry): string {
  const settings = {
    config: {
      deepLinking: true,
      layout: 'StandaloneLayout',
      // No badge from validator.swagger.io: the page loads nothing from elsewhere unless uiConfig says so.
      validatorUrl: null,
      ...assets.uiConfig,
      urls: entries.map((entry) => ({ url: pageUrl(context.openapiUrl, entry, context), name: switcherName(entry) })),
      'urls.primaryName': switcherName(current),
      dom_id: '#swagger-ui'
    },
    initOAuth: assets.initOAuth ?? null,
    oauth2RedirectUrl: assets.oauth2RedirectUrl,
    pages: Object.fromEntries(entries.map((entry) => [pageUrl(context.openapiUrl, entry, context), pageUrl(context.docsUrl ?? '', entry, context)]))
  }
  return `${head(context, `${context.title}: ${current.label}: Swagger UI`, `<link rel="stylesheet" href="${escapeHtml(assets.css)}">`)}<body>` +
    `${navigation(context, entries, current, context.docsUrl)}` +
    (current.deprecatedAt === undefined && current.sunsetAt === undefined ? '' : `<p class="lifecycle">${badges(current)}</p>`) +
    brownoutSchedule(current) + '<div id="swagger-ui"></div>' +
    `<script type="application/json" id="${SWAGGER_SETTINGS_ID}">${scriptJson(settings)}</script>` +
    `<script src="${escapeHtml(assets.js)}"></script><script src="${escapeHtml(assets.preset)}"></script>` +
    `<script src="${escapeHtml(assets.initializer)}"></script></body></html>\n`
}

/** ReDoc for one version, with links to the other versions. */
export function redocPage (context: PageContext, script: string, entries: readonly VersionEntry[], current: VersionEntry): string {
  return `${head(context, `${context.title}: ${current.label}: ReDoc`)}<body>` +
    `${navigation(context, entries, current, context.redocUrl)}` +
    `<redoc spec-url="${escapeHtml(pageUrl(context.openapiUrl, current, context))}"></redoc><script src="${escapeHtml(script)}"></script></body></html>\n`
}

function navigation (context: PageContext, entries: readonly VersionEntry[], current: VersionEntry, base: string | null): string {
  const links = entries.map((entry) => entry.key === current.key
    ? `<strong>${escapeHtml(entry.label)}</strong>`
    : `<a href="${escapeHtml(pageUrl(base ?? context.openapiUrl, entry, context))}">${escapeHtml(entry.label)}</a>`).join('')
  return `<nav class="versions" aria-label="API versions">${allVersions(context)}${links}${upgradeLink(context, current, '', 'Upgrade')}</nav>`
}

/** The page for a version that has no documentation (`why`: what is wrong with the value, when there is something to say). */
export function notFoundPage (context: PageContext, requested: string, entries: readonly VersionEntry[], why?: string): string {
  const available = entries.map((entry) => entry.label).join(', ')
  return `${head(context, `${context.title}: unknown version`)}<body><main><h1>No documentation for version ` +
    `'${escapeHtml(requested)}'</h1>${why === undefined ? '' : `<p>${escapeHtml(why.charAt(0).toUpperCase() + why.slice(1))}</p>`}` +
    `<p>Available versions: ${escapeHtml(available)}.</p>` +
    (context.docsUrl === null ? '' : `<p>${allVersions(context)}</p>`) + '</main></body></html>\n'
}

function json (value: unknown): string {
  return escapeHtml(JSON.stringify(value, null, 2) ?? 'undefined')
}

function versionSelect (name: string, values: readonly string[], selected: string): string {
  // The value attribute: an option without one submits its text with whitespace collapsed.
  const options = values.map((value) => `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(value)}</option>`).join('')
  return `<label>${name} <select name="${name}">${options}</select></label>`
}

/** The status a version answers an example's error with, when a converter changed it: `, answered 400`. */
function answeredAs (status: number | undefined): string {
  return status === undefined ? '' : `, answered ${status}`
}

function changeSection (change: UpgradeChange): string {
  const badge = (status: string): string => status === 'changed' ? '' : ` <span class="badge">${status}</span>`
  const operations = change.operations.map((operation) =>
    `<li><code>${escapeHtml(`${operation.method} ${operation.path}`)}</code>` +
    `${operation.previousPath === undefined && operation.previousMethod === undefined ? '' : ` (was <code>${escapeHtml([operation.previousMethod, operation.previousPath].filter(Boolean).join(' '))}</code>)`}${badge(operation.status)}</li>`)
  const webhooks = change.webhooks.map((webhook) => `<li><code>${escapeHtml(`webhook ${webhook.name} (${webhook.method})`)}</code>${badge(webhook.status)}</li>`)
  const affected = [...operations, ...webhooks]
  const examples = change.examples.map((example) =>
    `<div class="example"><h4>${escapeHtml(`${example.operation}: ${example.part}${example.status === undefined ? '' : ` (${example.status})`}`)}</h4>` +
    (example.shows === undefined ? '' : `<p>With ${escapeHtml(example.shows)}:</p>`) +
    // An operation or webhook the change added has no `before`: the version after it only.
    (Object.hasOwn(example, 'before')
      ? `<div class="before"><h5>${escapeHtml(change.previousVersion)} (before${answeredAs(example.answered?.before)})</h5><pre>${json(example.before)}</pre></div>` +
        `<div class="after"><h5>${escapeHtml(change.version)} (after${answeredAs(example.answered?.after)})</h5><pre>${json(example.after)}</pre></div>`
      : `<div class="after"><h5>${escapeHtml(change.version)} (added by this change)</h5><pre>${json(example.after)}</pre></div>`) + '</div>').join('')
  const notes = change.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')
  return `<section class="change"><h2>${escapeHtml(change.version)}: ${escapeHtml(change.name)}</h2>` +
    `<p>${escapeHtml(change.description)}</p>${change.sideEffects ? '<p><span class="badge deprecated">side effects</span></p>' : ''}` +
    `<h3>Affects</h3>${affected.length === 0 ? '<p>No operation or webhook.</p>' : `<ul>${affected.join('')}</ul>`}` +
    (examples === '' ? '' : `<h3>Examples</h3>${examples}`) + (notes === '' ? '' : `<h3>Notes</h3><ul>${notes}</ul>`) + '</section>'
}

/** The HTML of a guide: a form to pick two versions, then every change, newest last. */
export function upgradePage (context: PageContext, guide: UpgradeGuide, values: readonly string[], base: string): string {
  const title = `${context.title}: upgrading from ${guide.from} to ${guide.to}`
  const channel = context.channel === 'preview' ? '<input type="hidden" name="channel" value="preview">' : ''
  const form = `<form method="get" action="${escapeHtml(base)}" class="range">${versionSelect('from', values, guide.from)} ` +
    `${versionSelect('to', values, guide.to)}${channel} <button type="submit">Show</button> ` +
    `<a href="${escapeHtml(`${upgradeUrl(base, guide.from, guide.to)}&format=json${context.channel === 'preview' ? '&channel=preview' : ''}`)}">JSON</a></form>`
  const changes = guide.changes.length === 0 ? '<p>No change between these versions.</p>' : guide.changes.map(changeSection).join('\n')
  return `${head(context, title)}<body><nav class="versions" aria-label="API versions">${allVersions(context)}</nav><main>` +
    `<h1>${escapeHtml(title)}</h1>${form}<p>${guide.changes.length} change(s), oldest first.</p>\n${changes}</main></body></html>\n`
}
