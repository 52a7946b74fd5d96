/**
 * Compares two V8 heap snapshots (issue 24): the self size of every object, summed by what it is and by the nearest
 * named owners on its shortest retaining path from the GC roots, second minus first, largest growth first.
 *
 *   node --max-old-space-size=6000 bench/heap-diff.mjs a.heapsnapshot b.heapsnapshot [rows] [depth]
 *   node bench/heap-diff.mjs - b.heapsnapshot            # one snapshot on its own
 *
 * A row reads `(string) <- PathTable.byPath <- DocumentFiles.table`: strings reached through the `byPath` property of
 * a PathTable, itself the `table` of a DocumentFiles. Plain containers (Object, Array, Map, Set, closure contexts) are
 * skipped in the owner chain. Snapshots come from `bench/soak.bench.mjs --snapshot-at N,M`.
 * @module dsh-knowledge-sync/bench/heap-diff
 */
import { readFileSync } from 'node:fs'

const [first, second, rows = '40', depth = '2'] = process.argv.slice(2)
const PLAIN = new Set(['Object', 'Array', 'Map', 'Set', 'system / Context', '', 'Function'])

/** Self size and count by label: what the node is, and its owners. */
function load(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'))
  const meta = snap.snapshot.meta
  const [nodeTypes, edgeTypes] = [meta.node_types[0], meta.edge_types[0]]
  const [W, EW] = [meta.node_fields.length, meta.edge_fields.length]
  const { nodes, edges, strings } = snap
  const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f))
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f))
  const n = nodes.length / W
  const firstEdge = new Uint32Array(n + 1)
  for (let i = 0, e = 0; i < n; i++) {
    firstEdge[i] = e
    e += nodes[i * W + iEdges] * EW
  }
  firstEdge[n] = edges.length
  // Breadth first from the root: each node's parent on a shortest path, weak edges left out.
  const parent = new Int32Array(n).fill(-1)
  const via = new Array(n)
  parent[0] = 0
  const queue = [0]
  for (let h = 0; h < queue.length; h++) {
    const i = queue[h]
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EW) {
      const type = edgeTypes[edges[e + eType]]
      if (type === 'weak' || type === 'shortcut') continue
      const j = edges[e + eTo] / W
      if (parent[j] !== -1) continue
      parent[j] = i
      via[j] = type === 'element' || type === 'hidden' ? `[${type}]` : String(strings[edges[e + eName]] ?? edges[e + eName])
      queue.push(j)
    }
  }
  const nameOf = (i) => {
    const type = nodeTypes[nodes[i * W + iType]]
    return type === 'object' || type === 'native' || type === 'closure' ? strings[nodes[i * W + iName]] : `(${type})`
  }
  const sums = new Map()
  for (let i = 0; i < n; i++) {
    const owners = []
    let j = i
    let edge = via[i]
    for (let guard = 0; j > 0 && owners.length < Number(depth) && guard < 200; guard++) {
      const p = parent[j]
      if (p < 0) {
        owners.push('(unreachable)')
        break
      }
      const name = nameOf(p)
      if (!PLAIN.has(name) && !name.startsWith('(')) owners.push(`${name.slice(0, 40)}.${edge}`)
      edge = via[p]
      j = p
    }
    const label = `${nameOf(i).slice(0, 30)} <- ${owners.join(' <- ') || '(root)'}`
    const sum = sums.get(label) ?? { count: 0, size: 0 }
    sum.count++
    sum.size += nodes[i * W + iSize]
    sums.set(label, sum)
  }
  return sums
}

const before = first === '-' ? new Map() : load(first)
const after = load(second)
const diff = []
for (const [label, b] of after) {
  const a = before.get(label) ?? { count: 0, size: 0 }
  diff.push({ label, count: b.count - a.count, size: b.size - a.size })
}
for (const [label, a] of before) if (!after.has(label)) diff.push({ label, count: -a.count, size: -a.size })
diff.sort((x, y) => y.size - x.size)
const kb = (bytes) => `${(bytes / 1024).toFixed(1).padStart(9)} KB`
console.log(`${kb(diff.reduce((s, d) => s + d.size, 0))} in all`)
for (const d of diff.slice(0, Number(rows))) console.log(`${kb(d.size)} ${String(d.count).padStart(8)}  ${d.label}`)
console.log('largest shrinkage:')
for (const d of diff.slice(-5)) console.log(`${kb(d.size)} ${String(d.count).padStart(8)}  ${d.label}`)
