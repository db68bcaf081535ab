// The three-way merge of a conflict: the version the user started from (base), the one someone
// else saved meanwhile (theirs) and the user's draft (mine). What only one side changed is taken
// from that side; what both changed the same way is taken once; only a field both changed
// differently is an overlap, to be decided by the user. Objects merge member by member; lists of
// entries with ids (components, at every depth; cell styles; navigations and their items) merge
// entry by entry (an entry one side removed and the other changed is an overlap), and their order
// is taken from the side that reordered. Other values (text, numbers, lists of text) are one field.
import { stableStringify } from './dom.js';
import { fieldLabel, showValue } from './changes.js';
import { typeName } from './views/components.js';

const same = (a, b) => stableStringify(a) === stableStringify(b);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A list whose entries all carry an id (so entries are matched by id, not by place). */
function keyedList(...lists) {
  const present = lists.filter(Array.isArray);
  if (!present.length || present.length !== lists.filter((l) => l !== undefined && l !== null).length) return false;
  return present.some((l) => l.length) && present.every((l) => l.every((x) => isObject(x) && typeof x.id === 'string' && x.id)
    && new Set(l.map((x) => x.id)).size === l.length);
}

/** What an entry of a list is called: "List 2" for a component, a name or title otherwise. */
function entryName(listKey, entry, index) {
  if (listKey === 'ui_components') return `${typeName(entry?.component_type)} ${index + 1}`;
  const id = typeof entry?.id === 'string' && !UUID.test(entry.id) ? entry.id : '';
  return entry?.name || entry?.title || id || `${listKey.replace(/_/g, ' ')} ${index + 1}`;
}

/**
 * Merges. `choices` maps an overlap's key to 'mine' or 'theirs'; overlaps without a choice are
 * listed in `conflicts` (and take mine in `merged`, which is then not to be saved).
 * @returns {{merged: any, conflicts: Array<{key: string, where: string, field: string, base: any, theirs: any, mine: any, kind: string}>}}
 */
export function merge3(base, theirs, mine, choices = {}) {
  const conflicts = [];
  const merged = mergeValue(base, theirs, mine, { key: '', where: [], field: [], choices, conflicts });
  return { merged, conflicts };
}

function overlap(ctx, kind, base, theirs, mine, { key = ctx.key, field = ctx.field, where = ctx.where } = {}) {
  const choice = ctx.choices[key];
  if (choice === 'theirs') return { value: theirs };
  if (choice === 'mine') return { value: mine };
  ctx.conflicts.push({
    key, kind, base, theirs, mine,
    where: where.join(' in ') || 'this',
    field: field.length ? fieldLabel(field) : '',
  });
  return { value: mine };
}

function mergeValue(base, theirs, mine, ctx) {
  if (same(theirs, mine)) return mine;
  if (same(base, mine)) return theirs;
  if (same(base, theirs)) return mine;
  // Both changed it, differently.
  if (isObject(theirs) && isObject(mine) && (isObject(base) || base === undefined || base === null)) {
    const b = isObject(base) ? base : {};
    const out = {};
    for (const key of new Set([...Object.keys(b), ...Object.keys(theirs), ...Object.keys(mine)])) {
      const value = mergeValue(b[key], theirs[key], mine[key], { ...ctx, key: `${ctx.key}/${key}`, field: [...ctx.field, key] });
      if (value !== undefined) out[key] = value;
    }
    // Keep mine's order of members, then theirs' new ones.
    return out;
  }
  const listKey = ctx.field[ctx.field.length - 1] || '';
  if (Array.isArray(theirs) && Array.isArray(mine) && keyedList(base ?? [], theirs, mine)) {
    return mergeList(Array.isArray(base) ? base : [], theirs, mine, ctx, listKey);
  }
  return overlap(ctx, 'value', base, theirs, mine).value;
}

/** The ids of `list` in order, keeping only those in `keep`. */
const order = (list, keep) => list.map((x) => x.id).filter((id) => keep.has(id));

