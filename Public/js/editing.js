// Editing one resource safely: a draft beside the last saved version, saves with If-Match, and
// the 412 conflict flow (reload theirs, or keep editing mine and later save over theirs on
// purpose). Shared by the family, screen and layout editors, which save through save-flow.js.
import { api, state, can } from './state.js';
import { clone, stableStringify, h } from './dom.js';
import { conflictDialog } from './dialogs.js';
import { merge3, describeConflict } from './merge.js';
import { changeLines } from './changes.js';
import { info, notice } from './notify.js';
import { onLive } from './together.js';
import { concerns, isNewer } from './presence.js';

const BOOKKEEPING = ['revision', 'created_at', 'updated_at'];

/** The body without server bookkeeping, for comparing and sending. */
export function editable(record, strip = []) {
  const body = clone(record) || {};
  for (const key of [...BOOKKEEPING, ...strip]) delete body[key];
  return body;
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
    /** Where unsaved edits are kept in this browser (see keepLocally); null: not kept. */
    this.localKey = null;
    /** Edits kept in the browser from an earlier visit, offered back (restoreBanner). */
    this.offer = null;
  }

  /**
   * Keeps the draft in localStorage under a key of its own (per app, kind and id) on every
   * persist(), so a reload or a crash loses nothing; what was kept before is offered back.
   * The app is named by its id, which a change of slug leaves alone; a draft kept under the
   * slug (before the id was used) moves to the id's key.
   */
  keepLocally(id) {
    const appId = state.app?.id;
    this.localKey = `rivers.draft.${appId || api.app}.${this.kind}.${id}`;
    const bySlug = state.app?.slug ? `rivers.draft.${state.app.slug}.${this.kind}.${id}` : null;
    if (appId && bySlug && bySlug !== this.localKey && !localStorage.getItem(this.localKey)) {
      try {
        const legacy = localStorage.getItem(bySlug);
        if (legacy) { localStorage.setItem(this.localKey, legacy); localStorage.removeItem(bySlug); }
      } catch { /* storage refused: the slug's draft stays where it is */ }
    }
    const stored = readStored(this.localKey);
    if (stored && stableStringify(stored.draft) !== stableStringify(this.base)) this.offer = stored;
    else if (stored) forgetStored(this.localKey);
  }

  /** Writes the draft to the browser when it differs from what it started from; else forgets it. */
  persist() {
    if (!this.localKey || this.offer) return;
    if (!this.dirty) { forgetStored(this.localKey); return; }
    try {
      localStorage.setItem(this.localKey, JSON.stringify({
        revision: this.revision, base: this.base, draft: this.draft, saved_at: new Date().toISOString(),
      }));
    } catch { /* storage full or refused: the edits stay on screen */ }
  }

  /** Drops what the browser keeps (after a save, or when the user drops the edits). */
  forgetLocal() {
    if (this.localKey) forgetStored(this.localKey);
  }

  /**
   * Takes the kept edits back. When the record was saved by someone since, the draft keeps the
   * base it was made on, so the next save meets the conflict and merges (three-way).
   * Returns 'restored' or 'behind' (someone saved since).
   */
  restoreOffer() {
    const stored = this.offer;
    this.offer = null;
    if (!stored) return null;
    if (this.isNew || stored.revision === this.revision) {
      this.draft = clone(stored.draft);
      this.persist();
      return 'restored';
    }
    this.base = clone(stored.base);
    this.etag = `"${stored.revision}"`;
    this.record = { ...this.record, revision: stored.revision };
    this.draft = clone(stored.draft);
    this.persist();
    return 'behind';
  }

  dropOffer() {
    this.offer = null;
    this.forgetLocal();
  }

  load(record, etag) {
    this.record = record;
    this.etag = etag || (record && Number.isInteger(record.revision) ? `"${record.revision}"` : null);
    this.base = editable(record, this.strip);
    this.draft = clone(this.base);
    this.conflict = null;
    /** Someone's saves merged into the draft as they came (followLive): what the draft started from and their changes. */
    this.liveMerge = null;
    /** A save of someone's that overlaps the draft: asked about when saving. */
    this.overlap = null;
  }

  /**
   * Someone else saved this record (the live stream said so): their version `theirs` is taken in.
   * With no unsaved edits it simply replaces what is shown ('reloaded'). With edits, base,
   * theirs and the draft are merged: without overlaps the merge becomes the draft on top of their
   * version ('merged': the next save goes through without a conflict); with overlaps nothing
   * changes ('overlap': saving meets the conflict and asks, as before).
   */
  takeTheirs(theirs, etag) {
    if (this.conflict) return { status: 'ignored' };
    if (!this.dirty) {
      this.load(theirs, etag);
      return { status: 'reloaded' };
    }
    const theirBase = editable(theirs, this.strip);
    const { merged, conflicts } = merge3(this.base, theirBase, this.draft);
    const origin = this.liveMerge?.base ?? this.toBody(clone(this.base));
    const theirLines = changeLines(origin, this.toBody(clone(theirBase)));
    if (conflicts.length) {
      this.overlap = { revision: theirs.revision, conflicts: conflicts.map((c) => ({ key: c.key, ...describeConflict(c) })), theirLines };
      return { status: 'overlap', conflicts: this.overlap.conflicts, theirLines };
    }
    this.record = theirs;
    this.etag = etag || `"${theirs.revision}"`;
    this.base = theirBase;
    this.draft = merged;
    this.overlap = null;
    this.liveMerge = { base: origin, theirLines };
    this.persist();
    return { status: 'merged', theirLines };
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
   * Saves the draft. Resolves {status: 'saved'|'merged'|'conflict-kept'|'reloaded'}.
   * Rejects with the ApiError for everything else (422 included) so the view can place it.
   * When someone saved first (412), the three versions are merged: without overlaps the merge is
   * saved at once ('merged', with `merge` saying what came from whom); with overlaps the user is
   * asked (conflictDialog).
   * `overwrite`: after a kept conflict, merge again taking mine wherever we both changed something.
   * `send`: a custom request (reorder) given (body, etag).
   */
  async save({ overwrite = false, send } = {}) {
    this.lastMerge = null;
    const body = this.toBody(clone(this.draft));
    if (this.isNew) {
      const { data, etag } = await api.create(this.kind, body);
      this.forgetLocal();
      this.load(data, etag);
      return { status: 'saved', record: data };
    }
    this.saving = true;
    try {
      if (overwrite && this.conflict) return await this.resolveConflict({ preferMine: true });
      const before = this.toBody(clone(this.base));
      const liveMerge = this.liveMerge;
      const { data, etag: newEtag } = send ? await send(body, this.etag) : await api.replace(this.kind, this.record.id, body, this.etag);
      this.load(data, newEtag);
      this.forgetLocal();
      if (liveMerge) {
        // Someone's changes came in while editing: the save says what came from whom.
        this.lastMerge = { revision: data.revision, theirLines: liveMerge.theirLines, myLines: changeLines(before, body) };
        return { status: 'merged', record: data, merge: this.lastMerge };
      }
      return { status: 'saved', record: data };
    } catch (error) {
      if (!error.isConflict) throw error;
      return this.resolveConflict({ problem: error.problem });
    } finally {
      this.saving = false;
    }
  }

  /**
   * Fetches theirs and merges base, theirs and mine. Overlaps are asked about, unless `preferMine`
   * (the user chose to keep theirs' other changes and their own values where both changed).
   */
  async resolveConflict({ problem = {}, preferMine = false, attempt = 0 } = {}) {
    // Deleted meanwhile, or unreachable: this throws; the draft stays and the caller shows it.
    const { data: theirs, etag: theirEtag } = await api.get(this.kind, this.record.id);
    const base = this.toBody(clone(this.base));
    const theirBody = this.toBody(editable(theirs, this.strip));
    const mine = this.toBody(clone(this.draft));
    // Said from what the draft started from, before any change merged in as it came.
    const origin = this.liveMerge?.base ?? base;
    const theirLines = changeLines(origin, theirBody);
    const myLines = changeLines(base, mine);
    let { merged, conflicts } = merge3(base, theirBody, mine);
    if (conflicts.length) {
      let choices;
      if (preferMine) {
        choices = Object.fromEntries(conflicts.map((c) => [c.key, 'mine']));
      } else {
        const answer = await conflictDialog({
          kind: this.noun,
          name: this.draft.name || this.record.name || this.record.id,
          theirRevision: theirs.revision ?? problem.current_revision ?? null,
          myRevision: this.revision,
          theirLines, myLines,
          conflicts: conflicts.map((c) => ({ key: c.key, ...describeConflict(c) })),
        });
        if (answer.action === 'reload') {
          this.load(theirs, theirEtag);
          this.forgetLocal();
          return { status: 'reloaded', record: theirs };
        }
        if (answer.action !== 'merge') {
          this.conflict = { record: theirs, etag: theirEtag, revision: theirs.revision, theirLines, conflicts: conflicts.length };
          return { status: 'conflict-kept', record: theirs };
        }
        choices = answer.choices;
      }
      ({ merged, conflicts } = merge3(base, theirBody, mine, choices));
    }
    try {
      const { data, etag } = await api.replace(this.kind, this.record.id, merged, theirEtag);
      this.load(data, etag);
      this.forgetLocal();
      this.lastMerge = { revision: data.revision, theirLines, myLines };
      return { status: 'merged', record: data, merge: this.lastMerge };
    } catch (error) {
      // Saved again meanwhile: merge once more on top of the newest (a new overlap is asked about).
      if (error.isConflict && attempt < 2) {
        this.base = editable(theirs, this.strip);
        this.draft = merged;
        this.etag = theirEtag;
        return this.resolveConflict({ problem: error.problem, preferMine, attempt: attempt + 1 });
      }
      if (error.isValidation) {
        // The merge itself is refused: keep it as the draft on top of theirs, to fix and save.
        this.load(theirs, theirEtag);
        this.draft = merged;
      }
      throw error;
    }
  }

  /** Takes the version shown in the conflict (drops the draft). */
  acceptTheirs() {
    if (!this.conflict) return;
    this.load(this.conflict.record, this.conflict.etag);
    this.forgetLocal();
  }
}

