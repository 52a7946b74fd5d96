/**
 * dsh's own session logs, read with dsh's own reader: the JSONL persistence backend of the harness
 * (`@deepseek-ai/dsh-session-persistence-jsonl`, zstd frames and packed chunk rows included), mounted on a bare
 * Cordis context with the session store it needs. Read-only: only `list` and `readFrom` are called, which never
 * repair or append. The packages are loaded lazily, so no other command pays for them.
 *
 * Each log is checked before dsh's reader sees it (a regular file, opened without blocking, bounded once
 * decompressed: {@link vetSessionLog}). dsh's `list` refuses the whole folder when one log is inconsistent; then, or
 * when a log failed the check, each good session folder is read on its own, through an isolated root that
 * hard-links (or copies) just that log, so one bad log is reported and skipped.
 * @module dsh-knowledge-sync/cli/dsh-sessions
 */
import { constants, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createZstdDecompress } from 'node:zlib'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { TurnEvent } from '../capture/round.js'

export interface SessionHeaderLike {
  id: string
  createdAt: number
  cwd?: string
  origin?: string
}

export interface Unreadable {
  session: string
  error: string
}

export interface SessionLogReader {
  /** Every readable session's header, and the session folders that could not be read. */
  list(): Promise<{ sessions: SessionHeaderLike[]; unreadable: Unreadable[] }>
  events(id: string): Promise<TurnEvent[]>
  close(): Promise<void>
}

interface Persistence {
  list(): Promise<SessionHeaderLike[]>
  readFrom(id: string, from: number): Promise<{ events: TurnEvent[] }>
}

/** `--dsh-home`, else `$DSH_HOME`, else `~/.dsh` (dsh's own rule). */
export function dshHome(explicit: string | undefined): string {
  return resolve(explicit || process.env.DSH_HOME || join(homedir(), '.dsh'))
}

const firstLine = (error: unknown) => String((error as Error)?.message ?? error).split('\n')[0]

/**
 * The most bytes one session log may hold once decompressed: dsh's reader holds a whole log in memory, so a small
 * zstd file that expands to gigabytes must be refused before it is handed over. Real logs are far below this.
 */
export const MAX_SESSION_LOG_BYTES = 256 * 1024 * 1024

const LOG_NAMES = ['session.jsonl.zstd', 'session.jsonl']
// O_NONBLOCK: opening a FIFO put in a log's place returns at once instead of waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * Checks one log before dsh's reader sees it: a regular file (not a link, FIFO or device), opened without blocking,
 * and at most `maxBytes` once decompressed, counted by streaming it through zstd (never held whole). Throws why not.
 */
export async function vetSessionLog(path: string, maxBytes: number = MAX_SESSION_LOG_BYTES): Promise<void> {
  const info = await lstat(path)
  if (info.isSymbolicLink()) throw new Error('the session log is a symbolic link; links are not followed')
  if (!info.isFile()) throw new Error('the session log is not a regular file')
  const handle = await open(path, OPEN_FLAGS)
  try {
    const opened = await handle.stat()
    if (!opened.isFile()) throw new Error('the session log is not a regular file')
    const limit = `${Math.round(maxBytes / 1024 / 1024)} MiB`
    if (!path.endsWith('.zstd')) {
      if (opened.size > maxBytes) throw new Error(`the session log is ${opened.size} bytes, over the ${limit} import reads`)
      return
    }
    let total = 0
    const counter = new Writable({
      write(chunk: Buffer, _encoding, done) {
        total += chunk.length
        done(total > maxBytes ? new Error(`the session log expands past ${limit} when decompressed; import reads at most that`) : null)
      },
    })
    await pipeline(handle.createReadStream({ autoClose: false }), createZstdDecompress(), counter)
  } finally {
    await handle.close()
  }
}

/** Opens the session logs under `<home>/sessions` with dsh's reader; a clear error when dsh's packages are missing. */
export async function openSessionLogs(home: string, { maxLogBytes = MAX_SESSION_LOG_BYTES } = {}): Promise<SessionLogReader> {
  const root = join(home, 'sessions')
  if (!existsSync(root)) throw new Error(`no dsh session logs at ${root} (is --dsh-home right?)`)
  let cordis, sessionStore, jsonl
  try {
    ;[cordis, sessionStore, jsonl] = await Promise.all([import('@deepseek-ai/cordis'), import('@deepseek-ai/dsh-session'), import('@deepseek-ai/dsh-session-persistence-jsonl')])
  } catch (error) {
    throw new Error(`import reads dsh's session logs with dsh's own reader, which is not installed here (${firstLine(error)}). Run the command from the dsh profile, as the README shows.`)
  }
  const contexts: Array<{ dispose(): unknown }> = []
  const scratch: string[] = []
  const mount = async (dir: string, compression: 'zstd' | 'none'): Promise<Persistence> => {
    const ctx = new cordis.Context()
    await ctx.plugin(sessionStore.default)
    await ctx.plugin(jsonl.default, { root: dir, compression })
    contexts.push({ dispose: () => ctx.registry.delete(jsonl.default) })
    return (ctx as unknown as { sessionPersistence: Persistence }).sessionPersistence
  }
  const owner = new Map<string, Persistence>()

  /** One session folder through its own root, so dsh's checks apply to it alone. */
  const isolated = async (project: string, folder: string, log: string): Promise<SessionHeaderLike> => {
    const view = mkdtempSync(join(tmpdir(), 'dsh-ks-import-'))
    scratch.push(view)
    mkdirSync(join(view, project, folder), { recursive: true })
    try {
      linkSync(join(root, project, folder, log), join(view, project, folder, log))
    } catch {
      copyFileSync(join(root, project, folder, log), join(view, project, folder, log))
    }
    const persistence = await mount(view, log.endsWith('.zstd') ? 'zstd' : 'none')
    const [header] = await persistence.list()
    if (!header) throw new Error('the log has no session header')
    owner.set(header.id, persistence)
    return header
  }

  return {
    async list() {
      // Every log is checked first (see vetSessionLog); dsh's reader reads the whole folder only when all pass.
      const good: Array<{ project: string; folder: string; log: string }> = []
      const unreadable: Unreadable[] = []
      for (const project of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
        for (const folder of readdirSync(join(root, project.name), { withFileTypes: true }).filter((e) => e.isDirectory())) {
          const log = readdirSync(join(root, project.name, folder.name)).find((name) => LOG_NAMES.includes(name))
          if (!log) continue
          try {
            await vetSessionLog(join(root, project.name, folder.name, log), maxLogBytes)
            good.push({ project: project.name, folder: folder.name, log })
          } catch (error) {
            unreadable.push({ session: folder.name, error: firstLine(error) })
          }
        }
      }
      if (!unreadable.length) {
        try {
          const whole = await mount(root, 'zstd')
          const sessions = await whole.list()
          for (const header of sessions) owner.set(header.id, whole)
          return { sessions, unreadable: [] }
        } catch {
          /* one log is inconsistent: read each on its own */
        }
      }
      const sessions: SessionHeaderLike[] = []
      for (const { project, folder, log } of good) {
        try {
          sessions.push(await isolated(project, folder, log))
        } catch (error) {
          unreadable.push({ session: folder, error: firstLine(error) })
        }
      }
      return { sessions, unreadable }
    },
    events: async (id) => {
      const persistence = owner.get(id)
      if (!persistence) throw new Error(`unknown session ${id}`)
      return (await persistence.readFrom(id, 0)).events
    },
    close: async () => {
      for (const ctx of contexts) await ctx.dispose()
      for (const dir of scratch) rmSync(dir, { recursive: true, force: true })
    },
  }
}
