/**
 * `npm run example` starts the users API on 127.0.0.1 and prints where its docs page is and where to send
 * requests; the printed addresses answer a real request for 2000-01-01 and serve the docs page. So does
 * `npm run example:billing` for the billing API and 2023-10-16.
 */
import { test, type Test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(__dirname, '..', '..')
const READY_LINE = /docs for every version at (\S+\/docs); send requests to (http:\/\/127\.0\.0\.1:(\d+)) .*(curl -X POST \S+\/users .*)$/m
const BILLING_READY_LINE = /docs for every version at (\S+\/docs); send requests to (http:\/\/127\.0\.0\.1:(\d+)) .*(curl -X POST \S+\/customers .*)$/m

/** A running example server: the ready line's match, how to stop it, whether it exited. */
interface Started { match: RegExpExecArray, stop: () => Promise<void>, exited: () => boolean }

/** Runs `npm run <script>` with PORT=0 until it prints a line matching `ready`; the server is stopped when the test ends. */
async function startExample (t: Test, script: string, ready: RegExp): Promise<Started> {
  // Its own process group, so that npm and the server it starts are stopped together. Outside coverage (tap's
  // processinfo still tracks it): the server runs lib/ through tsx, whose output coverage cannot map line by line.
  const child = spawn('npm', ['run', script], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', _TAPJS_PROCESSINFO_COVERAGE_: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-(child.pid as number), 'SIGTERM')
      } catch {}
    }
    await exited
  }
  t.teardown(stop)

  let output = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 60 s; output:\n${output}`)), 60_000)
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const found = ready.exec(output)
      if (found !== null) {
        clearTimeout(timer)
        resolve(found)
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`npm run ${script} exited (${signal ?? `code ${code}`}) before it was ready; output:\n${output}`))
    })
  })
  return { match, stop, exited: () => child.exitCode !== null || child.signalCode !== null }
}

test('npm run example: prints where its docs page is and where to send requests, and answers there', async (t) => {
  const { match: ready, stop, exited } = await startExample(t, 'example', READY_LINE)
  const [, docs, base, port, curl] = ready
  t.not(port, '0', 'a real port is printed, not the PORT=0 request')
  t.match(curl, `curl -X POST ${base}/users -H 'content-type: application/json' -H 'x-api-version: 2000-01-01' -d '{"address":"1 Main St"}'`,
    'the curl example targets the printed address, with the version header')

  const response = await fetch(`${base}/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-version': '2000-01-01' },
    body: JSON.stringify({ address: '1 Main St' })
  })
  t.equal(response.status, 200)
  t.equal(response.headers.get('x-api-version'), '2000-01-01')
  const user = await response.json() as Record<string, unknown>
  t.same(Object.keys(user).sort(), ['address', 'id'], '2000-01-01 answers with one address')
  t.equal(user.address, '1 Main St')
  t.match(user.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)

  t.equal(docs, `${base}/docs`, 'the docs page is on the same address')
  const page = await fetch(docs)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  const html = await page.text()
  for (const version of ['2000-01-01', '2001-01-01', '2002-01-01']) t.match(html, version, `the docs page lists ${version}`)
  t.match(html, '<h1>Users API: API versions</h1>', 'the page is titled with the API\'s name')

  await stop()
  t.ok(exited(), 'the example stops')
})

test('npm run example:billing: prints where its docs page is and where to send requests, and answers there', async (t) => {
  const { match, stop, exited } = await startExample(t, 'example:billing', BILLING_READY_LINE)
  const [, docs, base, port, curl] = match
  t.not(port, '0', 'a real port is printed, not the PORT=0 request')
  t.match(curl, `curl -X POST ${base}/customers -H 'content-type: application/json' -H 'x-api-version: 2023-10-16' -d '{"name":"Ada Lovelace","email":"ada@example.com"}'`,
    'the curl example targets the printed address, with the version header')

  const response = await fetch(`${base}/customers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-version': '2023-10-16' },
    body: JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com' })
  })
  t.equal(response.status, 200)
  t.equal(response.headers.get('x-api-version'), '2023-10-16')
  const customer = await response.json() as Record<string, unknown>
  t.same(Object.keys(customer).sort(), ['email', 'id', 'name'], '2023-10-16 answers with one name')
  t.equal(customer.name, 'Ada Lovelace')

  t.equal(docs, `${base}/docs`, 'the docs page is on the same address')
  const html = await (await fetch(docs)).text()
  for (const version of ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']) t.match(html, version, `the docs page lists ${version}`)

  await stop()
  t.ok(exited(), 'the example stops')
})
