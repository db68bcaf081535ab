// Reordering the components of a screen on its preview (the canvas): where a dragged section
// would land, and where a key moves the selected one. No DOM and no state (tested on its own:
// Tests/js/canvas-order.test.mjs); views/canvas-drag.js wires it to the drawing.

/**
 * The slot a drop at `y` lands in: 0 is before the first section, n after the last. `sections`
 * are [{index, top, bottom}] (the drawing's top-level sections, in any order); a drop lands
 * before the first section whose middle is below `y`.
 */
export function dropSlot(sections, y) {
  const sorted = [...sections].sort((a, b) => a.top - b.top || a.index - b.index);
  let slot = 0;
  for (const s of sorted) {
    if (y > (s.top + s.bottom) / 2) slot = s.index + 1;
    else break;
  }
  return slot;
}

/** The index a component at `from` gets when dropped in `slot` (its own removal counted). */
export function slotToIndex(from, slot) {
  return slot > from ? slot - 1 : slot;
}

/** A copy of `list` with the item at `from` moved to `to` (the list itself when nothing moves). */
export function moveItem(list, from, to) {
  if (from === to || from < 0 || from >= list.length || to < 0 || to >= list.length) return list;
  const copy = [...list];
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item);
  return copy;
}

/**
 * What a key does on the canvas with component `selected` of `count`: ArrowUp/ArrowDown (and
 * Home/End) choose another one; with Alt they move the selected one. Answers
 * {select: index} or {move: [from, to]}, {edge: 'first'|'last'} when it cannot go further, or null
 * for a key that is not ours.
 */
export function keyAction(key, { alt = false, selected, count }) {
  if (!count) return null;
  const has = Number.isInteger(selected) && selected >= 0 && selected < count;
  let to;
  if (key === 'ArrowUp') to = has ? selected - 1 : count - 1;
  else if (key === 'ArrowDown') to = has ? selected + 1 : 0;
  else if (key === 'Home') to = 0;
  else if (key === 'End') to = count - 1;
  else return null;
  if (!alt || !has) {
    if (to < 0 || to >= count) return { edge: to < 0 ? 'first' : 'last' };
    return { select: to };
  }
  if (to < 0 || to >= count || to === selected) return { edge: key === 'ArrowUp' || key === 'Home' ? 'first' : 'last' };
  return { move: [selected, to] };
}
