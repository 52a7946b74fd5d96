/**
 * What an extractor returns: the requested units (slides, sheets, pages, or parts of a long document) with labels,
 * how many units the file holds, and notes (images skipped, rows counted, a page count that lies).
 * @module dsh-knowledge-sync/originals/extract/types
 */
export interface Unit {
  /** `Slide 3: Budget`, `Sheet 1: Prices`, `Part 2`. */
  label: string
  /** Markdown. */
  text: string
}

export interface Extracted {
  units: Unit[]
  /** Units in the whole file. */
  total: number
  unit: 'slide' | 'sheet' | 'part' | 'page'
  /** The 1-based number of the first unit in `units`. */
  from: number
  notes: string[]
}
