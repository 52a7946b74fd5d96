/**
 * One pager over the store's list: every document a filter selects, a page at a time (one list call returns at most
 * {@link LIST_PAGE}), for the scans that need them all (the health probe, the wiki's catalogue, orphans, the originals'
 * summary links).
 *
 * Each page after the first is the list right after the last document of the page before (its anchor), wherever the
 * anchor is now: a seek, so a page costs the same at the end of a large base as at its start (an offset walks every
 * document before the page: at 100k documents the probe's pages took 14–50 ms each, and longer as the base grew).
 * Semantics when the list changes between two pages (the caller awaited, or another process wrote):
 * - Order: the list's own (newest first). Offsets alone would repeat a document when one is written before the point
 *   reached (a new document sorts first) and skip one when one before it is removed; a page after the anchor does
 *   neither.
 * - Exactly once: a document the filter selects for the whole scan is yielded once, in order; none is yielded twice.
 * - A document written during the scan is yielded only if it sorts after the point reached (a new one, newest, does
 *   not); one removed or retired during the scan only if it was reached before.
 * When the anchor is no longer indexed, the scan resumes after the last document it yielded that still is (from the
 * start if none is).
 * @module dsh-knowledge-sync/knowledge/pager
 */
import type { SearchFilter } from '../types.js'
import type { IndexedMeta, KnowledgeStore } from './store.js'

/** The most one list call returns (the index's window). */
export const LIST_PAGE = 1000

/** A listed document, as `store.list` returns it. */
export type ListedMeta = IndexedMeta & { version?: number }
/** What a scan selects: a list filter without paging, in the list's default order. */
export type ScanFilter = Omit<SearchFilter, 'offset' | 'limit' | 'bare'>
/** The part of the store the pager reads. */
export type Lister = Pick<KnowledgeStore, 'list' | 'get'>

/** The pages of documents `filter` selects, in the list's order (see the module header for writes between pages). */
export function* listedPages(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): Generator<ListedMeta[], void, undefined> {
  for (const { items } of scan(store, filter, size)) yield items
}

/** The documents `filter` selects, one by one, read a page at a time. */
export function* eachListed(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): Generator<ListedMeta, void, undefined> {
  for (const { items } of scan(store, filter, size)) yield* items
}

/**
 * {@link listedPages} for a long async scan: a turn of the event loop after each page but the last, before the next
 * page is listed, so a scan over a large base never holds the loop for all of it.
 */
export async function* listedPagesWithTurns(store: Lister, filter: ScanFilter = {}, size = LIST_PAGE): AsyncGenerator<ListedMeta[], void, undefined> {
  for (const { items, last } of scan(store, filter, size)) {
    yield items
    if (!last) await new Promise((resolve) => setImmediate(resolve))
  }
}

function* scan(store: Lister, filter: ScanFilter, size: number): Generator<{ items: ListedMeta[]; last: boolean }, void, undefined> {
  if (!Number.isInteger(size) || size < 2 || size > LIST_PAGE) throw new RangeError(`pager: size must be an integer from 2 to ${LIST_PAGE}`)
  // The ids yielded, in order.
  const seen = new Set<string>()
  let anchor: string | undefined
  for (;;) {
    const { items } = store.list({ ...filter, limit: size, ...(anchor === undefined ? { offset: 0 } : { after: anchor }) })
    if (!items.length && anchor !== undefined && !store.get(anchor)) {
      // The anchor left the index: after the last yielded document that is still there, else from the start.
      anchor = [...seen].reverse().find((id) => store.get(id) !== undefined)
      continue
    }
    const last = items.length < size
    const page = items.filter((m) => !seen.has(m.id))
    for (const m of page) seen.add(m.id)
    if (items.length) anchor = items[items.length - 1].id
    if (page.length) yield { items: page, last }
    if (last) return
  }
}
