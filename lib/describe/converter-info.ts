/**
 * What converters receive: {@link RequestInfo} for request converters (older version → next version) and
 * {@link ResponseInfo} for response converters (newer version → previous version).
 * @module
 */

/**
 * The body type a converter works on when it does not name one: an object whose fields may be read and
 * written freely, because a converter by definition handles two shapes of the same data. Give the generic
 * parameter (e.g. `RequestInfo<Static<typeof OldSchema>>`) to type it.
 * @example
 * ```ts
 * declare const response: ResponseInfo
 * const body: UntypedBody = response.body // HEAD's shape going in, the version's coming out: written freely
 * body.address = body.addresses[0]
 * delete body.addresses
 * ```
 */
export type UntypedBody = Record<string, any>

/**
 * An uploaded file in a multipart form.
 * @example
 * ```ts
 * declare const request: RequestInfo
 * const avatar = request.form?.avatar
 * if (isFormFile(avatar)) {
 *   const file: FormFile = avatar
 *   console.log(file.filename, file.mimetype, file.data.length)
 * }
 * ```
 */
export interface FormFile {
  /** The field's file name, as the client sent it. */
  filename: string
  /** The part's content type. */
  mimetype: string
  /** The part's content transfer encoding. */
  encoding: string
  /** The file's content. */
  data: Buffer
}

/**
 * A form field's value that a parser gave as other than text: a field a custom url-encoded parser nests (`a[b]=1`
 * read by `qs` is `{ b: '1' }`), a multipart field sent as `application/json` (parsed by `@fastify/multipart`: an
 * object, an array, a number, `true`, `false` or `null`), or the number, flag or `null` the version's schema coerced a
 * field's text into. It reaches converters and the handler as parsed.
 * @example
 * ```ts
 * declare const request: RequestInfo
 * const address: FormValue | FormValue[] | undefined = request.form?.address
 * const parsed: FormParsedValue | undefined = typeof address === 'object' && !Array.isArray(address) && !isFormFile(address) ? address : undefined
 * ```
 */
export type FormParsedValue = number | boolean | null | unknown[] | { [key: string]: unknown }

/**
 * One value of a form field: text, an uploaded file, or a value parsed from the field's text. Tell a file from a
 * parsed object with {@link isFormFile}, not by `typeof value === 'string'` alone.
 * @example
 * ```ts
 * declare const request: RequestInfo
 * const value: FormValue | FormValue[] | undefined = request.form?.name
 * if (typeof value === 'string') request.form = { ...request.form, fullName: value }
 * ```
 */
export type FormValue = string | FormFile | FormParsedValue

/**
 * True for an uploaded file ({@link FormFile}, its content a `Buffer`); false for text and for a parsed value, even
 * one with a `data` member.
 * @example
 * ```ts
 * declare const request: RequestInfo
 * const avatar = request.form?.avatar
 * if (isFormFile(avatar)) request.form!.avatar = { ...avatar, filename: avatar.filename.toLowerCase() }
 * ```
 */
export function isFormFile (value: unknown): value is FormFile {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as Partial<FormFile>).data)
}

/**
 * The fields of an `application/x-www-form-urlencoded` or `multipart/form-data` body, by name.
 * @example
 * ```ts
 * class RenameSignUpField extends VersionChange {
 *   description = 'The sign-up form sends `fullName` instead of `name`.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertRequestToNextVersionFor('/signup', ['POST'])
 *   renameField (request: RequestInfo) {
 *     const form: FormFields | undefined = request.form
 *     if (form?.name !== undefined) request.body = { ...request.body, fullName: form.name }
 *   }
 * }
 * ```
 */
export type FormFields = Record<string, FormValue | FormValue[]>

/**
 * Options of a cookie set or deleted by a response converter.
 * @example
 * ```ts
 * declare const response: ResponseInfo
 * const options: CookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' }
 * response.setCookie('api_version', '2000-01-01', options) // the version this client was served
 * ```
 */
export interface CookieOptions {
  path?: string
  domain?: string
  maxAge?: number
  expires?: Date
  httpOnly?: boolean
  secure?: boolean
  sameSite?: 'strict' | 'lax' | 'none'
}

/**
 * The body a converter reads: `Body` itself when the converter names one type (read and written freely), or, when
 * it names the type it writes too, `Body` read-only: a typed converter builds the new body and assigns it.
 */
type ReadBody<Body, Written> = [Written] extends [never] ? Body : Readonly<Body>

