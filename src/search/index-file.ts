/**
 * The index as a file: how a persisted index is opened, recognised and read back. The file is only ever a cache of
 * the documents (the store decides where it lives and when it is trusted); this module answers "is this file an
 * index of our format, complete, and readable?" and opens it so that writes are atomic per commit (WAL: a killed
 * process leaves the last commit, never a torn one).
 *
 * A file is rejected with an {@link IndexFileError} when it is not an SQLite file or is shorter than its header says
 * (truncated copy, garbage), when its format key differs (another schema or another tokenizer: the key includes a
 * fingerprint of {@link indexStreams} on a probe text, so a tokenizer change invalidates old files by itself), or
 * when its build never finished (`state` is not `complete`: a build killed half-way).
 * @module dsh-knowledge-sync/search/index-file
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { DatabaseSync } from 'node:sqlite'
import { registerStampDigest } from './stamp-digest.js'
import { SCHEMA } from './schema.js'
import { indexStreams } from './tokenize.js'

/**
 * `node:sqlite`, loaded on first use rather than at import: a CLI command that never searches (`--help`, `redact`,
 * `capture --dry-run`) then never pays for it (nor prints its ExperimentalWarning).
 */
export function loadSqlite(): typeof import('node:sqlite') {
  return createRequire(import.meta.url)('node:sqlite') as typeof import('node:sqlite')
}

/** Why a file cannot be used as an index. */
export type IndexFileProblem = 'corrupt' | 'foreign' | 'incomplete'

/** A persisted index that must be rebuilt; `reason` says why (one log line's worth). */
export class IndexFileError extends Error {
  constructor(
    readonly problem: IndexFileProblem,
    message: string,
  ) {
    super(message)
  }
}

const PROBE = 'Probe ERR_PNPM_FETCH_404 searchIndex src/search/search-index.ts v1.2.3 数据库连接池 ビルド café'

/** Tables and indexes of a file-backed index that the in-memory index does not need. */
const FILE_SCHEMA = `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE INDEX doc_id ON doc (id);
  CREATE INDEX doc_related ON doc (id) WHERE relations IS NOT NULL;
  CREATE TABLE change (seq INTEGER PRIMARY KEY AUTOINCREMENT, origin INTEGER NOT NULL, id TEXT NOT NULL, path TEXT NOT NULL,
    gone INTEGER NOT NULL, retired INTEGER NOT NULL, tools TEXT NOT NULL);`

/**
 * The format key stored in a file: schema version, schema text and tokenizer output fingerprinted. Version 2: rowids
 * carry the status beside the kind (`seq * 32 + status * 8 + kind`), `doc.superseded_by`, `doc.relations`, `meta.han`.
 * Version 3: the `doc_session` index (conversational context) and CJK single characters in the `chars` column.
 * Also in 3: the body is indexed as plain text (no status notice, comments or link targets, see plainBody).
 * Version 4: the `change` table, the log every process sharing the file follows (see ./shared-file.ts).
 */
export const INDEX_FORMAT = `dsh-knowledge-index/4:${createHash('sha256')
  .update(SCHEMA)
  .update(FILE_SCHEMA)
  .update(JSON.stringify(indexStreams(PROBE)))
  .digest('hex')
  .slice(0, 16)}`

/** Build state of a file: `building` until the first full load is committed, then `complete`. */
export type IndexFileState = 'building' | 'complete'

/**
 * How long a writer waits for another process's write transaction (SQLite's busy handler; each process holds the
 * lock for one event-loop turn of writes, a start-up scan for one slice). Readers never wait: WAL.
 */
export const BUSY_TIMEOUT_MS = 10_000

