import { test, type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import { InvalidGenerationInstructionError, Version, VersionBundle, schema, type Instruction } from '../../plugin'
import { versionedApp, type AppOptions } from '../helpers/apps'
import { rejection } from '../helpers/errors'
import { v } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'

const UserCreate = Type.Object({ fullName: Type.String() }, { $id: 'UserCreate' })
const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })

/** An app where `POST /users` takes `UserCreate` and answers `User`, and 2000-01-01 is 2001-01-01 before `instruction`. */
async function appWith (t: Test, instruction: Instruction, options: AppOptions = {}) {
  return await versionedApp(t, new VersionBundle(new Version('2001-01-01', changeClass('OldShape', [instruction])), new Version('2000-01-01')), async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 200: User } } }, async (request) => ({ id: 'u1', fullName: request.body.fullName }))
  }, options)
}

/** Asserts that `app.ready()` fails naming the instruction, its change and version, and matching `message`. */
async function refused (t: Test, instruction: Instruction, message: RegExp, options: AppOptions = {}) {
  const error = await rejection(async () => await (await appWith(t, instruction, options)).ready())
  t.ok(error instanceof InvalidGenerationInstructionError, `${String(message)}: an InvalidGenerationInstructionError`)
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.match(error?.message, /in version change 'OldShape' \(version '2001-01-01'\): /)
  t.match(error?.message, message)
}

test('a misspelt name, type or optional is refused at ready(), in a response schema too (the serializer would ignore it)', async (t) => {
  // regression: { Name: 'name' } was written into the old schema as a keyword; the old version was served fullName.
  await refused(t, schema(User).field('fullName').had({ Name: 'name' }), /'Name' is no keyword the application's Ajv knows: the serializer ignores it\. Did you mean \{ name \}\?/)
  await refused(t, schema(User).field('fullName').had({ oldName: 'name' }), /'oldName' .*Did you mean \{ name \}\?/)
  await refused(t, schema(User).field('fullName').had({ typ: Type.Integer() }), /'typ' .*Did you mean \{ type \}\?/)
  await refused(t, schema(User).formerField('nickname').existedAs({ type: Type.String(), optinal: true }), /'optinal' .*Did you mean \{ optional \}\?/)
  await refused(t, schema(User).field('fullName').had({ maxLenght: 3 }), /'maxLenght' .*Did you mean 'maxLength'\?/)
})

test('a keyword Fastify\'s Ajv refuses in a version\'s request schema fails ready(), not every request of the version', async (t) => {
  // regression: each was a 500 with Ajv's message ("strict mode: unknown keyword") to every request of 2000-01-01.
  await refused(t, schema(UserCreate).field('fullName').had({ optionl: true }), /'optionl' .*it would refuse the version's request schema\. Did you mean \{ optional \}\?/)
  await refused(t, schema(UserCreate).field('fullName').had({ 'x-internal': true }), /'x-internal' .*Register it with the application's Ajv/)
  await refused(t, schema(UserCreate).field('fullName').had({ format: 'emial' }), /format 'emial' is no format the application's Ajv knows \(.*email/)
  await refused(t, schema(UserCreate).field('fullName').had({ pattern: '(' }), /its pattern is not a regular expression Ajv compiles/)
  await refused(t, schema(UserCreate).field('fullName').had({ minLength: asAny('3') }), /the application's Ajv refuses it: \/minLength must be integer/)
})

test('keywords the application\'s Ajv takes, and document annotations of responses, are served', async (t) => {
  // enumNames (a form generator's annotation) holds 'name' but misspells nothing.
  const documented = await appWith(t, schema(User).field('fullName').had({ 'x-internal': true, example: 'Ada', description: 'Full name', enumNames: ['Ada'] }))
  const answer = await documented.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { fullName: 'Ada' } })
  t.same(answer.json(), { id: 'u1', fullName: 'Ada' })
  const registered = await appWith(t, schema(UserCreate).field('fullName').had({ example: 'Ada', minLength: 3, format: 'email' }),
    { fastify: { ajv: { customOptions: { keywords: ['example'] } } } })
  t.equal((await registered.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { fullName: 'ada@example.com' } })).statusCode, 200)
  t.equal((await registered.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { fullName: 'Ada' } })).statusCode, 400)
  const loose = await appWith(t, schema(UserCreate).field('fullName').had({ 'x-internal': true }), { fastify: { ajv: { customOptions: { strict: false } } } })
  t.equal((await loose.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { fullName: 'Ada' } })).statusCode, 200)
})

function asAny (value: unknown): any {
  return value
}
