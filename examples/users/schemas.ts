/**
 * HEAD schemas of the users API: the internal representation every handler works with. HEAD keeps the
 * widest data (all addresses) so that older versions can be served from it.
 */
import { Type, type Static } from '@sinclair/typebox'

export const UserCreateRequest = Type.Object({
  defaultAddress: Type.String({ minLength: 1, description: 'The address deliveries go to by default.' }),
  // Internal: the full list sent by clients of versions before 2002-01-01 (the latest version lacks it).
  addressesToCreate: Type.Optional(Type.Array(Type.String({ minLength: 1 })))
}, { $id: 'UserCreateRequest' })

/** The id of the example user (a fixed UUID, so that the documents stay the same from one run to the next). */
export const EXAMPLE_USER_ID = '0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30'

export const UserResource = Type.Object({
  id: Type.String({ format: 'uuid' }),
  // Internal: the user's addresses (a user has at least one), for versions that still return them inline.
  prefetchedAddresses: Type.Array(Type.String(), { minItems: 1 })
}, {
  $id: 'UserResource',
  // A HEAD example: each version's document shows it as that version returns it (migrated by the response
  // converters: no internal field in 2002-01-01, `addresses` in 2001-01-01, `address` in 2000-01-01).
  examples: [{ id: EXAMPLE_USER_ID, prefetchedAddresses: ['1 Main St', '2 Side St'] }]
})

export const UserAddressResource = Type.Object({
  id: Type.String({ format: 'uuid' }),
  value: Type.String()
}, { $id: 'UserAddressResource' })

export const UserAddressResourceList = Type.Object({
  data: Type.Array(UserAddressResource)
}, { $id: 'UserAddressResourceList' })

export const UserParams = Type.Object({ userId: Type.String({ format: 'uuid' }) })

export const NotFound = Type.Object({ message: Type.String() }, { $id: 'NotFound' })

export type User = { id: string, addresses: Array<{ id: string, value: string }> }
export type UserCreate = Static<typeof UserCreateRequest>
