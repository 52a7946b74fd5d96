/**
 * Where the reader was in the Documents tab (the search and the open document), kept per browser tab: dsh web rc.8
 * has no URL for a settings section, so a reload would otherwise start over.
 * @module dsh-knowledge-sync/client/place
 */

const PLACE_KEY = 'dsh-knowledge-sync:place'

/** The search and the open document this browser tab last had (sessionStorage: per tab, gone with it). */
export function readPlace(): { q: string; open?: string } {
  try {
    const raw = JSON.parse(sessionStorage.getItem(PLACE_KEY) ?? '{}') as { q?: unknown; open?: unknown }
    return { q: typeof raw.q === 'string' ? raw.q.slice(0, 500) : '', open: typeof raw.open === 'string' && raw.open.length <= 200 ? raw.open : undefined }
  } catch {
    return { q: '' }
  }
}

export function writePlace(place: { q: string; open?: string }): void {
  try {
    sessionStorage.setItem(PLACE_KEY, JSON.stringify(place))
  } catch {
    /* storage off: the place is not kept */
  }
}
