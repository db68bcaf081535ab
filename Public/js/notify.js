// Messages to the user: server errors (never swallowed), confirmations, and screen-reader
// announcements.
import { h } from './dom.js';
import { ApiError } from './api.js';
import { pointerLabel, withNames } from './field-errors.js';
import { api, roleReason, state } from './state.js';

let errorRegion = null;
let statusRegion = null;
let announcer = null;

export function initNotify() {
  errorRegion = document.getElementById('errors');
  statusRegion = document.getElementById('status');
  announcer = document.getElementById('announcer');
}

/** Says something to screen readers only (moves, additions…). */
export function announce(text) {
  if (!announcer) return;
  announcer.textContent = '';
  // A new text node after a tick, so the same message twice is read twice.
  setTimeout(() => { announcer.textContent = text; }, 30);
}

/**
 * A passing confirmation ("Saved."), also announced. `action` adds a button to it
 * ({label: 'Undo', run}), and keeps it longer.
 */
export function info(text, { timeout = 5000, action = null, refused = false } = {}) {
  if (!statusRegion) return;
  // One line in the top bar, never over the work: the newest replaces the one before. `refused`:
  // something the user asked for was not done (no ✓).
  const item = h('span', { class: ['status-message', action && 'with-action', refused && 'refused'] }, h('span', { class: 'status-text', title: text, text }),
    action ? h('button', {
      type: 'button', class: 'status-action', 'data-action': 'status-action', text: action.label,
      onclick: () => { item.remove(); action.run(); },
    }) : null);
  statusRegion.replaceChildren(item);
  if (timeout) setTimeout(() => item.remove(), action ? Math.max(timeout, 10000) : timeout);
}

const KINDS = { screen: 'screen', layout: 'layout', family: 'family' };
const VIA = {
  parent: 'has it as its parent screen', target: 'links to it',
  family: 'uses it as its family', type: 'is a screen of this plugin', component: 'has a component of this plugin', hook: 'runs it as a hook', navigation: 'uses it as navigation',
};

/** One line for who still uses what the user tried to change or delete. */
function describeUser(u) {
  if (typeof u !== 'object' || u === null) return withNames(String(u));
  const what = `${KINDS[u.kind] || 'item'} “${u.name || '(no name)'}”`;
  const via = (Array.isArray(u.via) ? u.via : (u.via ? [u.via] : [])).map((v) => VIA[v] || v);
  const styles = Array.isArray(u.cell_styles) && u.cell_styles.length ? `uses cell style${u.cell_styles.length === 1 ? '' : 's'} ${u.cell_styles.join(', ')}` : '';
  const how = [...via, styles].filter(Boolean).join('; ');
  return how ? `The ${what} ${how}.` : `The ${what}.`;
}

