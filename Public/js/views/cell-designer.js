// The content designer of one cell style (in the family editor): the tree of what is inside a cell
// (docs/cell-content.md), built with controls: start a tree, add a stack, overlay, image, text or
// spacer to a container, move a node up or down, wrap it in a stack, remove it, and edit the
// selected node's members in a form (every length scalable or fixed). Beside it, the cell as the
// server lays it out and draws it (POST …/cell-preview, the UNSAVED family, debounced), at the
// family's reference size or on a chosen device. A JSON view shows the tree and takes edits.
// Everything is part of the family's draft: it is saved with the family, through its save flow.
import { api, state } from '../state.js';
import { h, field, select, debounce, clone, uid } from '../dom.js';
import { lengthField } from '../length-field.js';
import { isFixed } from '../lengths.js';
import { formatRatio, parseRatio, round, cellSize } from '../family-math.js';
import {
  KINDS, KIND_NAMES, AXES, STACK_ALIGNMENTS, DISTRIBUTIONS, ALIGNS, PLACEHOLDERS, ROLES, SIDES, FRAME_KEYS,
  CONTENT_LIMITS, newNode, isContainer, nodeAt, nodePointer, walk, changeKind, describeNode,
} from '../cell-content.js';
import { clearFieldErrors, placeErrors, focusPointer, unescapePointer, withNames, labelOf, withLabel } from '../field-errors.js';
import { checkAgainst, mergeProblems } from '../contract.js';
import { explain, announce } from '../notify.js';

const DELAY = 250;
const DEVICE_KEY = 'rivers.cellDevice';
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const words = (t) => String(t).replace(/_/g, ' ');
const options = (values, defaultText) => [
  ...(defaultText ? [{ value: '', text: defaultText }] : []),
  ...values.map((v) => ({ value: v, text: words(v) })),
];

/** Sets or removes (undefined, '') a member. */
function setMember(object, key, value) {
  if (value === undefined || value === '' || value === null) delete object[key];
  else object[key] = value;
}

/** Sets a member of a member object (frame, offset, padding), dropping the object once empty. */
function setNested(node, outer, key, value) {
  const inner = isObject(node[outer]) ? node[outer] : {};
  setMember(inner, key, value);
  if (Object.keys(inner).length) node[outer] = inner; else delete node[outer];
}

/** What the server is sent: the family as being edited, with what a new family may still lack. */
export function previewFamily(draft) {
  const body = clone(draft);
  for (const style of body.cell_styles || []) delete style.computed;
  for (const key of ['revision', 'created_at', 'updated_at']) delete body[key];
  if (!body.id) body.id = 'PREVIEW';
  if (!String(body.name ?? '').trim()) body.name = 'Preview';
  return body;
}

export class CellDesigner {
  /**
   * @param {{
   *   family: () => object, style: object, index: number,
   *   ui: {open?: boolean, selected?: number[], device?: string, json?: boolean},
   *   onChange: (change?: {label: string}) => void, onCellSize: (size: {width, height}|null) => void,
   *   formRoot: () => Element,
   * }} options
   *   style: the cell style in the draft (edited in place); ui: what the view keeps between
   *   redraws (kept by the family form); onChange: after every edit (the form's sizes, undo,
   *   kept draft); onCellSize: the cell's size at the reference size, as the server laid it out.
   */
  constructor({ family, style, index, ui, onChange, onCellSize, formRoot }) {
    this.family = family;
    this.style = style;
    this.index = index;
    this.ui = ui;
    this.ui.selected ??= [];
    this.ui.device ??= sessionStorage.getItem(DEVICE_KEY) || '';
    if (this.ui.device && !state.devices.some((d) => d.id === this.ui.device)) this.ui.device = '';
    this.onChange = onChange;
    this.onCellSize = onCellSize;
    this.formRoot = formRoot;
    this.sequence = 0;
    this.controller = null;
    this.placed = false;
    this.refresh = debounce(() => this.load(), DELAY);
    this.el = this.build();
  }

  get base() { return `/cell_styles/${this.index}/content`; }
  get label() { return this.style.id || `cell style ${this.index + 1}`; }
  key(name) { return `cd-${this.index}-${name}`; }