function readStored(key) {
  try {
    const value = JSON.parse(localStorage.getItem(key) || 'null');
    return value && typeof value === 'object' && value.draft ? value : null;
  } catch {
    return null;
  }
}

function forgetStored(key) {
  try { localStorage.removeItem(key); } catch { /* nothing kept */ }
}

/**
 * Offers back the edits the browser kept from an earlier visit (a reload, a crash, a closed tab):
 * what they change, and Restore or Discard.
 */
export function restoreBanner(editor, { onRestore, onDiscard, describe }) {
  const stored = editor.offer;
  if (!stored) return null;
  const when = stored.saved_at ? new Date(stored.saved_at).toLocaleString() : 'earlier';
  const behind = !editor.isNew && stored.revision !== editor.revision;
  const lines = describe ? describe(stored.base, stored.draft) : [];
  return h('div', { class: 'restore-banner', role: 'region', 'aria-label': 'Unsaved changes kept in this browser' },
    h('p', {},
      h('strong', { text: `Unsaved changes to this ${editor.noun} were kept in this browser` }),
      ` (last edited ${when}).`,
      behind ? ` It was saved again since (now revision ${editor.revision}); restoring merges your changes with the newer version when you save.` : ''),
    lines.length ? h('ul', { class: 'restore-summary' }, lines.slice(0, 8).map((line) => h('li', { text: line })),
      lines.length > 8 ? h('li', { class: 'muted', text: `and ${lines.length - 8} more` }) : null) : null,
    h('div', { class: 'banner-actions' },
      h('button', { type: 'button', class: 'button primary', 'data-action': 'restore', text: 'Restore my changes', onclick: onRestore }),
      h('button', { type: 'button', class: 'button', 'data-action': 'discard-kept', text: 'Discard them', onclick: onDiscard })));
}

