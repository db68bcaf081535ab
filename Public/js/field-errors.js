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
  root.querySelectorAll('.field-error').forEach((el) => { el.detach?.(); forgetDescription(root, el.id); el.remove(); });
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

/** Words for the members of the API the editor shows under another label (pointer fallback). */
const FIELD_LABELS = {
  id: 'ID', name: 'Name', family: 'Family', reference_size: 'Reference size', width: 'Width', height: 'Height',
  insets: 'Insets', top: 'Top', left: 'Left', bottom: 'Bottom', right: 'Right',
  interitem_spacing: 'Item spacing', line_spacing: 'Line spacing', columns: 'Columns', aspect_ratio: 'Aspect ratio',
  item_limit: 'Item limit', rules: 'Rules', data: 'Data', source: 'Data source', type: 'Type', target: 'Tapping an item opens',
  header: 'Header', visible: 'Show', style: 'Header style', title: 'Title', navigation_type: 'Type', home: 'Home screen',
  parent: 'Parent screen', styles: 'Styles', assets: 'Assets', hooks: 'Hooks', preload_plugins: 'Preload plugins',
  postload_plugins: 'Postload plugins', weight: 'Weight', screen_id: 'Screen', presentation: 'Presentation',
  content: 'Content', fixed: null,
};
const LIST_LABELS = { cell_styles: 'Cell style', ui_components: 'Component', navigations: 'Navigation', nav_items: 'Item', children: 'Node', preload_plugins: 'Preload plugin', postload_plugins: 'Postload plugin', '~entry': 'Entry' };

const PAIR_LABELS = {
  'data/type': 'Source type', 'data/source': 'Data source', 'data/target': 'Tapping an item opens',
  'rules/item_limit': 'Item limit', 'header/style': 'Header style', 'header/visible': 'Show header',
  'reference_size/width': 'Reference width', 'reference_size/height': 'Reference height',
};

/** A pointer in the form's words, without the page: "/ui_components/1/rules/item_limit" →
 *  "Component 2 › Item limit" (what a problem no field took is named by). */
export function pointerLabel(pointer) {
  const parts = String(pointer || '').split('/').filter((p, i) => i > 0 || p !== '').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const words = [];
  for (let i = 0; i < parts.length; i += 1) {
    const list = LIST_LABELS[parts[i]];
    if (list && /^\d+$/.test(parts[i + 1] || '')) { words.push(`${list} ${Number(parts[i + 1]) + 1}`); i += 1; continue; }
    const pair = PAIR_LABELS[`${parts[i]}/${parts[i + 1]}`];
    if (pair) { words.push(pair); i += 1; continue; }
    // A place in a list the form shows as one field (a component's cell styles): "the 2nd".
    if (/^\d+$/.test(parts[i])) { words.push(`the ${ordinal(Number(parts[i]) + 1)}`); continue; }
    const known = Object.prototype.hasOwnProperty.call(FIELD_LABELS, parts[i]) ? FIELD_LABELS[parts[i]] : undefined;
    if (known === null) continue;
    const word = known || parts[i].replace(/_/g, ' ');
    words.push(words.length ? word : word.charAt(0).toUpperCase() + word.slice(1));
  }
  return words.filter(Boolean).join(' › ');
}

function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] || 'th');
  return `${n}${suffix}`;
}

function clean(text) { return String(text || '').replace(/\s+/g, ' ').replace(/\s*[:*]\s*$/, '').trim(); }

/** The label a form shows for an element: its own data-label, its <label>, its aria-label, or a group's legend. */
function ownLabel(el) {
  if (el.dataset.label) return el.dataset.label;
  if (el.matches(CONTROLS)) {
    const label = [...(el.labels || [])].map((l) => clean(l.textContent)).find(Boolean);
    if (label) return label;
    if (el.getAttribute('aria-label')) return clean(el.getAttribute('aria-label'));
    const mini = el.closest('.field')?.querySelector('.mini-label');
    return mini ? clean(mini.textContent) : '';
  }
  const legend = el.querySelector(':scope > legend, :scope > h2, :scope > h3');
  if (legend) return clean(legend.textContent);
  return clean(el.getAttribute('aria-label'));
}

/**
 * The words on screen for a pointer in `root`: the contexts around its field (a component, a cell
 * style, a navigation item: their `data-label`), then the field's own label, then in words what
 * lies below it: "Component 2 (Grid) › Item limit". Pointers no field takes read as pointerLabel.
 */
