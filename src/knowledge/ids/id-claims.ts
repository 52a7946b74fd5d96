/**
 * Document ids: `<session prefix>-t<turn>` for rounds, `<session prefix>-n<k>` for notes. The prefix is the first 8
 * characters of the session's uuid, lengthened when another session already owns it (a clash), so two sessions never
 * share an id. Ownership is claimed on disk with an exclusive create in `<root>/.knowledge/ids/<prefix>`, so two
 * processes writing into one root resolve a clash the same way.
 * @module dsh-knowledge-sync/knowledge/ids/id-claims
 */
import { Loading } from '../index-cache/loading.js'
import type { Location } from '../index-cache/path-table.js'
import { lstat, mkdir, readdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises'
import { realpathSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { parseDocument } from '../documents/document.js'
import { readRootFile } from '../disk/safe-read.js'
import { LEDGER_DIR } from '../logs/ledger.js'
import { sessionFolder, sessionShortId } from '../documents/paths.js'

const PREFIX_LENGTHS = [8, 12, 16, 24, 32]
/** A round lock older than this was left by a killed writer and is taken over. */
const LOCK_STALE_MS = 30_000
/** The longest a writer waits for another process's lock on the same round before writing anyway (and saying so). */
const LOCK_WAIT_MS = 5_000

/**
 * Runs `write` holding the cross-process lock of one round (`session` + `turn`): an exclusive `mkdir` of
 * `<root>/.knowledge/locks/<session>--t<turn>`. Why: two processes capturing the same round at the same moment would
 * each find no file yet and write two names; under the lock the second finds the first's file and replaces it in
 * place. Drafts that are not rounds, and roots where no lock can be made, run unlocked. Returns `write`'s result.
 */
export async function withRoundLock<T>(root: string, round: { session?: string; turn?: number } | undefined, write: () => Promise<T>): Promise<T> {
  if (!round?.session || round.turn === undefined) return write()
  const dir = join(root, LEDGER_DIR, 'locks')
  const lock = join(dir, `${sessionFolder(round.session)}--t${round.turn}`)
  let held = false
  try {
    if ((await lstat(join(root, LEDGER_DIR)).catch(() => undefined))?.isSymbolicLink()) throw new Error('linked')
    // The locks folder is made when a lock meets its absence (one disk round trip less on every write).
    for (const deadline = Date.now() + LOCK_WAIT_MS; !held && Date.now() < deadline; ) {
      try {
        await mkdir(lock)
        held = true
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') {
          await mkdir(dir, { recursive: true })
          continue
        }
        if (code !== 'EEXIST') break
        const since = await stat(lock).then(
          (info) => Date.now() - info.mtimeMs,
          () => 0,
        )
        if (since > LOCK_STALE_MS) await rmdir(lock).catch(() => {})
        else await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
  } catch {
    /* no lock can be made here (unwritable root): the write reports its own error */
  }
  try {
    return await write()
  } finally {
    if (held) await rmdir(lock).catch(() => {})
  }
}

/**
 * The files of a round's id in its session folder (`<id>-<slug>.md`), oldest name order, root-relative. The rule
 * for a round captured again (same session and turn, by this process or another): its id is the round's identity,
 * so the newer capture replaces the older one **in place** — same file, atomic rename — and never makes a second
 * file with the same id. The disk is asked, not only the index, because another process may have written it a
 * moment ago (its watcher event not yet seen, or no watcher at all: the CLI).
 */
export async function roundFiles(root: string, sessionDir: string, id: string): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(join(root, sessionDir))
  } catch {
    return []
  }
  const candidates = names.filter((name) => name.startsWith(`${id}-`) && name.endsWith('.md') && !name.startsWith('.')).sort()
  // Only files that really hold this id: a hand-written file that merely has a similar name is never overwritten.
  return candidates
    .map((name) => `${sessionDir}/${name}`)
    .filter((rel) => {
      try {
        const { text } = readRootFile(realpathSync.native(root), rel, join(root, rel))
        return parseDocument(text, rel, '', 0).meta.id === id
      } catch {
        return false
      }
    })
}

export class IdClaims {
  private readonly prefixes = new Map<string, string>()
  /**
   * Id prefix → the session whose documents use it, from every indexed document. Read from the index on first use
   * (`indexed`), not at start: a start that finds nothing changed never needs it.
   */
  private readonly owners = new Map<string, string>()
  private readonly loading: Loading<Location>
  private readonly dir: string
  /** The claims folder was made by this process: later claims skip that round trip (never the link check). */
  private dirReady = false

  constructor(root: string, indexed: () => Iterable<Location> | undefined = () => undefined) {
    this.dir = join(root, LEDGER_DIR, 'ids')
    this.loading = new Loading(indexed, ([id, , session]) => this.own(id, session))
  }

  /** Loads a part of the owners, until `deadline` (performance.now()); true once loaded. */
  warm(deadline: number): boolean {
    return this.loading.step(deadline)
  }

  /** Records the prefix of an indexed document's id (documents written before claims existed count too). */
  noteIndexed(id: string, session: unknown): void {
    // No load first: the index holds this document too, so loading later adds the same owner.
    this.own(id, session)
  }

  private own(id: string, session: unknown): void {
    if (typeof session === 'string' && /^[a-z0-9]+-[tn]\d+$/.test(id)) this.owners.set(id.slice(0, id.indexOf('-')), session)
  }

  private loadOwners(): void {
    this.loading.step(Number.POSITIVE_INFINITY)
  }

  /** The session's id prefix, claimed on disk; `claim: false` (a dry run) only looks and creates nothing. */
  async prefixFor(session: string, claim = true): Promise<string> {
    const known = this.prefixes.get(session)
    // A document of another session under the same prefix arrived (a teammate's, through git): from now on this
    // session writes under a longer prefix, so no new id collides.
    if (known && !this.ownedByOther(known, session)) return known
    // The session already has documents under a prefix no other session holds: those documents are its claim (any
    // other session sees them and lengthens its own), so no disk round trip is needed on its first write here.
    const owned = PREFIX_LENGTHS.map((length) => sessionShortId(session, length)).find((prefix) => !this.ownedByOther(prefix, session))
    if (claim && owned && this.owners.get(owned) === session) {
      this.prefixes.set(session, owned)
      return owned
    }
    if (claim) {
      try {
        // Claims are never written through a link: a linked `.knowledge` folder would put them outside the root. Asked
        // on every claim (one per new session), since the folder may have been swapped for a link since the last one.
        if ((await lstat(join(this.dir, '..')).catch(() => undefined))?.isSymbolicLink()) throw Object.assign(new Error('is a symbolic link; links are never followed'), { code: 'ELOOP' })
        if (!this.dirReady) await mkdir(this.dir, { recursive: true })
        this.dirReady = true
      } catch (error) {
        const err = error as NodeJS.ErrnoException
        throw Object.assign(new Error(`cannot write ${this.dir}: ${err.code ?? ''} ${err.message}`), { code: err.code, path: this.dir })
      }
    }
    for (const length of PREFIX_LENGTHS) {
      const prefix = sessionShortId(session, length)
      if (this.ownedByOther(prefix, session)) continue
      const file = join(this.dir, prefix)
      if (!claim) {
        const holder = await readFile(file, 'utf8').catch(() => undefined)
        if (holder === undefined || holder.trim() === session) return prefix
        continue
      }
      try {
        await writeFile(file, session, { flag: 'wx' })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // The folder went away since it was made (a person cleared `.knowledge`): make it again, once.
        if (code === 'ENOENT' && this.dirReady) {
          this.dirReady = false
          return this.prefixFor(session, claim)
        }
        if (code !== 'EEXIST') throw error
        if ((await readFile(file, 'utf8')).trim() !== session) continue
      }
      this.prefixes.set(session, prefix)
      return prefix
    }
    throw new Error(`cannot find a free id prefix for session ${session}`)
  }

  private ownedByOther(prefix: string, session: string): boolean {
    this.loadOwners()
    const owner = this.owners.get(prefix)
    return owner !== undefined && owner !== session
  }

  /** Next free note number in a session (`n1`, `n2`, …); `sessionOf(id)` tells who holds an indexed id. */
  nextNoteSuffix(session: string, sessionOf: (id: string) => string | undefined | null): string {
    const prefix = this.prefixes.get(session) ?? sessionShortId(session)
    for (let k = 1; ; k++) {
      const owner = sessionOf(`${prefix}-n${k}`)
      // A foreign owner means prefixFor lengthens the prefix for this session.
      if (owner === undefined || owner !== session) return `n${k}`
    }
  }
}

/**
 * The id a document takes when another session's document holds its id: the same suffix after a longer prefix of
 * its own session id (12, 16, 24, 32 characters), the first that is free.
 */
export function longerId(id: string, session: string, taken: (id: string) => boolean): string {
  const suffix = id.slice(id.indexOf('-') + 1)
  for (const length of [12, 16, 24, 32]) {
    const candidate = `${sessionShortId(session, length)}-${suffix}`
    if (candidate !== id && !taken(candidate)) return candidate
  }
  return `${sessionShortId(session, 32)}-${suffix}-${createHash('sha256').update(session).digest('hex').slice(0, 8)}`
}
