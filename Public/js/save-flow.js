// The one save-and-error flow every editing view uses (families, screens, layouts, and the forms
// that create things): one save at a time, old errors cleared, the ResourceEditor's save with
// If-Match, then one of three outcomes (saved, their version reloaded after a conflict, or the
// conflict kept to resolve later); a 422 puts each problem at its field with a summary of links,
// and a toast only for what found no field; anything else is a toast.
import { clearFieldErrors, placeErrors, showErrorSummary } from './field-errors.js';
import { mergeProblems } from './contract.js';
import { showError, info, showInUse } from './notify.js';
import { can, roleReason } from './state.js';

/**
 * Shows a refused request. A validation error (422 with `errors`) goes to its fields and to a
 * summary in `errorsHost` (focused, so keyboard and screen-reader users land on it); problems no
 * field takes, and every other error, go to a toast. Resolves true when the fields took it.
 * @param {Error} error
 * @param {{root: Element, errorsHost: Element, context: string, reveal?: (errors) => void, focus?: boolean}} where
 *   root: where the fields are; reveal: unfolds what must be visible before placing (components).
 */
export function showRequestError(error, { root, errorsHost, context, reveal, focus = true }) {
  if (error?.isValidation && error.errors.length && root && errorsHost) {
    const unplaced = showFieldProblems(error.errors, { root, errorsHost, reveal, focus });
    if (unplaced.length) showError(error, context);
    return true;
  }
  showError(error, context);
  return false;
}

/**
 * Problems [{pointer, message}] at their fields, with the summary of links in `errorsHost`
 * (focused). Returns the problems no field took.
 */
export function showFieldProblems(problems, { root, errorsHost, reveal, focus = true, title }) {
  reveal?.(problems);
  const unplaced = placeErrors(root, problems);
  showErrorSummary(errorsHost, root, problems, { title });
  if (focus) errorsHost.querySelector('.error-summary')?.focus();
  return unplaced;
}

/**
 * Saves an editor's draft. Each getter is called when needed, since views draw themselves again
 * (the button and the error host of before a save may be gone after it).
 * @param {import('./editing.js').ResourceEditor} editor
 * @param {{
 *   root: () => Element, errorsHost: () => Element, button?: () => HTMLButtonElement|null,
 *   context: string, overwrite?: boolean, send?: (body, etag) => Promise<object>,
 *   reveal?: (errors) => void, afterRequest?: (result) => Promise<void>|void,
 *   check?: () => Array<{pointer: string, message: string}>,
 *   saved: (record, {wasNew: boolean}) => void, reloaded: (record) => void, kept: (record) => void,
 * }} flow
 *   afterRequest: runs after every answer that is not an error (a list refresh, say), before the outcome.
 *   check: what the editor can tell before asking the server (an empty name…), shown the same way.
 *   A save that met someone else's and merged with it ('merged') counts as saved.
 * @returns {Promise<'saved'|'merged'|'reloaded'|'conflict-kept'|'failed'|'busy'>}
 */
export async function saveDraft(editor, flow) {
  if (editor.busy) return 'busy';
  // Ctrl+S reaches here even when the Save button is disabled for the role.
  // Said where it shows (and read out), not only to screen readers.
  if (!can('editor')) { info(`Not saved: ${roleReason('editor')}`, { refused: true }); return 'failed'; }
  editor.busy = true;
  const before = flow.button?.();
  if (before) before.disabled = true;
  clearFieldErrors(flow.root());
  untrack(editor);
  const wasNew = editor.isNew;
  try {
    // Everything the editor can tell (the contract's rules and its own), all at once: nothing is sent.
    const local = flow.check?.() || [];
    if (local.length) {
      showFieldProblems(local, { root: flow.root(), errorsHost: flow.errorsHost(), reveal: flow.reveal,
        title: local.length === 1 ? 'Not saved yet: 1 thing to fix' : `Not saved yet: ${local.length} things to fix` });
      track(editor, flow, []);
      return 'failed';
    }
    const result = await editor.save({ overwrite: Boolean(flow.overwrite), send: flow.send });
    await flow.afterRequest?.(result);
    if (result.status === 'saved' || result.status === 'merged') flow.saved(result.record, { wasNew, merged: result.merge || null });
    else if (result.status === 'reloaded') flow.reloaded(result.record);
    else flow.kept(result.record);
    return result.status;
  } catch (error) {
    showRequestError(error, { root: flow.root(), errorsHost: flow.errorsHost(), context: flow.context, reveal: flow.reveal });
    if (error?.isValidation && error.errors.length) track(editor, flow, error.errors);
    return 'failed';
  } finally {
    editor.busy = false;
    const after = flow.button?.();
    if (after) after.disabled = false;
  }
}

