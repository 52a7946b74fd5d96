/**
 * The guarded fetcher lives in `src/net/` (floor 1) so the originals row's downloads go through the same code; this
 * module keeps sync's imports as they were.
 * @module dsh-knowledge-sync/sync/fetcher
 */
export * from '../net/fetcher.js'
