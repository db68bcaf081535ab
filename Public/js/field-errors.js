// Validation errors (422 `errors: [{pointer, message}]`) shown at the fields they name. Every
// control or group that edits part of a resource carries `data-pointer` (a JSON pointer); an error
// goes to the element with the longest pointer that is a prefix of the error's pointer.
import { h, uid } from './dom.js';
import { state } from './state.js';

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** Text from the server with screen and layout ids replaced by their names (ids mean nothing to people). */
export function withNames(text) {
  return String(text ?? '').replace(UUID, (id) => {
    const lower = id.toLowerCase();
    const screen = state.screens.find((s) => s.id === lower);
    if (screen) return `“${screen.name}”`;
    const layout = state.layouts.find((l) => l.id === lower);
    return layout ? `“${layout.name}”` : 'another item';
  });
}

const CONTROLS = 'input, select, textarea';

export function clearFieldErrors(root) {
  root.querySelectorAll('.field-error').forEach((el) => { forgetDescription(root, el.id); el.remove(); });
  root.querySelectorAll('[aria-invalid="true"]').forEach((el) => el.removeAttribute('aria-invalid'));
  root.querySelectorAll('.has-error').forEach((el) => el.classList.remove('has-error'));
  root.querySelectorAll('.error-summary').forEach((el) => el.remove());
}

