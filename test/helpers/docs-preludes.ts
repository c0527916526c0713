/**
 * What a TypeScript or JavaScript block of the docs (or a JSDoc `@example`) may use without declaring it, for
 * test/docs-code-blocks.test.ts and test/jsdoc-examples.test.ts.
 *
 * - Automatic imports: a name the block uses but neither imports nor declares is imported when the package exports
 *   it (an entry of package.json's `exports`, read by test/helpers/docs-program.ts), or when it is TypeBox's `Type` /
 *   `Static` / `TSchema`, or Fastify's default export `Fastify` and its `FastifyInstance` / `FastifyRequest` / `FastifyReply` / `FastifyPluginAsync` types.
 * - Named preludes (`<!-- check: prelude=name -->`): declarations of names an excerpt refers to, e.g. the example
 *   application's schemas, or an `app` with the plugin registered. Only the names the block uses are added.
 *
 * Imports of 'fastify-versioner' and 'fastify-versioner/tools' (the block's own and the automatic ones) are rewritten
 * to the repository's plugin.ts and tools.ts, so blocks are checked against the sources.
 */
import ts from 'typescript'

/** One name a block may use: imported from a module (`from`), or declared by a line of code (`declare`). */
export interface Provided {
  readonly name: string
  readonly from?: string
  readonly isDefault?: boolean
  readonly isType?: boolean
  readonly declare?: string
}

/** The automatic imports besides the package's own exports. */
export const LIBRARY_IMPORTS: readonly Provided[] = [
  { name: 'Type', from: '@sinclair/typebox' },
  { name: 'Static', from: '@sinclair/typebox', isType: true },
  { name: 'TSchema', from: '@sinclair/typebox', isType: true },
  { name: 'Fastify', from: 'fastify', isDefault: true },
  ...['FastifyInstance', 'FastifyRequest', 'FastifyReply', 'FastifyPluginAsync'].map((name) => ({ name, from: 'fastify', isType: true }))
]

const USERS = 'examples/users'

/**
 * Named preludes. Module paths starting with `examples/` are the repository's files. Every declaration is typed
 * the way the example application or a plain Fastify application has it, so that excerpts are checked for real.
 */
export const PRELUDES: Readonly<Record<string, readonly Provided[]>> = {
  /** The example application of examples/users: its schemas, version changes, bundle and `buildApp`. */
  users: [
    ...['UserCreateRequest', 'UserResource', 'UserAddressResource', 'UserAddressResourceList', 'UserParams', 'NotFound', 'EXAMPLE_USER_ID']
      .map((name) => ({ name, from: `${USERS}/schemas` })),
    ...['versions', 'HideInternalUserFields', 'MoveUserAddressesToTheirOwnEndpoint', 'ReplaceUserAddressWithListOfAddresses']
      .map((name) => ({ name, from: `${USERS}/versions` })),
    { name: 'buildApp', from: `${USERS}/app` }
  ],
  /**
   * An application (`app`), bundles and HEAD routes to register (`versions`, `routes`, and two APIs' `publicVersions`…), and
   * an account store (`accounts`).
   */
  app: [
    { name: 'app', declare: 'declare const app: FastifyInstance' },
    { name: 'versions', declare: 'declare const versions: VersionBundle' },
    { name: 'routes', declare: 'declare const routes: FastifyPluginAsync' },
    { name: 'publicVersions', declare: 'declare const publicVersions: VersionBundle' },
    { name: 'partnerVersions', declare: 'declare const partnerVersions: VersionBundle' },
    { name: 'publicRoutes', declare: 'declare const publicRoutes: FastifyPluginAsync' },
    { name: 'partnerRoutes', declare: 'declare const partnerRoutes: FastifyPluginAsync' },
    { name: 'accounts', declare: 'declare const accounts: { pinnedVersion: (apiKey: string | undefined) => Promise<string | undefined> }' }
  ],
  /** HEAD schemas an excerpt refers to (a user, an order), and a subscriber of webhooks pinned to a version. */
  schemas: [
    { name: 'User', declare: "const User = Type.Object({ fullName: Type.String() }, { $id: 'User' })" },
    { name: 'OrderResource', declare: "const OrderResource = Type.Object({ id: Type.String(), status: Type.String() }, { $id: 'OrderResource' })" },
    { name: 'order', declare: 'declare const order: Static<typeof OrderResource>' },
    { name: 'subscriber', declare: 'declare const subscriber: { url: string, apiVersion: string }' }
  ]
}

