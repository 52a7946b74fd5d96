/**
 * The shape of the code, checked: floors only point down (engines → store → rows → CLI), rows never import each other
 * at run time, no import cycles, the browser module reaches only the shared vocabulary, and no source file grows past
 * the size one reader can hold.
 */
import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const MAX_LINES = 400

function files(dir: string, ext = /\.tsx?$/): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)).split('\\').join('/'))
}

interface Edge {
  from: string
  to: string
  typeOnly: boolean
}

/** Relative imports of one file, resolved to repository paths (`.js` specifiers name `.ts` sources). */
function importsOf(file: string): Edge[] {
  const text = readFileSync(join(root, file), 'utf8')
  const edges: Edge[] = []
  const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm
  for (const m of text.matchAll(pattern)) {
    const target = relative(root, resolve(dirname(join(root, file)), m[3]))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts')
    const typeOnly = Boolean(m[2]) || /^\s*import\s+type\s*\{\s*\}/.test(m[0])
    edges.push({ from: file, to: target, typeOnly })
  }
  return edges
}

/** The floor of a source file: 0 vocabulary, 1 pure engines, 2 the store, 3 rows, 4 the CLI. */
function floorOf(file: string): { floor: number; unit: string } {
  const rel = file.replace(/^src\//, '')
  const top = rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : rel
  // The vocabulary: wire.ts and its import-free parts (wire-*.ts: report shapes, workspace names), types.ts.
  if (top === 'wire.ts' || /^wire-[a-z-]+\.ts$/.test(top) || top === 'types.ts') return { floor: 0, unit: top }
  // net/: the guarded fetcher, shared by sync (upstream pages) and originals (downloads); it knows no store.
  if (top === 'redact' || top === 'search' || top === 'net') return { floor: 1, unit: top }
  if (top === 'knowledge' || top === 'tool-output.ts') return { floor: 2, unit: top }
  if (top === 'cli') return { floor: 4, unit: top }
  return { floor: 3, unit: top }
}

const sources = files('src')
const edges = sources.flatMap(importsOf)

describe('floors', () => {
  it('every import points to the same floor or one below', () => {
    const upward = edges.filter((e) => e.to.startsWith('src/') && !e.typeOnly && floorOf(e.to).floor > floorOf(e.from).floor)
    expect(upward.map((e) => `${e.from} → ${e.to}`)).toEqual([])
  })

  it("the engines stay pure: redact/ and search/ import neither each other's callers nor the store", () => {
    const bad = edges.filter((e) => floorOf(e.from).floor === 1 && floorOf(e.to).floor >= 1 && floorOf(e.to).unit !== floorOf(e.from).unit)
    expect(bad.map((e) => `${e.from} → ${e.to}`)).toEqual([])
  })

  it('rows never import another row at run time (types are allowed)', () => {
    const sideways = edges.filter((e) => floorOf(e.from).floor === 3 && floorOf(e.to).floor === 3 && floorOf(e.to).unit !== floorOf(e.from).unit && !e.typeOnly)
    expect(sideways.map((e) => `${e.from} → ${e.to}`)).toEqual([])
  })

  it('has no import cycles', () => {
    const next = new Map<string, string[]>()
    for (const e of edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e.to])
    const state = new Map<string, 'open' | 'done'>()
    const cycles: string[] = []
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '))
        return
      }
      state.set(file, 'open')
      for (const to of next.get(file) ?? []) visit(to, [...path, file])
      state.set(file, 'done')
    }
    for (const file of sources) visit(file, [])
    expect(cycles).toEqual([])
  })

  it('the browser module imports only the shared vocabulary from src/', () => {
    const allowed = new Set(['src/wire.ts', 'src/types.ts', 'src/knowledge/settings/fields.ts'])
    const reach = files('client')
      .flatMap(importsOf)
      .filter((e) => e.to.startsWith('src/') && !allowed.has(e.to) && !/^src\/wire-[a-z-]+\.ts$/.test(e.to))
    expect(reach.map((e) => `${e.from} → ${e.to}`)).toEqual([])
  })

  it('the checker itself sees imports (a planted upward import would be found)', () => {
    expect(edges.some((e) => e.from === 'src/knowledge/store.ts' && e.to === 'src/search/search-index.ts')).toBe(true)
    expect(floorOf('src/cli/main.ts').floor).toBeGreaterThan(floorOf('src/recall/index.ts').floor)
  })
})

/**
 * The rooms of the store row (`src/knowledge/<room>/`), bottom to top. A file may import (values or types) only from
 * its own room or a lower one, so a newcomer can read the row from the bottom up: documents and settings, then the
 * disk, the logs, the persisted index, ids, the indexed view, the write path, the store itself (`store.ts`, the row's
 * `index.ts`, `query.ts`, `holds.ts`, `pager.ts`), and last the operations over the store's API, the wiki's pages over all of them. Files directly in
 * `src/knowledge/` sit at the store's level, but `store-types.ts`, the row's shared shapes, sits at the bottom.
 */
const ROOMS: Record<string, number> = {
  'store-types.ts': 0,
  documents: 1,
  settings: 1,
  disk: 2,
  relations: 2,
  // The originals folder and its manifest: files the knowledge base is built from, beside the documents.
  originals: 3,
  logs: 3,
  'index-cache': 4,
  ids: 5,
  view: 6,
  writes: 7,
  '': 8,
  corrections: 9,
  reports: 9,
  // A document's revisions (git or the local history) and their diffs, over the store's API; at the store's level
  // because the row's index.ts starts the local history beside the store.
  history: 8,
  wiki: 10,
}

function roomOf(file: string): string | undefined {
  const rel = file.slice('src/knowledge/'.length)
  if (rel === 'store-types.ts') return rel
  return rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : ''
}

describe('rooms of the store row', () => {
  const inRow = (f: string) => f.startsWith('src/knowledge/')
  it('every folder of src/knowledge/ is a room with a place in the order', () => {
    const unknown = [...new Set(sources.filter(inRow).map(roomOf))].filter((r) => r === undefined || !(r in ROOMS))
    expect(unknown).toEqual([])
  })

  it('every import inside the row points to the same room or a lower one', () => {
    const rank = (f: string) => ROOMS[roomOf(f) ?? ''] ?? Number.POSITIVE_INFINITY
    const upward = edges.filter((e) => inRow(e.from) && inRow(e.to) && roomOf(e.from) !== roomOf(e.to) && rank(e.to) > rank(e.from))
    expect(upward.map((e) => `${e.from} → ${e.to}`)).toEqual([])
  })

  it('the order is seen: the write path is above the disk, the store above both', () => {
    expect(edges.some((e) => e.from === 'src/knowledge/writes/commit.ts' && roomOf(e.to) === 'disk')).toBe(true)
    expect(ROOMS[roomOf('src/knowledge/store.ts') ?? '']).toBeGreaterThan(ROOMS.writes)
  })
})

describe('size', () => {
  it(`no source file is longer than ${MAX_LINES} lines`, () => {
    const long = [...sources, ...files('client')].map((file) => ({ file, lines: readFileSync(join(root, file), 'utf8').split('\n').length })).filter((f) => f.lines > MAX_LINES)
    expect(long.map((f) => `${f.file}: ${f.lines}`)).toEqual([])
  })
})
