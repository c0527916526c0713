// Converters and what they receive, as a user of the built package sees them.
//
// tsd merges the project's tsconfig.json, which turns on `experimentalDecorators`, so the `@decorator`
// syntax below is checked in legacy mode. The standard (TC39) form is checked by calling the decorator the
// way the standard runtime does (value, context); test/package.test.ts also compiles a consumer that uses
// standard decorator syntax.
import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import { Type, type Static } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type ConverterDecorator,
  isFormFile, type CookieOptions, type FormFields, type FormFile, type FormParsedValue, type FormValue, type RequestInfo,
  type ResponseInfo, type UntypedBody
} from '../..'
import { isAny } from './helpers'

const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) })
const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) })
const OldUserCreateRequest = Type.Object({ address: Type.String() })

// The body defaults to UntypedBody, the one documented `any` of the public types; everything else is typed.
expectType<UntypedBody>({} as RequestInfo['body'])
expectType<UntypedBody>({} as ResponseInfo['body'])
expectType<Record<string, any>>({} as UntypedBody)
declare const request: RequestInfo
declare const response: ResponseInfo
expectType<Record<string, string | string[] | undefined>>(request.headers)
expectType<Record<string, string>>(request.cookies)
expectType<Record<string, unknown>>(request.queryParams)
expectType<FormFields | undefined>(request.form)
expectType<number>(response.statusCode)
expectType<Record<string, string | string[] | number | undefined>>(response.headers)
expectType<(name: string, value: string, options?: CookieOptions) => void>(response.setCookie)
expectType<unknown>(response.raw)
expectType<void>(response.deleteCookie('session', { path: '/' }))
expectError(response.raw = 'replaced')
expectError(response.setCookie('session', 42))
expectError(response.deleteCookie('session', { maxAge: 1 }))
expectError(request.statusCode)
for (const value of [request.headers, request.cookies, request.queryParams, request.form, response.statusCode, response.headers, response.raw]) {
  expectType<false>(isAny(value))
}

// A form value is text, a file, or a value a parser gave (a nested url-encoded field, a multipart JSON field):
// ruling out text does not make a file, isFormFile does.
declare const formValue: FormValue
expectError(typeof formValue === 'string' || formValue === null ? formValue : formValue.data)
expectError(typeof formValue === 'object' && formValue !== null ? formValue.filename.toUpperCase() : formValue)
if (isFormFile(formValue)) expectType<FormFile>(formValue)
else expectType<string | FormParsedValue>(formValue)
expectType<(value: unknown) => value is FormFile>(isFormFile)
expectAssignable<FormFields>({ name: 'Tea', address: { city: 'Paris' }, items: [{ city: 'Lyon' }], count: 42, sent: true, note: null, tags: ['a', 'b'] })
expectAssignable<FormFields>({ avatar: { filename: 'a.png', mimetype: 'image/png', encoding: '7bit', data: Buffer.from('') } })

// A converter can type its body, for instance from the older version's schema.
declare const typedRequest: RequestInfo<Static<typeof OldUserCreateRequest>>
expectType<{ address: string }>(typedRequest.body)
expectType<false>(isAny(typedRequest.body.address))
expectError(typedRequest.body.addresses)
declare const typedResponse: ResponseInfo<Static<typeof UserResource>>
expectType<string[]>(typedResponse.body.addresses)
expectError(typedResponse.body.address)

// Decorator factories: schemas (and options last), or a path with methods (and response options).
expectType<ConverterDecorator<RequestInfo<never>>>(ConvertRequestToNextVersionFor(UserCreateRequest))
expectType<ConverterDecorator<RequestInfo<never>>>(ConvertRequestToNextVersionFor(UserCreateRequest, UserResource, { checkUsage: false }))
expectType<ConverterDecorator<RequestInfo<never>>>(ConvertRequestToNextVersionFor('/users', ['post']))
expectType<ConverterDecorator<ResponseInfo<never>>>(ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true }))
expectType<ConverterDecorator<ResponseInfo<never>>>(ConvertResponseToPreviousVersionFor('/users/:id', 'GET', { migrateHttpErrors: true }))
expectError(ConvertRequestToNextVersionFor())
expectError(ConvertRequestToNextVersionFor('/users'))
expectError(ConvertRequestToNextVersionFor('/users', ['FETCH']))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest, { migrateHttpErrors: true }))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest, 'extra'))
expectError(ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { checkUsage: false }))
expectError(ConvertResponseToPreviousVersionFor(42))
// Options are one object, last, with only the options of that decorator (a misspelt one beside a right one too).
expectType<ConverterDecorator<RequestInfo<never>>>(ConvertRequestToNextVersionFor(UserCreateRequest, UserResource, OldUserCreateRequest))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest, { checkUsage: false, migrateHttpErrors: true }))
expectError(ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true, checkusage: false }))
expectError(ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true }, UserCreateRequest))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest, { checkUsage: false }, { checkUsage: true }))
expectError(ConvertResponseToPreviousVersionFor('/users/:id'))