/**
 * The banner shown while a kept conflict is unresolved: take theirs, or save the merge keeping my
 * values where we both changed something (their other changes stay).
 */
export function conflictBanner(editor, { onReload, onOverwrite }) {
  if (!editor.conflict) return null;
  const c = editor.conflict;
  return h('div', { class: 'conflict-banner', role: 'region', 'aria-label': 'Unresolved conflict' },
    h('p', {},
      h('strong', { text: `Not saved: this ${editor.noun} was changed by someone else` }),
      ` (now revision ${c.revision}). You are editing your own copy; you both changed ${c.conflicts === 1 ? 'one thing' : `${c.conflicts} things`}.`),
    c.theirLines?.length ? h('p', { class: 'hint', text: `They changed: ${c.theirLines.slice(0, 4).join('; ')}${c.theirLines.length > 4 ? '; …' : ''}.` }) : null,
    h('div', { class: 'banner-actions' },
      h('button', { type: 'button', class: 'button', 'data-action': 'reload-theirs', text: 'Take theirs, drop mine', onclick: onReload }),
      h('button', {
        type: 'button', class: 'button primary', 'data-action': 'overwrite', text: 'Save mine where we both changed',
        title: 'Saves their other changes too: only what you both changed takes your value.', onclick: onOverwrite,
      })));
}

/** After a save that merged someone else's changes: what came from whom. */
export function mergedBanner(editor, { onDismiss }) {
  const m = editor.lastMerge;
  if (!m) return null;
  const list = (title, lines) => (lines.length ? h('div', {}, h('strong', { text: title }),
    h('ul', {}, lines.slice(0, 6).map((line) => h('li', { text: line })), lines.length > 6 ? h('li', { class: 'muted', text: `and ${lines.length - 6} more` }) : null)) : null);
  return h('div', { class: 'merged-banner', role: 'status', 'aria-label': 'Merged with changes saved by someone else' },
    h('p', {}, h('strong', { text: `Saved with someone else’s changes merged in (revision ${m.revision}).` }), ' Nobody’s work was dropped.'),
    h('div', { class: 'merged-sides' }, list('Their changes, kept:', m.theirLines), list('Your changes, saved:', m.myLines)),
    h('button', { type: 'button', class: 'button small', 'data-action': 'dismiss-merge', text: 'OK', onclick: () => { editor.lastMerge = null; onDismiss(); } }));
}

