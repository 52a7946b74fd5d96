/**
 * Curation: `<root>/.knowledge/decisions.json` holds every discovered URL with its verdict (`pending`, `in-use` with
 * a target, `rejected`), who decided (`human` or `agent`), when, why, and `locked` (a human verdict an agent may not
 * overwrite). `decisions.md` beside it is generated from it, with a banner saying so.
 * @module dsh-knowledge-sync/sync/decisions
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../knowledge/disk/atomic.js'
import { checkTarget, type Target } from './sources.js'

export const DECISIONS_FILE = join('.knowledge', 'decisions.json')
export const DECISIONS_MD = join('.knowledge', 'decisions.md')
export const DECISION_STATUSES = ['pending', 'in-use', 'rejected'] as const
export type DecisionStatus = (typeof DECISION_STATUSES)[number]
/** Verdicts older than this are reported by `audit`. */
export const STALE_DAYS = 90

export interface Decision {
  url: string
  status: DecisionStatus
  /** The discovery root that found it. */
  root?: string
  discovered_at: string
  decided_by?: 'human' | 'agent'
  decided_at?: string
  reason?: string
  locked?: boolean
  target_file?: string
  target_section?: string
}

export interface DecisionsFile {
  version: string
  decisions: Decision[]
}

export const MD_BANNER = '<!-- GENERATED from decisions.json by dsh-knowledge-sync: do not edit; run `dsh-knowledge regenerate-md` -->'

/** Reads decisions.json (empty when missing; a broken file throws, so it is never overwritten by mistake). */
export async function readDecisions(root: string): Promise<DecisionsFile> {
  let text: string
  try {
    text = await readFile(join(root, DECISIONS_FILE), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: '1.0.0', decisions: [] }
    throw error
  }
  const data = JSON.parse(text) as DecisionsFile
  if (!data || !Array.isArray(data.decisions)) throw new Error(`${DECISIONS_FILE} has no decisions list`)
  return { version: String(data.version ?? '1.0.0'), decisions: data.decisions.filter((d) => d && typeof d.url === 'string' && (DECISION_STATUSES as readonly string[]).includes(d.status)) }
}

/** The generated Markdown view. */
export function renderDecisionsMd(file: DecisionsFile): string {
  const cell = (v: unknown) =>
    String(v ?? '')
      .replace(/[|\r\n]/g, ' ')
      .replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))
  const lines = [MD_BANNER, '', '# Knowledge sources: curation decisions', '']
  for (const status of DECISION_STATUSES) {
    const rows = file.decisions.filter((d) => d.status === status)
    lines.push(`## ${status} (${rows.length})`, '')
    if (!rows.length) {
      lines.push('_none_', '')
      continue
    }
    lines.push('| URL | Target | Decided by | Decided at | Locked | Reason |', '|---|---|---|---|---|---|')
    for (const d of rows)
      lines.push(
        `| ${cell(d.url)} | ${cell(d.target_file ? `${d.target_file}#${d.target_section}` : '')} | ${cell(d.decided_by)} | ${cell(d.decided_at)} | ${d.locked ? 'yes' : ''} | ${cell(d.reason)} |`,
      )
    lines.push('')
  }
  return lines.join('\n')
}

/** Serialized read-modify-write of decisions.json (and decisions.md) within this process. */
export class Decisions {
  private chain: Promise<unknown> = Promise.resolve()
  constructor(readonly root: string) {}

  read(): Promise<DecisionsFile> {
    return readDecisions(this.root)
  }

  /** Runs `change` on the current file and writes the result (json, then the generated md). */
  update<T>(change: (file: DecisionsFile) => T): Promise<T> {
    const run = this.chain.then(async () => {
      const file = await readDecisions(this.root)
      const result = change(file)
      await writeFileAtomic(join(this.root, DECISIONS_FILE), JSON.stringify(file, null, 2) + '\n')
      await writeFileAtomic(join(this.root, DECISIONS_MD), renderDecisionsMd(file))
      return result
    })
    this.chain = run.catch(() => {})
    return run
  }

  /** Adds URLs not seen before as `pending`; returns how many were new. */
  addPending(urls: string[], root: string, now = new Date()): Promise<number> {
    return this.update((file) => {
      const known = new Set(file.decisions.map((d) => d.url))
      let added = 0
      for (const url of urls)
        if (!known.has(url)) {
          known.add(url)
          file.decisions.push({ url, status: 'pending', root, discovered_at: now.toISOString() })
          added++
        }
      return added
    })
  }

  /**
   * Sets a verdict. An agent may not overwrite a locked (human) decision; a human decision is locked unless
   * `locked: false`. `in-use` needs a valid target. Throws with a clear message otherwise.
   */
  decide(input: { url: string; status: 'in-use' | 'rejected' | 'pending'; by: 'human' | 'agent'; reason?: string; target?: Target; locked?: boolean }, now = new Date()): Promise<Decision> {
    return this.update((file) => {
      let url: string
      try {
        url = new URL(input.url).href
      } catch {
        throw new Error(`not a URL: ${String(input.url).slice(0, 200)}`)
      }
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error('only http(s) URLs can be curated')
      let target: Target | undefined
      if (input.status === 'in-use') {
        const checked = checkTarget(this.root, input.target ? { file: input.target.file, section: input.target.section } : undefined)
        if (typeof checked === 'string') throw new Error(checked)
        target = checked
      }
      let existing = file.decisions.find((d) => d.url === url)
      if (existing?.locked && input.by === 'agent') throw new Error(`${url} was decided by a person (${existing.status}, ${existing.decided_at}) and is locked; an agent cannot change it`)
      if (!existing) {
        existing = { url, status: 'pending', discovered_at: now.toISOString() }
        file.decisions.push(existing)
      }
      existing.status = input.status
      existing.decided_by = input.by
      existing.decided_at = now.toISOString()
      existing.reason = String(input.reason ?? '').slice(0, 500) || undefined
      existing.locked = input.by === 'human' ? input.locked !== false : false
      existing.target_file = target?.file
      existing.target_section = target?.section
      return { ...existing }
    })
  }

  /** Rewrites decisions.md from decisions.json. */
  async regenerate(): Promise<string> {
    const file = await this.read()
    const text = renderDecisionsMd(file)
    await writeFileAtomic(join(this.root, DECISIONS_MD), text)
    return text
  }
}
