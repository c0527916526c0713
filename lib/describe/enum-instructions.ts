/**
 * The builder `enumeration(E)`: how an enum's members looked before.
 * @module
 */
import { VersionerStructureError } from '../core/errors'
import { checkNotEmpty, makeInstruction, type EnumDidntHaveInstruction, type EnumHadInstruction, type EnumValue } from './instructions'
import { describeSchema, describeValue, type SchemaLike } from '../core/json-schema'
import { checkName, checkSchemaArgument } from './schema-instructions'

/**
 * Instructions about an enum schema (a union of literals, or a schema with an `enum` keyword).
 * @example
 * ```ts
 * const Status = Type.Union([Type.Literal('active'), Type.Literal('closed')], { $id: 'Status' })
 * const status: EnumInstructionBuilder = enumeration(Status)
 * const instructions = [status.didntHave('closed')]
 * ```
 */
export interface EnumInstructionBuilder {
  /** The enum had these members (name → value): added, or with another value. */
  had: (members: Record<string, EnumValue>) => EnumHadInstruction
  /** The enum lacked these members (by name). */
  didntHave: (...members: string[]) => EnumDidntHaveInstruction
}

const ENUM_VALUE_TYPES = new Set(['string', 'number', 'boolean'])

/**
 * Starts an instruction about an enum: a union of literals (`Type.Union([Type.Literal('a'), …])`,
 * `Type.Enum(...)`) or a schema with an `enum` keyword. JSON Schema keeps only values, so a member's name
 * is its value as a string (`'active'`, or `'2'` for the number 2).
 * @example
 * ```ts
 * const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')], { $id: 'Status' }) // HEAD
 * enumeration(Status).didntHave('archived')        // 'archived' was added since
 * enumeration(Status).had({ pending: 'pending' })  // 'pending' was removed since
 * enumeration(Status).had({ active: 'enabled' })   // the value 'active' was called 'enabled'
 * ```
 */
export function enumeration (target: SchemaLike): EnumInstructionBuilder {
  checkSchemaArgument(target, 'enumeration')
  const base = `enumeration(${describeSchema(target)})`
  return {
    had (members: Record<string, EnumValue>): EnumHadInstruction {
      const display = `${base}.had(${describeValue(members)})`
      checkNotEmpty(members, `${display}: had() needs at least one member, as { name: value }.`)
      for (const [name, value] of Object.entries(members)) {
        if (value !== null && !ENUM_VALUE_TYPES.has(typeof value)) {
          throw new VersionerStructureError(`${display}: member '${name}' must have a string, number, boolean or null value.`)
        }
      }
      return makeInstruction<EnumHadInstruction>({ kind: 'enum.had', display, schema: target, members: Object.freeze({ ...members }) })
    },
    didntHave (...members: string[]): EnumDidntHaveInstruction {
      const display = `${base}.didntHave(${members.map(describeValue).join(', ')})`
      if (members.length === 0) throw new VersionerStructureError(`${display}: didntHave() needs at least one member name.`)
      for (const member of members) checkName(member, `${display}: a member name`)
      return makeInstruction<EnumDidntHaveInstruction>({ kind: 'enum.didntHave', display, schema: target, members: Object.freeze([...members]) })
    }
  }
}
