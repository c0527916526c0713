/**
 * Helpers for the schema-generation tests (not a test file: tap runs only `*.test.ts` files).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import {
  generateVersionedSchemas, HeadVersion, Version, VersionBundle, type Instruction, type SchemaLookup,
  type VersionedSchemas
} from '../../plugin'
import { changeClass } from './version-changes'

/** The newest version of the bundles made by {@link bundleWith}; its change holds the instructions. */
export const LATEST = '2001-01-01'
/** The oldest version of the bundles made by {@link bundleWith}: what the instructions describe. */
export const OLD = '2000-01-01'

/** A bundle `2001-01-01` (made by one change holding `instructions`) → `2000-01-01`. */
export function bundleWith (instructions: Instruction[], name = 'TestChange'): VersionBundle {
  return new VersionBundle(new HeadVersion(), new Version(LATEST, changeClass(name, instructions)), new Version(OLD))
}

/** The versioned schemas of {@link bundleWith}. */
export function generateWith (instructions: Instruction[], name = 'TestChange'): VersionedSchemas {
  return generateVersionedSchemas(bundleWith(instructions, name))
}

/** The schemas of `2000-01-01` in {@link bundleWith}. */
export function oldSchemas (instructions: Instruction[], name = 'TestChange'): SchemaLookup {
  return generateWith(instructions, name).get(OLD)
}

/** The JSON a schema serialises to (no symbols), for structural comparison. */
export function plain (schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema))
}

/** Property names of an object schema, in order. */
export function keysOf (schema: TSchema): string[] {
  return Object.keys((schema as unknown as { properties: Record<string, unknown> }).properties)
}

/** The `required` list of an object schema (`[]` when absent). */
export function requiredOf (schema: TSchema): string[] {
  return [...((schema as { required?: string[] }).required ?? [])]
}

/** A property of an object schema. */
export function prop (schema: TSchema, key: string): TSchema & Record<string, unknown> {
  return (schema as unknown as { properties: Record<string, TSchema & Record<string, unknown>> }).properties[key]
}

interface Teardown {
  teardown: (fn: () => unknown) => void
}

/**
 * A Fastify app with `POST /` validating its body with `body` (and `shared` added with `addSchema`), closed at
 * the end of the test. The handler echoes the validated body.
 */
export function bodyApp (t: Teardown, body: TSchema, shared: TSchema[] = []): FastifyInstance {
  const app = Fastify()
  for (const schema of shared) app.addSchema(schema)
  app.post('/', { schema: { body } }, async (request) => request.body)
  t.teardown(() => app.close())
  return app
}

/** Posts `payload` to `app` and gives the status code and the parsed body. */
export async function post (app: FastifyInstance, payload: unknown): Promise<{ status: number, body: unknown }> {
  const response = await app.inject({ method: 'POST', url: '/', payload: payload as Record<string, unknown> })
  return { status: response.statusCode, body: response.json() }
}

/** The status codes Fastify answers for each payload, validated against `body`. */
export async function statuses (t: Teardown, body: TSchema, payloads: unknown[], shared: TSchema[] = []): Promise<number[]> {
  const app = bodyApp(t, body, shared)
  const result: number[] = []
  for (const payload of payloads) result.push((await post(app, payload)).status)
  return result
}

/** Freezes `value` and everything reachable from it (string and symbol keys). */
export function deepFreeze<T> (value: T, seen = new Set<unknown>()): T {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value
  seen.add(value)
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<string | symbol, unknown>)[key], seen)
  return Object.freeze(value)
}

/**
 * A schema as TypeBox 1.x (the `typebox` package) builds it: plain keywords, its kind and modifiers under
 * non-enumerable keys (`~kind`, `~optional`, `~readonly`), which a copy leaves behind.
 * @example
 * ```ts
 * typebox1({ type: 'string' }, { '~kind': 'String', '~optional': true }) // as Type.Optional(Type.String()) of TypeBox 1.x
 * ```
 */
export function typebox1 (keywords: Record<string, unknown>, marks: Record<string, unknown>): TSchema {
  const schema = { ...keywords }
  for (const [key, value] of Object.entries(marks)) Object.defineProperty(schema, key, { value, enumerable: false, writable: true, configurable: true })
  return schema as unknown as TSchema
}
