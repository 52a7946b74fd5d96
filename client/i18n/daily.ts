/**
 * Messages of what a daily reader asked for (issue 28: history, health actions, workspaces, provenance, editor),
 * kept apart from `en.ts`/`zh.ts` so those views grow without touching the shared dictionaries. The Chinese table is
 * typed by the English one: a missing translation does not compile.
 * @module dsh-knowledge-sync/client/i18n/daily
 */

export const dailyEn = {
  historyHeading: 'History',
  historyShow: 'Show history',
  historyHide: 'Hide history',
  historyLoading: 'Reading the history…',
  historyFromGit: 'From git: the commits that changed this file (at most {commits}), newest first.',
  historyFromLocal: 'From the local history in .knowledge/history.jsonl (redacted; at most {perDocument} revisions per document, {mib} MiB in all), newest first.',
  historyMoreGit: 'Older commits are not listed.',
  historyMoreLocal: 'Older revisions have no text here: they were made before the local history started, or dropped by its bounds.',
  historyOnlyCurrent: 'No earlier revision is kept for this document yet.',
  historyCurrent: 'the file now',
  historyCurrentUncommitted: 'the file now (not committed)',
  historyFrom: 'From',
  historyTo: 'To',
  historyRevision: 'Revision',
  historyWhen: 'When',
  historyWhat: 'Change',
  historyNoText: 'text not kept (too large)',
  historyDiffOf: 'Changes from {from} to {to}: {added} added, {removed} removed',
  historySame: '{from} and {to} have the same text.',
  historyTooLarge: '{from} and {to} differ too much for a line-by-line comparison.',
  historyPickTwo: 'Pick two different revisions to compare.',
  historyError: 'The history could not be read: {message}',
}

export const dailyZh: Record<keyof typeof dailyEn, string> = {
  historyHeading: '历史',
  historyShow: '显示历史',
  historyHide: '隐藏历史',
  historyLoading: '正在读取历史…',
  historyFromGit: '来自 git：修改过此文件的提交（最多 {commits} 个），最新在前。',
  historyFromLocal: '来自 .knowledge/history.jsonl 中的本地历史（已脱敏；每个文档最多 {perDocument} 个版本，总计最多 {mib} MiB），最新在前。',
  historyMoreGit: '更早的提交未列出。',
  historyMoreLocal: '更早的版本在此没有文本：它们产生于本地历史开始之前，或已因容量上限被删除。',
  historyOnlyCurrent: '此文档尚未保存更早的版本。',
  historyCurrent: '当前文件',
  historyCurrentUncommitted: '当前文件（未提交）',
  historyFrom: '从',
  historyTo: '到',
  historyRevision: '版本',
  historyWhen: '时间',
  historyWhat: '变更',
  historyNoText: '未保存文本（过大）',
  historyDiffOf: '从 {from} 到 {to} 的变更：新增 {added} 行，删除 {removed} 行',
  historySame: '{from} 与 {to} 的文本相同。',
  historyTooLarge: '{from} 与 {to} 差异过大，无法逐行比较。',
  historyPickTwo: '请选择两个不同的版本进行比较。',
  historyError: '无法读取历史：{message}',
}
