/**
 * The versions of the users API and the version changes between them (the reference tutorial):
 * - 2000-01-01: a user has one `address`;
 * - 2001-01-01: a user has a list of `addresses`;
 * - 2002-01-01: addresses moved to their own endpoint, `GET /users/:userId/addresses`.
 */
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version,
  VersionBundle, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { UserCreateRequest, UserResource } from './schemas'

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

  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressesToDefaultAddress (request: RequestInfo<{ addresses?: string[], defaultAddress?: string, addressesToCreate?: string[] }>) {
    const addresses = request.body.addresses ?? []
    request.body.defaultAddress = addresses[0]
    request.body.addressesToCreate = addresses
    delete request.body.addresses
  }

  @ConvertResponseToPreviousVersionFor(UserResource)
  addressesInline (response: ResponseInfo) {
    response.body.addresses = response.body.prefetchedAddresses ?? []
  }
}

export class ReplaceUserAddressWithListOfAddresses extends VersionChange {
  description = 'Users can now store several addresses (addresses instead of address), so they can choose among delivery locations.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreateRequest).formerField('addresses').had({ name: 'address', type: Type.String({ minLength: 1 }) }),
    schema(UserResource).formerField('addresses').had({ name: 'address', type: Type.String() })
  ]

  @ConvertRequestToNextVersionFor(UserCreateRequest)
  addressToList (request: RequestInfo) {
    request.body.addresses = [request.body.address]
    delete request.body.address
  }

  @ConvertResponseToPreviousVersionFor(UserResource)
  addressesToSingleItem (response: ResponseInfo) {
    response.body.address = response.body.addresses[0]
    delete response.body.addresses
  }
}

export const versions = new VersionBundle(
  new HeadVersion(HideInternalUserFields),
  new Version('2002-01-01', MoveUserAddressesToTheirOwnEndpoint),
  new Version('2001-01-01', ReplaceUserAddressWithListOfAddresses),
  new Version('2000-01-01')
)
