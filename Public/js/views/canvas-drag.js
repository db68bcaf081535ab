// Editing on the canvas (the preview's drawing): a component's section is selected by a click
// and dragged up or down to reorder the screen's components; the keyboard does the same (with
// the drawing focused: Arrow Up/Down select, Alt+Arrow Up/Down move, Enter edits). The move is
// the components list's own (one undo step, like a move in the form). The placing rules are
// canvas-order.js's.
import { h } from '../dom.js';
import { announce } from '../notify.js';
import { dropSlot, slotToIndex, keyAction } from '../canvas-order.js';

const THRESHOLD = 6; // pixels a press moves before it is a drag

/** The top-level section an element is in (a group's child counts as its group). */
function topSection(target) {
  let g = target?.closest?.('g.section[data-component-index]');
  while (g?.parentElement?.closest('g.section[data-component-index]')) g = g.parentElement.closest('g.section[data-component-index]');
  return g || null;
}

/**
 * @param {HTMLElement} frame the preview's frame (its drawing is replaced on every redraw)
 * @param {{move: (from: number, to: number) => void, pick: (index: number) => void,
 *   canMove: () => boolean, count: () => number, stage: () => HTMLElement}} options
 * @returns {{redrawn: () => void, justDragged: () => boolean, select: (index: number|null) => void, selected: () => number|null}}
 */
export function canvasEditing(frame, { move, pick, canMove, count, stage }) {
  let selected = null;
  let press = null;
  let dragged = false;
  const marker = h('div', { class: 'canvas-drop', hidden: true, 'aria-hidden': 'true' });

  const sectionsOf = (svgEl) => [...svgEl.querySelectorAll(':scope > g.section[data-component-index]')].map((g) => {
    const r = (g.querySelector(':scope > rect.section') || g).getBoundingClientRect();
    return { index: Number(g.dataset.componentIndex), top: r.top, bottom: r.bottom, left: r.left, right: r.right, g };
  });

  const highlight = () => {
    frame.querySelectorAll('g.section.selected').forEach((g) => g.classList.remove('selected'));
    if (selected === null) return;
    frame.querySelectorAll(`.device-content > g.section[data-component-index="${selected}"]`).forEach((g) => g.classList.add('selected'));
  };

  const select = (index) => {
    selected = index;
    highlight();
    frame.dataset.selected = index === null ? '' : String(index);
  };

  const showMarker = (sections, slot) => {
    const host = stage();
    if (!host) return;
    if (!marker.isConnected) host.append(marker);
    const box = host.getBoundingClientRect();
    const sorted = [...sections].sort((a, b) => a.top - b.top);
    const before = sorted.find((s) => s.index === slot);
    const after = sorted.find((s) => s.index === slot - 1);
    const y = before ? before.top : (after ? after.bottom : box.top);
    const ref = before || after || sorted[0];
    if (!ref) return;
    marker.style.top = `${Math.round(y - box.top - 1)}px`;
    marker.style.left = `${Math.round(ref.left - box.left)}px`;
    marker.style.width = `${Math.round(ref.right - ref.left)}px`;
    marker.hidden = false;
  };

  const end = () => {
    if (press?.g) press.g.classList.remove('dragging');
    frame.classList.remove('canvas-dragging');
    marker.hidden = true;
    press = null;
  };

  frame.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || !canMove()) return;
    const g = topSection(event.target);
    const svgEl = g?.closest('svg.device-content');
    if (!g || !svgEl) return;
    press = { g, svg: svgEl, from: Number(g.dataset.componentIndex), x: event.clientX, y: event.clientY, dragging: false, slot: null };
  });
  frame.addEventListener('pointermove', (event) => {
    if (!press) return;
    if (!press.dragging) {
      if (Math.abs(event.clientY - press.y) < THRESHOLD && Math.abs(event.clientX - press.x) < THRESHOLD) return;
      press.dragging = true;
      press.g.classList.add('dragging');
      frame.classList.add('canvas-dragging');
      frame.setPointerCapture?.(event.pointerId);
      select(press.from);
    }
    event.preventDefault();
    const sections = sectionsOf(press.svg);
    press.slot = dropSlot(sections, event.clientY);
    showMarker(sections, press.slot);
  });
  frame.addEventListener('pointerup', () => {
    if (!press) return;
    const { dragging, from, slot } = press;
    end();
    if (!dragging) return;
    dragged = true;
    setTimeout(() => { dragged = false; }, 0);
    const to = slotToIndex(from, slot ?? from);
    if (to === from) { announce('Not moved.'); return; }
    select(to);
    move(from, to);
  });
  frame.addEventListener('pointercancel', end);

  frame.addEventListener('click', (event) => {
    const g = topSection(event.target);
    if (g && !dragged) select(Number(g.dataset.componentIndex));
  });

  frame.addEventListener('keydown', (event) => {
    if (event.target !== frame) return;
    if (event.key === 'Enter' && selected !== null) { event.preventDefault(); pick(selected); return; }
    const action = keyAction(event.key, { alt: event.altKey, selected, count: count() });
    if (!action) return;
    event.preventDefault();
    if (action.edge) { announce(`Already the ${action.edge} component.`); return; }
    if (action.select !== undefined) {
      select(action.select);
      const g = frame.querySelector(`.device-content > g.section[data-component-index="${action.select}"]`);
      g?.scrollIntoView?.({ block: 'nearest' });
      announce(`${g?.dataset.name || `Component ${action.select + 1}`} selected: Alt+Arrow Up or Down moves it, Enter edits it.`);
      return;
    }
    if (!canMove()) return;
    const [from, to] = action.move;
    select(to);
    move(from, to);
  });

  return {
    redrawn: highlight,
    justDragged: () => dragged,
    select,
    selected: () => selected,
  };
}