// Decorator syntax (legacy mode here): one parameter, a RequestInfo or a ResponseInfo, typed body or not.
class ReplaceAddressWithAddresses extends VersionChange {
  description = 'Users can now store several addresses.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreateRequest).field('addresses').had({ name: 'address', type: Type.String() })
  ]

  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressToList (request: RequestInfo): void {
    request.body.addresses = [request.body.address]
  }

  @ConvertRequestToNextVersionFor('/users', ['POST'])
  typedAddressToList (request: RequestInfo<Static<typeof OldUserCreateRequest>>): void {
    expectType<string>(request.body.address)
  }

  @ConvertResponseToPreviousVersionFor(UserResource, { migrateHttpErrors: true })
  addressesToSingleItem (response: ResponseInfo<Static<typeof UserResource>>): void {
    expectType<string[]>(response.body.addresses)
  }

  @ConvertResponseToPreviousVersionFor('/users/:id', ['get'])
  static statusFor (response: ResponseInfo): void {
    response.statusCode = 200
  }

  // @ts-expect-error a converter takes exactly one parameter
  @ConvertRequestToNextVersionFor(UserCreateRequest)
  twoParameters (request: RequestInfo, extra: string): void {
    expectType<string>(extra)
    expectType<RequestInfo>(request)
  }

  // @ts-expect-error a request converter receives a RequestInfo, not a ResponseInfo
  @ConvertRequestToNextVersionFor(UserCreateRequest)
  wrongInfo (response: ResponseInfo): void {
    expectType<ResponseInfo>(response)
  }

  // @ts-expect-error a response converter receives a ResponseInfo, not a string
  @ConvertResponseToPreviousVersionFor(UserResource)
  wrongParameter (body: string): void {
    expectType<string>(body)
  }
}
expectType<ReplaceAddressWithAddresses>(new ReplaceAddressWithAddresses())

// Standard (TC39) form: (value, context), as the standard decorator runtime calls it.
class Change extends VersionChange {
  description = 'A change.'
  instructionsToMigrateToPreviousVersion = []
}
type RequestMethod = (this: Change, request: RequestInfo) => void
type TwoParameterMethod = (this: Change, request: RequestInfo, extra: string) => void
type ResponseMethod = (this: Change, response: ResponseInfo<Static<typeof UserResource>>) => void
declare const requestContext: ClassMethodDecoratorContext<Change, RequestMethod>
declare const twoParameterContext: ClassMethodDecoratorContext<Change, TwoParameterMethod>
declare const responseContext: ClassMethodDecoratorContext<Change, ResponseMethod>
declare const requestMethod: RequestMethod
declare const twoParameterMethod: TwoParameterMethod
declare const responseMethod: ResponseMethod
expectType<void>(ConvertRequestToNextVersionFor(UserCreateRequest)(requestMethod, requestContext))
expectType<void>(ConvertResponseToPreviousVersionFor(UserResource)(responseMethod, responseContext))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest)(twoParameterMethod, twoParameterContext))
expectError(ConvertResponseToPreviousVersionFor(UserResource)(requestMethod, requestContext))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest)(responseMethod, responseContext))

// A converter decorator is not a class decorator.
expectNotAssignable<ClassDecorator>(ConvertRequestToNextVersionFor(UserCreateRequest))
// The legacy (experimentalDecorators) call shape, as TypeScript or a JavaScript user calls it.
expectType<void>(ConvertRequestToNextVersionFor(UserCreateRequest)({}, 'up', { value: (request: RequestInfo) => { request.body.a = 1 } }))
expectType<void>(ConvertRequestToNextVersionFor(UserCreateRequest)({}, 'up', { value: async (request: RequestInfo) => { request.body.a = 1 } }))
expectError(ConvertRequestToNextVersionFor(UserCreateRequest)({}, 'up', { value: () => {} }))

// Typed by the versions a converter moves between (`fastify-versioner types` writes them): the body read is the
// older version's (request) or the newer version's (response), read-only, and only the other version's body can
// be assigned. A correct converter compiles without casts; reading a field the read side lacks, writing a wrong
// type or the wrong version's body, or changing the read body in place, fails.
interface OlderUser { name: string, address: string }
interface NewerUser { name: string, addresses: string[], age: number }
declare const upward: RequestInfo<OlderUser, NewerUser>
expectType<Readonly<OlderUser>>(upward.body)
expectError(upward.body.addresses)
expectError(upward.body.address = 'changed in place')
expectError(upward.body = { name: 'n', addresses: ['a'], age: '42' })
expectError(upward.body = { name: 'n', address: 'a' })
upward.body = { name: upward.body.name, addresses: [upward.body.address], age: 0 }
declare const downward: ResponseInfo<NewerUser, OlderUser>
expectType<Readonly<NewerUser>>(downward.body)
expectError(downward.body.address)
expectError(downward.body = { name: 'n', addresses: ['a'], age: 1 })
downward.body = { name: downward.body.name, address: downward.body.addresses[0] ?? '' }

class TypedAddresses extends VersionChange {
  description = 'Users can now store several addresses.'
  instructionsToMigrateToPreviousVersion = [schema(UserCreateRequest).field('addresses').had({ name: 'address', type: Type.String() })]

  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressToList (request: RequestInfo<OlderUser, NewerUser>): void {
    const { address, ...rest } = request.body
    request.body = { ...rest, addresses: [address], age: 0 }
  }

  @ConvertResponseToPreviousVersionFor(UserResource)
  addressesToOne (response: ResponseInfo<NewerUser, OlderUser>): void {
    const { addresses, age, ...rest } = response.body
    expectType<number>(age)
    response.body = { ...rest, address: addresses[0] ?? '' }
  }
}
expectType<TypedAddresses>(new TypedAddresses())
// The same converters in the standard (TC39) form and the hand-called legacy form.
type TypedRequestMethod = (this: Change, request: RequestInfo<OlderUser, NewerUser>) => void
declare const typedRequestMethod: TypedRequestMethod
declare const typedRequestContext: ClassMethodDecoratorContext<Change, TypedRequestMethod>
expectType<void>(ConvertRequestToNextVersionFor(UserCreateRequest)(typedRequestMethod, typedRequestContext))
expectType<void>(ConvertRequestToNextVersionFor(UserCreateRequest)({}, 'up', {
  value: (request: RequestInfo<OlderUser, NewerUser>) => { request.body = { name: request.body.name, addresses: [], age: 1 } }
}))
