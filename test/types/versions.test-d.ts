// Versions, bundles, version changes and errors, as a user of the built package sees them.
import { AsyncLocalStorage } from 'node:async_hooks'
import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import { Type } from '@sinclair/typebox'
import {
  errorCodes, HeadVersion, InvalidGenerationInstructionError, LintingError, schema, Version, VersionBundle, VersionChange,
  VersionChangeWithSideEffects, VersionerStructureError, type Instruction, type VersionChangeClass, type VersionLifecycle
} from '../..'
import { isAny } from './helpers'

const User = Type.Object({ id: Type.String(), name: Type.String() })

class RenameName extends VersionChange {
  description = 'User.name was called fullName.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ name: 'fullName' })]
}

class SendWelcomeEmail extends VersionChangeWithSideEffects {
  description = 'Creating a user now sends a welcome email.'
  instructionsToMigrateToPreviousVersion = []
}

// Version: a string or a Date, then version change classes, then optionally lifecycle dates.
expectType<Version>(new Version('2001-01-01', RenameName))
expectType<Version>(new Version(new Date('2000-01-01')))
expectType<Version>(new Version('2000-01-01', { deprecatedAt: new Date('2025-01-01'), sunsetAt: '2026-01-01', link: 'https://example.com' }))
expectType<Version>(new Version('2001-01-01', RenameName, SendWelcomeEmail, { deprecatedAt: '2025-01-01' }))
expectError(new Version(20010101))
expectError(new Version())
expectError(new Version('2001-01-01', 'RenameName'))
expectError(new Version('2001-01-01', new RenameName()))
expectError(new Version('2000-01-01', { deprecatedAt: 2025 }))
expectAssignable<VersionLifecycle>({ link: 'https://example.com/upgrade' })
expectNotAssignable<VersionLifecycle>({ link: 42 })

const version = new Version('2001-01-01', RenameName)
expectType<string>(version.value)
expectType<readonly VersionChangeClass[]>(version.changes)
expectType<Date | undefined>(version.deprecatedAt)
expectError(version.value = '2002-01-01')

// HeadVersion takes version change classes only.
expectType<HeadVersion>(new HeadVersion())
expectError(new HeadVersion(new Date()))
expectError(new HeadVersion('2001-01-01'))

// VersionBundle: HeadVersion, Versions, then optionally { apiVersionStorage }.
const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameName), new Version('2000-01-01'))
expectType<VersionBundle>(bundle)
expectType<VersionBundle>(new VersionBundle(new Version('2000-01-01'), { apiVersionStorage: new AsyncLocalStorage<string | undefined>() }))
expectError(new VersionBundle(new Version('2000-01-01'), 42))
expectError(new VersionBundle('2000-01-01'))
expectError(new VersionBundle(new Version('2000-01-01'), { apiVersionStorage: new Map() }))
expectType<readonly string[]>(bundle.versionValues)
expectType<Version | undefined>(bundle.get('2000-01-01'))
for (const item of bundle) expectType<Version>(item)

// Version changes: both members are required (abstract), and the class is what versions take.
expectAssignable<VersionChangeClass>(RenameName)
expectNotAssignable<VersionChangeClass>(VersionChange)
expectType<readonly Instruction[]>(new RenameName().instructionsToMigrateToPreviousVersion as readonly Instruction[])
// @ts-expect-error a version change without instructionsToMigrateToPreviousVersion does not implement the abstract member
class MissingInstructions extends VersionChange {
  description = 'no instructions'
}
expectType<typeof MissingInstructions>(MissingInstructions)
expectType<boolean>(SendWelcomeEmail.isApplied)

// Errors: constructible from errorCodes, with their code as a literal type.
const structure = new errorCodes.FST_VERSIONER_STRUCTURE('bad structure')
expectType<'FST_VERSIONER_STRUCTURE'>(structure.code)
expectType<500>(structure.statusCode)
expectAssignable<Error>(structure)
expectType<'FST_VERSIONER_INVALID_API_VERSION'>(new errorCodes.FST_VERSIONER_INVALID_API_VERSION('x').code)
expectType<400>(new errorCodes.FST_VERSIONER_INVALID_API_VERSION('x').statusCode)
expectType<'FST_VERSIONER_LINTING'>(new LintingError('GETT').code)
expectType<'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION'>(new InvalidGenerationInstructionError('x').code)
expectType<typeof VersionerStructureError>(errorCodes.FST_VERSIONER_STRUCTURE)
expectType<false>(isAny(errorCodes))
expectType<false>(isAny(structure.code))
expectError(errorCodes.FST_VERSIONER_NOT_A_CODE)
