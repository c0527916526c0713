/**
 * The changelog's resource: its JSON schema (the response schema of the changelog endpoint) and types.
 * @module
 */
import { Type, type Static } from '@sinclair/typebox'

const Value = Type.Unknown()

/** One entry of a version change in the changelog. */
const ChangelogEntry = Type.Object({
  type: Type.Union([
    Type.Literal('endpoint.added'), Type.Literal('endpoint.removed'), Type.Literal('endpoint.changed'),
    Type.Literal('schema.renamed'), Type.Literal('schema.attributes.changed'), Type.Literal('schema.field.added'), Type.Literal('schema.field.removed'),
    Type.Literal('schema.field.attributes.changed'), Type.Literal('schema.validator.added'), Type.Literal('schema.validator.removed'),
    Type.Literal('enum.members.added'), Type.Literal('enum.members.removed')
  ]),
  path: Type.Optional(Type.String()),
  methods: Type.Optional(Type.Array(Type.String())),
  models: Type.Optional(Type.Array(Type.String())),
  previousName: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  schema: Type.Optional(Value),
  validator: Type.Optional(Type.String()),
  members: Type.Optional(Type.Array(Value)),
  changes: Type.Optional(Type.Array(Type.Object({
    name: Type.String(),
    status: Type.Optional(Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('removed')])),
    previousValue: Type.Optional(Value),
    newValue: Type.Optional(Value)
  })))
})

/** The changelog resource. */
export const ChangelogResource = Type.Object({
  versions: Type.Array(Type.Object({
    value: Type.String(),
    changes: Type.Array(Type.Object({
      description: Type.String(),
      sideEffects: Type.Boolean(),
      instructions: Type.Array(ChangelogEntry)
    }))
  }))
}, { $id: 'FastifyVersionerChangelog' })

/** An entry of the changelog. */
export type ChangelogEntryData = Static<typeof ChangelogEntry>

/** The changelog. */
export type Changelog = Static<typeof ChangelogResource>
