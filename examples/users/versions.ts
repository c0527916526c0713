/**
 * The versions of the users API and the version changes between them (the reference tutorial):
 * - 2000-01-01: a user has one `address`;
 * - 2001-01-01: a user has a list of `addresses`;
 * - 2002-01-01: addresses moved to their own endpoint, `GET /users/:userId/addresses`.
 */
import { Type, type Static } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version,
  VersionBundle, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
// The types of every version, written by `npm run types` (fastify-versioner types); `npm test` checks they are current.
import type { Conversion } from './api-types'
import { UserCreateRequest, UserResource } from './schemas'

/** HEAD's bodies: what the handlers read and write, internal fields included. */
type HeadUserCreateRequest = Static<typeof UserCreateRequest>
type HeadUserResource = Static<typeof UserResource>

/** HEAD carries internal fields the public latest version does not show. */
export class HideInternalUserFields extends VersionChange {
  description = 'Internal fields used to serve older versions are not part of the public API.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreateRequest).field('addressesToCreate').didntExist,
    schema(UserResource).field('prefetchedAddresses').didntExist
  ]
}

export class MoveUserAddressesToTheirOwnEndpoint extends VersionChange {
  description = 'User addresses moved to their own endpoint, GET /users/:userId/addresses; a new user is created with ' +
    'its default address only (defaultAddress instead of addresses).'

  instructionsToMigrateToPreviousVersion = [
    endpoint('/users/:userId/addresses', ['GET']).didntExist,
    schema(UserCreateRequest).field('defaultAddress').didntExist,
    schema(UserCreateRequest).formerField('addresses').existedAs({ type: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) }),
    schema(UserResource).formerField('addresses').existedAs({ type: Type.Array(Type.String()) })
  ]

  // Reads a 2001-01-01 body; writes HEAD's, whose internal addressesToCreate keeps every address.
  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressesToDefaultAddress (request: RequestInfo<Conversion<'MoveUserAddressesToTheirOwnEndpoint', 'UserCreateRequest'>['older'], HeadUserCreateRequest>) {
    const { addresses } = request.body
    request.body = { defaultAddress: addresses[0], addressesToCreate: addresses }
  }

  // Reads HEAD's body (its internal prefetchedAddresses); writes a 2001-01-01 body.
  @ConvertResponseToPreviousVersionFor(UserResource)
  addressesInline (response: ResponseInfo<HeadUserResource, Conversion<'MoveUserAddressesToTheirOwnEndpoint', 'UserResource'>['older']>) {
    const { id, prefetchedAddresses } = response.body
    response.body = { id, addresses: [...prefetchedAddresses] }
  }
}

type CreateRequest = Conversion<'ReplaceUserAddressWithListOfAddresses', 'UserCreateRequest'>
type Resource = Conversion<'ReplaceUserAddressWithListOfAddresses', 'UserResource'>

export class ReplaceUserAddressWithListOfAddresses extends VersionChange {
  description = 'Users can now store several addresses (addresses instead of address), so they can choose among delivery locations.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreateRequest).formerField('addresses').had({ name: 'address', type: Type.String({ minLength: 1 }) }),
    schema(UserResource).formerField('addresses').had({ name: 'address', type: Type.String() })
  ]

  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressToList (request: RequestInfo<CreateRequest['older'], CreateRequest['newer']>) {
    const { address, ...rest } = request.body
    request.body = { ...rest, addresses: [address] }
  }

  @ConvertResponseToPreviousVersionFor(UserResource)
  addressesToSingleItem (response: ResponseInfo<Resource['newer'], Resource['older']>) {
    const { addresses, ...rest } = response.body
    response.body = { ...rest, address: addresses[0] }
  }
}

export const versions = new VersionBundle(
  new HeadVersion(HideInternalUserFields),
  new Version('2002-01-01', MoveUserAddressesToTheirOwnEndpoint),
  new Version('2001-01-01', ReplaceUserAddressWithListOfAddresses),
  new Version('2000-01-01')
)
