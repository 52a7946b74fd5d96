/**
 * The bare-name row. dsh serves a package's browser module only for a row named by the bare package name, so this
 * row exists to make the Knowledge settings section discoverable; it does nothing on the host.
 * @module dsh-knowledge-sync
 */
export const name = 'dsh-knowledge-sync'
export function apply(): void {}
