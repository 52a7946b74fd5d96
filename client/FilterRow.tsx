/**
 * The Documents tab's filter row: kind, tag, tool, workspace and status, each a select whose options come from the
 * routes' facets (with counts), and Clear while anything is set.
 * @module dsh-knowledge-sync/client/FilterRow
 */
import type { Facets } from './api.js'
import { Filter, kindOptions } from './DocumentList.js'
import { kindLabel } from './DocumentView.js'
import { facetEntries, shortPath } from './format.js'
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

export function FilterRow({ t, facets, filters, onFilter, onClear }: { t: Translate; facets?: Facets; filters: Filters; onFilter: (key: keyof Filters, value: string) => void; onClear?: () => void }) {
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
        options={facetEntries(facets?.workspaces, filters.cwd)
          .filter(([k]) => k !== '')
          .map(([k, n]) => [k, `${shortPath(k)} (${n})`])}
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
