/**
 * Escape goes back one level at a time (WAI-ARIA APG: Escape closes the innermost thing). One keydown listener on
 * `window`, capturing, so it runs before dsh's Settings dialog (which listens on `document`, capturing) and before the
 * full view. In order:
 *
 * 1. a text field of ours that opted in (`data-escape="clear"`) and holds text is cleared (React sees the change);
 * 2. else the innermost open layer closes (a form, then an open document, …), newest first.
 *
 * When neither applies the key goes on to the full view or to Settings, which close. Handled keys are stopped there.
 * @module dsh-knowledge-sync/client/escape
 */
import { useEffect, useRef } from 'react'

type Layer = { close: () => void }
const layers: Layer[] = []
let installed = false

/** Clears a controlled input the way typing would: the native setter, then an `input` event React listens to. */
function clearField(el: HTMLInputElement | HTMLTextAreaElement): void {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, '')
  el.dispatchEvent(new Event('input', { bubbles: true }))
}

function onKey(e: KeyboardEvent): void {
  if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing) return
  const el = e.target as HTMLElement | null
  if (el && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.dataset.escape === 'clear' && el.value) {
    clearField(el)
  } else {
    const top = layers.at(-1)
    if (!top) return
    top.close()
  }
  e.preventDefault()
  e.stopImmediatePropagation()
}

function install(): void {
  if (installed || typeof window === 'undefined') return
  window.addEventListener('keydown', onKey, true)
  installed = true
}

/** Makes sure the listener is on (a page whose only Escape target is a field that clears). */
export function useEscapeFields(): void {
  useEffect(install, [])
}

/** Registers a level that Escape closes while `open`; the newest open level closes first. */
export function useEscapeLayer(open: boolean, close: () => void): void {
  const latest = useRef(close)
  latest.current = close
  useEffect(() => {
    if (!open) return
    install()
    const layer: Layer = { close: () => latest.current() }
    layers.push(layer)
    return () => {
      const at = layers.indexOf(layer)
      if (at >= 0) layers.splice(at, 1)
    }
  }, [open])
}