function mergeList(base, theirs, mine, ctx, listKey) {
  const B = new Map(base.map((x) => [x.id, x]));
  const T = new Map(theirs.map((x) => [x.id, x]));
  const M = new Map(mine.map((x) => [x.id, x]));
  const index = (id) => {
    const inMine = mine.findIndex((x) => x.id === id);
    if (inMine >= 0) return { entry: mine[inMine], i: inMine };
    const inTheirs = theirs.findIndex((x) => x.id === id);
    return inTheirs >= 0 ? { entry: theirs[inTheirs], i: inTheirs } : { entry: B.get(id), i: base.findIndex((x) => x.id === id) };
  };
  const kept = new Map();
  for (const id of new Set([...B.keys(), ...T.keys(), ...M.keys()])) {
    const { entry, i } = index(id);
    const name = entryName(listKey, entry, i);
    const where = listKey === 'ui_components' ? [name, ...ctx.where] : ctx.where;
    const field = listKey === 'ui_components' ? [] : [...ctx.field, name];
    const sub = { ...ctx, key: `${ctx.key}/${id}`, where, field };
    const b = B.get(id); const t = T.get(id); const m = M.get(id);
    if (t && m) { kept.set(id, mergeValue(b, t, m, sub)); continue; }
    if (!b) { kept.set(id, t || m); continue; } // added by one side
    if (!t && !m) continue; // removed by both
    if (!m) {
      // I removed it: gone, unless they changed it meanwhile.
      if (same(b, t)) continue;
      const r = overlap(sub, 'removed-by-me', b, t, undefined, { field: [...field] });
      if (r.value !== undefined) kept.set(id, r.value);
      continue;
    }
    // They removed it: gone, unless I changed it.
    if (same(b, m)) continue;
    const r = overlap(sub, 'removed-by-them', b, undefined, m, { field: [...field] });
    if (r.value !== undefined) kept.set(id, r.value);
  }
  const keep = new Set(kept.keys());
  const common = new Set([...B.keys()].filter((id) => T.has(id) && M.has(id)));
  const baseOrder = order(base, common).join('\n');
  const theirOrder = order(theirs, common).join('\n');
  const myOrder = order(mine, common).join('\n');
  let skeleton;
  let other;
  if (myOrder === baseOrder) { skeleton = theirs; other = mine; } else if (theirOrder === baseOrder || theirOrder === myOrder) { skeleton = mine; other = theirs; } else {
    const r = overlap({ ...ctx, key: `${ctx.key}/order` }, 'order', base.map((x) => x.id), theirs.map((x) => x.id), mine.map((x) => x.id),
      { key: `${ctx.key}/order`, field: [...ctx.field, 'order'] });
    const mineWins = same(r.value, mine.map((x) => x.id));
    skeleton = mineWins ? mine : theirs;
    other = mineWins ? theirs : mine;
  }
  const ids = order(skeleton, keep);
  const placeAfter = (list) => {
    list.forEach((x, i) => {
      if (!keep.has(x.id) || ids.includes(x.id)) return;
      // After the nearest entry before it that is placed already.
      let at = 0;
      for (let j = i - 1; j >= 0; j -= 1) {
        const k = ids.indexOf(list[j].id);
        if (k >= 0) { at = k + 1; break; }
      }
      ids.splice(at, 0, x.id);
    });
  };
  placeAfter(other);
  placeAfter(base);
  return ids.map((id) => kept.get(id));
}

/** An overlap in words: {title: "List 2 › data source", theirs, mine} (what each side has). */
export function describeConflict(c) {
  const title = c.where === 'this' ? (c.field || 'the whole') : `${c.where}${c.field ? ` › ${c.field}` : ''}`;
  if (c.kind === 'removed-by-me') return { title, theirs: 'they changed it', mine: 'you removed it' };
  if (c.kind === 'removed-by-them') return { title, theirs: 'they removed it', mine: 'you changed it' };
  if (c.kind === 'order') {
    // The list is named by its field, "components › order" or "cell styles › order".
    const list = c.field.replace(/ › order$/, '') || 'components';
    return { title: c.where === 'this' ? `the order of the ${list}` : `the order of the ${list} in ${c.where}`, theirs: 'their order', mine: 'your order' };
  }
  return { title, theirs: showValue(c.theirs), mine: showValue(c.mine) };
}
