/**
 * The Knowledge page's read routes through a real `dsh web` (0.1.0-rc.8, the packed bundle installed with
 * `dsh plugin add`, as test/e2e does) on a generated root (issue 30, item 7): `GET /knowledge/stats`, the unfiltered
 * list, filtered lists (a kind, a tag, a workspace) and searches, each timed from this process (the whole HTTP round
 * trip). Two servers one after the other on the same root, in the same run:
 *   (a) baseline: `DSH_KNOWLEDGE_FACET_CACHE=off`, facet counts recomputed on every request, as before the cache;
 *   (b) today's code: facet counts cached per filter, shifted by each write of dsh web's own index.
 * Then what a write costs the next requests, on (b) and on (c) `DSH_KNOWLEDGE_FACET_CACHE=drop` (cached until a write
 * drops them, as before shifting, session 34): a file written beside dsh web (as another process or an editor would),
 * waited for until the list counts it (that first list timed), then the stats timed; --writes times.
 *
 *   node bench/page.bench.mjs [count=100000] [--requests N=40] [--writes N=10] [--root DIR]   (after `pnpm run build`)
 *
 * A generated root goes to bench/.data/rounds-<count> unless --root names one; the bench leaves it (remove it after).
 * Prints p50/p99/max per route and variant, and the ratio (a)/(b) of the medians. Numbers are printed, not asserted.
 * @module dsh-knowledge-sync/bench/page
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { writeRounds } from './generate-rounds.mjs'
import { createDshHome } from '../test/harness/dsh.ts'

const { values, positionals } = parseArgs({ allowPositionals: true, options: { requests: { type: 'string' }, writes: { type: 'string' }, root: { type: 'string' } } })
const count = Number(positionals[0] ?? 100_000)
const requests = Number(values.requests ?? 40)
const writes = Number(values.writes ?? 10)
const root = values.root ?? join(import.meta.dirname, '.data', `rounds-${count}`)

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return { p50: pct(s, 0.5), p99: pct(s, 0.99), max: s[s.length - 1] }
}
const f1 = (x) => x.toFixed(1)

/** The requests the page makes, by route; searches are what typing into the search box sends. */
const ROUTES = {
  stats: ['/stats'],
  list: ['/documents?limit=50', '/documents?limit=50&offset=50', '/documents?limit=50&sort=updated'],
  'filtered list': ['/documents?limit=50&kind=note', '/documents?limit=50&tag=pnpm', '/documents?limit=50&cwd=%2Fhome%2Fdev%2Fprojects%2Fshop-api'],
  search: [
    '/documents?limit=50&q=vite',
    '/documents?limit=50&q=vite%20hmr',
    '/documents?limit=50&q=ERR_MODULE_NOT_FOUND',
    '/documents?limit=50&q=redis%20timeout&kind=note',
    '/documents?limit=50&q=pnpm%20install%20registry',
  ],
}

async function get(base, path) {
  const t = performance.now()
  const res = await fetch(`${base}/knowledge${path}`)
  const body = await res.json()
  const ms = performance.now() - t
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`)
  return { ms, body }
}

async function until(what, test, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await test()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function measure(label, env, afterWrite) {
  const home = await createDshHome({ profile: 'web', knowledgeRoot: root, env })
  const booted = performance.now()
  const web = await home.web()
  try {
    await until('the index', async () => (await get(web.url, '/stats')).body.documents >= count)
    const ready = performance.now() - booted
    // Warm-up: every request once (SQLite's pages, expansion's tables, the first plan of each shape).
    for (const paths of Object.values(ROUTES)) for (const path of paths) await get(web.url, path)
    const out = {}
    for (const [route, paths] of Object.entries(ROUTES)) {
      const times = []
      for (let k = 0; k < requests; k++) times.push((await get(web.url, paths[k % paths.length])).ms)
      out[route] = summary(times)
    }
    let write
    if (afterWrite) {
      const { rmSync } = await import('node:fs')
      const firsts = []
      const stats = []
      const seens = []
      let counted = true
      for (let k = 0; k < writes; k++) {
        const before = (await get(web.url, '/stats')).body.documents
        const id = `page-bench-${Date.now()}-${k}`
        const file = join(root, 'global', `${id}.md`)
        writeFileSync(file, `---\nid: ${id}\ntitle: A note the page bench wrote\nkind: note\ntags: [page-bench]\ncreated: ${new Date().toISOString()}\n---\n\n# A note\n\nwritten beside dsh web\n`)
        const t = performance.now()
        let first
        await until('the write', async () => {
          const reply = await get(web.url, '/documents?limit=50')
          first = reply.ms // the request that first counts the write: the facets it carries include the new note
          return reply.body.total === before + 1
        })
        seens.push(performance.now() - t)
        firsts.push(first)
        const reply = await get(web.url, '/stats')
        stats.push(reply.ms)
        counted &&= reply.body.documents === before + 1
        rmSync(file)
        await until('the removal', async () => (await get(web.url, '/stats')).body.documents === before)
      }
      write = { seen: summary(seens), first: summary(firsts), stats: summary(stats), counted }
    }
    console.log(`  (${label}) ready after ${f1(ready / 1000)} s`)
    return { out, write }
  } finally {
    await web.stop()
  }
}

const t = performance.now()
writeRounds(root, count)
console.log(`${count} documents under ${root} (${f1((performance.now() - t) / 1000)} s to generate or reuse); ${requests} requests per route and variant`)
const baseline = await measure('a: recomputed per request', { DSH_KNOWLEDGE_FACET_CACHE: 'off' })
const cached = await measure('b: cached, shifted by writes', {}, true)
const dropped = await measure('c: cached, dropped by writes', { DSH_KNOWLEDGE_FACET_CACHE: 'drop' }, true)
console.log('route            (a) p50 / p99 / max ms        (b) p50 / p99 / max ms        (a)/(b) p50')
for (const route of Object.keys(ROUTES)) {
  const a = baseline.out[route]
  const b = cached.out[route]
  console.log(`${route.padEnd(16)} ${`${f1(a.p50)} / ${f1(a.p99)} / ${f1(a.max)}`.padEnd(29)} ${`${f1(b.p50)} / ${f1(b.p99)} / ${f1(b.max)}`.padEnd(29)} ×${f1(a.p50 / b.p50)}`)
}
const line = (s) => `${f1(s.p50)} / ${f1(s.max)}`
console.log(`a file written beside dsh web, ${writes} times (p50 / max ms): the first list that shows it, then the stats`)
for (const [label, { write: w }] of [
  ['(b) shifted', cached],
  ['(c) dropped', dropped],
]) {
  console.log(`  ${label}: in the list after ${line(w.seen)} (the watcher); first list ${line(w.first)}; stats ${line(w.stats)}; stats counted every write: ${w.counted}`)
}
console.log(`  (c)/(b) p50: first list ×${f1(dropped.write.first.p50 / cached.write.first.p50)}, stats ×${f1(dropped.write.stats.p50 / cached.write.stats.p50)}`)
