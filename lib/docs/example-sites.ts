/**
 * Where an OpenAPI 3.1 document holds examples, each with the schema it must match. The walk is a queue, not
 * recursion, and never walks into example values.
 * @module
 */

import { isSchemaObject, pointerSegment } from '../core/json-schema'
import { operationKeysOf } from './openapi-schemas'

type Json = Record<string, unknown>

/**
 * One example in a document, and the schema it must match.
 * @example
 * ```ts
 * const [site] = walkDocument(document) // { pointer: '/components/schemas/User/examples/0', schemaPointer: '/components/schemas/User', … }
 * ```
 */
interface ExampleSite {
  /** JSON pointer of the example value. */
  readonly pointer: string
  /** The example value (an Example Object's `value`). */
  readonly value: unknown
  /** JSON pointer of the schema the value must match. */
  readonly schemaPointer: string
  /** That schema node. */
  readonly schema: Json
  /** The object holding the example: a schema node, a parameter, a header or a media type. */
  readonly holder: Json
  /** `examples` (an array on schema nodes, a map of Example Objects elsewhere) or `example`. */
  readonly key: 'examples' | 'example'
  /** The index in a schema's `examples`, the name in an `examples` map; `undefined` for `example`. */
  readonly entry: number | string | undefined
}

/** A schema, an object holding one (a parameter, header, media type, request body or response), a path item, or a map of one of them. */
type Kind = 'schema' | 'holder' | 'pathItem' | 'map'

interface Task {
  readonly kind: Kind
  readonly value: unknown
  readonly pointer: string
  /** For `map` tasks: the kind of each member. */
  readonly member?: Kind
}

/** Keywords whose value is one subschema, a map of subschemas, or a list of subschemas. */
const SINGLE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties',
  'unevaluatedItems', 'additionalItems', 'contentSchema']
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']

/**
 * The examples of a document: walks the parts of a document that hold schemas and examples, components first,
 * then paths, then webhooks, breadth first.
 * @example
 * ```ts
 * const sites = walkDocument(document)
 * console.log(sites.map((site) => site.pointer))
 * ```
 */
export function walkDocument (document: Json): ExampleSite[] {
  const sites: ExampleSite[] = []
  const queue: Task[] = []
  const push = (kind: Kind, value: unknown, pointer: string, member?: Kind): void => {
    if (isSchemaObject(value) || (kind === 'map' && Array.isArray(value))) queue.push({ kind, value, pointer, member })
  }
  const at = (base: string, key: string | number): string => `${base}/${pointerSegment(key)}`
  const components: Json = isSchemaObject(document.components) ? document.components : {}
  push('map', components.schemas, '/components/schemas', 'schema')
  push('map', components.parameters, '/components/parameters', 'holder')
  push('map', components.headers, '/components/headers', 'holder')
  push('map', components.requestBodies, '/components/requestBodies', 'holder')
  push('map', components.responses, '/components/responses', 'holder')
  push('map', document.paths, '/paths', 'pathItem')
  push('map', document.webhooks, '/webhooks', 'pathItem')
  for (let index = 0; index < queue.length; index++) {
    const { kind, value, pointer, member } = queue[index]
    const node = value as Json
    switch (kind) {
      case 'map':
        for (const [key, item] of Object.entries(node)) push(member as Kind, item, at(pointer, key))
        break
      case 'schema':
        examplesOf(node, node, { pointer, schemaPointer: pointer, inSchema: true }, sites)
        for (const keyword of SINGLE) push('schema', node[keyword], at(pointer, keyword))
        for (const keyword of MAP) push('map', node[keyword], at(pointer, keyword), 'schema')
        for (const keyword of LIST) push('map', Array.isArray(node[keyword]) ? node[keyword] : undefined, at(pointer, keyword), 'schema')
        break
      case 'holder':
        if (isSchemaObject(node.schema)) examplesOf(node, node.schema, { pointer, schemaPointer: at(pointer, 'schema'), inSchema: false }, sites)
        push('schema', node.schema, at(pointer, 'schema'))
        push('map', node.headers, at(pointer, 'headers'), 'holder')
        push('map', node.content, at(pointer, 'content'), 'holder')
        break
      case 'pathItem':
        push('map', node.parameters, at(pointer, 'parameters'), 'holder')
        // Built or finished: a QUERY route's operation is under `x-query` once finished.
        for (const method of operationKeysOf(node)) {
          const operation = node[method]
          if (!isSchemaObject(operation)) continue
          const base = at(pointer, method)
          push('map', operation.parameters, at(base, 'parameters'), 'holder')
          push('holder', operation.requestBody, at(base, 'requestBody'))
          push('map', operation.responses, at(base, 'responses'), 'holder')
        }
        break
    }
  }
  return sites
}

/** The examples `holder` holds: an array on a schema node, a map of Example Objects (their `value`) elsewhere. */
function examplesOf (holder: Json, schema: Json, at: { readonly pointer: string, readonly schemaPointer: string, readonly inSchema: boolean }, sites: ExampleSite[]): void {
  const { pointer, schemaPointer, inSchema } = at
  const base = { schemaPointer, schema, holder }
  if (Object.hasOwn(holder, 'example')) sites.push({ ...base, pointer: `${pointer}/example`, value: holder.example, key: 'example', entry: undefined })
  const examples = holder.examples
  if (inSchema && Array.isArray(examples)) {
    examples.forEach((value: unknown, index) => sites.push({ ...base, pointer: `${pointer}/examples/${index}`, value, key: 'examples', entry: index }))
  } else if (!inSchema && isSchemaObject(examples)) {
    for (const [name, example] of Object.entries(examples)) {
      if (!isSchemaObject(example) || !Object.hasOwn(example, 'value')) continue
      sites.push({ ...base, pointer: `${pointer}/examples/${pointerSegment(name)}/value`, value: example.value, key: 'examples', entry: name })
    }
  }
}

/**
 * Leaves examples out of their document: entries of `examples` (which goes when it is empty) and `example`s.
 * @example
 * ```ts
 * leaveOut(walkDocument(document).filter((site) => validator.check(site.schemaPointer, site.value) !== undefined))
 * ```
 */
export function leaveOut (sites: readonly ExampleSite[]): void {
  const indices = new Map<Json, number[]>()
  for (const site of sites) {
    if (site.key === 'example') {
      delete site.holder.example
    } else if (typeof site.entry === 'string') {
      const map = site.holder.examples as Json
      delete map[site.entry]
      if (Object.keys(map).length === 0) delete site.holder.examples
    } else if (typeof site.entry === 'number') {
      indices.set(site.holder, [...(indices.get(site.holder) ?? []), site.entry])
    }
  }
  for (const [holder, gone] of indices) {
    const kept = (holder.examples as unknown[]).filter((_, index) => !gone.includes(index))
    if (kept.length === 0) delete holder.examples
    else holder.examples = kept
  }
}
