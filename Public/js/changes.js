// What changed, in the words of the editor: between two published documents (a version and
// another, or the live version and the draft a publish would send), and between two copies of one
// screen, family or layout (the conflict dialog). Screens and components are matched by id with the
// server's rules (RiversCore DocumentDiff.swift): components at every depth, `position` and
// `ui_components` left out of a component's own changes, a component `moved` when its parent or
// its index differs. Unlike the server's diff, every changed field says what it was and what it is.
import { h, stableStringify } from './dom.js';
import { state } from './state.js';
import { typeName } from './views/components.js';

const same = (a, b) => stableStringify(a) === stableStringify(b);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Field names as people read them, by path (document and API shapes alike). */
const LABELS = {
  name: 'name', home: 'home screen', family: 'family', 'styles.family': 'family',
  'styles.presentation': 'presentation', presentation: 'presentation',
  'data.source': 'data source', 'data.type': 'source type', 'data.target': 'tapping an item opens',
  'data.connected': 'connected', 'data.parent': 'parent screen', parent: 'parent screen', connected: 'connected',
  cell_styles: 'cell styles', 'styles.cell_styles': 'cell styles',
  'header.visible': 'header shown', 'header.style': 'header style',
  'styles.header.visible': 'header shown', 'styles.header.style': 'header style',
  'footer.visible': 'footer shown', 'footer.style': 'footer style',
  'styles.footer.visible': 'footer shown', 'styles.footer.style': 'footer style',
  'rules.item_limit': 'item limit', 'rules.web_page_shows_navigation': 'web page shows navigation',
  home_offline: 'home when offline', supports_offline: 'works offline', screen_type: 'screen type', type: 'screen type',
  'hooks.preload_plugins': 'plugins run before loading', 'hooks.postload_plugins': 'plugins run after loading',
  reference_size: 'reference size', 'reference_size.width': 'reference width', 'reference_size.height': 'reference height',
  interitem_spacing: 'item spacing', line_spacing: 'line spacing', aspect_ratio: 'aspect ratio',
  navigations: 'navigation', nav_items: 'items', ui_components: 'components',
};

/** "styles.cell_styles" → "cell styles"; unknown paths in words ("rules › refresh rate"). */
export function fieldLabel(path) {
  const key = path.join('.');
  if (LABELS[key]) return LABELS[key];
  const last = path.slice(-2).join('.');
  if (path.length > 2 && LABELS[last]) return `${path.slice(0, -2).map(words).join(' › ')} › ${LABELS[last]}`;
  return path.map(words).join(' › ');
}

