// Messages to the user: server errors (never swallowed), confirmations, and screen-reader
// announcements.
import { h } from './dom.js';
import { ApiError } from './api.js';

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

/** A passing confirmation ("Saved."), also announced. */
export function info(text, { timeout = 5000 } = {}) {
  if (!statusRegion) return;
  // One line in the top bar, never over the work: the newest replaces the one before.
  const item = h('span', { class: 'status-message', text });
  statusRegion.replaceChildren(item);
  if (timeout) setTimeout(() => item.remove(), timeout);
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
  const title = isApi ? error.title : 'Something went wrong';
  const detail = isApi ? error.detail : String(error?.message || error);
  const list = isApi && error.errors.length && !placed
    ? h('ul', { class: 'problem-list' }, error.errors.map((e) => h('li', {}, h('code', { text: e.pointer || '/' }), ' ', e.message)))
    : null;
  const usedBy = isApi && Array.isArray(error.problem.used_by) && error.problem.used_by.length
    ? h('div', {}, h('p', { text: 'Used by:' }), h('ul', { class: 'problem-list' }, error.problem.used_by.map((u) => h('li', {
      text: typeof u === 'object' ? `${u.kind || ''} ${u.name ? `“${u.name}”` : ''} ${u.id ? `(${u.id})` : ''}${u.via ? ` as ${u.via}` : ''}`.trim() : String(u),
    }))))
    : null;
  const meta = isApi ? `${error.status || 'no answer'} · ${error.request.method} ${error.request.path}` : '';
  const item = h('div', { class: 'toast toast-error', role: 'alert', dataset: { status: isApi ? String(error.status) : '' } },
    h('div', { class: 'toast-body' },
      h('strong', { text: context ? `${context}: ${title}` : title }),
      detail ? h('p', { text: detail }) : null,
      list,
      usedBy,
      meta ? h('p', { class: 'toast-meta', text: meta }) : null),
    h('button', { type: 'button', class: 'icon-button', 'aria-label': 'Dismiss error', text: '×', onclick: () => item.remove() }));
  errorRegion.append(item);
  // Keep the list short: the oldest go first.
  while (errorRegion.children.length > 4) errorRegion.firstElementChild.remove();
}

export function clearMessages() {
  errorRegion?.replaceChildren();
  statusRegion?.replaceChildren();
}
