// What pinning costs: sequential GETs to a loopback server through guardedFetch (resolve once,
// check, connect to the checked address, one connection per request) next to the same-run
// baselines of node:http with a fresh connection per request (the fair one: guardedFetch never
// reuses a connection) and of Bun's fetch with keep-alive.
//   bun run scripts/bench/net-guarded-fetch.ts [--requests 2000]
import http from 'node:http'
import { guardedFetch } from '../../src/platform/net/index.ts'

const i = process.argv.indexOf('--requests')
const n = i > 0 ? Number(process.argv[i + 1]) : 2000
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('ok') })
const url = `http://bench.example.test:${server.port}/x`
const resolve = async () => ['127.0.0.1']
const policy = { allowHttp: true, allowPrivate: true }

const plainHttp = () =>
  new Promise<void>((done, fail) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, path: '/x', agent: false }, (res) => {
      res.resume()
      res.on('end', () => done())
    })
    req.on('error', fail)
    req.end()
  })

// The best of three rounds: the machine is shared, and interference only ever adds time.
async function time(fn: () => Promise<unknown>): Promise<number> {
  for (let k = 0; k < n / 10; k++) await fn()
  let best = Infinity
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now()
    for (let k = 0; k < n; k++) await fn()
    best = Math.min(best, ((performance.now() - t0) * 1000) / n)
  }
  return best
}

const baseline = await time(plainHttp)
const guarded = await time(() => guardedFetch(url, {}, { policy, resolve }))
const keepAlive = await time(async () => (await fetch(`http://127.0.0.1:${server.port}/x`)).text())
server.stop(true)
console.log(`requests per round: ${n} (best of 3)`)
console.log(`node:http, new connection   ${baseline.toFixed(1)} us/request   1.00x (baseline)`)
console.log(`guardedFetch, pinned        ${guarded.toFixed(1)} us/request   ${(guarded / baseline).toFixed(2)}x`)
console.log(`fetch, keep-alive           ${keepAlive.toFixed(1)} us/request   ${(keepAlive / baseline).toFixed(2)}x`)
