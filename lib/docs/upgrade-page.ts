/**
 * The upgrade guide's route, `GET <docsUrl>/upgrade?from=A&to=B`: an HTML page (no script, so it works under a
 * strict Content-Security-Policy, offline), or with `?format=json` the guide's data (./upgrade-guide.ts). `from`
 * and `to` are versions as requests name them (a date between versions is the older one); `from` must be older.
 * Anything else is a 400 `FST_VERSIONER_INVALID_UPGRADE_RANGE` listing the versions.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { InvalidUpgradeRangeError } from '../core/errors'
import { resolveVersion } from '../serve/version-picking'
import type { DocsVersionOptions } from './options'
import { escapeHtml, head, upgradeUrl, type PageContext } from './pages'
import type { UpgradeChange, UpgradeGuide, UpgradeGuides } from './upgrade-guide'

/** The upgrade guide's query. */
const UpgradeQuery = {
  type: 'object',
  properties: {
    from: { type: 'string', description: 'The version a client uses now.' },
    to: { type: 'string', description: 'A newer version it upgrades to.' },
    format: { type: 'string', description: '`json` for the data.' }
  }
} as const

/** The two versions of a request, or the 400 saying what is accepted. */
function range (query: { from?: string, to?: string, format?: string }, options: DocsVersionOptions): { from: string, to: string } {
  const values = options.versions.releasedValues
  const accepted = `Ask for ?from=<version>&to=<newer version> (add &format=json for the data), with two of the versions ${values.join(', ')} (newest first).`
  if (query.format !== undefined && query.format !== 'json') throw new InvalidUpgradeRangeError(`Unknown format '${query.format}': the only format is json. ${accepted}`)
  const pick = (name: 'from' | 'to'): string => {
    const value = query[name]
    const picked = resolveVersion(value, options.versions, options.format)
    if (!picked.ok) {
      throw new InvalidUpgradeRangeError(value === undefined || value === '' ? `Missing '${name}'. ${accepted}` : `'${name}' ${JSON.stringify(value)} is not a version this API serves. ${accepted}`)
    }
    return picked.version
  }
  const from = pick('from')
  const to = pick('to')
  if (values.indexOf(from) <= values.indexOf(to)) {
    throw new InvalidUpgradeRangeError(`'from' (${from}) must be older than 'to' (${to}). ${accepted}`)
  }
  return { from, to }
}

function json (value: unknown): string {
  return escapeHtml(JSON.stringify(value, null, 2) ?? 'undefined')
}

function versionSelect (name: string, values: readonly string[], selected: string): string {
  const options = values.map((value) => `<option${value === selected ? ' selected' : ''}>${escapeHtml(value)}</option>`).join('')
  return `<label>${name} <select name="${name}">${options}</select></label>`
}

function changeSection (change: UpgradeChange): string {
  const operations = change.operations.map((operation) =>
    `<li><code>${escapeHtml(`${operation.method} ${operation.path}`)}</code>${operation.status === 'changed' ? '' : ` <span class="badge">${operation.status}</span>`}</li>`)
  const webhooks = change.webhooks.map((webhook) => `<li><code>${escapeHtml(`webhook ${webhook.name} (${webhook.method})`)}</code></li>`)
  const affected = [...operations, ...webhooks]
  const examples = change.examples.map((example) =>
    `<div class="example"><h4>${escapeHtml(`${example.operation}: ${example.part}${example.status === undefined ? '' : ` (${example.status})`}`)}</h4>` +
    `<div class="before"><h5>${escapeHtml(change.previousVersion)} (before)</h5><pre>${json(example.before)}</pre></div>` +
    `<div class="after"><h5>${escapeHtml(change.version)} (after)</h5><pre>${json(example.after)}</pre></div></div>`).join('')
  const notes = change.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')
  return `<section class="change"><h2>${escapeHtml(change.version)}: ${escapeHtml(change.name)}</h2>` +
    `<p>${escapeHtml(change.description)}</p>${change.sideEffects ? '<p><span class="badge deprecated">side effects</span></p>' : ''}` +
    `<h3>Affects</h3>${affected.length === 0 ? '<p>No operation or webhook.</p>' : `<ul>${affected.join('')}</ul>`}` +
    (examples === '' ? '' : `<h3>Examples</h3>${examples}`) + (notes === '' ? '' : `<h3>Notes</h3><ul>${notes}</ul>`) + '</section>'
}

/** The HTML of a guide: a form to pick two versions, then every change, newest last. */
function upgradePage (context: PageContext, guide: UpgradeGuide, values: readonly string[], base: string): string {
  const title = `${context.title}: upgrading from ${guide.from} to ${guide.to}`
  const all = context.docsUrl === null ? '' : `<a href="${escapeHtml(context.docsUrl)}">All versions</a>`
  const form = `<form method="get" action="${escapeHtml(base)}" class="range">${versionSelect('from', values, guide.from)} ` +
    `${versionSelect('to', values, guide.to)} <button type="submit">Show</button> ` +
    `<a href="${escapeHtml(`${upgradeUrl(base, guide.from, guide.to)}&format=json`)}">JSON</a></form>`
  const changes = guide.changes.length === 0 ? '<p>No change between these versions.</p>' : guide.changes.map(changeSection).join('\n')
  return `${head(context, title)}<body><nav class="versions" aria-label="API versions">${all}</nav><main>` +
    `<h1>${escapeHtml(title)}</h1>${form}<p>${guide.changes.length} change(s), oldest first.</p>\n${changes}</main></body></html>\n`
}

/** Registers `GET <url>` (the docs page's URL + `/upgrade`). */
export function registerUpgradeGuide (
  fastify: FastifyInstance,
  at: { readonly url: string, readonly link: string, readonly context: PageContext },
  options: DocsVersionOptions,
  guides: UpgradeGuides,
  hooks: RouteShorthandOptions
): void {
  const pages = new Map<string, string>()
  fastify.get(at.url, { ...hooks, schema: { hide: true, querystring: UpgradeQuery } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as { from?: string, to?: string, format?: string }
    const { from, to } = range(query, options)
    const guide = await guides.guide(from, to)
    reply.header('x-content-type-options', 'nosniff')
    if (query.format === 'json') return reply.type('application/json; charset=utf-8').send(guide)
    const key = `${from}\n${to}`
    let page = pages.get(key)
    if (page === undefined) pages.set(key, page = upgradePage(at.context, guide, options.versions.releasedValues, at.link))
    return reply.type('text/html; charset=utf-8').send(page)
  })
}
