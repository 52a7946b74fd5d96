/**
 * Inline styles of the page. Colors are dsh's own theme tokens (`--dsw-alias-*`, the ones its Settings sections
 * use), so the page follows light and dark; each has a neutral fallback that reads on both, for a shell without
 * them.
 * @module dsh-knowledge-sync/client/styles
 */
import type { CSSProperties } from 'react'

const token = (name: string, fallback: string) => `var(--dsw-alias-${name}, ${fallback})`
/**
 * A state colour made readable as text: mixed toward the label colour, so it darkens on the light theme and lightens
 * on the dark one. dsh's state tokens are fill colours (amber-500 on white is 2.2:1); mixed, each text colour meets
 * WCAG AA (4.5:1) on both themes' backgrounds (checked in test/browser/knowledge-a11y.browser.ts).
 */
const readable = (name: string, fallback: string, share: number) => `color-mix(in srgb, ${token(name, fallback)} ${share}%, ${token('label-primary', 'CanvasText')})`

/** Theme colors. */
export const palette = {
  text: token('label-primary', 'CanvasText'),
  secondary: token('label-secondary', 'rgba(128, 128, 128, 0.95)'),
  // dsh's label-tertiary is 3.7:1 on white: secondary text uses label-secondary, so it stays readable at 12 px.
  tertiary: token('label-secondary', 'rgba(128, 128, 128, 0.95)'),
  /** Decoration only (icons, dots), never text. */
  faint: token('label-tertiary', 'rgba(128, 128, 128, 0.85)'),
  border: token('border-l2', 'rgba(128, 128, 128, 0.3)'),
  layer: token('bg-layer-3', 'rgba(128, 128, 128, 0.06)'),
  hover: token('interactive-bg-hover', 'rgba(128, 128, 128, 0.12)'),
  codeBg: token('markdown-code-block', 'rgba(128, 128, 128, 0.1)'),
  accent: readable('state-business-primary', '#4d6bfe', 72),
  link: readable('state-business-primary', '#4d6bfe', 72),
  error: readable('state-error-primary', '#d1242f', 80),
  success: readable('state-success-primary', '#1a7f37', 55),
  warn: readable('state-warn-primary', '#9a6700', 55),
  /** Fill colours (bars, dots) keep dsh's own tokens. */
  fill: {
    accent: token('state-business-primary', '#4d6bfe'),
    warn: token('state-warn-primary', '#9a6700'),
    error: token('state-error-primary', '#d1242f'),
    success: token('state-success-primary', '#1a7f37'),
  },
}

/** Font stacks. */
export const font = {
  mono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
}

/** Shared element styles. */
export const s = {
  section: { display: 'flex', flexDirection: 'column', gap: 12, maxWidth: 820, color: palette.text, fontSize: 13 } as CSSProperties,
  heading: { margin: 0, fontSize: 18, fontWeight: 600 } as CSSProperties,
  intro: { margin: 0, fontSize: 13, color: palette.tertiary } as CSSProperties,
  tabs: { display: 'flex', gap: 22, borderBottom: `1px solid ${palette.border}` } as CSSProperties,
  tab: (active: boolean): CSSProperties => ({
    border: 0,
    padding: '7px 1px 9px',
    background: 'transparent',
    font: 'inherit',
    fontSize: 13,
    cursor: 'pointer',
    color: active ? palette.text : palette.tertiary,
    boxShadow: active ? `inset 0 -2px 0 ${palette.text}` : 'none',
    fontWeight: active ? 600 : 400,
  }),
  row: { display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' } as CSSProperties,
  input: {
    font: 'inherit',
    fontSize: 13,
    padding: '6px 10px',
    borderRadius: 8,
    border: `1px solid ${palette.border}`,
    background: 'transparent',
    color: palette.text,
    minWidth: 0,
  } as CSSProperties,
  select: {
    font: 'inherit',
    fontSize: 12.5,
    padding: '5px 8px',
    borderRadius: 8,
    border: `1px solid ${palette.border}`,
    background: 'transparent',
    color: palette.text,
    maxWidth: 200,
  } as CSSProperties,
  button: {
    font: 'inherit',
    fontSize: 12.5,
    padding: '5px 12px',
    borderRadius: 999,
    border: `1px solid ${palette.border}`,
    background: 'transparent',
    color: palette.text,
    cursor: 'pointer',
  } as CSSProperties,
  linkButton: {
    font: 'inherit',
    fontSize: 13,
    padding: 0,
    border: 0,
    background: 'transparent',
    color: palette.text,
    cursor: 'pointer',
    textAlign: 'left',
    fontWeight: 600,
  } as CSSProperties,
  hint: { margin: 0, fontSize: 12, color: palette.tertiary } as CSSProperties,
  muted: { margin: 0, color: palette.tertiary, fontSize: 12 } as CSSProperties,
  error: { margin: 0, color: palette.error, fontSize: 12.5 } as CSSProperties,
  card: { border: `1px solid ${palette.border}`, borderRadius: 12, padding: '12px 14px', background: palette.layer } as CSSProperties,
  list: { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: 3 } as CSSProperties,
  // Dense rows: the page lives in an ~800 px dialog, so every pixel of a row is a row less on screen.
  item: { border: `1px solid ${palette.border}`, borderRadius: 8, padding: '4px 10px', display: 'flex', flexDirection: 'column', gap: 2 } as CSSProperties,
  badge: (tone: 'kind' | 'tag' | 'tool' | 'on' | 'off'): CSSProperties => ({
    display: 'inline-block',
    fontSize: 11,
    lineHeight: '16px',
    padding: '0 7px',
    borderRadius: 999,
    border: `1px solid ${tone === 'kind' || tone === 'on' ? palette.accent : palette.border}`,
    color: tone === 'kind' || tone === 'on' ? palette.accent : palette.secondary,
    fontFamily: tone === 'tool' ? font.mono : 'inherit',
    whiteSpace: 'nowrap',
  }),
  mono: { fontFamily: font.mono, fontSize: 12 } as CSSProperties,
}
