/**
 * Whether the full-size documents view is open, shared by the three places that touch it: the Settings section
 * (its "Open full size" button, and it lets go of its own list while the view is open), the sidebar's foot action,
 * and the `shell.overlay` entry that draws the view. Focus goes back to whatever opened it.
 * @module dsh-knowledge-sync/client/full-view
 */

/** The open/closed switch of the full-size view (one per plugin activation, on the host). */
export class FullViewSwitch {
  private open = false
  private opener: HTMLElement | null = null
  private readonly listeners = new Set<() => void>()

  /** True while the view is shown. */
  isOpen = (): boolean => this.open

  /** Observe openings and closings. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Opens the view; `opener` gets focus back when it closes. */
  show(opener?: HTMLElement | null): void {
    this.opener = opener ?? null
    if (this.open) return
    this.open = true
    this.emit()
  }

  /** Closes the view and puts focus back on its opener (if that is still on the page). */
  hide(): void {
    if (!this.open) return
    this.open = false
    const opener = this.opener
    this.opener = null
    this.emit()
    if (opener?.isConnected) opener.focus()
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener()
  }
}
