/**
 * The Documents tab's list parts: the stats line, a filter select, the kind options in their fixed order, one document
 * row (title, date, badges, workspace, snippet), and the scrolling ancestor whose place "back" restores.
 * @module dsh-knowledge-sync/client/DocumentList
 */
import type { DocumentItem, Stats } from './api.js'
import { Badges, kindLabel, reasonLabel, StatusBadge } from './DocumentView.js'
import { formatDate } from './format.js'
import type { Lang, Translate } from './i18n.js'
import { Highlighted } from './markdown.js'
import { DOC_KINDS } from '../src/wire.js'
import { folderLabel } from '../src/wire-workspaces.js'
import { palette, s } from './styles.js'

/** The kinds with documents under the other filters (and the selected one), in the fixed order of kinds. */
export function kindOptions(counts: Record<string, number> | undefined, selected: string): Array<[string, number]> {
  const extra = Object.keys(counts ?? {}).filter((k) => !(DOC_KINDS as readonly string[]).includes(k))
  return [...DOC_KINDS, ...extra].filter((k) => (counts?.[k] ?? 0) > 0 || k === selected).map((k) => [k, counts?.[k] ?? 0])
}

export function StatsLine({ stats, t }: { stats: Stats | undefined; t: Translate }) {
  if (!stats)
    return (
      <p data-testid="knowledge-stats" style={s.muted}>
        &nbsp;
      </p>
    )
  const top = stats.rounds.dropReasons[0]
  const parts = [
    t('statsDocuments', { count: stats.documents }),
    t('statsKept', { count: stats.rounds.kept }),
    t('statsDropped', { count: stats.rounds.dropped }) + (top ? t('statsTopReason', { reason: reasonLabel(top.reason, t).slice(1) }) : ''),
  ]
  if (stats.rounds.redacted) parts.push(t(stats.rounds.redacted === 1 ? 'statsRedactedOne' : 'statsRedacted', { count: stats.rounds.redacted }))
  const line = (
    <p data-testid="knowledge-stats" title={top?.reason} style={{ margin: 0, fontSize: 12.5, color: palette.secondary }}>
      {parts.join(' · ')}
    </p>
  )
  // Files that left the index (broken front matter, too large, a link) are named, so a hand edit never vanishes silently.
  if (!stats.invalidFiles.length) return line
  return (
    <>
      {line}
      <p data-testid="knowledge-unreadable" style={{ margin: 0, fontSize: 12.5, color: palette.warn }}>
        {t('unreadableFiles', { count: stats.invalidFiles.length, first: stats.invalidFiles[0].error.slice(0, 200) })}
      </p>
    </>
  )
}

export function Filter({
  label,
  all,
  value,
  options,
  onChange,
  testId,
}: {
  label: string
  all: string
  value: string
  options: Array<[string, string, string?]>
  onChange: (value: string) => void
  testId?: string
}) {
  return (
    <select aria-label={label} data-testid={testId} value={value} onChange={(e) => onChange(e.target.value)} style={s.select}>
      <option value="">{all}</option>
      {options.map(([key, text, title]) => (
        <option key={key} value={key} title={title}>
          {text}
        </option>
      ))}
    </select>
  )
}

export function DocumentRow({ item, t, lang, onOpen, onTag }: { item: DocumentItem; t: Translate; lang: Lang; onOpen: () => void; onTag: (tag: string) => void }) {
  return (
    <li data-testid="knowledge-doc" data-id={item.id} style={s.item}>
      <div style={{ display: 'flex', gap: 10, alignItems: 'baseline', justifyContent: 'space-between' }}>
        <button
          type="button"
          data-testid="knowledge-doc-open"
          title={item.title || item.id}
          onClick={onOpen}
          style={{ ...s.linkButton, minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}
        >
          {item.title || item.id}
        </button>
        <span style={{ ...s.muted, whiteSpace: 'nowrap' }}>
          <span data-testid="knowledge-created" title={t('createdAt', { date: item.created })}>
            {formatDate(item.created, lang)}
          </span>
          {changedLater(item) && (
            <span data-testid="knowledge-updated" title={t('updatedAt', { date: item.updated })}>
              {` · ${t('updatedShort', { date: formatDate(item.updated, lang) })}`}
            </span>
          )}
        </span>
      </div>
      <div style={{ ...s.row, gap: 5 }}>
        <span data-testid="knowledge-kind" style={s.badge('kind')} title={t(`kindHint_${item.kind}`)}>
          {kindLabel(item.kind, t, item.id)}
        </span>
        {item.version ? <span data-testid="knowledge-version" style={{ ...s.muted, ...s.mono }}>{`v:${item.version}`}</span> : null}
        {item.status && <StatusBadge status={item.status} t={t} />}
        {item.tags.length > 0 && <Badges values={item.tags} tone="tag" onPick={onTag} t={t} />}
        {item.tools.length > 0 && <Badges values={item.tools} tone="tool" />}
        {item.cwd && (
          <span data-testid="knowledge-workspace" style={{ ...s.muted, ...s.mono, marginLeft: 'auto' }} title={item.cwd}>
            {folderLabel(item.cwd, item.workspace)}
          </span>
        )}
      </div>
      {/* Two lines of snippet at most: the row stays a row; the document has the rest. */}
      {item.excerpt?.text && (
        <p data-testid="knowledge-snippet" style={{ margin: 0, fontSize: 12.5, color: palette.secondary, display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', overflow: 'hidden' }}>
          <Highlighted text={item.excerpt.text} marks={item.excerpt.marks} />
        </p>
      )}
    </li>
  )
}

/** The file changed well after it was created (a sync, an edit): the row says so apart from the created date. */
export function changedLater(item: Pick<DocumentItem, 'created' | 'updated'>): boolean {
  const created = Date.parse(item.created)
  const updated = item.updated ? Date.parse(item.updated) : Number.NaN
  return Number.isFinite(updated) && (!Number.isFinite(created) || updated - created > 60_000)
}

/** The nearest scrolling ancestor (the settings dialog's content pane), whose position "back" restores. */
export function scrollParent(element: HTMLElement | null): HTMLElement | undefined {
  for (let el = element?.parentElement; el; el = el.parentElement) {
    const style = getComputedStyle(el)
    if (/(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight) return el
  }
  return undefined
}
