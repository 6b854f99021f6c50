// The <ffn-exercise> element's saved progress: the store its storage-key opens, and the code saved as it changes.
import { createProgressStore, memoryStorage } from './storage.js';
import { readStorageKey, readTimeout, readNumber } from './attributes.js';
import { Capitalized } from './message-nodes.js';
import { msg } from '../../i18n/index.js';
import { toMessage } from '../grade/index.js';

/** The progress store for the `storage-key` (notices for the attributes and unreadable progress); ex's entry. */
export function openStore(host, ex) {
  const { key, notice: keyNotice } = readStorageKey(host.getAttribute('storage-key'));
  host._notice('storage-key', keyNotice);
  if (!key && !host._memory) host._memory = memoryStorage();
  host._store = createProgressStore(key ? { storage: host._storage || undefined, key } : { storage: host._memory });
  const saved = host._store.get(ex.id);
  // Saved progress this version could not read: all of it, or this exercise's ({ key, params, text }, shown by key).
  const own = host._store.problemWith(ex.id);
  const problem = toMessage(own);
  host._notice(
    'progress',
    problem &&
      (host._store.problem?.text === own.text
        ? msg('progress.problem', { problem: new Capitalized(problem) })
        : msg('progress.notAllLoaded', { problem })),
  );
  host._notice('timeout', readTimeout(host.getAttribute('timeout')).notice);
  host._notice('number', readNumber(host.getAttribute('number')).notice);
  return saved;
}

export function scheduleSave(host) {
  clearTimeout(host._saveTimer);
  host._saveTimer = setTimeout(() => saveCode(host), 300);
}

export function flushSave(host) {
  if (host._saveTimer) {
    clearTimeout(host._saveTimer);
    host._saveTimer = null;
    saveCode(host);
  }
}

export function saveCode(host) {
  host._saveTimer = null;
  if (host._ex && host._editor) host._store.update(host._ex.id, { code: host._editor.value });
}