/** The body a converter may assign: `Written` when it names one, otherwise `Body`. */
type WrittenBody<Body, Written> = [Written] extends [never] ? Body : Written

/**
 * What a request converter receives: the request of an older version, to be changed in place into the
 * request of the next version.
 *
 * Typed by the versions it converts between (`RequestInfo<Older, Newer>`, with the types `fastify-versioner
 * types` writes), the compiler checks both sides: `request.body` is the older version's body, read-only, and
 * only a body of the newer version can be assigned to it. With one type (`RequestInfo<Body>`), or none, the
 * body is read and written freely.
 * @example
 * ```ts
 * const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'UserCreateRequest' })
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses.'
 *   instructionsToMigrateToPreviousVersion = [schema(UserCreateRequest).field('addresses').had({ name: 'address', type: Type.String() })]
 *
 *   @ ConvertRequestToNextVersionFor(UserCreateRequest)
 *   addressToList (request: RequestInfo<{ address: string }, { addresses: string[] }>) {
 *     const { address, ...rest } = request.body
 *     request.body = { ...rest, addresses: [address] }
 *   }
 * }
 * ```
 */
export interface RequestInfo<Body = UntypedBody, Next = never> {
  /** The parsed body (plain JSON data), validated against the older version's schema. Assign to replace it. */
  get body (): ReadBody<Body, Next>
  set body (value: WrittenBody<Body, Next>)
  /** The request headers (lower-case names). Changes reach later validation, hooks and the handler. */
  headers: Record<string, string | string[] | undefined>
  /** The request cookies (needs `@fastify/cookie` for parsing; otherwise read from the `cookie` header). */
  cookies: Record<string, string>
  /** The parsed query string. Changes reach HEAD validation and the handler. */
  queryParams: Record<string, unknown>
  /** The fields of a form body (url-encoded or multipart), or `undefined` for other bodies (assigning it there changes nothing: assign `body`). */
  form: FormFields | undefined
  /**
   * Fastify's `request.signal` (Fastify 5.8 and later; `undefined` before, and where no request is served: `verify`,
   * `replay`): aborted when the client leaves or `handlerTimeout` passes. Pass it on to what a converter awaits.
   */
  readonly signal?: AbortSignal | undefined
}

/**
 * What a response converter receives: the response of a newer version, to be changed in place into the
 * response of the previous version.
 *
 * Typed by the versions it converts between (`ResponseInfo<Newer, Older>`), `response.body` is the newer
 * version's body, read-only, and only a body of the older version can be assigned to it; with one type, or
 * none, the body is read and written freely.
 * @example
 * ```ts
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses.'
 *   instructionsToMigrateToPreviousVersion = [schema(UserResource).field('addresses').had({ name: 'address', type: Type.String() })]
 *
 *   @ ConvertResponseToPreviousVersionFor(UserResource) // untyped: the body is read and written freely
 *   addressesToSingleItem (response: ResponseInfo) {
 *     response.body.address = response.body.addresses[0]
 *     delete response.body.addresses
 *   }
 * }
 * // or typed by the two versions' bodies:
 * class AddressesTyped extends VersionChange {
 *   description = 'Users can now store several addresses.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertResponseToPreviousVersionFor(UserResource)
 *   addressesToOne (response: ResponseInfo<{ id: string, addresses: string[] }, { id: string, address: string }>) {
 *     const { addresses, ...rest } = response.body
 *     response.body = { ...rest, address: addresses[0] }
 *   }
 * }
 * ```
 */
export interface ResponseInfo<Body = UntypedBody, Previous = never> {
  /** The body (plain JSON data). Assign to replace it. */
  get body (): ReadBody<Body, Previous>
  set body (value: WrittenBody<Body, Previous>)
  /** The status code. Converters after this one see the new value. */
  statusCode: number
  /** The response headers (lower-case names). */
  headers: Record<string, string | string[] | number | undefined>
  /** Sets a cookie on the response. */
  setCookie: (name: string, value: string, options?: CookieOptions) => void
  /** Deletes a cookie on the client (an expired `Set-Cookie`). */
  deleteCookie: (name: string, options?: Pick<CookieOptions, 'path' | 'domain' | 'secure' | 'httpOnly' | 'sameSite'>) => void
  /** The reply payload as the handler produced it (a stream or buffer, for example), before any conversion. */
  readonly raw: unknown
  /** The request's `signal`, as `RequestInfo.signal` has it (`undefined` for a webhook's render). */
  readonly signal?: AbortSignal | undefined
}