/**
 * After a refused save, the problems shown follow the edits: every change checks the draft again
 * (recheckProblems), so a field fixed loses its message, a new problem shows at once, and the
 * summary counts what is left. The server's problems stay until their field is edited.
 */
function track(editor, flow, server) {
  untrack(editor);
  const state = { flow, server, edited: new Set() };
  // Capture: the edit is known before the view's own listener checks again.
  state.mark = (event) => {
    const root = flow.root();
    if (!root?.contains(event.target)) return;
    const el = event.target.closest?.('[data-pointer]');
    if (el && el.dataset.pointer) state.edited.add(el.dataset.pointer);
  };
  document.addEventListener('input', state.mark, true);
  document.addEventListener('change', state.mark, true);
  editor.problemState = state;
}

function untrack(editor) {
  const state = editor.problemState;
  if (!state) return;
  document.removeEventListener('input', state.mark, true);
  document.removeEventListener('change', state.mark, true);
  editor.problemState = null;
}

/** Forgets the problems shown (the view was left, or the record reloaded). */
export function forgetProblems(editor) { untrack(editor); }

/**
 * Checks the draft again after an edit when a save was refused: the problems now (the editor's,
 * and the server's whose field was not edited since) at their fields, and the summary with them.
 * Nothing is focused. Does nothing when no save was refused.
 */
export function recheckProblems(editor) {
  const state = editor.problemState;
  if (!state) return;
  const root = state.flow.root();
  const host = state.flow.errorsHost();
  if (!root?.isConnected || !host) return;
  const edited = [...state.edited];
  const server = state.server.filter((p) => !edited.some((e) => p.pointer === e || p.pointer.startsWith(`${e}/`)));
  const all = mergeProblems(state.flow.check?.() || [], server);
  clearFieldErrors(root);
  placeErrors(root, all);
  showErrorSummary(host, root, all, { title: all.length ? `${all.length} thing${all.length === 1 ? '' : 's'} left to fix` : undefined });
}

/**
 * Deletes a saved record after the user confirms it: the one delete flow of the editors. A
 * refusal is a toast in plain words (who still uses it, or that someone changed it first).
 * @param {{confirm: () => Promise<boolean>, remove: () => Promise<unknown>, context: string,
 *   done: () => Promise<void>|void, conflict?: () => void, failed?: (error) => void,
 *   inUse?: () => Promise<Array<{kind: string, name: string, via?: string[]}>>}} flow
 *   context: what is being done, like 'Deleting the family'; conflict: after a 412; failed: after any refusal;
 *   inUse: who uses it (as the server's `used_by`), asked before the confirmation.
 * @returns {Promise<boolean>} true when deleted
 */
export async function deleteRecord(flow) {
  // Who still uses it, as far as the editor can tell (after a fresh read): said at once, instead of
  // asking first and being refused after. A read that fails asks as before (the server checks anyway).
  let users = [];
  try {
    users = (await flow.inUse?.()) || [];
  } catch {
    users = [];
  }
  if (users.length) {
    showInUse(flow.context, users);
    return false;
  }
  if (!(await flow.confirm())) return false;
  try {
    await flow.remove();
  } catch (error) {
    // The message says what happened (someone changed it first, or who still uses it).
    showError(error, flow.context);
    if (error?.isConflict) flow.conflict?.();
    flow.failed?.(error);
    return false;
  }
  try {
    await flow.done();
  } catch (error) {
    showError(error, flow.context);
  }
  return true;
}
