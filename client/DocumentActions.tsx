/**
 * A document's ways out of the page: copy its id, copy its file's absolute path, open the file with the Host's
 * default application, and its session as a link into dsh web's chat. The last two only where dsh web rc.8 can do
 * them (./desktop.ts); elsewhere the path and the session id stay text to copy.
 * @module dsh-knowledge-sync/client/DocumentActions
 */
import { useState } from 'react'
import type { DocumentFile } from './api.js'
import { useDesktop } from './desktop.js'
import type { Translate } from './i18n.js'
import { s } from './styles.js'

/** Copy id, copy full path, open in the default app (with the Host's refusal, in people's words, when it fails). */
export function FileActions({ id, doc, t }: { id: string; doc?: DocumentFile; t: Translate }) {
  const desktop = useDesktop()
  const [copied, setCopied] = useState<string | undefined>()
  const [opening, setOpening] = useState<'idle' | 'busy' | 'opened'>('idle')
  const [failure, setFailure] = useState<string | undefined>()
  const copy = (what: 'id' | 'path', value: string) => {
    void navigator.clipboard?.writeText(value).then(
      () => setCopied(what),
      () => setCopied(undefined),
    )
  }
  const file = doc?.file ?? doc?.path
  const open = () => {
    if (!file || !desktop) return
    setOpening('busy')
    setFailure(undefined)
    desktop.openFile(file).then(
      () => setOpening('opened'),
      (error: Error) => {
        setOpening('idle')
        setFailure(error?.name === 'OpenUnavailable' ? t('openFileUnavailable') : (error?.message ?? String(error)))
      },
    )
  }
  return (
    <span style={{ marginLeft: 'auto', display: 'inline-flex', gap: 6, flexWrap: 'wrap', justifyContent: 'flex-end' }}>
      <button type="button" data-testid="knowledge-copy-id" style={s.button} onClick={() => copy('id', id)}>
        {copied === 'id' ? t('copied') : t('copyId')}
      </button>
      {file && (
        <button type="button" data-testid="knowledge-copy-path" style={s.button} title={file} onClick={() => copy('path', file)}>
          {copied === 'path' ? t('copied') : t('copyPath')}
        </button>
      )}
      {file && doc?.file && desktop?.canOpenFiles() && (
        <button type="button" data-testid="knowledge-open-file" style={s.button} title={t('openFileHint', { file })} disabled={opening === 'busy'} onClick={open}>
          {opening === 'opened' ? t('openFileDone') : t('openFile')}
        </button>
      )}
      {failure && (
        <span role="alert" data-testid="knowledge-open-file-error" style={{ ...s.error, flexBasis: '100%', textAlign: 'right' }}>
          {t('openFileFailed', { message: failure })}
        </span>
      )}
    </span>
  )
}

/** The session of a captured round: a link that opens it in the chat while dsh web lists it, else its id as text. */
export function SessionCell({ session, turn, t }: { session: string; turn?: unknown; t: Translate }) {
  const desktop = useDesktop()
  const known = desktop?.knowsSession(session) ?? false
  const turnText = turn !== undefined ? ` · ${t('turn', { turn })}` : ''
  return (
    <span data-testid="knowledge-session" data-linked={known ? 'true' : 'false'}>
      {known ? (
        <button type="button" data-testid="knowledge-session-open" style={{ ...s.linkButton, ...s.mono }} title={t('openSessionHint')} onClick={() => desktop?.openSession(session)}>
          {session}
        </button>
      ) : (
        <span style={s.mono} title={t('sessionUnknown')}>
          {session}
        </span>
      )}
      {turnText}
    </span>
  )
}