/**
 * The banner that offers back the changes kept in the browser, the same in every editor:
 * `redraw` shows the restored draft, `render` the editor without the offer.
 */
export function keptChangesBanner(editor, { history, redraw, render }) {
  return restoreBanner(editor, {
    describe: (before, after) => changeLines(before, after),
    onRestore: () => {
      const how = editor.restoreOffer();
      history.record('restore the kept changes');
      redraw();
      info(how === 'behind' ? 'Your kept changes are back; saving merges them with the newer version.' : 'Your kept changes are back (not saved yet).');
    },
    onDiscard: () => { editor.dropOffer(); render(); info('The kept changes were discarded.'); },
  });
}

// Read only: a role below editor sees the editors as they are, and cannot change anything ------

/** What a role that may not change the app is told, the same in every editor. */
export const READ_ONLY_TEXT = 'You can view this app; only editors, publishers and admins can change it.';

/** For a role that may not change the app: a banner saying so and why (null for the others). */
export function readOnlyBanner() {
  if (can('editor')) return null;
  return h('div', { class: 'notice read-only-banner', id: 'read-only-banner', role: 'note' },
    h('strong', { text: 'Read only. ' }), READ_ONLY_TEXT,
    ` Your role here is ${state.role}: to make changes, ask an admin of the app for the editor role.`);
}

/**
 * The fields of an editor: as they are, or for a role that may not change the app, inside a
 * disabled fieldset (every field, button and picker in it disabled, whatever redraws it).
 */
export function editableArea(...children) {
  if (can('editor')) return children;
  return h('fieldset', { class: 'read-only-fields', disabled: true, 'aria-describedby': 'read-only-banner' }, children);
}

// Live: what someone else saves shows at once ------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `draw` (which may build the form again) keeping the caret where it was in the field being
 *  typed in: someone's save must not move it. */
function keepCaret(draw) {
  const before = document.activeElement;
  const range = before && typeof before.selectionStart === 'number' ? [before.selectionStart, before.selectionEnd] : null;
  draw();
  const now = document.activeElement;
  if (range && now && now !== before && typeof now.selectionStart === 'number') {
    try { now.setSelectionRange(...range); } catch { /* a field without a caret */ }
  }
}

/**
 * Follows the open record on the app's live stream: a save by someone else (not this editor's
 * own, told by the revision it holds) is fetched and taken in within a second (takeTheirs). The
 * view is told: `reloaded()` and `merged(outcome)` draw the record again, `overlap(outcome)`
 * keeps the draft. A deletion is said. Returns the function that stops following.
 */
export function followLive(editor, { reloaded, merged, overlap, deleted }) {
  let running = false;
  let again = false;
  let stopped = false;
  let last = null;
  const place = () => `${editor.kind}/${editor.record?.id}`;
  const who = (change) => change?.actor || 'Someone';
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    try {
      // A save of this editor's own under way: its answer decides what is held.
      while ((editor.busy || editor.saving) && !stopped) await sleep(100);
      if (stopped || !last || !isNewer(last, editor.revision)) return;
      const change = last;
      const { data, etag } = await api.get(editor.kind, editor.record.id);
      if (stopped) return;
      if (editor.busy || editor.saving) { again = true; return; }
      if (!isNewer({ revision: data.revision }, editor.revision)) return;
      const outcome = editor.takeTheirs(data, etag);
      if (outcome.status === 'reloaded') keepCaret(() => reloaded(outcome, change));
      else if (outcome.status === 'merged') keepCaret(() => merged(outcome, change));
      else if (outcome.status === 'overlap') {
        overlap?.(outcome, change);
        const titles = outcome.conflicts.map((c) => c.title).slice(0, 3).join('; ');
        notice(`${who(change)} saved this ${editor.noun} too`,
          `You both changed ${titles}. Your edits stay here, unsaved; saving asks which to keep.`);
      }
    } catch (error) {
      if (error?.status === 404 && !stopped) deleted?.({ actor: null });
    } finally {
      running = false;
      if (again && !stopped) { again = false; run(); }
    }
  };
  const off = onLive((type, change) => {
    if (type === 'resync' && !stopped && !editor.isNew) { last = { actor: null }; run(); return; }
    if (type !== 'change' || stopped || editor.isNew || !concerns(change, place())) return;
    if (change.action === 'delete' || change.action === 'archive') {
      deleted?.(change);
      notice(`${who(change)} deleted this ${editor.noun}`, editor.dirty
        ? 'Your unsaved changes are still here: copy what you need; saving cannot bring it back.'
        : 'It is no longer in the app.');
      return;
    }
    if (!isNewer(change, editor.revision)) return;
    last = change;
    run();
  });
  return () => { stopped = true; off(); };
}
