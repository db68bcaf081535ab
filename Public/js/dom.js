// Small DOM helpers shared by every view: element creation, labelled fields, focus keeping.

let counter = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix = 'f') { counter += 1; return `${prefix}-${counter}`; }

/**
 * Creates an element. props: class, text, html-free attributes, on<Event> handlers, dataset,
 * boolean attributes (true adds, false/null/undefined leaves out), value/checked as properties.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'value' || key === 'checked' || key === 'selected' || key === 'indeterminate') el[key] = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of el. */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * A labelled control: <div class="field"><label for>…</label>control<p class="hint"></div>.
 * `pointer` (a JSON pointer into the resource) lets validation errors find the field.
 */
export function field(labelText, control, { hint, pointer, className } = {}) {
  if (!control.id) control.id = uid();
  const parts = [h('label', { for: control.id, text: labelText }), control];
  if (hint) {
    const hintEl = h('p', { class: 'hint', id: uid('hint'), text: hint });
    control.setAttribute('aria-describedby', hintEl.id);
    parts.push(hintEl);
  }
  const wrapper = h('div', { class: ['field', className] }, parts);
  if (pointer !== undefined) control.dataset.pointer = pointer;
  return wrapper;
}

/** <select> with options [{value, text}] and the selected value. */
export function select(options, value, props = {}) {
  const el = h('select', props);
  for (const o of options) {
    el.append(h('option', { value: o.value, text: o.text, selected: String(o.value) === String(value ?? '') }));
  }
  el.value = value ?? '';
  return el;
}

/** Remembers which element has focus (by data-focus-key) so a re-render can give it back. */
export function focusKeyOf(root = document) {
  const active = document.activeElement;
  if (!active || active === document.body || !root.contains(active)) return null;
  return active.dataset.focusKey || (active.id ? `#${active.id}` : null);
}

export function restoreFocus(root, key) {
  if (!key) return false;
  const el = key.startsWith('#') ? root.querySelector(key) : root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if (el) { el.focus({ preventScroll: false }); return true; }
  return false;
}

const stickyBars = new Map(); // bar → its ResizeObserver
/**
 * A form's action bar stays in sight (CSS makes `.resource-form > .toolbar` sticky). Its height
 * goes to `--sticky-bar` on the form, so what sticks below it (the preview) and what is scrolled
 * to (fields, errors) stay clear of it.
 */
export function trackStickyBar(bar) {
  for (const [old, observer] of stickyBars) {
    if (!old.isConnected) { observer.disconnect(); stickyBars.delete(old); }
  }
  const publish = () => bar.parentElement?.style.setProperty('--sticky-bar', `${Math.ceil(bar.getBoundingClientRect().height)}px`);
  if (typeof ResizeObserver === 'undefined') { requestAnimationFrame(publish); return; }
  const observer = new ResizeObserver(publish);
  observer.observe(bar);
  stickyBars.set(bar, observer);
}

export function debounce(fn, ms) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => { timer = null; fn(...args); }, ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  debounced.flush = (...args) => { clearTimeout(timer); timer = null; fn(...args); };
  return debounced;
}

export function clone(value) { return value === undefined ? undefined : JSON.parse(JSON.stringify(value)); }

/** JSON with sorted keys: equal values give equal strings. */
export function stableStringify(value) {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

/** A random UUID (crypto.randomUUID needs a secure context; 127.0.0.1 is one, other hosts may not be). */
export function uuid() {
  if (globalThis.crypto?.randomUUID) {
    try { return crypto.randomUUID(); } catch { /* not a secure context */ }
  }
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A number as people read it: at most 2 decimals. */
export function fmt(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '–';
  return String(Math.round(n * 100) / 100);
}

export function formatDate(text) {
  if (!text) return '';
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? text : d.toLocaleString();
}

export function formatBytes(n) {
  if (typeof n !== 'number') return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(2)} MB`;
}
