/**
 * The persisted index's manifest in one value, and the same value of a listing of the files: a start-up reconcile
 * whose listing sums to the index's digest need not read the manifest's rows back (100k rows: ~0.2–0.3 s in a fresh
 * process; the digest ~0.06 s). The digest is a multiset hash: the count, the summed size, and a 40-bit hash of each
 * file's path, size, mtime and ctime, summed. Equal digests mean the index's rows and the files agree path by path on
 * every stamp (the comparison a full reconcile makes), but for a chance of about 2^-40 per listing that differs: a
 * rename, a file replaced, a second entry for one path, a new file or a lost one all change it. (40 bits, so that
 * SQLite's 64-bit sum of up to 2^23 rows cannot overflow; a sum that would gives no digest, and every row is read.)
 * Racy rows (indexed within `racyMs` of their modification, or lacking a stamp) are left out of the sums and listed
 * one by one, up to {@link DIGEST_SINGLE_MAX}, to be compared as a full reconcile compares them.
 *
 * Imports only Node: a worker thread loads it by URL (knowledge/index-cache/reconcile-worker.ts).
 * @module dsh-knowledge-sync/search/stamp-digest
 */
import type { DatabaseSync } from 'node:sqlite'

/** The SQL function's name, registered on a connection by {@link registerStampDigest}. */
export const STAMP_HASH_FN = 'knowledge_stamp_hash'

/**
 * How long after being stat'ed a file's times still cannot be trusted: a second write within the file system's
 * timestamp granularity (a few ms on Linux, 1–2 s on HFS+/FAT) leaves size and times as they were. A row indexed
 * within this of its file's modification is racy (knowledge/index-cache/walk.ts, changedSince).
 */
export const RACY_MS = 2000

/** The most racy rows a digest lists one by one; past it the rows are compared whole. */
export const DIGEST_SINGLE_MAX = 4096

/** A hash's two halves, summed apart in JavaScript so that each sum stays exact. */
const HALF = 2 ** 20
const float = new Float64Array(1)
const words = new Uint32Array(float.buffer)

/**
 * A file's path and stamp hashed to 40 bits (FNV-1a and a multiply-xorshift over the same units, each finished by
 * MurmurHash3's mixer, 20 bits kept of each): an exact integer in JavaScript and SQLite alike.
 */
export function stampHash(path: string, size: number, mtimeMs: number, ctimeMs: number): number {
  return stampHashFrom(path, 0, size, mtimeMs, ctimeMs)
}

/** {@link stampHash} of `path.slice(from)`, without making that string (a listing hashes 100k paths under one root). */
export function stampHashFrom(path: string, from: number, size: number, mtimeMs: number, ctimeMs: number): number {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = from; i < path.length; i++) {
    const unit = path.charCodeAt(i)
    a = Math.imul(a ^ unit, 0x01000193)
    b = Math.imul(b ^ unit, 0x5bd1e995)
    b ^= b >>> 15
  }
  // The stamp's 64-bit words (size as a double too: exact up to 2^53), each word into both hashes.
  float[0] = size
  a = Math.imul(a ^ words[0] ^ 0x10000, 0x01000193)
  b = Math.imul(b ^ words[1], 0x5bd1e995)
  float[0] = mtimeMs
  a = Math.imul(Math.imul(a ^ words[0], 0x01000193) ^ words[1], 0x01000193)
  b = Math.imul(Math.imul(b ^ words[1], 0x5bd1e995) ^ words[0], 0x5bd1e995)
  float[0] = ctimeMs
  a = Math.imul(Math.imul(a ^ words[0], 0x01000193) ^ words[1], 0x01000193)
  b = Math.imul(Math.imul(b ^ words[1], 0x5bd1e995) ^ words[0], 0x5bd1e995)
  return (fmix(a) >>> 12) * HALF + (fmix(b) >>> 12)
}

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** A listing's digest being summed (each sum exact: its halves stay below 2^53 for 2^33 files). */
export class StampSums {
  private count = 0
  private size = 0
  private low = 0
  private high = 0
  add(path: string, size: number, mtimeMs: number, ctimeMs: number): void {
    this.addHash(stampHash(path, size, mtimeMs, ctimeMs), size)
  }
  /** A file whose {@link stampHash} is known. */
  addHash(hash: number, size: number): void {
    this.count++
    this.size += size
    this.low += hash % HALF
    this.high += Math.floor(hash / HALF)
  }
  /** The digest as the SQL of {@link manifestDigestSql} gives it. */
  get text(): string {
    return `${this.count}:${this.size}:${BigInt(this.high) * BigInt(HALF) + BigInt(this.low)}`
  }
}

/**
 * Each row's stamp hash ({@link stampHash} of its path, size, mtime and ctime), written with the row, so
 * that the manifest's digest is a plain sum: 100k rows in ~15 ms, against ~100–160 ms calling the hash once a row (a
 * CLI command with nobody watching reads it on the critical path). Added to a file as schema.ts's `REV_COLUMN` is, with
 * its trigger ({@link STORED_HASH}); NULL where the writer gave none (an older build), and hashed when the digest is read.
 */