/** Pragmas of a file-backed index: WAL (atomic commits that survive a killed process), no fsync per commit. */
function tune(db: DatabaseSync): void {
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA temp_store = MEMORY;
    PRAGMA cache_size = -8192;
    PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};
  `)
}

/** Creates a new, empty index file (state `building`), replacing nothing: the caller removed any old file. */
export function createIndexFile(path: string): DatabaseSync {
  const db = new (loadSqlite().DatabaseSync)(path)
  registerStampDigest(db)
  try {
    db.exec('PRAGMA page_size = 8192')
    tune(db)
    db.exec('BEGIN')
    db.exec(SCHEMA)
    db.exec(FILE_SCHEMA)
    const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
    put.run('format', INDEX_FORMAT)
    put.run('state', 'building')
    put.run('created', new Date().toISOString())
    db.exec('COMMIT')
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Opens an existing index file, or throws an {@link IndexFileError} saying why it cannot be used. Any number of
 * processes open it at once, each writing in its turn (see ./shared-file.ts). `readOnly`: a process that cannot write
 * the file (a read-only checkout) reads it as it is.
 */
export function openIndexFile(path: string, { readOnly = false } = {}): DatabaseSync {
  checkHeader(path)
  let db: DatabaseSync
  try {
    db = new (loadSqlite().DatabaseSync)(path, { readOnly })
    registerStampDigest(db)
  } catch (error) {
    throw new IndexFileError('corrupt', `cannot open: ${(error as Error).message}`)
  }
  try {
    // query_only: this connection is a reader; SearchIndex.close then leaves the WAL to its owner (see there).
    if (readOnly) db.exec(`PRAGMA cache_size = -8192; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA query_only = 1;`)
    else tune(db)
    const meta = new Map((db.prepare('SELECT key, value FROM meta').all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]))
    if (meta.get('format') !== INDEX_FORMAT) throw new IndexFileError('foreign', `format ${JSON.stringify(meta.get('format') ?? null)}, expected ${INDEX_FORMAT}`)
    if (meta.get('state') !== 'complete') throw new IndexFileError('incomplete', `its build did not finish (state ${meta.get('state') ?? 'missing'})`)
    return db
  } catch (error) {
    db.close()
    if (error instanceof IndexFileError) throw error
    throw new IndexFileError('corrupt', (error as Error).message)
  }
}

/** Records the build state in an open index file. */
export function setIndexFileState(db: DatabaseSync, state: IndexFileState): void {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('state', state)
}

/**
 * The 100-byte SQLite header: the magic string, and a page count × page size that the file must hold (a truncated
 * file would otherwise open fine and fail on the first missing page, deep inside a search).
 *
 * The size is checked only when no WAL lies beside the file. With one, a shorter file is the normal state of a shared
 * index: a checkpoint (another process's, or its checkpoint worker's) copies page 1, which holds the new page count,
 * before the pages that extend the file, and a process that opened the file in that window took the live index for a
 * truncated one and rebuilt it, removing the files every other process had open (they went on writing to an unlinked
 * file nobody else read: the soak lost its index that way about 20,000 rounds in, twice). Until a checkpoint ends,
 * the WAL holds every page past the file's end; SQLite reads them from there.
 */
function checkHeader(path: string): void {
  const header = Buffer.alloc(100)
  let size: number
  try {
    const fd = openSync(path, 'r')
    try {
      readSync(fd, header, 0, 100, 0)
      size = fstatSync(fd).size
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new IndexFileError('corrupt', `cannot read: ${(error as Error).message}`)
  }
  if (size < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\0') throw new IndexFileError('corrupt', 'not an SQLite file')
  const rawPage = header.readUInt16BE(16)
  const pageSize = rawPage === 1 ? 65536 : rawPage
  const pages = header.readUInt32BE(28)
  // The in-header size is valid only when the "version-valid-for" number matches the change counter.
  if (header.readUInt32BE(92) === header.readUInt32BE(24) && pages * pageSize > size && !hasWal(path)) {
    throw new IndexFileError('corrupt', `truncated (${size} bytes, header says ${pages * pageSize})`)
  }
}

/**
 * A WAL beside `path`: a regular file that starts with SQLite's WAL magic number (0x377f0682 or 0x377f0683). Anything
 * else there (a link, junk) is not one, and SQLite would ignore it, so the size check stands.
 */
function hasWal(path: string): boolean {
  let fd: number | undefined
  try {
    // Never through a link; a FIFO opens at once (no writer awaited) and the fstat refuses it: no lstat-then-open race.
    fd = openSync(`${path}-wal`, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    if (!fstatSync(fd).isFile()) return false
    const magic = Buffer.alloc(4)
    return readSync(fd, magic, 0, 4, 0) === 4 && (magic.readUInt32BE(0) | 1) === 0x377f0683
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
