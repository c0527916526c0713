/**
 * Reading the docs pages in inject tests: their script elements, the Swagger UI settings data block, anything that
 * would run or style inline (which a strict Content-Security-Policy refuses), and the upgrade guide's JSON.
 */
import type { FastifyInstance } from 'fastify'
import type { UpgradeGuide } from '../../lib/docs/upgrade-guide'
export interface ScriptElement { attributes: string, body: string }

/** Every `<script>` element of a page (attributes and inline body). */
export function scripts (html: string): ScriptElement[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)].map((match) => ({ attributes: match[1], body: match[2] }))
}

/** The `src` of every external script. */
export function scriptSources (html: string): string[] {
  return scripts(html).map((element) => /\bsrc="([^"]*)"/.exec(element.attributes)?.[1]).filter((src): src is string => src !== undefined)
}

/** The settings data block of a Swagger page (JSON in `<script type="application/json">`, read by the initializer). */
export function settingsBlock (html: string): ScriptElement {
  const block = scripts(html).find((element) => element.attributes.includes('type="application/json"'))
  if (block === undefined) throw new Error('no settings data block in the page')
  return block
}

/** The settings a Swagger page gives its initializer script. */
export function swaggerSettings (html: string): { config: Record<string, unknown>, initOAuth: unknown, oauth2RedirectUrl: string, pages: Record<string, string> } {
  return JSON.parse(settingsBlock(html).body) as ReturnType<typeof swaggerSettings>
}

/** The configuration given to `SwaggerUIBundle`. */
export function swaggerConfig (html: string): Record<string, unknown> {
  return swaggerSettings(html).config
}

/** Script that would run inline: `<script>` elements without `src` other than JSON data blocks, event handlers, styles. */
export function inlineCode (html: string): string[] {
  return [
    ...scripts(html).filter((element) => !/\bsrc="/.test(element.attributes) && !element.attributes.includes('type="application/json"'))
      .map((element) => `<script${element.attributes}>`),
    ...eventHandlerTags(html),
    ...[...html.matchAll(/<style\b|\sstyle=/gi)].map((match) => match[0])
  ]
}

/** Opening tags carrying an event-handler attribute (`onerror=`, `onmouseover=`…). */
export function eventHandlerTags (html: string): string[] {
  return [...html.matchAll(/<[a-z][^>]*\son[a-z]+\s*=[^>]*>/gi)].map((match) => match[0])
}

/** The upgrade guide from `from` to `to`, as JSON (a status other than 200 throws, with the body). */
export async function guideOf (app: FastifyInstance, from: string, to: string): Promise<UpgradeGuide> {
  const response = await app.inject(`/docs/upgrade?from=${from}&to=${to}&format=json`)
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`)
  return response.json<UpgradeGuide>()
}