export const STAMP_COLUMN = 'stamp_hash'

/**
 * What a file gains for the stored hash, each as [a query that returns a row when it is there, the statement that adds
 * it] (see schema.ts, addedToSchema): the column, and a trigger that clears a stored hash a write left stale (an older
 * build updates a row's stamp without knowing the column; plain SQL, so that it runs on every connection, whatever
 * functions it has registered). The hash is stored only where both are there.
 */
export const STORED_HASH: ReadonlyArray<readonly [present: string, add: string]> = [
  [`SELECT 1 AS x FROM pragma_table_info('doc') WHERE name = '${STAMP_COLUMN}'`, `ALTER TABLE doc ADD COLUMN ${STAMP_COLUMN} INTEGER`],
  [
    "SELECT 1 AS x FROM sqlite_master WHERE type = 'trigger' AND name = 'doc_stamp_stale'",
    `CREATE TRIGGER doc_stamp_stale AFTER UPDATE OF path, size, mtime, ctime ON doc
  WHEN new.${STAMP_COLUMN} IS NOT NULL AND new.${STAMP_COLUMN} IS old.${STAMP_COLUMN}
    AND (new.path IS NOT old.path OR new.size IS NOT old.size OR new.mtime IS NOT old.mtime OR new.ctime IS NOT old.ctime)
  BEGIN UPDATE doc SET ${STAMP_COLUMN} = NULL WHERE rowid = new.rowid; END`,
  ],
]

/** Whether `db`'s rows hold their {@link STAMP_COLUMN} (all of {@link STORED_HASH} is there): for {@link manifestDigestSql}. */
export function storesStampHash(db: DatabaseSync): boolean {
  return STORED_HASH.every(([present]) => db.prepare(present).get() !== undefined)
}

/** Which rows are racy (see {@link manifestDigestSql}): one text, so that {@link digestIndexes}' partial index serves it. */
function racyRows(racyMs: number): string {
  return `(seen IS NULL OR hash IS NULL OR size IS NULL OR ctime IS NULL OR seen - mtime < ${Number(racyMs)})`
}

/**
 * The indexes that make the digest two small reads (100k rows: ~12 ms, against ~40 ms scanning the table twice): the
 * racy rows (a partial index, usually empty) and the columns the sums read (a covering index, ~120 bytes a row). Added
 * to a file that has the stored hash, as it is (doc-row.ts, docWrites); creating them takes ~0.1 s at 100k, ~1.2 s at
 * a million, once. The covering index leads with `seen`, which grows with the rowid: filling the stored hash in rowid
 * order (manifest.ts, fillStampHashes) then rewrites neighbouring entries (a million rows: 4 ms a batch of 1,024 rows,
 * against 76 ms led by `size`, whose entries lie all over the index).
 */
export function digestIndexes(racyMs: number): Array<[present: string, add: string]> {
  const present = (name: string) => `SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = '${name}'`
  return [
    [present('doc_racy'), `CREATE INDEX doc_racy ON doc (rowid) WHERE ${racyRows(racyMs)}`],
    [present('doc_stamps'), `CREATE INDEX doc_stamps ON doc (seen, mtime, ctime, size, hash, path, ${STAMP_COLUMN})`],
  ]
}

/** Registers {@link STAMP_HASH_FN}`(path, size, mtime, ctime)` ({@link stampHash}) on `db`. */
export function registerStampDigest(db: DatabaseSync): void {
  db.function(STAMP_HASH_FN, { deterministic: true }, (path, size, mtime, ctime) => stampHash(String(path), Number(size), Number(mtime), Number(ctime)))
}

/**
 * The digest row: the digest of the rows that are not racy (`count:size:hashes`, as {@link StampSums}), then the
 * racy rows as JSON `[rowid, path, seen, mtime]`, or NULL past {@link DIGEST_SINGLE_MAX} of them. One statement, so both
 * parts are read in one snapshot. The function is called once a row (a value used twice would call it twice), and
 * with `stored` ({@link storesStampHash}) only for a row without its stored hash.
 */
export function manifestDigestSql(racyMs: number, stored: boolean): string {
  const racy = racyRows(racyMs)
  const hashed = `${STAMP_HASH_FN}(path, size, mtime, ctime)`
  return `SELECT count(*) || ':' || coalesce(sum(size), 0) || ':' || coalesce(sum(CAST(${stored ? `coalesce(${STAMP_COLUMN}, ${hashed})` : hashed} AS INTEGER)), 0),
    (SELECT CASE WHEN count(*) > ${DIGEST_SINGLE_MAX} THEN NULL ELSE json_group_array(json_array(rowid, path, seen, mtime)) END
      FROM (SELECT rowid, path, seen, mtime FROM doc WHERE ${racy} LIMIT ${DIGEST_SINGLE_MAX + 1}))
    FROM doc WHERE NOT ${racy}`
}
