/**
 * Roving focus (WAI-ARIA APG "roving tabindex"): a group of controls is one tab stop; the arrow keys, Home and End
 * move the focus inside it. Used by the tabs (selection follows focus) and by each row's tag buttons (a toolbar).
 * @module dsh-knowledge-sync/client/roving
 */
import type { KeyboardEvent } from 'react'

/**
 * Moves the focus from the item that received `e` to the next one of its group (the elements matching `selector`
 * inside `e.currentTarget`'s closest `[data-roving-group]`), wrapping at the ends; returns the item focused, or
 * undefined when the key is not one of the group's (the event is then left alone).
 */
export function moveFocus(e: KeyboardEvent<HTMLElement>, selector: string): HTMLElement | undefined {
  const delta: Record<string, number | 'first' | 'last'> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: 'first', End: 'last' }
  const step = delta[e.key]
  if (step === undefined || e.altKey || e.ctrlKey || e.metaKey) return undefined
  const group = e.currentTarget.closest('[data-roving-group]')
  if (!group) return undefined
  const items = Array.from(group.querySelectorAll<HTMLElement>(selector))
  if (!items.length) return undefined
  const at = items.indexOf(e.currentTarget)
  const next = step === 'first' ? 0 : step === 'last' ? items.length - 1 : (at + step + items.length) % items.length
  e.preventDefault()
  e.stopPropagation()
  for (const item of items) item.tabIndex = item === items[next] ? 0 : -1
  items[next].focus()
  return items[next]
}
