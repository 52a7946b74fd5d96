/**
 * The mechanical check of a knowledge base: broken links, links to retired documents, supersede cycles and chains
 * that end in a retired document, unreadable files, and near-duplicate findings within one workspace (candidates to
 * supersede). Reads the store's index and relation graph only; never writes. Shared by `knowledge_check`, the CLI
 * and (later) the page.
 * @module dsh-knowledge-sync/knowledge/corrections/check
 */
import { isVisible } from '../../search/scope.js'
import { stripNotice } from '../relations/relations.js'
import type { KnowledgeStore } from '../store.js'

export type ProblemType = 'broken-link' | 'retired-link' | 'supersede-cycle' | 'retired-successor' | 'missing-successor' | 'unreadable' | 'near-duplicate'

/** One problem, with the ids involved (a path for an unreadable file) and what is wrong. */
export interface Problem {
  type: ProblemType
  ids: string[]
  path?: string
  detail: string
}

/** Kinds whose documents are findings (near-duplicates among them are candidates to supersede). */
const FINDING_KINDS = new Set(['note', 'distilled', 'preference'])
/** Two findings are near-duplicates from this Jaccard similarity of their word pairs on. */
export const DUPLICATE_THRESHOLD = 0.6
/** Per workspace, at most this many findings are compared (newest first), so the check stays bounded. */
const MAX_FINDINGS = 5000
/** A word pair in more findings than this says nothing about duplication (and would make the check quadratic). */
const MAX_POSTING = 50

/** Runs every check over the documents visible from `scope` (undefined: the whole root). */
export function checkKnowledge(store: KnowledgeStore, scope: string | undefined): Problem[] {
  const problems: Problem[] = []
  const visible = (id: string): boolean => {
    const m = store.get(id)
    return !!m && isVisible(m.cwd, scope)
  }
  for (const [id, node] of store.relations.entries()) {
    if (!visible(id)) continue
    for (const key of node.links) {
      const target = store.relations.resolve(key)
      const written = key.replace(/^(id|path):/, '')
      if (!target) problems.push({ type: 'broken-link', ids: [id], detail: `${id} links to ${written}, which names no document` })
      else if (store.relations.get(target)?.status === 'retired') problems.push({ type: 'retired-link', ids: [id, target], detail: `${id} links to ${target}, which is retired` })
    }
    if (node.supersededBy) {
      const chain = [id]
      let next: string | undefined = node.supersededBy
      while (next && !chain.includes(next) && chain.length < 1000) {
        chain.push(next)
        next = store.relations.get(next)?.supersededBy
      }
      const last = chain[chain.length - 1]
      if (next && chain.includes(next)) {
        // Report a cycle once, from its smallest id.
        const cycle = chain.slice(chain.indexOf(next))
        if (id === [...cycle].sort()[0]) problems.push({ type: 'supersede-cycle', ids: cycle, detail: `supersede cycle: ${[...cycle, next].join(' → ')}` })
      } else if (!store.get(last)) problems.push({ type: 'missing-successor', ids: chain, detail: `${chain.join(' → ')}: ${last} names no document` })
      else if (store.relations.get(last)?.status === 'retired' && node.status !== 'retired') {
        problems.push({ type: 'retired-successor', ids: chain, detail: `${chain.join(' → ')} ends in a retired document` })
      }
    }
  }
  for (const [path, error] of store.invalid) problems.push({ type: 'unreadable', ids: [], path, detail: error })
  problems.push(...nearDuplicates(store, scope))
  return problems
}

/** Lowercased word pairs of a text (CJK characters count as words), for a Jaccard similarity. */
export function shingles(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}_]+/gu) ?? []
  const out = new Set<string>()
  for (let k = 0; k + 1 < words.length; k++) out.add(`${words[k]} ${words[k + 1]}`)
  if (words.length === 1) out.add(words[0])
  return out
}

function nearDuplicates(store: KnowledgeStore, scope: string | undefined): Problem[] {
  const byWorkspace = new Map<string, string[]>()
  for (const kind of FINDING_KINDS) {
    for (const meta of store.list({ kind: kind as 'note', scope, status: 'active', limit: MAX_FINDINGS }).items) {
      const list = byWorkspace.get(meta.cwd) ?? []
      list.push(meta.id)
      byWorkspace.set(meta.cwd, list)
    }
  }
  const problems: Problem[] = []
  for (const ids of byWorkspace.values()) {
    if (ids.length < 2) continue
    const sets = ids.map((id) => shingles(`${store.get(id)?.title ?? ''}\n${stripNotice(store.text(id) ?? '').replace(/^## (Finding|Evidence|Scope|Quote|Summary)$/gm, '')}`))
    const postings = new Map<string, number[]>()
    sets.forEach((set, k) => {
      for (const s of set) {
        const p = postings.get(s) ?? []
        p.push(k)
        postings.set(s, p)
      }
    })
    const shared = new Map<number, number>()
    for (let a = 0; a < sets.length; a++) {
      shared.clear()
      for (const s of sets[a]) {
        const p = postings.get(s)!
        if (p.length > MAX_POSTING) continue
        for (const b of p) if (b > a) shared.set(b, (shared.get(b) ?? 0) + 1)
      }
      for (const [b, n] of shared) {
        const similarity = n / (sets[a].size + sets[b].size - n)
        if (similarity >= DUPLICATE_THRESHOLD) {
          // Older first: the usual fix is to supersede the older one by the newer.
          const [older, newer] = (store.get(ids[a])?.created ?? '') <= (store.get(ids[b])?.created ?? '') ? [ids[a], ids[b]] : [ids[b], ids[a]]
          problems.push({
            type: 'near-duplicate',
            ids: [older, newer],
            detail: `${older} and ${newer} say nearly the same (similarity ${similarity.toFixed(2)}); consider superseding ${older} by ${newer}`,
          })
        }
      }
    }
  }
  return problems
}

/** A compact text report for the model and the CLI. */
export function renderProblems(problems: Problem[], scope: string | undefined): string {
  const where = scope ? ` in ${scope}` : ''
  if (!problems.length) return `No problems found${where}: every link resolves, no supersede chain is broken, every file reads.`
  const lines = [`${problems.length} problem(s)${where}:`]
  for (const p of problems) lines.push(`- [${p.type}] ${p.detail}${p.path ? ` (${p.path})` : ''}`)
  return lines.join('\n')
}
