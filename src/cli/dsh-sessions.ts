/**
 * dsh's own session logs, read with dsh's own reader: the JSONL persistence backend of the harness
 * (`@deepseek-ai/dsh-session-persistence-jsonl`, zstd frames and packed chunk rows included), mounted on a bare
 * Cordis context with the session store it needs. Read-only: only `list` and `readFrom` are called, which never
 * repair or append. The packages are loaded lazily, so no other command pays for them.
 *
 * dsh's `list` refuses the whole folder when one log is inconsistent. Then each session folder is read on its own,
 * through an isolated root that hard-links (or copies) just that log, so one bad log is reported and skipped.
 * @module dsh-knowledge-sync/cli/dsh-sessions
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
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

/** Opens the session logs under `<home>/sessions` with dsh's reader; a clear error when dsh's packages are missing. */
export async function openSessionLogs(home: string): Promise<SessionLogReader> {
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
  const isolated = async (project: string, folder: string): Promise<SessionHeaderLike> => {
    const log = readdirSync(join(root, project, folder)).find((name) => name === 'session.jsonl.zstd' || name === 'session.jsonl')
    if (!log) throw new Error('no session log in the folder')
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
      try {
        const whole = await mount(root, 'zstd')
        const sessions = await whole.list()
        for (const header of sessions) owner.set(header.id, whole)
        return { sessions, unreadable: [] }
      } catch {
        const sessions: SessionHeaderLike[] = []
        const unreadable: Unreadable[] = []
        for (const project of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
          for (const folder of readdirSync(join(root, project.name), { withFileTypes: true }).filter((e) => e.isDirectory())) {
            try {
              sessions.push(await isolated(project.name, folder.name))
            } catch (error) {
              unreadable.push({ session: folder.name, error: firstLine(error) })
            }
          }
        }
        return { sessions, unreadable }
      }
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