  destroy() {
    this.refresh.cancel();
    this.controller?.abort();
    this.sequence += 1;
  }

  build() {
    this.summary = h('summary', { class: 'cd-summary', 'data-focus-key': this.key('summary') },
      h('span', { class: 'cd-summary-title', text: 'Content' }),
      h('span', { class: 'cd-summary-meta' }));
    this.updateSummary();
    this.body = h('div', { class: 'cell-designer', role: 'group', 'aria-label': `Content of ${this.label}` });
    const details = h('details', { class: 'cd-details', open: Boolean(this.ui.open), 'data-testid': `content-${this.index}` }, this.summary, this.body);
    this.shownOpen = Boolean(this.ui.open);
    details.addEventListener('toggle', () => {
      // (Also fired once for a designer made open: nothing to do then.)
      if (details.open === this.shownOpen) return;
      this.shownOpen = details.open;
      this.ui.open = details.open;
      if (details.open) { this.renderBody(); this.refresh.flush(); } else this.destroy();
    });
    this.details = details;
    if (this.ui.open) this.renderBody();
    return details;
  }

  /** Starts the drawing once the designer is in the page (it measures its panel). */
  start() {
    if (this.ui.open) this.refresh.flush();
  }

  updateSummary() {
    const meta = this.summary.querySelector('.cd-summary-meta');
    const count = walk(this.style.content).length;
    meta.textContent = this.style.content ? `${describeNode(this.style.content)} · ${count} node${count === 1 ? '' : 's'}` : 'none: an empty cell';
  }

  // The designer ------------------------------------------------------------------------------

  renderBody() {
    const focus = document.activeElement && this.body.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    if (!nodeAt(this.style.content, this.ui.selected)) this.ui.selected = [];
    this.tree = h('div', { class: 'cd-tree-panel' });
    this.nodeForm = h('div', { class: 'cd-node' });
    this.renderTree();
    this.renderNodeForm();
    this.drawing = this.drawing || this.buildDrawing();
    this.body.replaceChildren(
      h('div', { class: 'cd-layout' },
        h('div', { class: 'cd-edit' }, this.tree, this.nodeForm),
        this.drawing),
      this.buildJson());
    if (focus) this.body.querySelector(`[data-focus-key="${CSS.escape(focus)}"]`)?.focus();
  }

