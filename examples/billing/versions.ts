/**
 * The versions of the billing API and the version changes between them, newest first:
 * - 2025-03-31: invoices can be uncollectible (a new endpoint marks them) or refunded; invoice search takes a list of
 *   statuses; the idempotency key header lost its `x-` prefix;
 * - 2024-09-30: amounts are integer cents (they were decimals); payment methods say what they are in `type` (was
 *   `object`);
 * - 2024-04-10: a customer's `name` became `givenName` and `familyName`, `description` became `memo`, and customers
 *   can be replaced with PUT;
 * - 2023-10-16: the first version.
 */
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, HeadVersion, schema, Version,
  VersionBundle, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { BankAccount, Card, Customer, CustomerInput, IdempotencyHeaders, Invoice, InvoiceLine, InvoiceSearch, InvoiceStatus } from './schemas'

/** HEAD carries a field the public API does not show. */
export class HideInternalBillingFields extends VersionChange {
  description = 'The risk score of a customer is internal.'
  instructionsToMigrateToPreviousVersion = [
    schema(Customer).field('riskScore').didntExist
  ]
}

export class AddUncollectibleAndRefundedInvoices extends VersionChange {
  description = "Invoices can be 'uncollectible' (POST /invoices/:invoiceId/mark-uncollectible gives up on one) or 'refunded'. " +
    "Older versions see them as 'open' and 'paid'."

  instructionsToMigrateToPreviousVersion = [
    enumeration(InvoiceStatus).didntHave('uncollectible', 'refunded'),
    endpoint('/invoices/:invoiceId/mark-uncollectible', ['POST']).didntExist
  ]

  @ConvertResponseToPreviousVersionFor(Invoice)
  newStatusesAsOldOnes (response: ResponseInfo) {
    if (response.body.status === 'uncollectible') response.body.status = 'open'
    if (response.body.status === 'refunded') response.body.status = 'paid'
  }
}

export class SearchInvoicesBySeveralStatuses extends VersionChange {
  description = 'Invoice search takes a list of statuses (statuses) instead of one (status).'
  instructionsToMigrateToPreviousVersion = [
    schema(InvoiceSearch).field('statuses').had({ name: 'status', type: InvoiceStatus })
  ]

  @ConvertRequestToNextVersionFor(InvoiceSearch)
  statusToList (request: RequestInfo) {
    if (request.body.status !== undefined) {
      request.body.statuses = [request.body.status]
      delete request.body.status
    }
  }
}

export class DropThePrefixOfTheIdempotencyKeyHeader extends VersionChange {
  description = 'The idempotency key header is idempotency-key (it was x-idempotency-key).'
  instructionsToMigrateToPreviousVersion = [
    schema(IdempotencyHeaders).field('idempotency-key').had({ name: 'x-idempotency-key' })
  ]

  @ConvertRequestToNextVersionFor('/invoices', ['POST'])
  renameHeader (request: RequestInfo) {
    const key = request.headers['x-idempotency-key']
    if (key !== undefined) {
      request.headers['idempotency-key'] = key
      delete request.headers['x-idempotency-key']
    }
  }
}

export class AmountsInCents extends VersionChange {
  description = 'Amounts are integers in hundredths of the currency unit (1250 is 12.50 USD, 50000 is 500 JPY); they were decimals.'
  instructionsToMigrateToPreviousVersion = [
    schema(Invoice).field('total').had({ type: Type.Number({ minimum: 0, description: 'In currency units.' }) }),
    schema(InvoiceLine).field('unitAmount').had({ type: Type.Number({ minimum: 0, description: 'In currency units.' }) })
  ]

  @ConvertRequestToNextVersionFor(InvoiceLine)
  unitAmountToCents (request: RequestInfo) {
    request.body.unitAmount = Math.round(request.body.unitAmount * 100)
  }

  @ConvertResponseToPreviousVersionFor(InvoiceLine)
  unitAmountFromCents (response: ResponseInfo) {
    response.body.unitAmount = response.body.unitAmount / 100
  }

  @ConvertResponseToPreviousVersionFor(Invoice)
  totalFromCents (response: ResponseInfo) {
    response.body.total = response.body.total / 100
  }
}

export class PaymentMethodTypeReplacesObject extends VersionChange {
  description = 'A payment method says what it is in type (it was object).'
  instructionsToMigrateToPreviousVersion = [
    schema(Card).field('type').had({ name: 'object' }),
    schema(BankAccount).field('type').had({ name: 'object' })
  ]

  @ConvertRequestToNextVersionFor(Card, BankAccount)
  objectToType (request: RequestInfo) {
    request.body.type = request.body.object
    delete request.body.object
  }

  @ConvertResponseToPreviousVersionFor(Card, BankAccount)
  typeToObject (response: ResponseInfo) {
    response.body.object = response.body.type
    delete response.body.type
  }
}

export class SplitCustomerName extends VersionChange {
  description = "A customer's name is givenName and familyName (it was one name); a one-word name has no familyName."
  instructionsToMigrateToPreviousVersion = [
    schema(CustomerInput).field('givenName').had({ name: 'name' }),
    schema(CustomerInput).field('familyName').didntExist,
    schema(Customer).field('givenName').had({ name: 'name' }),
    schema(Customer).field('familyName').didntExist
  ]

  // 'Ada King Lovelace' is given 'Ada', family 'King Lovelace'.
  @ConvertRequestToNextVersionFor(CustomerInput)
  splitName (request: RequestInfo) {
    const name: string = request.body.name
    delete request.body.name
    const space = name.indexOf(' ')
    if (space === -1) {
      request.body.givenName = name
    } else {
      request.body.givenName = name.slice(0, space)
      request.body.familyName = name.slice(space + 1)
    }
  }

  @ConvertResponseToPreviousVersionFor(Customer)
  joinName (response: ResponseInfo) {
    const { givenName, familyName } = response.body
    response.body.name = familyName === undefined ? givenName : `${givenName} ${familyName}`
    delete response.body.givenName
    delete response.body.familyName
  }
}

export class RenameDescriptionToMemo extends VersionChange {
  description = "A customer's description is its memo."
  instructionsToMigrateToPreviousVersion = [
    schema(CustomerInput).field('memo').had({ name: 'description' }),
    schema(Customer).field('memo').had({ name: 'description' })
  ]

  @ConvertRequestToNextVersionFor(CustomerInput)
  descriptionToMemo (request: RequestInfo) {
    if (request.body.description !== undefined) {
      request.body.memo = request.body.description
      delete request.body.description
    }
  }

  @ConvertResponseToPreviousVersionFor(Customer)
  memoToDescription (response: ResponseInfo) {
    if (response.body.memo !== undefined) {
      response.body.description = response.body.memo
      delete response.body.memo
    }
  }
}

export class ReplaceCustomersWithPut extends VersionChange {
  description = 'PUT /customers/:customerId replaces a customer.'
  instructionsToMigrateToPreviousVersion = [
    endpoint('/customers/:customerId', ['PUT']).didntExist
  ]
}

export const versions = new VersionBundle(
  new HeadVersion(HideInternalBillingFields),
  new Version('2025-03-31', AddUncollectibleAndRefundedInvoices, SearchInvoicesBySeveralStatuses, DropThePrefixOfTheIdempotencyKeyHeader),
  new Version('2024-09-30', AmountsInCents, PaymentMethodTypeReplacesObject),
  new Version('2024-04-10', SplitCustomerName, RenameDescriptionToMemo, ReplaceCustomersWithPut),
  new Version('2023-10-16')
)
