/**
 * HEAD schemas of the billing API: what every handler reads and writes. Amounts are integer cents, a customer has
 * a given and a family name, and a customer carries an internal risk score the public API does not show.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { WebhookDefinition } from '../../plugin'

/** The fields a client sends to create (POST) or replace (PUT) a customer. */
export const CustomerInput = Type.Object({
  givenName: Type.String(),
  // Absent for a one-word name (a mononym).
  familyName: Type.Optional(Type.String()),
  email: Type.String({ format: 'email' }),
  memo: Type.Optional(Type.String({ maxLength: 500, description: 'A note for your own records.' }))
}, { $id: 'CustomerInput' })

export const Customer = Type.Object({
  id: Type.String({ format: 'uuid' }),
  givenName: Type.String(),
  familyName: Type.Optional(Type.String()),
  email: Type.String({ format: 'email' }),
  memo: Type.Optional(Type.String({ maxLength: 500, description: 'A note for your own records.' })),
  // Internal: computed by the fraud checks, never shown to clients.
  riskScore: Type.Integer({ minimum: 0, maximum: 100 })
}, { $id: 'Customer' })

export const InvoiceStatus = Type.Union([
  Type.Literal('draft'), Type.Literal('open'), Type.Literal('paid'), Type.Literal('void'),
  Type.Literal('uncollectible'), Type.Literal('refunded')
], { $id: 'InvoiceStatus' })

export const InvoiceLine = Type.Object({
  description: Type.String({ minLength: 1 }),
  quantity: Type.Integer({ minimum: 1 }),
  unitAmount: Type.Integer({ minimum: 0, description: 'In cents.' })
}, { $id: 'InvoiceLine' })

export const Card = Type.Object({
  type: Type.Literal('card'),
  brand: Type.String(),
  last4: Type.String({ minLength: 4, maxLength: 4 })
}, { $id: 'Card' })

export const BankAccount = Type.Object({
  type: Type.Literal('bank_account'),
  bankName: Type.String(),
  last4: Type.String({ minLength: 4, maxLength: 4 })
}, { $id: 'BankAccount' })

export const PaymentMethod = Type.Union([Card, BankAccount], { $id: 'PaymentMethod' })

export const Invoice = Type.Object({
  id: Type.String({ format: 'uuid' }),
  customerId: Type.String({ format: 'uuid' }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  status: InvoiceStatus,
  lines: Type.Array(InvoiceLine),
  total: Type.Integer({ minimum: 0, description: 'In cents.' }),
  paymentMethod: Type.Optional(PaymentMethod)
}, { $id: 'Invoice' })

export const InvoiceCreate = Type.Object({
  customerId: Type.String({ format: 'uuid' }),
  currency: Type.String({ minLength: 3, maxLength: 3 }),
  lines: Type.Array(InvoiceLine, { minItems: 1 })
}, { $id: 'InvoiceCreate' })

export const InvoicePayment = Type.Object({ paymentMethod: PaymentMethod }, { $id: 'InvoicePayment' })

/** The body of `QUERY /invoices/search`: every field narrows the search. */
export const InvoiceSearch = Type.Object({
  customerId: Type.Optional(Type.String({ format: 'uuid' })),
  statuses: Type.Optional(Type.Array(InvoiceStatus, { minItems: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 }))
}, { $id: 'InvoiceSearch' })

export const InvoiceList = Type.Object({
  data: Type.Array(Invoice),
  hasMore: Type.Boolean()
}, { $id: 'InvoiceList' })

/** The payload of the `invoice.paid` webhook. */
export const InvoicePaidEvent = Type.Object({
  id: Type.String(),
  type: Type.Literal('invoice.paid'),
  created: Type.Integer({ description: 'Unix time, in seconds.' }),
  data: Type.Object({ object: Invoice })
}, { $id: 'InvoicePaidEvent' })

/** The `invoice.paid` webhook: declared by the application, and what a worker renders it with (`renderWebhook`). */
export const invoicePaidWebhook: WebhookDefinition<typeof InvoicePaidEvent> = { name: 'invoice.paid', body: InvoicePaidEvent, summary: 'An invoice was paid' }

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 }))
})

export const CustomerParams = Type.Object({ customerId: Type.String({ format: 'uuid' }) })
export const InvoiceParams = Type.Object({ invoiceId: Type.String({ format: 'uuid' }) })

export const NotFound = Type.Object({ message: Type.String() }, { $id: 'NotFound' })

export type CustomerInputBody = Static<typeof CustomerInput>
export type CustomerRecord = Static<typeof Customer>
export type InvoiceRecord = Static<typeof Invoice>