function words(part) {
  return LABELS[part] || String(part).replace(/_/g, ' ');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A value as people read it: text in quotes, screens by name, lists joined, nothing as "none". */
export function showValue(value, names = new Map()) {
  if (value === undefined || value === null || value === '') return 'none';
  if (typeof value === 'string') {
    if (UUID.test(value)) {
      const name = names.get(value.toLowerCase()) || state.screens.find((s) => s.id === value.toLowerCase())?.name;
      return name ? `screen “${name}”` : 'another screen';
    }
    // The document writes numbers such as item limits as text ("6"): shown as the number.
    if (/^-?\d+(\.\d+)?$/.test(value)) return value;
    return `“${value.length > 80 ? `${value.slice(0, 77)}…` : value}”`;
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    if (!value.length) return 'none';
    if (value.every((v) => !isObject(v) && !Array.isArray(v))) return value.map((v) => showValue(v, names)).join(', ');
    return `${value.length} item${value.length === 1 ? '' : 's'}`;
  }
  const keys = Object.keys(value);
  if (!keys.length) return 'none';
  const text = keys.sort().map((k) => `${words(k)} ${showValue(value[k], names)}`).join(', ');
  return text.length > 90 ? `${text.slice(0, 87)}…` : text;
}

/** What a list entry is called: its name, title or identifier. */
function entryName(item, i) {
  if (!isObject(item)) return `item ${i + 1}`;
  const id = typeof item.id === 'string' && !UUID.test(item.id) ? item.id : '';
  return item.name || item.title || item.identifier || id || `item ${i + 1}`;
}

const hasIds = (list) => list.length > 0 && list.every((x) => isObject(x) && typeof x.id === 'string' && x.id);

/**
 * Every leaf that differs, as [{path, label, before, after}] (sorted by path). Objects are
 * compared key by key; lists of entries with ids are matched by id (an entry added or removed is
 * one change, `added` or `removed`; a new order of those on both sides one, `reordered`); lists of
 * objects of the same length index by index; other lists are one value.
 */
export function fieldChanges(before, after, { ignore = [], path = [] } = {}) {
  const out = [];
  const walk = (a, b, p) => {
    if (same(a, b)) return;
    if (isObject(a) && isObject(b)) {
      for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
        if (p.length === path.length && ignore.includes(key)) continue;
        walk(a[key], b[key], [...p, key]);
      }
      return;
    }
    if (Array.isArray(a) && Array.isArray(b) && (hasIds(a) || hasIds(b)) && [...a, ...b].every((x) => isObject(x) && x.id)) {
      const byId = new Map(a.map((x) => [x.id, x]));
      const newIds = new Set(b.map((x) => x.id));
      // A new order of the entries on both sides is one change of the list.
      const common = (list, other) => list.map((x) => x.id).filter((id) => other.has(id)).join('\n');
      if (common(a, newIds) !== common(b, byId)) out.push({ path: p, label: fieldLabel(p), before: a, after: b, reordered: true });
      b.forEach((x, i) => {
        const old = byId.get(x.id);
        if (!old) out.push({ path: [...p, entryName(x, i)], label: `${fieldLabel(p)}: ${entryName(x, i)}`, before: undefined, after: x, added: true });
        else walk(old, x, [...p, entryName(x, i)]);
      });
      a.forEach((x, i) => {
        if (!newIds.has(x.id)) out.push({ path: [...p, entryName(x, i)], label: `${fieldLabel(p)}: ${entryName(x, i)}`, before: x, after: undefined, removed: true });
      });
      return;
    }
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.some(isObject)) {
      a.forEach((x, i) => walk(x, b[i], [...p, entryName(b[i], i)]));
      return;
    }
    out.push({ path: p, label: fieldLabel(p), before: a, after: b });
  };
  walk(before, after, path);
  return out;
}

/** Every component of a list, depth first, with its place and a name ("List 2 in Group 1"). */
export function flattenComponents(list, parent = '', parentLabel = '') {
  const out = [];
  (Array.isArray(list) ? list : []).forEach((c, index) => {
    const key = typeof c?.id === 'string' ? `id:${c.id}` : `${parent}#${index}`;
    const label = `${typeName(c?.component_type)} ${index + 1}${parentLabel ? ` in ${parentLabel}` : ''}`;
    out.push({ key, value: c, parent, index, label });
    out.push(...flattenComponents(c?.ui_components, `${key}/`, label));
  });
  return out;
}

/**
 * A component's place among its siblings that are on both sides: one that only shifts because
 * another was added or removed before it (or moved into or out of its list) has not moved.
 * `otherParents` maps each key of the other side to its parent there.
 */
function rank(list, otherParents, p) {
  return list.filter((x) => x.parent === p.parent && otherParents.get(x.key) === x.parent && x.index < p.index).length;
}

/**
 * Components added, removed, changed (each field before → after) and moved. The server's rules,
 * but for `moved`: a component moves when its parent changes or its order among the components on
 * both sides does (not when one before it was added or removed).
 */
