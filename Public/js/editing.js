// Editing one resource safely: a draft beside the last saved version, saves with If-Match, and
// the 412 conflict flow (reload theirs, or keep editing mine and later save over theirs on
// purpose). Shared by the family, screen and layout editors, which save through save-flow.js.
import { api } from './state.js';
import { clone, stableStringify, h } from './dom.js';
import { conflictDialog } from './dialogs.js';

const BOOKKEEPING = ['revision', 'created_at', 'updated_at'];

/** The body without server bookkeeping, for comparing and sending. */
export function editable(record, strip = []) {
  const body = clone(record) || {};
  for (const key of [...BOOKKEEPING, ...strip]) delete body[key];
  return body;
}

function describe(value) {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return `“${value}”`;
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'changed';
  return String(value);
}

/** Which top-level members differ, and a readable line for each. */
export function differences(before, after, labels = {}) {
  const keys = new Set([...Object.keys(before || {}), ...Object.keys(after || {})]);
  const changed = [];
  const lines = [];
  for (const key of keys) {
    if (BOOKKEEPING.includes(key)) continue;
    const a = before?.[key];
    const b = after?.[key];
    if (stableStringify(a) === stableStringify(b)) continue;
    const label = labels[key] || key.replace(/_/g, ' ');
    changed.push(label);
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) lines.push(`${label}: changed`);
    else lines.push(`${label}: ${describe(a)} → ${describe(b)}`);
  }
  return { changed, lines };
}

export class ResourceEditor {
  /**
   * @param {{kind: string, noun: string, strip?: string[], labels?: object, toBody?: (draft) => object}} options
   *   kind: the API collection (families, screens, layouts); noun: what the user calls one.
   */
  constructor({ kind, noun, strip = [], labels = {}, toBody = (d) => d }) {
    this.kind = kind;
    this.noun = noun;
    this.strip = strip;
    this.labels = labels;
    this.toBody = toBody;
    this.record = null;
    this.etag = null;
    this.base = null;
    this.draft = null;
    /** Set after "keep editing": what the server has now. */
    this.conflict = null;
    this.saving = false;
    /** Set by the save flow (save-flow.js) while a save is under way: one at a time. */
    this.busy = false;
  }

  load(record, etag) {
    this.record = record;
    this.etag = etag || (record && Number.isInteger(record.revision) ? `"${record.revision}"` : null);
    this.base = editable(record, this.strip);
    this.draft = clone(this.base);
    this.conflict = null;
  }

  get isNew() { return !this.record; }
  get revision() { return this.record?.revision ?? null; }
  get dirty() {
    return stableStringify(this.toBody(clone(this.draft))) !== stableStringify(this.toBody(clone(this.base)));
  }

  /** Fetches the saved version again and drops the draft. */
  async reload() {
    const { data, etag } = await api.get(this.kind, this.record.id);
    this.load(data, etag);
    return data;
  }

  /**
   * Saves the draft. Resolves {status: 'saved'|'conflict-kept'|'reloaded'|'unchanged'}.
   * Rejects with the ApiError for everything else (422 included) so the view can place it.
   * `overwrite`: after a kept conflict, save over the version the user was shown.
   * `send`: a custom request (reorder) given (body, etag).
   */
  async save({ overwrite = false, send } = {}) {
    const body = this.toBody(clone(this.draft));
    if (this.isNew) {
      const { data, etag } = await api.create(this.kind, body);
      this.load(data, etag);
      return { status: 'saved', record: data };
    }
    const etag = overwrite && this.conflict ? this.conflict.etag : this.etag;
    this.saving = true;
    try {
      const { data, etag: newEtag } = send ? await send(body, etag) : await api.replace(this.kind, this.record.id, body, etag);
      this.load(data, newEtag);
      return { status: 'saved', record: data };
    } catch (error) {
      if (!error.isConflict) throw error;
      return this.resolveConflict(error);
    } finally {
      this.saving = false;
    }
  }

  async resolveConflict(error) {
    let theirs = null;
    let theirEtag = null;
    try {
      const answer = await api.get(this.kind, this.record.id);
      theirs = answer.data;
      theirEtag = answer.etag;
    } catch (fetchError) {
      // Deleted meanwhile, or unreachable: the draft stays; the caller shows the error.
      throw fetchError;
    }
    const { changed, lines } = differences(this.base, editable(theirs, this.strip), this.labels);
    const mine = differences(this.toBody(clone(this.base)), this.toBody(clone(this.draft)), this.labels).changed;
    const choice = await conflictDialog({
      kind: this.noun,
      name: this.draft.name || this.record.name || this.record.id,
      theirRevision: theirs.revision ?? error.problem.current_revision ?? null,
      myRevision: this.revision,
      changedKeys: changed,
      theirSummary: lines,
      myChangedKeys: mine,
    });
    if (choice === 'reload') {
      this.load(theirs, theirEtag);
      return { status: 'reloaded', record: theirs };
    }
    this.conflict = { record: theirs, etag: theirEtag, revision: theirs.revision, changed, lines };
    return { status: 'conflict-kept', record: theirs };
  }

  /** Takes the version shown in the conflict (drops the draft). */
  acceptTheirs() {
    if (!this.conflict) return;
    this.load(this.conflict.record, this.conflict.etag);
  }
}

/**
 * The banner shown while a kept conflict is unresolved: reload theirs, or save mine over theirs.
 */
export function conflictBanner(editor, { onReload, onOverwrite }) {
  if (!editor.conflict) return null;
  const c = editor.conflict;
  return h('div', { class: 'conflict-banner', role: 'region', 'aria-label': 'Unresolved conflict' },
    h('p', {},
      h('strong', { text: `Not saved: this ${editor.noun} was changed by someone else` }),
      ` (now revision ${c.revision}${c.changed.length ? `; they changed ${c.changed.join(', ')}` : ''}). You are editing your own copy.`),
    h('div', { class: 'banner-actions' },
      h('button', { type: 'button', class: 'button', 'data-action': 'reload-theirs', text: 'Reload their version', onclick: onReload }),
      h('button', { type: 'button', class: 'button danger', 'data-action': 'overwrite', text: 'Save mine over theirs', onclick: onOverwrite })));
}
