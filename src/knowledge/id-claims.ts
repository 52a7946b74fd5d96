/**
 * Document ids: `<session prefix>-t<turn>` for rounds, `<session prefix>-n<k>` for notes. The prefix is the first 8
 * characters of the session's uuid, lengthened when another session already owns it (a clash), so two sessions never
 * share an id. Ownership is claimed on disk with an exclusive create in `<root>/.knowledge/ids/<prefix>`, so two
 * processes writing into one root resolve a clash the same way.
 * @module dsh-knowledge-sync/knowledge/id-claims
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LEDGER_DIR } from './ledger.js'
import { sessionShortId } from './paths.js'

const PREFIX_LENGTHS = [8, 12, 16, 24, 32]

export class IdClaims {
  private readonly prefixes = new Map<string, string>()
  /** Id prefix → the session whose documents use it, from every indexed document. */
  private readonly owners = new Map<string, string>()
  private readonly dir: string

  constructor(root: string) {
    this.dir = join(root, LEDGER_DIR, 'ids')
  }

  /** Records the prefix of an indexed document's id (documents written before claims existed count too). */
  noteIndexed(id: string, session: unknown): void {
    if (typeof session === 'string' && /^[a-z0-9]+-[tn]\d+$/.test(id)) this.owners.set(id.slice(0, id.indexOf('-')), session)
  }

  /** The session's id prefix, claimed on disk; `claim: false` (a dry run) only looks and creates nothing. */
  async prefixFor(session: string, claim = true): Promise<string> {
    const known = this.prefixes.get(session)
    // A document of another session under the same prefix arrived (a teammate's, through git): from now on this
    // session writes under a longer prefix, so no new id collides.
    if (known && !this.ownedByOther(known, session)) return known
    if (claim) {
      try {
        await mkdir(this.dir, { recursive: true })
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
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        if ((await readFile(file, 'utf8')).trim() !== session) continue
      }
      this.prefixes.set(session, prefix)
      return prefix
    }
    throw new Error(`cannot find a free id prefix for session ${session}`)
  }

  private ownedByOther(prefix: string, session: string): boolean {
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
