// The seed's lens A2 (dsh-thinking-breaker 1.2.0 `createDegeneracyDetector`), rebuilt from the rules
// the engine implements (block cutting in UTF-16 units, classification order, features, flags,
// FNV-1a trip fingerprint) because the seed package is not published. Written the way the seed's
// Node code does it: a `for...of` walk over code points with Unicode property regexes.
// Usage: node seed_degeneracy.mjs <samples.json> <rounds>
// Prints one JSON object: per-sample nanoseconds of the best round, and each sample's trip rule.
import { readFileSync } from 'node:fs'

const NOT_EMOJI = [[0xa9, 0xa9], [0xae, 0xae], [0x203c, 0x203c], [0x2049, 0x2049], [0x2122, 0x2122],
  [0x2139, 0x2139], [0x2190, 0x21ff], [0x25aa, 0x25ab], [0x25fb, 0x25fe], [0x2900, 0x297f],
  [0x2b00, 0x2bff], [0x3030, 0x3030], [0x303d, 0x303d], [0x3297, 0x3297], [0x3299, 0x3299]]
const FORCE_EMOJI = [[0x200d, 0x200d], [0x20e3, 0x20e3], [0xfe0e, 0xfe0f], [0x1f1e6, 0x1f1ff], [0x1f3fb, 0x1f3ff]]
const PICTO = /\p{Extended_Pictographic}/u
const LN = /[\p{L}\p{N}]/u
const WS = /\s/
const inRanges = (cp, ranges) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi)

function classify(ch, cp) {
  if (cp === 0x20 || (cp >= 0x09 && cp <= 0x0d)) return 'S'
  if (!inRanges(cp, NOT_EMOJI) && (inRanges(cp, FORCE_EMOJI) || PICTO.test(ch))) return 'E'
  if (LN.test(ch)) return 'M'
  if (WS.test(ch)) return 'S'
  return 'Y'
}

function fnv1a(text) {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

function createDetector(blockChars = 128) {
  let text = ''
  let nextBase = 0
  let idx = 0
  let streak = 0
  const block = (b) => {
    let n = 0, spaces = 0, meaning = 0, symbol = 0, emoji = 0, runCp = -1, runLen = 0, maxRun = 0, runCount = 0
    const distinct = new Set()
    for (const ch of b) {
      const cp = ch.codePointAt(0)
      n++
      distinct.add(cp)
      const c = classify(ch, cp)
      if (c === 'S' || c === 'M') {
        if (runLen >= 3) runCount++
        runCp = -1
        runLen = 0
        if (c === 'S') spaces++
        else meaning++
        continue
      }
      if (c === 'E') emoji++
      else symbol++
      if (cp === runCp) runLen++
      else {
        if (runLen >= 3) runCount++
        runCp = cp
        runLen = 1
      }
      if (runLen > maxRun) maxRun = runLen
    }
    if (runLen >= 3) runCount++
    const nonSpace = n - spaces
    const denom = Math.max(1, nonSpace)
    const mr = meaning / denom, nr = (symbol + emoji) / denom, er = emoji / denom
    const variety = distinct.size / Math.max(1, Math.min(nonSpace, 48))
    const flags = []
    if (mr <= 0.08) flags.push('meaningless')
    if (nr >= 0.65) flags.push('noisy')
    if (variety <= 0.3) flags.push('low-variety')
    if (maxRun >= 24 || runCount >= 3) flags.push('run-heavy')
    if (emoji >= 8 && er >= 0.4) flags.push('emoji-flood')
    const degenerate = flags.includes('meaningless') && flags.length - 1 >= 2
    streak = degenerate ? streak + 1 : 0
    if (streak < 2) return null
    const rule = flags.includes('emoji-flood') ? 'emoji-flood' : flags.includes('run-heavy') ? 'symbol-flood' : 'degenerate-output'
    return { rule, block: idx, fingerprint: fnv1a(b), evidence: flags }
  }
  return {
    push(delta) {
      text += delta
      while (text.length - nextBase >= blockChars) {
        const trip = block(text.slice(nextBase, nextBase + blockChars))
        nextBase += blockChars
        idx++
        if (trip !== null) return trip
      }
      if (nextBase >= blockChars) {
        text = text.slice(nextBase)
        nextBase = 0
      }
      return null
    },
  }
}

const [samplesPath, roundsArg] = process.argv.slice(2)
const samples = JSON.parse(readFileSync(samplesPath, 'utf8'))
const rounds = Number(roundsArg || 3)
function once() {
  const lat = new Array(samples.length)
  const rules = new Array(samples.length)
  for (let i = 0; i < samples.length; i++) {
    const det = createDetector()
    const t0 = process.hrtime.bigint()
    let trip = null
    for (const piece of samples[i]) {
      trip = det.push(piece)
      if (trip !== null) break
    }
    lat[i] = Number(process.hrtime.bigint() - t0)
    rules[i] = trip === null ? null : trip.rule
  }
  return { lat, rules }
}
once()
let best = null
for (let r = 0; r < rounds; r++) {
  const run = once()
  const total = run.lat.reduce((a, b) => a + b, 0)
  if (best === null || total < best.total) best = { ...run, total }
}
process.stdout.write(JSON.stringify({ node: process.version, lat_ns: best.lat, rules: best.rules }) + '\n')