/** "45 seconds", "3 minutes". */
export function waitText(seconds) {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** What went wrong, in words for the people using the editor: no ids, methods or addresses. */
export function explain(error) {
  if (!(error instanceof ApiError)) return { title: 'Something went wrong', detail: String(error?.message || error) };
  const usedBy = Array.isArray(error.problem.used_by) ? error.problem.used_by : [];
  if (error.status === 0) return { title: error.title, detail: error.detail };
  if (error.isConflict) {
    return { title: 'Someone else changed it first', detail: 'Nothing was changed. Reload to see their version, then make your change again.' };
  }
  if (error.status === 409 && usedBy.length) {
    const more = (error.problem.used_by_count ?? usedBy.length) - usedBy.length;
    return {
      title: 'Still in use',
      detail: usedBy.length ? `Nothing was changed: ${usedBy.length === 1 && more <= 0 ? 'this is' : 'these are'} still using it.${more > 0 ? ` (${more} more not listed.)` : ''}` : withNames(error.detail),
      usedBy: usedBy.map(describeUser),
    };
  }
  if (error.isMissingRoute) return { title: 'Not available', detail: 'This server does not offer this yet.' };
  if (error.isNotFound) return { title: 'Not found', detail: 'It is not there any more: someone may have deleted it. Reload to see what is there now.' };
  if (error.status === 401) {
    return { title: 'Signed out', detail: api.token ? 'This token no longer works (it was revoked, or its app was archived). Sign in with another token.' : 'Your session ended. Sign in again.' };
  }
  if (error.needs) {
    const reason = state.role && roleReason(error.needs);
    const said = withNames(error.detail);
    return { title: 'Not allowed', detail: reason || `${said.charAt(0).toUpperCase()}${said.slice(1)}. Your role in this app may have changed: reload the page to see what you may do.` };
  }
  if (error.status === 403 && error.type === '/problems/csrf') {
    return { title: 'Not allowed', detail: 'The page lost its sign-in: reload it and try again.' };
  }
  if (error.status === 429) {
    const wait = error.retryAfter;
    return { title: 'Too many attempts', detail: wait ? `Wait ${waitText(wait)}, then try again.` : 'Wait a while, then try again.' };
  }
  if (error.status === 413) return { title: 'Too large', detail: 'This is more than the server takes in one go. Make it smaller and try again.' };
  if (error.status === 503 && error.type === '/problems/busy') {
    return { title: 'The server is busy', detail: 'Nothing was changed: too much is waiting for this app right now. Try again in a moment.' };
  }
  if (error.status >= 500) {
    return {
      title: 'The server ran into a problem',
      detail: `Nothing was changed. Try again; if it keeps happening, report it with the reference ${error.request.id || 'shown in the server log'}.`,
    };
  }
  if (error.isValidation) return { title: 'Some values need fixing', detail: withNames(error.detail) };
  return { title: error.title, detail: withNames(error.detail) };
}

/**
 * Shows an error until dismissed. `context` says what was being done ("Saving the screen").
 * Validation errors already shown at their fields can be left out with `placed`.
 */
export function showError(error, context = '', { placed = false } = {}) {
  if (error?.name === 'AbortError') return;
  console.error(context, error);
  if (!errorRegion) return;
  const isApi = error instanceof ApiError;
  const { title, detail, usedBy = [] } = explain(error);
  // A validation error's problems are listed by where they are, in words, not by JSON pointer.
  const problems = isApi && error.errors.length && !placed ? error.errors : [];
  const list = problems.length
    ? h('ul', { class: 'problem-list' }, problems.map((e) => h('li', {},
      e.pointer ? h('strong', { text: `${pointerLabel(e.pointer)}: ` }) : null, withNames(e.message))))
    : null;
  const users = usedBy.length ? h('ul', { class: 'problem-list used-by' }, usedBy.map((text) => h('li', { text }))) : null;
  errorToast({ heading: context ? `${context}: ${title}` : title, detail: problems.length ? '' : detail, list, users, status: isApi ? String(error.status) : '' });
}

/** A message that stays until dismissed, about what happened rather than a failure (access lost, a role changed). */
export function notice(heading, detail = '') {
  if (errorRegion) errorToast({ heading, detail, status: 'notice' });
}

/** An error toast (shown until dismissed, or until the user goes to another page). */
function errorToast({ heading, detail = '', list = null, users = null, status = '' }) {
  const item = h('div', { class: 'toast toast-error', role: 'alert', dataset: { status } },
    h('div', { class: 'toast-body' },
      h('strong', { text: heading }),
      detail ? h('p', { text: detail }) : null,
      list,
      users),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Dismiss error', text: '×', onclick: () => item.remove() }));
  errorRegion.append(item);
  // Keep the list short: the oldest go first.
  while (errorRegion.children.length > 4) errorRegion.firstElementChild.remove();
}

/**
 * Says that something cannot be deleted because others use it, before anything is asked or sent
 * (the same words as the server's refusal). `usedBy`: [{kind, name, via?}] as the server's `used_by`.
 */
export function showInUse(context, usedBy, { limit = 10 } = {}) {
  if (!errorRegion) return;
  const shown = usedBy.slice(0, limit);
  const more = usedBy.length - shown.length;
  errorToast({
    heading: `${context}: Still in use`,
    detail: `Nothing was deleted: ${usedBy.length === 1 ? 'this is' : 'these are'} still using it. Change ${usedBy.length === 1 ? 'it' : 'them'} first.${more > 0 ? ` (${more} more not listed.)` : ''}`,
    users: h('ul', { class: 'problem-list used-by' }, shown.map((u) => h('li', { text: describeUser(u) }))),
    status: 'in-use',
  });
}

/** Takes the error toasts away (the user went to another page: they were about the one left). */
export function clearErrors() {
  errorRegion?.replaceChildren();
}

export function clearMessages() {
  errorRegion?.replaceChildren();
  statusRegion?.replaceChildren();
}