/** The element for a pointer, and the part of the pointer below it. */
export function findTarget(root, pointer) {
  const byPointer = new Map();
  for (const el of root.querySelectorAll('[data-pointer]')) {
    if (!byPointer.has(el.dataset.pointer)) byPointer.set(el.dataset.pointer, el);
  }
  let p = pointer || '';
  for (;;) {
    if (byPointer.has(p)) return { el: byPointer.get(p), rest: (pointer || '').slice(p.length) };
    if (p === '') return null;
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

// `~entry` is the editor's own: a row of a free-form object not written yet (members-editor.js);
// `~e` is no JSON pointer escape, so it never names a real member.
const ITEM_NAMES = { cell_styles: 'cell style', ui_components: 'component', errors: 'error', navigations: 'navigation', nav_items: 'item', children: 'child', '~entry': 'entry' };

/** "/ui_components/0/data/source" → "component 1 › data › source". */
export function unescapePointer(rest) {
  const parts = rest.split('/').filter((p, i) => i > 0 || p !== '').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const words = [];
  for (let i = 0; i < parts.length; i += 1) {
    const item = ITEM_NAMES[parts[i]];
    if (item && /^\d+$/.test(parts[i + 1] || '')) {
      words.push(`${item} ${Number(parts[i + 1]) + 1}`);
      i += 1;
    } else {
      words.push(parts[i].replace(/_/g, ' '));
    }
  }
  return words.filter(Boolean).join(' › ');
}

function describeBy(control, id) {
  const ids = (control.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  if (!ids.includes(id)) ids.push(id);
  control.setAttribute('aria-describedby', ids.join(' '));
}

/** Takes a removed message's id out of every aria-describedby (none may point at nothing). */
function forgetDescription(root, id) {
  if (!id) return;
  for (const control of root.querySelectorAll(`[aria-describedby~="${CSS.escape(id)}"]`)) {
    const ids = control.getAttribute('aria-describedby').split(/\s+/).filter((x) => x && x !== id);
    if (ids.length) control.setAttribute('aria-describedby', ids.join(' ')); else control.removeAttribute('aria-describedby');
  }
}

/** Tells the error summary (showErrorSummary) that the field of `pointer` was changed. */
function fixed(el, pointer) {
  el.dispatchEvent(new CustomEvent('rivers:field-fixed', { bubbles: true, detail: { pointer } }));
}

/**
 * Puts each error next to its field. `prefix` is stripped from pointers first (the preview answers
 * with `/screen/...`). Returns the errors that found no field (to show elsewhere).
 */
export function placeErrors(root, errors, { prefix = '' } = {}) {
  const unplaced = [];
  for (const error of errors) {
    let pointer = error.pointer || '';
    if (prefix && pointer.startsWith(prefix)) pointer = pointer.slice(prefix.length);
    const target = findTarget(root, pointer);
    if (!target) { unplaced.push(error); continue; }
    const { el, rest } = target;
    const text = rest ? `${unescapePointer(rest)}: ${withNames(error.message)}` : withNames(error.message);
    const message = h('p', { class: 'field-error', id: uid('err'), text });
    const holder = root;
    if (el.matches(CONTROLS)) {
      el.setAttribute('aria-invalid', 'true');
      describeBy(el, message.id);
      const host = el.closest('.field') || el.parentElement;
      host.append(message);
      host.classList.add('has-error');
      const clear = () => {
        el.removeAttribute('aria-invalid');
        host.classList.remove('has-error');
        host.querySelectorAll('.field-error').forEach((m) => { forgetDescription(holder, m.id); m.remove(); });
        el.removeEventListener('input', clear);
        el.removeEventListener('change', clear);
        fixed(el, pointer);
      };
      el.addEventListener('input', clear);
      el.addEventListener('change', clear);
    } else {
      el.classList.add('has-error');
      const anchor = el.querySelector(':scope > legend, :scope > h3, :scope > h4, :scope > .card-head');
      if (anchor) anchor.after(message); else el.prepend(message);
      const first = el.querySelector(CONTROLS);
      if (first) describeBy(first, message.id);
      // A change inside the group settles its message.
      const clear = () => {
        el.classList.remove('has-error');
        forgetDescription(holder, message.id);
        message.remove();
        el.removeEventListener('input', clear);
        el.removeEventListener('change', clear);
        fixed(el, pointer);
      };
      if (pointer) {
        el.addEventListener('input', clear);
        el.addEventListener('change', clear);
      }
    }
  }
  return unplaced;
}

/** Moves focus to the field of a pointer (and scrolls it into view). */
export function focusPointer(root, pointer) {
  const target = findTarget(root, pointer);
  if (!target) return false;
  const el = target.el.matches(CONTROLS) ? target.el : (target.el.querySelector(CONTROLS) || target.el);
  if (!el.matches(CONTROLS) && !el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.scrollIntoView({ block: 'center' });
  el.focus();
  return true;
}

/**
 * A summary of every error, each a link to its field, shown in `container` (role=alert).
 */
export function showErrorSummary(container, root, errors, { prefix = '', title } = {}) {
  const heading = h('h3', { text: title || (errors.length === 1 ? 'The server refused this: 1 problem' : `The server refused this: ${errors.length} problems`) });
  const items = errors.map((e) => {
    let pointer = e.pointer || '';
    if (prefix && pointer.startsWith(prefix)) pointer = pointer.slice(prefix.length);
    const label = pointer ? unescapePointer(pointer) : 'whole document';
    return h('li', { 'data-pointer-target': pointer }, h('a', {
      href: '#', onclick: (ev) => { ev.preventDefault(); focusPointer(root, pointer); },
    }, label), `: ${withNames(e.message)}`);
  });
  const list = h('ul', {}, items);
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1' }, heading, list);
  container.querySelectorAll('.error-summary').forEach((el) => el.remove());
  container.append(summary);
  // As each field is fixed, its line goes; the heading counts what is left.
  const onFixed = (event) => {
    if (!summary.isConnected) { root.removeEventListener('rivers:field-fixed', onFixed); return; }
    const pointer = event.detail?.pointer ?? '';
    for (const li of [...list.children]) {
      const target = li.dataset.pointerTarget;
      if (target === pointer || (pointer && target.startsWith(`${pointer}/`))) li.remove();
    }
    const left = list.children.length;
    summary.classList.toggle('settled', left === 0);
    heading.textContent = left
      ? `${left} thing${left === 1 ? '' : 's'} left to fix`
      : 'Everything listed is fixed: save again.';
  };
  root.addEventListener('rivers:field-fixed', onFixed);
  return summary;
}