export function componentChanges(from, to) {
  const old = flattenComponents(from);
  const now = flattenComponents(to);
  const oldByKey = new Map();
  for (const p of old) if (!oldByKey.has(p.key)) oldByKey.set(p.key, p);
  const newKeys = new Set(now.map((p) => p.key));
  const newParents = new Map(now.map((p) => [p.key, p.parent]));
  const oldParents = new Map([...oldByKey].map(([key, p]) => [key, p.parent]));
  const added = [];
  const changed = [];
  const moved = [];
  for (const p of now) {
    const before = oldByKey.get(p.key);
    if (!before) { added.push({ label: p.label, component: p.value }); continue; }
    const fields = fieldChanges(before.value, p.value, { ignore: ['position', 'ui_components', 'id'] });
    if (fields.length) changed.push({ label: p.label, component: p.value, fields });
    if (before.parent !== p.parent || rank(old, newParents, before) !== rank(now, oldParents, p)) moved.push({ label: p.label, from: before.label, component: p.value });
  }
  const removed = old.filter((p) => !newKeys.has(p.key)).map((p) => ({ label: p.label, component: p.value }));
  return { added, removed, changed, moved };
}

const countOf = (c) => c.added.length + c.removed.length + c.changed.length + c.moved.length;

/** Two documents (arrays of screens) compared: {added, removed, changed, unchanged, names}. */
export function documentChanges(from, to) {
  const keyed = (list) => (Array.isArray(list) ? list : []).map((s, i) => [typeof s?.id === 'string' ? `id:${s.id}` : `#${i}`, s]);
  const old = keyed(from);
  const now = keyed(to);
  const oldByKey = new Map(old);
  const newByKey = new Map(now);
  const names = new Map();
  for (const [, s] of [...old, ...now]) if (s?.id && s.name) names.set(String(s.id).toLowerCase(), s.name);
  const added = [];
  const changed = [];
  let unchanged = 0;
  for (const [key, screen] of now) {
    const before = oldByKey.get(key);
    if (!before) { added.push({ id: screen?.id ?? null, name: screen?.name }); continue; }
    if (same(before, screen)) { unchanged += 1; continue; }
    changed.push({
      id: screen?.id ?? null, name: screen?.name, previousName: before.name !== screen.name ? before.name : undefined,
      fields: fieldChanges(before, screen, { ignore: ['ui_components'] }),
      components: componentChanges(before.ui_components, screen.ui_components),
    });
  }
  const removed = old.filter(([key]) => !newByKey.has(key)).map(([, s]) => ({ id: s?.id ?? null, name: s?.name }));
  return { added, removed, changed, unchanged, names };
}

/** One changed field: "item limit: 3 → 6" (or "added …", "removed …", "reordered …"). */
export function fieldLine(f, names) {
  if (f.added) return h('li', { class: 'diff-field' }, h('span', { class: 'diff-added', text: `added ${f.label}` }));
  if (f.removed) return h('li', { class: 'diff-field' }, h('span', { class: 'diff-removed', text: `removed ${f.label}` }));
  if (f.reordered) return h('li', { class: 'diff-field' }, h('span', { class: 'diff-key', text: `reordered ${f.label}` }));
  return h('li', { class: 'diff-field' },
    h('span', { class: 'diff-key', text: f.label }), ': ',
    h('del', { class: 'diff-before', text: showValue(f.before, names) }), ' → ',
    h('ins', { class: 'diff-after', text: showValue(f.after, names) }));
}

/** The same as text, for messages: "item limit: 3 → 6". */
export function fieldText(f, names) {
  if (f.added) return `added ${f.label}`;
  if (f.removed) return `removed ${f.label}`;
  if (f.reordered) return `reordered ${f.label}`;
  return `${f.label}: ${showValue(f.before, names)} → ${showValue(f.after, names)}`;
}

const MAX_LINES = 12;

function limited(items, render) {
  const shown = items.slice(0, MAX_LINES).map(render);
  if (items.length > MAX_LINES) shown.push(h('li', { class: 'muted', text: `and ${items.length - MAX_LINES} more` }));
  return shown;
}