export function labelOf(root, pointer) {
  const target = root ? findTarget(root, pointer) : null;
  if (!target || (target.el.dataset.pointer === '' && pointer)) return pointerLabel(pointer);
  const { el, rest } = target;
  const contexts = [];
  for (let node = el.parentElement; node && node !== root.parentElement; node = node.parentElement) {
    if (node.dataset?.label && node.dataset.pointer !== undefined) contexts.unshift(node.dataset.label);
  }
  const leaf = ownLabel(el);
  const parts = [...contexts];
  if (leaf && !(parts.length && (leaf === parts[parts.length - 1] || leaf.startsWith(parts[parts.length - 1])))) parts.push(leaf);
  else if (leaf && parts.length && leaf.startsWith(parts[parts.length - 1])) parts[parts.length - 1] = leaf;
  const below = rest ? pointerLabel(rest) : '';
  if (below) parts.push(parts.length ? below.charAt(0).toLowerCase() + below.slice(1) : below);
  return parts.join(' › ') || pointerLabel(pointer);
}

/** A message with its label in front, unless it names it already ("Custom source type: …"). */
export function withLabel(label, message) {
  let text = withNames(message);
  if (!label || text.toLowerCase().startsWith(label.toLowerCase())) return text;
  // "Custom source type: …" under "Component 2 (Grid) › Custom source type": said once.
  const leaf = label.split(' › ').pop();
  if (text.toLowerCase().startsWith(`${leaf.toLowerCase()}:`)) text = text.slice(leaf.length + 1).trim();
  return `${label}: ${text}`;
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
    const leaf = ownLabel(el);
    const below = rest ? pointerLabel(rest) : '';
    const label = [leaf, below && leaf ? below.charAt(0).toLowerCase() + below.slice(1) : below].filter(Boolean).join(' › ');
    const message = h('p', { class: 'field-error', id: uid('err'), text: withLabel(label, error.message), 'data-for': pointer });
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
      message.detach = () => { el.removeEventListener('input', clear); el.removeEventListener('change', clear); el.removeAttribute('aria-invalid'); host.classList.remove('has-error'); };
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
      message.detach = () => { el.removeEventListener('input', clear); el.removeEventListener('change', clear); el.classList.remove('has-error'); };
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

/** How many placed messages show in `root` now. */
function showing(root) { return root.querySelectorAll('.field-error[data-for]').length; }

/**
 * A summary of every error, each a link to its field named by its label on screen, shown in
 * `container` (role=alert). As fields are fixed their lines go; it says "Everything listed is
 * fixed" only when no message shows at any field.
 */
export function showErrorSummary(container, root, errors, { prefix = '', title } = {}) {
  const heading = h('h3', { text: title || (errors.length === 1 ? 'The server refused this: 1 problem' : `The server refused this: ${errors.length} problems`) });
  // In the order of the form (top to bottom); what no field takes, last.
  const placed = errors.map((e, i) => {
    let pointer = e.pointer || '';
    if (prefix && pointer.startsWith(prefix)) pointer = pointer.slice(prefix.length);
    const target = pointer ? findTarget(root, pointer) : null;
    return { e, i, pointer, el: target && target.el.dataset.pointer !== '' ? target.el : null };
  }).sort((a, b) => {
    if (a.el && b.el && a.el !== b.el) return a.el.compareDocumentPosition(b.el) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
    if (a.el && !b.el) return -1;
    if (!a.el && b.el) return 1;
    return a.i - b.i;
  });
  const items = placed.map(({ e, pointer }) => {
    const label = pointer ? labelOf(root, pointer) : 'The whole form';
    const said = withLabel(label, e.message);
    const rest = said.startsWith(label) ? said.slice(label.length) : `: ${said}`;
    return h('li', { 'data-pointer-target': pointer }, h('a', {
      href: '#', onclick: (ev) => { ev.preventDefault(); focusPointer(root, pointer); },
    }, label), rest);
  });
  const list = h('ul', {}, items);
  const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1' }, heading, list);
  container.querySelectorAll('.error-summary').forEach((el) => el.remove());
  container.append(summary);
  if (!errors.length) {
    summary.classList.add('settled');
    heading.textContent = 'Everything listed is fixed: save again.';
  }
  // As each field is fixed, its line goes; the heading counts what is left.
  const onFixed = (event) => {
    if (!summary.isConnected) { root.removeEventListener('rivers:field-fixed', onFixed); return; }
    const pointer = event.detail?.pointer ?? '';
    for (const li of [...list.children]) {
      const target = li.dataset.pointerTarget;
      const still = root.querySelector(`.field-error[data-for="${CSS.escape(target)}"]`);
      if (!still && (target === pointer || (pointer && target.startsWith(`${pointer}/`)))) li.remove();
    }
    const left = Math.max(list.children.length, showing(root));
    summary.classList.toggle('settled', left === 0);
    heading.textContent = left
      ? `${left} thing${left === 1 ? '' : 's'} left to fix`
      : 'Everything listed is fixed: save again.';
  };
  root.addEventListener('rivers:field-fixed', onFixed);
  return summary;
}
