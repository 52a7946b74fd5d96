/**
 * The Documents tab's filter row: kind, tag, tool, workspace and status, each a select whose options come from the
 * routes' facets (with counts), and Clear while anything is set.
 * @module dsh-knowledge-sync/client/FilterRow
 */
import type { Facets } from './api.js'
import { Filter, kindOptions } from './DocumentList.js'
import { kindLabel } from './DocumentView.js'
import { facetEntries } from './format.js'
import { folderName, groupLabel, type WorkspaceGroup } from '../src/wire-workspaces.js'
import type { Translate } from './i18n.js'
import { s } from './styles.js'

export interface Filters {
  kind: string
  tag: string
  tool: string
  cwd: string
  /** '' = active and superseded (retired documents are left out, as in search); or one status, or `all`. */
  status: string
}

export const NO_FILTERS: Filters = { kind: '', tag: '', tool: '', cwd: '', status: '' }

export function FilterRow({
  t,
  facets,
  workspaces,
  filters,
  onFilter,
  onClear,
}: {
  t: Translate
  facets?: Facets
  workspaces?: WorkspaceGroup[]
  filters: Filters
  onFilter: (key: keyof Filters, value: string) => void
  onClear?: () => void
}) {
  return (
    <div style={s.row}>
      <Filter
        label={t('filterKind')}
        all={t('allKinds')}
        value={filters.kind}
        onChange={(v) => onFilter('kind', v)}
        options={kindOptions(facets?.kinds, filters.kind).map(([k, n]) => [k, `${kindLabel(k, t)} (${n})`])}
      />
      <Filter
        label={t('filterTag')}
        all={t('allTags')}
        value={filters.tag}
        onChange={(v) => onFilter('tag', v)}
        options={facetEntries(facets?.tags, filters.tag).map(([k, n]) => [k, `${k} (${n})`])}
      />
      <Filter
        label={t('filterTool')}
        all={t('allTools')}
        value={filters.tool}
        onChange={(v) => onFilter('tool', v)}
        options={facetEntries(facets?.tools, filters.tool).map(([k, n]) => [k, `${k} (${n})`])}
      />
      <Filter
        label={t('filterWorkspace')}
        all={t('allWorkspaces')}
        value={filters.cwd}
        onChange={(v) => onFilter('cwd', v)}
        testId="knowledge-filter-workspace"
        options={workspaceOptions(workspaces, filters.cwd, t)}
      />
      <Filter
        label={t('filterStatus')}
        all={t('statusCurrent')}
        value={filters.status}
        onChange={(v) => onFilter('status', v)}
        options={(['active', 'superseded', 'retired', 'all'] as const).map((k) => [k, t(`status_${k}`)])}
      />
      {onClear && (
        <button type="button" style={s.button} onClick={onClear}>
          {t('clear')}
        </button>
      )}
    </div>
  )
}

/**
 * The workspace options: one per workspace of the scoping rule (a repository with its subfolders folded in), named by
 * repository and place, counted as selecting it lists; the full path and the folded folders on hover.
 */
export function workspaceOptions(groups: WorkspaceGroup[] | undefined, selected: string, t: Translate): Array<[string, string, string]> {
  const options = (groups ?? []).map((g): [string, string, string] => {
    const folded = g.foldedCount ? `\n${t('workspaceFolded', { count: g.foldedCount, folders: g.folded.join(', ') + (g.foldedCount > g.folded.length ? ', …' : '') })}` : ''
    return [g.path, `${groupLabel(g)} (${g.count})`, `${g.path}${g.git ? ` · ${t('workspaceGit')}` : ''}${folded}`]
  })
  // The selected workspace stays listed even when the other filters leave it no documents.
  if (selected && !options.some(([path]) => path === selected)) options.unshift([selected, `${groupLabel({ name: folderName(selected), where: selected })} (0)`, selected])
  return options
}