/** A list of component changes, each naming the component by type and position. */
export function componentList(c, names) {
  if (!countOf(c)) return null;
  return h('ul', { class: 'diff-components' },
    limited(c.added, (x) => h('li', { class: 'diff-component' }, h('span', { class: 'diff-added', text: `${x.label} added` }))),
    limited(c.removed, (x) => h('li', { class: 'diff-component' }, h('span', { class: 'diff-removed', text: `${x.label} removed` }))),
    limited(c.moved, (x) => h('li', { class: 'diff-component', text: `${x.label} moved (was ${x.from})` })),
    limited(c.changed, (x) => h('li', { class: 'diff-component' },
      h('strong', { text: x.label }), ' changed:',
      h('ul', {}, limited(x.fields, (f) => fieldLine(f, names))))));
}

/**
 * The changes of `documentChanges` drawn: screens added and removed, and for each changed screen
 * its fields and its components, each with before → after.
 */
export function renderChanges(changes, { id, title, nothing = 'No screen differs.' } = {}) {
  const { added, removed, changed, unchanged, names } = changes;
  const none = !added.length && !removed.length && !changed.length;
  return h('div', { class: 'diff', id },
    title ? h('h3', { text: title }) : null,
    none ? h('p', { text: nothing }) : null,
    added.length ? h('div', {}, h('h4', { text: `Added screens (${added.length})` }),
      h('ul', {}, limited(added, (s) => h('li', {}, h('span', { class: 'diff-added', text: s.name || '(no name)' }))))) : null,
    removed.length ? h('div', {}, h('h4', { text: `Removed screens (${removed.length})` }),
      h('ul', {}, limited(removed, (s) => h('li', {}, h('span', { class: 'diff-removed', text: s.name || '(no name)' }))))) : null,
    changed.length ? h('div', {}, h('h4', { text: `Changed screens (${changed.length})` }),
      h('ul', { class: 'diff-screens' }, changed.map((s) => h('li', { class: 'diff-screen', 'data-screen-id': s.id || '' },
        h('strong', { text: `“${s.name}”` }),
        s.previousName !== undefined ? h('span', { class: 'muted', text: ` (was “${s.previousName}”)` }) : null,
        s.fields.length ? h('ul', { class: 'diff-fields' }, limited(s.fields, (f) => fieldLine(f, names))) : null,
        componentList(s.components, names))))) : null,
    !none && unchanged ? h('p', { class: 'hint', text: `${unchanged} screen${unchanged === 1 ? '' : 's'} unchanged.` }) : null);
}

/** "2 screens changed, 1 added" — for badges and one-line summaries. */
export function summarize(changes) {
  const parts = [];
  const n = (count, word) => `${count} screen${count === 1 ? '' : 's'} ${word}`;
  if (changes.changed.length) parts.push(n(changes.changed.length, 'changed'));
  if (changes.added.length) parts.push(n(changes.added.length, 'added'));
  if (changes.removed.length) parts.push(n(changes.removed.length, 'removed'));
  return parts.join(', ');
}

/**
 * One resource's changes (a screen, layout or family in the API's shape) as lines of text:
 * "name: “Home” → “Start”", "List 2 removed", "Grid 1: item limit: none → 6".
 */
export function changeLines(before, after, { ignore = [] } = {}) {
  const lines = fieldChanges(before || {}, after || {}, { ignore: ['ui_components', 'revision', 'created_at', 'updated_at', ...ignore] })
    .map((f) => fieldText(f));
  const c = componentChanges(before?.ui_components, after?.ui_components);
  lines.push(...c.added.map((x) => `${x.label} added`));
  lines.push(...c.removed.map((x) => `${x.label} removed`));
  lines.push(...c.moved.map((x) => `${x.label} moved (was ${x.from})`));
  for (const x of c.changed) lines.push(...x.fields.map((f) => `${x.label}: ${fieldText(f)}`));
  return lines;
}
