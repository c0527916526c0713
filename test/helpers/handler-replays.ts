/**
 * Recorded traffic replayed through fresh apps' handlers (`replay --handlers`), for the tests of what it finds.
 */
import type { FastifyInstance } from 'fastify'
import { readTraffic, replayTraffic } from '../../tools'

/** The findings' texts of the recorded `lines` replayed through the handlers of fresh apps `build` makes. */
export async function handlerFindings (lines: readonly string[], build: () => Promise<FastifyInstance>): Promise<string[]> {
  const app = await build()
  try {
    await app.ready()
    const report = await replayTraffic(app, readTraffic(lines.join('\n')), { handlers: build })
    return report.findings.map((finding) => finding.text)
  } finally {
    await app.close()
  }
}
