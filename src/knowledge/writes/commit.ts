/**
 * The one write of a document: searchable first, durable next. The index takes the redacted document before its file
 * is written and fsync'd (as Lucene's near-real-time readers see documents before their commit), so a new round is
 * found by a search without waiting for the disk: the fsync is most of a write's worst case (8–14 ms on this
 * machine's disk, against ~0.2 ms for the upsert). The file's stamp and revision follow once the file is there.
 *
 * What a reader can see in between: a search hit whose file is not yet on disk. The store's `read` waits for the
 * document's write ({@link PendingWrites}), so a read after a hit always returns the new text. A write that fails
 * puts the index back to what the disk holds (the previous file, or nothing) and reports the error; a process killed
 * in between leaves a cache entry without a stamp, which the next start re-reads (or drops, when no file is there).
 * @module dsh-knowledge-sync/knowledge/writes/commit
 */
import { rm, stat } from 'node:fs/promises'
import type { FrontMatter } from '../../types.js'
import { writeFileAtomic } from '../disk/atomic.js'
import { stampOf } from '../index-cache/index-cache.js'
import { insideRoot } from '../documents/paths.js'
import { contentHash, type Revisions } from '../logs/revisions.js'
import type { StoreIndex } from '../view/store-index.js'

/** What a commit uses of the store. */
export interface CommitHost {
  readonly root: string
  readonly indexed: StoreIndex
  readonly revisions: Revisions
  readonly pending: PendingWrites
  /** After the file is on disk: start watching (a late root), tell the change listeners. */
  landed(id: string, path: string, meta: FrontMatter): void
}

/** A document's text as it will be written. `replaced`: older files of the same round (removed after the write). */
export interface CommitDocument {
  id: string
  path: string
  meta: FrontMatter
  body: string
  text: string
  replaced?: string[]
}

/** Writes of this process that are searchable but not yet on disk, by id: a read of one waits for its file. */
export class PendingWrites {
  private readonly writes = new Map<string, Promise<void>>()

  /** Resolves once no write of `id` is in flight (at once, usually). */
  settled(id: string): Promise<void> | undefined {
    return this.writes.get(id)
  }

  /** Runs `write` as the write in flight for `id`. */
  async run<T>(id: string, write: () => Promise<T>): Promise<T> {
    const running = write()
    const done = running.then(
      () => {},
      () => {},
    )
    this.writes.set(id, done)
    try {
      return await running
    } finally {
      if (this.writes.get(id) === done) this.writes.delete(id)
    }
  }
}

/** Indexes `doc`, writes its file atomically, then records its stamp and revision. Returns the revision. */
export function commitDocument(host: CommitHost, doc: CommitDocument): Promise<number> {
  const { id, path, meta, body, text, replaced } = doc
  const full = insideRoot(host.root, path)
  host.indexed.files.assertWritable(path)
  const hash = contentHash(text)
  // The file's times are unknown until it exists: no stamp yet, so a start that finds this entry reads the file.
  const undo = host.indexed.admitWritten({ id, path, meta, body, mtimeMs: Date.now(), hash })
  return host.pending.run(id, async () => {
    try {
      await writeFileAtomic(full, text)
    } catch (error) {
      undo()
      throw error
    }
    try {
      // Copies of the same round left by an older version (two files, one id) go, so the newer round is the one read.
      for (const extra of replaced?.slice(1) ?? []) await rm(insideRoot(host.root, extra), { force: true }).catch(() => {})
      const info = await stat(full)
      const [version] = host.revisions.index([{ id, hash }])
      host.indexed.index.restamp(id, info.mtimeMs, stampOf(info, text), version)
      host.landed(id, path, meta)
      return version
    } finally {
      // The watcher looks at this file again (a change it reported meanwhile, e.g. of the previous write, is read now).
      host.indexed.files.wrote(path)
    }
  })
}
