// Times the seed plugin's own synchronous guard (dsh-repeat-tool-breaker, as published on npm) on
// the calls in a JSON file, the way dsh calls it: one `guard(exec)` per call, in order.
// Usage: node seed_guard.mjs <package dir> <calls.json> <rounds>
// Prints one JSON object: per-call latencies in nanoseconds of the best round (lowest total).
import { pathToFileURL } from 'node:url'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const [pkgDir, callsPath, roundsArg] = process.argv.slice(2)
const plugin = await import(pathToFileURL(join(pkgDir, 'index.js')).href)
const calls = JSON.parse(readFileSync(callsPath, 'utf8'))
const rounds = Number(roundsArg || 3)

function once() {
  let guard = null
  const ctx = {
    tools: { guard: (fn) => { guard = fn; return () => {} } },
    on: () => () => {},
  }
  plugin.apply(ctx, {})
  if (guard === null) throw new Error('the plugin registered no guard')
  const agent = { id: 'agent' } // dsh passes the agent object; the plugin keys a WeakMap by it
  const lat = new Array(calls.length)
  let denied = 0
  for (let i = 0; i < calls.length; i++) {
    const [name, args] = calls[i]
    const exec = { name, arguments: args, agent }
    const t0 = process.hrtime.bigint()
    const verdict = guard(exec)
    lat[i] = Number(process.hrtime.bigint() - t0)
    if (verdict !== undefined) denied++
  }
  return { lat, denied }
}

once() // warm the JIT on the same calls
let best = null
for (let r = 0; r < rounds; r++) {
  const run = once()
  const total = run.lat.reduce((a, b) => a + b, 0)
  if (best === null || total < best.total) best = { ...run, total }
}
process.stdout.write(JSON.stringify({ node: process.version, lat_ns: best.lat, denied: best.denied }) + '\n')
