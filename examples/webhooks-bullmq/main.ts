/**
 * `npm run example:webhooks`: pays an invoice of the billing API and delivers its `invoice.paid` webhook through
 * BullMQ to three local receivers, printing what each accepted. Needs a Redis server: `REDIS_URL` (default
 * `redis://127.0.0.1:6379`), e.g. one started with `redis-server --port 6379 --save ''`.
 */
import { payAndDeliver, startAudience } from './demo'

async function main (): Promise<void> {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  const audience = await startAudience()
  try {
    // Retries after 1, 2, 4… seconds: the receiver pinned to 2024-09-30 accepts the third attempt.
    const accepted = await payAndDeliver({ host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null }, audience, { backoff: 1000 })
    for (const [index, { id, version, body }] of accepted.entries()) {
      const attempts = audience.receivers[index].attempts.map(({ status }) => status).join(', ')
      console.log(`${audience.subscribers[index].id} accepted ${id} in version ${version} (answers: ${attempts}): ${JSON.stringify(body)}`)
    }
  } finally {
    await audience.close()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