  renderTree() {
    const root = this.style.content;
    if (!root) {
      this.tree.replaceChildren(
        h('h4', { text: 'Nodes' }),
        h('p', { class: 'hint', 'data-pointer': this.base, text: 'No content: the cell is drawn as an empty rectangle. Start with:' }),
        h('div', { class: 'cd-add' },
          h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('start-vstack'), text: 'Vertical stack', onclick: () => this.begin({ ...newNode('stack'), axis: 'vertical' }) }),
          h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('start-hstack'), text: 'Horizontal stack', onclick: () => this.begin({ ...newNode('stack'), axis: 'horizontal' }) }),
          ['overlay', 'image', 'text'].map((kind) => h('button', {
            type: 'button', class: 'button small', 'data-focus-key': this.key(`start-${kind}`), text: KIND_NAMES[kind], onclick: () => this.begin(newNode(kind)),
          }))));
      return;
    }
    const nodes = walk(root);
    const selectedKey = this.ui.selected.join('/');
    const list = h('ul', { class: 'cd-tree', 'aria-label': `Nodes of ${this.label}` }, nodes.map(({ node, path, depth }) => {
      const pathKey = path.join('/');
      const selected = pathKey === selectedKey;
      return h('li', { class: ['cd-row', selected && 'selected'], style: `--depth:${depth}`, 'data-pointer': nodePointer(this.base, path) },
        h('button', {
          type: 'button', class: 'cd-pick', 'data-node-path': pathKey, 'data-focus-key': this.key(`node-${pathKey}`),
          'aria-pressed': selected ? 'true' : 'false', text: describeNode(node),
          onclick: () => { this.ui.selected = path; this.renderBody(); this.body.querySelector(`[data-node-path="${pathKey}"]`)?.focus(); },
        }));
    }));
    this.tree.replaceChildren(h('h4', { text: `Nodes (${nodes.length} of at most ${CONTENT_LIMITS.maxNodes})` }), list, this.actions());
  }

  /** What can be done to the selected node: add (into it, or after it), move, wrap, remove. */
  actions() {
    const root = this.style.content;
    const path = this.ui.selected;
    const node = nodeAt(root, path);
    const count = walk(root).length;
    const full = count >= CONTENT_LIMITS.maxNodes;
    const into = isContainer(node);
    const parentPath = path.slice(0, -1);
    const where = into ? `Add to ${KIND_NAMES[node.kind].toLowerCase()}` : (path.length ? `Add after this ${KIND_NAMES[node.kind]?.toLowerCase() || 'node'}` : 'Add');
    const depthOfNew = into ? path.length + 2 : path.length + 1;
    const tooDeep = depthOfNew > CONTENT_LIMITS.maxDepth;
    const canAdd = (into || path.length > 0) && !full && !tooDeep;
    const index = path[path.length - 1];
    const siblings = path.length ? nodeAt(root, parentPath).children : [];
    const add = KINDS.map((kind) => h('button', {
      type: 'button', class: 'button small', 'data-add-kind': kind, 'data-focus-key': this.key(`add-${kind}`),
      text: `+ ${KIND_NAMES[kind]}`, disabled: !canAdd, onclick: () => this.add(kind),
    }));
    let why = '';
    if (full) why = `A tree holds at most ${CONTENT_LIMITS.maxNodes} nodes.`;
    else if (tooDeep) why = `A tree is at most ${CONTENT_LIMITS.maxDepth} levels deep.`;
    else if (!into && !path.length) why = 'Wrap it in a stack to add more beside it.';
    return h('div', { class: 'cd-actions' },
      h('div', { class: 'cd-add', role: 'group', 'aria-label': where }, h('span', { class: 'mini-label', text: where }), add),
      why ? h('p', { class: 'hint', text: why }) : null,
      h('div', { class: 'cd-move', role: 'group', 'aria-label': 'Selected node' },
        h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('up'), text: '↑ Up', 'aria-label': 'Move the selected node up', disabled: !path.length || index === 0, onclick: () => this.move(-1) }),
        h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('down'), text: '↓ Down', 'aria-label': 'Move the selected node down', disabled: !path.length || index >= siblings.length - 1, onclick: () => this.move(1) }),
        h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('wrap'), text: 'Wrap in stack', disabled: full || walk(root).some((n) => n.depth + 2 > CONTENT_LIMITS.maxDepth), onclick: () => this.wrap() }),
        h('button', { type: 'button', class: 'button small danger', 'data-focus-key': this.key('remove'), text: path.length ? 'Remove' : 'Remove all content', onclick: () => this.remove() })));
  }

  // Changes -----------------------------------------------------------------------------------

  /** After a member's edit: the tree's words, the JSON, the form's sizes and undo, the drawing. */
  edited(change) {
    const pathKey = this.ui.selected.join('/');
    const pick = this.tree?.querySelector(`[data-node-path="${pathKey}"]`);
    const node = nodeAt(this.style.content, this.ui.selected);
    if (pick && node) pick.textContent = describeNode(node);
    this.updateSummary();
    this.syncJson();
    this.onChange(change);
  }

  /** After a change of the tree's shape: drawn again, focus kept or moved to `focusKey`. */
  restructure(label, focusKey) {
    this.updateSummary();
    this.renderBody();
    this.onChange({ label });
    if (focusKey) this.body.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`)?.focus();
  }

  begin(node) {
    this.style.content = node;
    this.ui.selected = [];
    this.restructure(`start the content of ${this.label}`, this.key('node-'));
    announce(`${describeNode(node)} added.`);
  }

  add(kind) {
    const root = this.style.content;
    const path = this.ui.selected;
    const node = nodeAt(root, path);
    const fresh = newNode(kind);
    let at;
    if (isContainer(node)) {
      node.children = Array.isArray(node.children) ? node.children : [];
      node.children.push(fresh);
      at = [...path, node.children.length - 1];
    } else {
      const parent = nodeAt(root, path.slice(0, -1));
      const i = path[path.length - 1] + 1;
      parent.children.splice(i, 0, fresh);
      at = [...path.slice(0, -1), i];
    }
    this.ui.selected = at;
    this.restructure(`add ${KIND_NAMES[kind].toLowerCase()}`, this.key(`node-${at.join('/')}`));
    announce(`${KIND_NAMES[kind]} added.`);
  }

  move(step) {
    const path = this.ui.selected;
    const parent = nodeAt(this.style.content, path.slice(0, -1));
    const i = path[path.length - 1];
    const j = i + step;
    if (!parent || j < 0 || j >= parent.children.length) return;
    const [node] = parent.children.splice(i, 1);
    parent.children.splice(j, 0, node);
    this.ui.selected = [...path.slice(0, -1), j];
    this.restructure(`move ${KIND_NAMES[node.kind]?.toLowerCase() || 'node'} ${step < 0 ? 'up' : 'down'}`, this.key(step < 0 ? 'up' : 'down'));
    if (!this.body.contains(document.activeElement) || document.activeElement.disabled) {
      this.body.querySelector(`[data-node-path="${this.ui.selected.join('/')}"]`)?.focus();
    }
    announce(`Moved ${step < 0 ? 'up' : 'down'}: now ${j + 1} of ${parent.children.length}.`);
  }

  wrap() {
    const path = this.ui.selected;
    const node = nodeAt(this.style.content, path);
    const stack = { ...newNode('stack'), children: [node] };
    if (!path.length) this.style.content = stack;
    else nodeAt(this.style.content, path.slice(0, -1)).children[path[path.length - 1]] = stack;
    this.restructure('wrap in a stack', this.key(`node-${path.join('/')}`));
    announce('Wrapped in a vertical stack.');
  }

  remove() {
    const path = this.ui.selected;
    if (!path.length) {
      delete this.style.content;
      this.ui.selected = [];
      this.restructure(`remove the content of ${this.label}`, this.key('start-vstack'));
      announce('Content removed.');
      return;
    }
    const parent = nodeAt(this.style.content, path.slice(0, -1));
    const [gone] = parent.children.splice(path[path.length - 1], 1);
    const i = Math.min(path[path.length - 1], parent.children.length - 1);
    this.ui.selected = i >= 0 ? [...path.slice(0, -1), i] : path.slice(0, -1);
    this.restructure(`remove ${KIND_NAMES[gone?.kind]?.toLowerCase() || 'node'}`, this.key(`node-${this.ui.selected.join('/')}`));
    announce(`${KIND_NAMES[gone?.kind] || 'Node'} removed.`);
  }

  // The selected node's form --------------------------------------------------------------------

  renderNodeForm() {
    const node = nodeAt(this.style.content, this.ui.selected);
    if (!node) { this.nodeForm.replaceChildren(); return; }
    const p = nodePointer(this.base, this.ui.selected);
    const k = (name) => this.key(`${this.ui.selected.join('.')}-${name}`);
    const changed = (change) => this.edited(change);
    const choose = (label, values, value, set, { pointer, key, defaultText } = {}) => {
      const el = select(options(values, defaultText), value ?? '', { 'data-focus-key': k(key) });
      el.addEventListener('change', () => { set(el.value); changed(); });
      return fieldOf(label, el, pointer);
    };
    const len = (label, get, set, pointer, key, extra = {}) => lengthField(label, {
      get, set, onChange: changed, pointer, focusKey: k(key), className: 'narrow', ...extra,
    });

    // The kind, and what belongs to it.
    const kind = select(KINDS.map((v) => ({ value: v, text: KIND_NAMES[v] })), node.kind, { 'data-focus-key': k('kind') });
    kind.addEventListener('change', () => {
      const next = changeKind(node, kind.value);
      if (!this.ui.selected.length) this.style.content = next;
      else nodeAt(this.style.content, this.ui.selected.slice(0, -1)).children[this.ui.selected[this.ui.selected.length - 1]] = next;
      this.restructure(`make it ${KIND_NAMES[kind.value].toLowerCase()}`, k('kind'));
    });
    const own = [fieldOf('Kind', kind, `${p}/kind`)];
    if (node.kind === 'stack') {
      own.push(
        choose('Axis', AXES, node.axis, (v) => setMember(node, 'axis', v), { pointer: `${p}/axis`, key: 'axis' }),
        len('Spacing', () => node.spacing, (v) => setMember(node, 'spacing', v), `${p}/spacing`, 'spacing', { hint: 'between items' }),
        choose('Alignment', STACK_ALIGNMENTS, node.alignment, (v) => setMember(node, 'alignment', v), { pointer: `${p}/alignment`, key: 'alignment', defaultText: '(fill)' }),
        choose('Distribution', DISTRIBUTIONS, node.distribution, (v) => setMember(node, 'distribution', v), { pointer: `${p}/distribution`, key: 'distribution', defaultText: '(fill)' }));
    } else if (node.kind === 'image') {
      const ratio = h('input', { type: 'text', inputmode: 'decimal', value: formatRatio(node.aspect_ratio), placeholder: '16:9', 'data-focus-key': k('ratio') });
      ratio.addEventListener('input', () => {
        const text = ratio.value.trim();
        const r = parseRatio(text);
        // "16:9" is kept as written; a plain number as a number; anything else as typed (the server says why).
        setMember(node, 'aspect_ratio', r === null ? undefined : (/^[\d.]+$/.test(text) && !Number.isNaN(r) ? r : text));
        changed();
      });
      own.push(
        fieldOf('Aspect ratio', ratio, `${p}/aspect_ratio`, 'width ÷ height, like 16:9', 'narrow'),
        choose('Placeholder', PLACEHOLDERS, node.placeholder, (v) => setMember(node, 'placeholder', v), { pointer: `${p}/placeholder`, key: 'placeholder', defaultText: '(image)' }));
    } else if (node.kind === 'text') {
      const lines = h('input', { type: 'number', min: 1, max: CONTENT_LIMITS.maxLines, step: 1, inputmode: 'numeric', value: node.max_lines ?? '', placeholder: '1', 'data-focus-key': k('lines') });
      lines.addEventListener('input', () => { setMember(node, 'max_lines', lines.value === '' ? undefined : Number(lines.value)); changed(); });
      own.push(
        choose('Role', ROLES, node.role, (v) => setMember(node, 'role', v), { pointer: `${p}/role`, key: 'role', defaultText: '(body)' }),
        len('Font size', () => node.font_size, (v) => setMember(node, 'font_size', v), `${p}/font_size`, 'font', { placeholder: '14' }),
        len('Line height', () => node.line_height, (v) => setMember(node, 'line_height', v), `${p}/line_height`, 'line', { placeholder: '1.2 × font' }),
        fieldOf('Max lines', lines, `${p}/max_lines`, null, 'narrow'));
    }

    // Padding: one length for every side, or each side.
    const bySide = isObject(node.padding) && !isFixed(node.padding);
    const sides = h('input', { type: 'checkbox', id: uid('sides'), checked: bySide, 'data-focus-key': k('sides') });
    sides.addEventListener('change', () => {
      // One length for all sides becomes the same length on each side, and back (the top's).
      if (sides.checked && !bySide) node.padding = node.padding === undefined ? {} : Object.fromEntries(SIDES.map((s) => [s, clone(node.padding)]));
      else if (!sides.checked && bySide) setMember(node, 'padding', node.padding.top);
      this.restructure(sides.checked ? 'padding by side' : 'one padding', k('sides'));
    });
    const paddingFields = bySide
      ? SIDES.map((side) => len(words(side)[0].toUpperCase() + side.slice(1), () => node.padding?.[side], (v) => setNested(node, 'padding', side, v), `${p}/padding/${side}`, `pad-${side}`))
      : [len('All sides', () => node.padding, (v) => setMember(node, 'padding', v), `${p}/padding`, 'pad')];
    const padding = h('fieldset', { class: 'mini-group cd-group' },
      h('legend', { text: 'Padding' }),
      h('div', { class: 'row' }, paddingFields,
        h('div', { class: 'field check cd-check' }, sides, h('label', { text: 'Each side', for: sides.id }))));

    const frame = h('fieldset', { class: 'mini-group cd-group' },
      h('legend', { text: 'Frame' }),
      h('div', { class: 'row' }, FRAME_KEYS.map((key) => len(words(key)[0].toUpperCase() + words(key).slice(1), () => node.frame?.[key],
        (v) => setNested(node, 'frame', key, v), `${p}/frame/${key}`, `frame-${key}`, { placeholder: 'auto' }))));

    const position = h('fieldset', { class: 'mini-group cd-group' },
      h('legend', { text: 'Position' }),
      h('div', { class: 'row' },
        choose('Align', ALIGNS, node.align, (v) => setMember(node, 'align', v), { pointer: `${p}/align`, key: 'align', defaultText: this.ui.selected.length ? '(from the parent)' : '(center)' }),
        ['x', 'y'].map((axis) => len(`Offset ${axis}`, () => node.offset?.[axis], (v) => setNested(node, 'offset', axis, v), `${p}/offset/${axis}`, `offset-${axis}`, { min: null }))));

    const title = this.ui.selected.length ? `${KIND_NAMES[node.kind] || 'Node'} (${this.ui.selected.map((i) => i + 1).join('.')})` : `${KIND_NAMES[node.kind] || 'Node'} (the root)`;
    this.nodeForm.replaceChildren(
      h('h4', { text: `Selected: ${title}` }),
      h('div', { class: 'row cd-own' }, own),
      padding, frame, position);
  }

  // The drawing --------------------------------------------------------------------------------

  buildDrawing() {
    const ref = this.family().reference_size || {};
    const device = select([
      { value: '', text: `Reference size (${ref.width ?? '?'} × ${ref.height ?? '?'})` },
      ...state.devices.map((d) => ({ value: d.id, text: d.name })),
    ], this.ui.device, { 'data-focus-key': this.key('device') });
    device.addEventListener('change', () => {
      this.ui.device = device.value;
      sessionStorage.setItem(DEVICE_KEY, device.value);
      this.refresh.flush();
    });
    this.deviceSelect = device;
    this.status = h('p', { class: 'preview-status', role: 'status', 'aria-live': 'polite', text: 'Drawing…' });
    this.canvas = h('div', { class: 'cd-canvas', 'data-testid': `cell-svg-${this.index}`, role: 'img', 'aria-label': `The cell ${this.label} as the server draws it` });
    this.sizeLine = h('p', { class: 'cd-size', 'data-testid': `cell-size-${this.index}` });
    this.warnings = h('div', { class: 'cd-warnings' });
    this.errors = h('div', { class: 'cd-errors', 'data-testid': `cell-errors-${this.index}` });
    return h('div', { class: 'cd-drawing' },
      h('div', { class: 'cd-drawing-head' }, h('h4', { text: 'The cell' }), fieldOf('Device', device, undefined, null, 'inline')),
      this.status, this.errors, this.canvas, this.sizeLine, this.warnings);
  }

  /** Asks the server to lay the cell out and draw it (the family as it is in the form). */
  async load() {
    if (!this.ui.open || !this.drawing) return;
    const mine = ++this.sequence;
    this.controller?.abort();
    this.controller = new AbortController();
    const ref = this.family().reference_size || {};
    const refOption = this.deviceSelect.querySelector('option[value=""]');
    if (refOption) refOption.textContent = `Reference size (${ref.width ?? '?'} × ${ref.height ?? '?'})`;
    if (!this.style.id) {
      this.status.textContent = 'Give the cell style an ID to draw it.';
      return;
    }
    const body = { family: previewFamily(this.family()), cell_style: this.style.id };
    if (this.ui.device) body.device = this.ui.device;
    // A family the server would refuse is not sent: what it needs shows here, in the form's words.
    const known = mergeProblems(checkAgainst('CellPreviewRequest', body),
      (body.family.cell_styles || []).flatMap((s, i) => (cellSize(body.family, s, `/family/cell_styles/${i}`).problems || []).filter((p) => p.message !== 'incomplete')));
    if (known.length) {
      this.controller.abort();
      this.drawing.dataset.state = 'error';
      this.status.textContent = this.canvas.firstChild ? 'The cell waits for the form to be fixed; showing the last drawing that could be made.' : 'The cell waits for the form to be fixed.';
      this.showProblem({ errors: known });
      return;
    }
    this.status.textContent = 'Drawing…';
    this.drawing.setAttribute('aria-busy', 'true');
    try {
      const [svgText, layout] = await Promise.all([
        api.cellPreview(body, 'svg', this.controller.signal),
        api.cellPreview(body, 'json', this.controller.signal),
      ]);
      if (mine !== this.sequence) return;
      this.clearPlaced();
      this.errors.replaceChildren();
      this.draw(svgText);
      this.showLayout(layout);
      this.drawing.dataset.state = 'ok';
      this.status.textContent = 'Live: laid out by the server from the form as it is now, unsaved changes included.';
    } catch (error) {
      if (error.name === 'AbortError' || mine !== this.sequence) return;
      this.drawing.dataset.state = 'error';
      this.status.textContent = this.canvas.firstChild ? 'The cell cannot be drawn; showing the last drawing that could.' : 'The cell cannot be drawn.';
      this.showProblem(error);
    } finally {
      if (mine === this.sequence) this.drawing.removeAttribute('aria-busy');
    }
  }

  draw(text) {
    const doc = new DOMParser().parseFromString(String(text ?? ''), 'image/svg+xml');
    const svgEl = doc.documentElement;
    if (!svgEl || svgEl.nodeName !== 'svg') { this.canvas.replaceChildren(h('p', { class: 'hint', text: 'The server sent no drawing.' })); return; }
    svgEl.querySelectorAll('script, foreignObject').forEach((n) => n.remove());
    for (const attr of [...svgEl.attributes]) if (/^on/i.test(attr.name)) svgEl.removeAttribute(attr.name);
    const box = (svgEl.getAttribute('viewBox') || '').trim().split(/[\s,]+/).map(Number);
    const width = box.length === 4 ? box[2] : Number.parseFloat(svgEl.getAttribute('width'));
    const height = box.length === 4 ? box[3] : Number.parseFloat(svgEl.getAttribute('height'));
    if (box.length !== 4 && width > 0 && height > 0) svgEl.setAttribute('viewBox', `0 0 ${width} ${height}`);
    if (width > 0 && height > 0) {
      // Two pixels a point, or what fits the panel.
      const room = Math.max(120, (this.canvas.clientWidth || 320) - 16);
      const zoom = Math.max(0.25, Math.min(2, room / width));
      svgEl.setAttribute('width', String(round(width * zoom)));
      svgEl.setAttribute('height', String(round(height * zoom)));
      this.canvas.dataset.zoom = String(round(zoom));
    }
    svgEl.classList.add('cd-svg');
    this.canvas.replaceChildren(document.importNode(svgEl, true));
  }

  showLayout(layout) {
    const cell = layout?.cell;
    const device = layout?.device;
    const preset = this.ui.device ? state.devices.find((d) => d.id === this.ui.device) : null;
    const where = this.ui.device
      ? (preset?.name || this.ui.device)
      : `the reference size${device?.width ? ` (${device.width} × ${device.height})` : ''}`;
    const m = typeof layout?.m === 'number' ? ` · m = ${round(layout.m)}` : '';
    const nodes = Array.isArray(layout?.content) ? layout.content.length : 0;
    this.sizeLine.textContent = cell
      ? `Cell ${round(cell.width)} × ${round(cell.height)} pt at ${where}${m} · ${nodes} node${nodes === 1 ? '' : 's'} laid out`
      : '';
    if (!this.ui.device) this.onCellSize(cell || null);
    const warnings = (layout?.warnings || []).map((w) => (typeof w === 'string' ? { message: w } : w));
    this.warnings.replaceChildren(...(warnings.length ? [
      h('h4', { text: `Warnings (${warnings.length})` }),
      h('ul', { class: 'warning-list' }, warnings.map((w) => h('li', {
        text: `${w.pointer ? `${unescapePointer(normal(w.pointer).replace(this.base, 'content'))}: ` : ''}${withNames(w.message)}`,
      }))),
    ] : []));
  }

  clearPlaced() {
    if (!this.placed) return;
    clearFieldErrors(this.body);
    this.placed = false;
  }

  /** A refusal: problems inside this content at their fields, the others beside the drawing. */
  showProblem(error) {
    this.clearPlaced();
    if (error.isMissingRoute) {
      this.errors.replaceChildren(h('p', { class: 'hint', text: 'This server cannot draw cells yet.' }));
      return;
    }
    const problems = (error.errors || []).map((e) => ({ ...e, pointer: normal(e.pointer) }));
    const mine = problems.filter((e) => e.pointer === this.base || e.pointer.startsWith(`${this.base}/`));
    const unplaced = mine.length ? placeErrors(this.body, mine) : [];
    this.placed = mine.length > 0;
    const rest = [...problems.filter((e) => !mine.includes(e)), ...unplaced];
    const items = rest.length
      ? rest.map((e) => h('li', {}, e.pointer
        ? h('button', { type: 'button', class: 'link-button', text: withLabel(labelOf(this.formRoot(), e.pointer), e.message), onclick: () => focusPointer(this.formRoot(), e.pointer) })
        : withNames(e.message)))
      : [];
    if (!problems.length) items.push(h('li', { text: `${explain(error).title}: ${explain(error).detail}` }));
    if (mine.length && !rest.length) {
      this.errors.replaceChildren(h('p', { class: 'field-error', text: `${mine.length === 1 ? 'A node needs' : `${mine.length} things in the nodes need`} fixing: see the fields marked ⚠.` }));
      return;
    }
    this.errors.replaceChildren(h('div', { class: 'error-summary compact', role: 'alert' },
      h('h4', { text: problems.length ? 'The drawing needs:' : 'The drawing failed' }),
      h('ul', {}, items)));
  }

  // The JSON view ------------------------------------------------------------------------------

  buildJson() {
    this.jsonText = h('textarea', {
      class: 'cd-json-text', rows: 10, spellcheck: 'false', 'data-focus-key': this.key('json'),
      'aria-label': `Content of ${this.label} as JSON`,
    });
    this.jsonText.value = this.contentText();
    this.jsonNote = h('p', { class: 'hint', role: 'status', text: 'Edit and leave the box (or press Apply) to use it. Empty: no content.' });
    this.jsonText.addEventListener('blur', () => this.applyJson(false));
    const details = h('details', { class: 'cd-json', open: Boolean(this.ui.json) },
      h('summary', { text: 'JSON' }),
      this.jsonText,
      h('div', { class: 'form-actions' }, h('button', { type: 'button', class: 'button small', 'data-focus-key': this.key('json-apply'), text: 'Apply JSON', onclick: () => this.applyJson(true) })),
      this.jsonNote);
    details.addEventListener('toggle', () => { this.ui.json = details.open; });
    return details;
  }

  contentText() { return this.style.content === undefined ? '' : JSON.stringify(this.style.content, null, 2); }

  syncJson() {
    if (this.jsonText && document.activeElement !== this.jsonText) this.jsonText.value = this.contentText();
  }

  applyJson(asked) {
    const text = this.jsonText.value.trim();
    if (text === this.contentText().trim()) { if (asked) this.jsonNote.textContent = 'Nothing changed.'; return; }
    let value;
    if (text === '') value = undefined;
    else {
      try { value = JSON.parse(text); } catch (error) {
        this.jsonNote.textContent = `Not applied: this is not valid JSON (${error.message}).`;
        this.jsonNote.classList.add('field-error');
        return;
      }
      if (!isObject(value)) {
        this.jsonNote.textContent = 'Not applied: the content is one node, an object like {"kind": "stack", …}.';
        this.jsonNote.classList.add('field-error');
        return;
      }
    }
    this.jsonNote.classList.remove('field-error');
    if (value === undefined) delete this.style.content; else this.style.content = value;
    this.ui.selected = [];
    this.restructure(`edit the content of ${this.label} as JSON`, asked ? this.key('json-apply') : null);
    this.jsonNote.textContent = 'Applied.';
  }
}

/** "/family/cell_styles/0/…" (the cell preview's pointers) → "/cell_styles/0/…" (the form's). */
function normal(pointer) {
  const p = String(pointer ?? '');
  if (p === '/family') return '';
  return p.startsWith('/family/') ? p.slice('/family'.length) : p;
}

/** A labelled control (dom.js field) with its pointer. */
function fieldOf(label, control, pointer, hint, className) {
  return field(label, control, { pointer, hint: hint || undefined, className });
}
