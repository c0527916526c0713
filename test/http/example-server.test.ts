/**
 * `npm run example` starts the users API on 127.0.0.1 and prints where its docs page is and where to send
 * requests; the printed addresses answer a real request for 2000-01-01 and serve the docs page.
 */
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(__dirname, '..', '..')
const READY_LINE = /docs for every version at (\S+\/docs); send requests to (http:\/\/127\.0\.0\.1:(\d+)) .*(curl -X POST \S+\/users .*)$/m

test('npm run example: prints where its docs page is and where to send requests, and answers there', async (t) => {
  // Its own process group, so that npm and the server it starts are stopped together. Outside coverage (tap's
  // processinfo still tracks it): the server runs lib/ through tsx, whose output coverage cannot map line by line.
  const child = spawn('npm', ['run', 'example'], {
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
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 60 s; output:\n${output}`)), 60_000)
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const match = READY_LINE.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match)
      }
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`npm run example exited (${signal ?? `code ${code}`}) before it was ready; output:\n${output}`))
    })
  })
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

  await stop()
  t.ok(child.exitCode !== null || child.signalCode !== null, 'the example stops')
})