/** The names a source declares at its top level (imports included). */
export function declaredNames (source: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  const addBinding = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text)
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) addBinding(element.name)
  }
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause !== undefined) {
      const clause = statement.importClause
      if (clause.name !== undefined) names.add(clause.name.text)
      const bindings = clause.namedBindings
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) names.add(bindings.name.text)
      if (bindings !== undefined && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text)
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) addBinding(declaration.name)
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name !== undefined) {
      names.add(statement.name.text)
    }
  }
  return names
}

/** Every identifier a source mentions. */
export function usedNames (source: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) names.add(node.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return names
}

/**
 * The lines to put before a block: imports and declarations of the names it uses without declaring them, from
 * `available` (a prelude's declarations may use further names, added too). `resolve` turns a module of `available`
 * into the specifier to write.
 */
export function preludeLines (code: string, available: readonly Provided[], resolve: (module: string) => string, js = false): string[] {
  const parse = (text: string): ts.SourceFile => ts.createSourceFile(js ? 'block.js' : 'block.ts', text, ts.ScriptTarget.Latest, true)
  const block = parse(code)
  const declared = declaredNames(block)
  const byName = new Map<string, Provided>()
  for (const item of available) if (!byName.has(item.name)) byName.set(item.name, item)
  const chosen = new Map<string, Provided>()
  const pending = [...usedNames(block)]
  while (pending.length > 0) {
    const name = pending.pop() as string
    const item = byName.get(name)
    if (item === undefined || declared.has(name) || chosen.has(name)) continue
    if (js && item.isType === true) continue
    chosen.set(name, item)
    if (item.declare !== undefined) pending.push(...usedNames(parse(item.declare)))
  }
  const imports = new Map<string, { defaultName?: string, named: string[] }>()
  for (const item of chosen.values()) {
    if (item.from === undefined) continue
    const entry = imports.get(item.from) ?? { named: [] }
    if (item.isDefault === true) entry.defaultName = item.name
    else entry.named.push(item.isType === true ? `type ${item.name}` : item.name)
    imports.set(item.from, entry)
  }
  const lines = [...imports].map(([from, { defaultName, named }]) => {
    const parts = [defaultName, named.length > 0 ? `{ ${named.sort().join(', ')} }` : undefined].filter((part) => part !== undefined)
    return `import ${parts.join(', ')} from '${resolve(from)}'`
  })
  // Declarations in the order the preludes list them (one may use another).
  for (const item of available) if (chosen.get(item.name) === item && item.declare !== undefined) lines.push(item.declare)
  return lines
}

/**
 * Declarations of the modules the docs show but the repository does not install (an application's own
 * dependencies in a recipe), written as `modules.d.ts` next to the blocks: only the parts the docs use, with the
 * libraries' own signatures, so that what a block does with the plugin's values is still checked.
 */
export const MODULE_STUBS = `declare module 'prom-client' {
  export class Counter<T extends string = string> {
    constructor (configuration: { name: string, help: string, labelNames?: readonly T[] })
    inc (labels?: Partial<Record<T, string | number>>, value?: number): void
  }
  export class Gauge<T extends string = string> {
    constructor (configuration: { name: string, help: string, labelNames?: readonly T[] })
    set (labels: Partial<Record<T, string | number>>, value: number): void
  }
}
declare module '@opentelemetry/api' {
  export type AttributeValue = string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>
  export interface Span { setAttributes (attributes: Record<string, AttributeValue | undefined>): this }
  export const trace: { getActiveSpan (): Span | undefined }
  export interface Counter { add (value: number, attributes?: Record<string, AttributeValue | undefined>): void }
  export interface Meter { createCounter (name: string, options?: { description?: string }): Counter }
  export const metrics: { getMeter (name: string): Meter }
}
`
