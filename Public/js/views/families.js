// Families: the list, and a form to create or edit one with its cell styles. Each cell style's
// size is recomputed as you type (the server's rule), and the server's `computed` size is shown
// after a save. Every length (insets, spacing, a width or height in points) is scalable or fixed
// (length-field.js); a cell style's content is built in its designer (cell-designer.js), which
// draws the cell as the server lays it out.
import { api, state, subscribe, putItem, dropItem, refresh, gate, roleNote, can } from '../state.js';
import { h, field, select, clone, focusKeyOf, restoreFocus, trackStickyBar } from '../dom.js';
import { cellSize, formatSize, parseRatio, formatRatio, availableWidth, round } from '../family-math.js';
import { lengthField } from '../length-field.js';
import { CellDesigner } from './cell-designer.js';
import { ResourceEditor, conflictBanner, keptChangesBanner, mergedBanner, readOnlyBanner, editableArea, followLive } from '../editing.js';
import { DraftHistory, activeField, undoButtons } from '../history.js';
import { saveDraft, deleteRecord, recheckProblems, forgetProblems } from '../save-flow.js';
import { checkAgainst, mergeProblems } from '../contract.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, announce } from '../notify.js';
import { navigate } from '../router.js';

const NEW_FAMILY = {
  id: '', name: '',
  reference_size: { width: 375, height: 667 },
  insets: { top: 0, left: 0, bottom: 0, right: 0 },
  interitem_spacing: 0, line_spacing: 0,
  cell_styles: [{ id: 'LIST_1', columns: 1, height: 80 }],
};

/** What is sent: no `computed` (the server works it out). */
function toBody(draft) {
  const body = clone(draft);
  for (const style of body.cell_styles || []) delete style.computed;
  return body;
}

function sidebar(selectedId) {
  const list = h('ul', { class: 'nav-list' });
  const render = () => {
    list.replaceChildren(...state.families.map((f) => h('li', {},
      h('a', {
        href: `#/families/${encodeURIComponent(f.id)}`,
        'aria-current': f.id === selectedId ? 'page' : null,
      }, h('span', { class: 'item-title', text: f.name || f.id }), h('span', { class: 'item-meta', text: `${f.id} · ${f.cell_styles.length} cell style${f.cell_styles.length === 1 ? '' : 's'}` })))));
    if (!state.families.length) list.append(h('li', { class: 'empty', text: 'No families yet.' }));
  };
  render();
  const unsubscribe = subscribe((kind) => { if (kind === 'families') render(); });
  const aside = h('aside', { class: 'sidebar', 'aria-labelledby': 'families-heading' },
    h('div', { class: 'sidebar-head' },
      h('h2', { id: 'families-heading', text: 'Families' }),
      gate(h('a', { class: 'button small primary', href: '#/families/new', id: 'new-family-button', text: 'New family' }), 'editor', { note: false })),
    list);
  return { aside, unsubscribe };
}

export async function mount(root, params) {
  const { aside, unsubscribe } = sidebar(params.id);
  const pane = h('section', { class: 'pane', 'aria-label': 'Family' });
  root.append(h('div', { class: 'split' }, aside, pane));

  if (!params.id) {
    pane.append(overview());
    // Made, renamed or deleted by someone: the table follows.
    const off = subscribe((kind) => { if (kind === 'families') pane.replaceChildren(overview()); });
    return { title: 'Families', unmount: () => { unsubscribe(); off(); } };
  }

  const editor = new ResourceEditor({
    kind: 'families', noun: 'family', toBody,
    labels: { cell_styles: 'cell styles', reference_size: 'reference size', interitem_spacing: 'item spacing', line_spacing: 'line spacing' },
  });
  if (params.id === 'new') {
    editor.load(null);
    editor.base = clone(NEW_FAMILY);
    editor.draft = clone(NEW_FAMILY);
  } else {
    try {
      const { data, etag } = await api.get('families', params.id);
      editor.load(data, etag);
    } catch (error) {
      showError(error, `Opening family ${params.id}`);
      pane.append(h('p', { class: 'empty', text: `Family ${params.id} could not be opened.` }));
      return { title: 'Family', unmount: unsubscribe };
    }
  }

  editor.keepLocally(params.id);
  const view = new FamilyForm(pane, editor);
  view.render();
  // What someone else saves shows here within a second (merged into unsaved edits).
  const unfollow = editor.isNew ? () => {} : followLive(editor, {
    reloaded: (_, change) => {
      view.history.reset();
      view.render();
      info(`${change.actor || 'Someone'} saved this family: their version is shown (revision ${editor.revision}).`);
    },
    merged: (_, change) => {
      view.history.reset();
      view.render();
      info(`${change.actor || 'Someone'} saved this family: their changes are merged into your unsaved edits.`);
    },
  });
  return {
    title: params.id === 'new' ? 'New family' : `Family ${params.id}`,
    isDirty: () => editor.dirty,
    save: () => view.save(),
    discard: () => { editor.draft = clone(editor.base); editor.forgetLocal(); },
    unmount: () => { unsubscribe(); unfollow(); view.destroy(); },
  };
}

function overview() {
  const rows = state.families.map((f) => h('tr', {},
    h('th', { scope: 'row' }, h('a', { href: `#/families/${encodeURIComponent(f.id)}`, text: f.name || f.id })),
    h('td', {}, h('code', { text: f.id })),
    h('td', { text: `${f.reference_size.width} × ${f.reference_size.height}` }),
    h('td', { text: f.cell_styles.map((c) => `${c.id} (${formatSize(c.computed)})`).join(', ') || '–' })));
  return h('div', { class: 'pane-body' },
    h('h1', { text: 'Families' }),
    h('p', { class: 'lede', text: 'A family holds the flow-layout rules of its screens: the reference size, insets, spacing and the cell styles components use.' }),
    roleNote('editor'),
    state.families.length
      ? h('table', { class: 'data-table' },
        h('caption', { class: 'visually-hidden', text: 'Families of this app' }),
        h('thead', {}, h('tr', {}, ['Name', 'ID', 'Reference size', 'Cell styles (size)'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, rows))
      : h('p', {}, 'No families yet. ', gate(h('a', { href: '#/families/new', text: 'Create the first family' }), 'editor', { note: false }), ' — screens need one.'));
}

class FamilyForm {
  constructor(pane, editor) {
    this.pane = pane;
    this.editor = editor;
    /** What each cell style's designer keeps between redraws (open, selected node, device), by index. */
    this.designerUi = [];
    this.designers = [];
    /** Heights of `fit` cells at the reference size, as the cell preview laid them out, by index. */
    this.fitHeights = [];
    this.history = new DraftHistory({
      get: () => this.editor.draft,
      set: (draft) => { this.editor.draft = draft; this.render(); this.editor.persist(); },
      onChange: () => this.undoUi?.update(),
    });
    this.onKey = (event) => {
      if (document.querySelector('dialog[open]')) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') { event.preventDefault(); this.save(); return; }
      this.history.handleKey(event);
    };
    document.addEventListener('keydown', this.onKey);
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    forgetProblems(this.editor);
    for (const designer of this.designers) designer.destroy();
  }

  get draft() { return this.editor.draft; }

  /** After every edit: sizes, status, the copy kept in the browser and an undo step. */
  changed(change) {
    this.updateSizes();
    this.updateStatus();
    // Any change may change a cell (insets, spacing, its own size or content): open designers draw
    // again; a closed one's fit height is not known any more.
    for (const designer of this.designers) {
      if (designer.ui.open) designer.refresh(); else this.fitHeights[designer.index] = undefined;
    }
    this.editor.persist();
    const field = change?.label ? { label: change.label, key: null } : activeField();
    this.history?.record(field.label, field.key);
    recheckProblems(this.editor);
  }

  render() {
    const focus = focusKeyOf(this.pane);
    const d = this.draft;
    const isNew = this.editor.isNew;
    const num = (get, set, props = {}) => {
      const input = h('input', { type: 'number', step: 'any', inputmode: 'decimal', value: get() ?? '', ...props });
      input.addEventListener('input', () => {
        set(input.value === '' ? undefined : Number(input.value));
        this.changed();
      });
      return input;
    };
    const length = (label, get, set, { pointer, focusKey, hint }) => lengthField(label, {
      get, set, onChange: (change) => this.changed(change), pointer, focusKey, hint, className: 'narrow',
    });
    const text = (get, set, props = {}) => {
      const input = h('input', { type: 'text', value: get() ?? '', ...props });
      input.addEventListener('input', () => { set(input.value); this.changed(); });
      return input;
    };

    d.reference_size ??= {};
    d.insets ??= {};
    d.cell_styles ??= [];

    this.status = h('p', { class: 'save-status', role: 'status', 'aria-live': 'polite' });
    this.saveButton = h('button', { type: 'submit', class: 'button primary', 'data-focus-key': 'save', text: isNew ? 'Create family' : 'Save family' });
    const toolbar = h('div', { class: 'toolbar' },
      h('h1', { text: isNew ? 'New family' : `Family ${d.name || d.id}` }),
      h('div', { class: 'toolbar-actions' },
        this.status,
        (this.undoUi = undoButtons(this.history, h)) && can('editor') ? this.undoUi.el : null,
        isNew ? null : gate(h('button', { type: 'button', class: 'button danger', text: 'Delete family', onclick: () => this.remove() }), 'editor', { note: false }),
        gate(this.saveButton, 'editor')));

    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    const general = h('fieldset', { class: 'group' },
      h('legend', { text: 'Family' }),
      h('div', { class: 'row' },
        field('ID', text(() => d.id, (v) => { d.id = v.toUpperCase(); }, {
          readonly: !isNew, required: true, pattern: '[A-Z0-9_]+', 'data-focus-key': 'id', autocapitalize: 'characters',
        }), { pointer: '/id', hint: isNew ? 'Upper-case letters, digits and _ (like FAMILY_1); cannot change later.' : 'Cannot change.' }),
        field('Name', text(() => d.name, (v) => { d.name = v; }, { 'data-focus-key': 'name', required: true }), { pointer: '/name' })));

    const sizes = h('fieldset', { class: 'group', 'data-pointer': '/reference_size' },
      h('legend', { text: 'Reference size and spacing (points)' }),
      h('div', { class: 'row' },
        field('Width', num(() => d.reference_size.width, (v) => { d.reference_size.width = v; }, { min: 1, 'data-focus-key': 'rw', 'data-label': 'Reference width' }), { pointer: '/reference_size/width', className: 'narrow' }),
        field('Height', num(() => d.reference_size.height, (v) => { d.reference_size.height = v; }, { min: 1, 'data-focus-key': 'rh', 'data-label': 'Reference height' }), { pointer: '/reference_size/height', className: 'narrow' }),
        length('Item spacing', () => d.interitem_spacing, (v) => { d.interitem_spacing = v; }, { pointer: '/interitem_spacing', focusKey: 'is', hint: 'between cells on a line' }),
        length('Line spacing', () => d.line_spacing, (v) => { d.line_spacing = v; }, { pointer: '/line_spacing', focusKey: 'ls', hint: 'between lines' })),
      h('div', { class: 'row', 'data-pointer': '/insets' },
        ['top', 'left', 'bottom', 'right'].map((side) => length(`Inset ${side}`,
          () => d.insets[side], (v) => { d.insets[side] = v; }, { pointer: `/insets/${side}`, focusKey: `inset-${side}` }))),
      this.availableNote = h('p', { class: 'hint' }),
      h('p', { class: 'hint', text: 'Lengths are scalable: on a device they are multiplied by m (the device\'s size ÷ the reference size). Check “fixed” to keep a length the same on every device.' }));

    this.rows = h('div', { class: 'cell-styles' });
    const styles = h('fieldset', { class: 'group', 'data-pointer': '/cell_styles' },
      h('legend', { text: 'Cell styles' }),
      h('p', { class: 'hint', text: 'Width: a number of columns sharing the line, or points. Height: points, an aspect ratio (width ÷ height, like 1.7778 or 16:9), or fit (as tall as its content). Sizes are at the reference size. Open Content to design what is inside a cell.' }),
      this.rows,
      h('button', { type: 'button', class: 'button', 'data-focus-key': 'add-style', text: 'Add cell style', onclick: () => this.addStyle() }));
    this.renderRows();

    const banner = conflictBanner(this.editor, {
      onReload: () => { this.editor.acceptTheirs(); this.history.reset(); this.render(); info('Reloaded their version.'); },
      onOverwrite: () => this.save({ overwrite: true }),
    });

    const kept = keptChangesBanner(this.editor, {
      history: this.history, redraw: () => { this.render(); this.editor.persist(); }, render: () => this.render(),
    });
    this.form = h('form', { class: 'resource-form', novalidate: true, 'aria-label': isNew ? 'New family' : `Family ${d.id}`, onsubmit: (e) => { e.preventDefault(); this.save(); } },
      toolbar, readOnlyBanner(), banner, kept, mergedBanner(this.editor, { onDismiss: () => this.render() }), this.errorsHost,
      editableArea(general, sizes, styles));
    this.pane.replaceChildren(h('div', { class: 'pane-body family-editor' }, this.form));
    trackStickyBar(toolbar);
    this.updateSizes();
    this.updateStatus();
    recheckProblems(this.editor);
    restoreFocus(this.pane, focus);
  }

  renderRows() {
    const d = this.draft;
    const saved = new Map((this.editor.record?.cell_styles || []).map((c) => [c.id, c.computed]));
    for (const designer of this.designers) designer.destroy();
    this.designers = [];
    this.sizeOutputs = [];
    this.rows.replaceChildren(...d.cell_styles.map((style, i) => {
      const p = `/cell_styles/${i}`;
      const label = `cell style ${i + 1}`;
      const widthMode = 'width' in style ? 'width' : 'columns';
      const heightMode = 'aspect_ratio' in style ? 'aspect_ratio' : (style.height === 'fit' ? 'fit' : 'height');
      const idInput = h('input', { type: 'text', value: style.id ?? '', 'data-focus-key': `cs-${i}-id`, autocapitalize: 'characters', 'aria-label': `ID of ${label}`, 'data-label': 'ID' });
      idInput.addEventListener('input', () => { style.id = idInput.value.toUpperCase(); this.changed(); });

      const widthSelect = select([{ value: 'columns', text: 'Columns' }, { value: 'width', text: 'Points' }], widthMode,
        { 'data-focus-key': `cs-${i}-wm`, 'aria-label': `Width of ${label} by` });
      widthSelect.addEventListener('change', () => {
        const size = cellSize(d, style);
        if (widthSelect.value === 'width') { delete style.columns; style.width = size.error ? undefined : round(size.width); }
        else { delete style.width; style.columns = 1; }
        this.renderRows(); this.changed();
        restoreFocus(this.rows, `cs-${i}-wm`);
      });
      let widthControl;
      if (widthMode === 'columns') {
        widthControl = h('input', {
          type: 'number', step: 1, min: 1, inputmode: 'decimal',
          value: style.columns ?? '', 'data-focus-key': `cs-${i}-wv`, 'aria-label': `Columns of ${label}`,
        });
        widthControl.dataset.pointer = `${p}/columns`;
        widthControl.dataset.label = 'Columns';
        widthControl.addEventListener('input', () => { style.columns = widthControl.value === '' ? undefined : Number(widthControl.value); this.changed(); });
      } else {
        widthControl = lengthField('', {
          get: () => style.width, set: (v) => { style.width = v; }, onChange: (change) => this.changed(change),
          pointer: `${p}/width`, focusKey: `cs-${i}-wv`, ariaLabel: `Width of ${label} in points`, className: 'cs-length',
        });
        widthControl.querySelector('input[data-pointer]').dataset.label = 'Width';
      }

      const heightSelect = select([
        { value: 'height', text: 'Points' }, { value: 'aspect_ratio', text: 'Aspect ratio' }, { value: 'fit', text: 'Fit content' },
      ], heightMode, { 'data-focus-key': `cs-${i}-hm`, 'aria-label': `Height of ${label} by` });
      heightSelect.addEventListener('change', () => {
        const size = cellSize(d, style);
        const height = typeof size.height === 'number' ? size.height : this.fitHeights[i];
        if (heightSelect.value === 'aspect_ratio') {
          delete style.height;
          style.aspect_ratio = size.error || !height ? 1 : Math.round((size.width / height) * 10000) / 10000;
        } else if (heightSelect.value === 'fit') {
          delete style.aspect_ratio;
          style.height = 'fit';
          // Fit is the content's height: the designer opens, to start some content.
          this.designerUi[i] = { ...(this.designerUi[i] || {}), open: true };
        } else {
          delete style.aspect_ratio;
          style.height = size.error || !height ? 80 : round(height);
        }
        this.renderRows(); this.changed();
        restoreFocus(this.rows, `cs-${i}-hm`);
      });
      let heightControl;
      if (heightMode === 'fit') {
        heightControl = h('span', { class: 'cs-fit hint', 'data-pointer': `${p}/height`, 'data-label': 'Height', text: 'as tall as its content' });
      } else if (heightMode === 'height') {
        heightControl = lengthField('', {
          get: () => style.height, set: (v) => { style.height = v; }, onChange: (change) => this.changed(change),
          pointer: `${p}/height`, focusKey: `cs-${i}-hv`, ariaLabel: `Height of ${label} in points`, className: 'cs-length',
        });
        heightControl.querySelector('input[data-pointer]').dataset.label = 'Height';
      } else {
        heightControl = h('input', {
          type: 'text', step: 'any', min: 0, inputmode: 'decimal',
          value: formatRatio(style.aspect_ratio), 'data-focus-key': `cs-${i}-hv`,
          'aria-label': `Aspect ratio of ${label} (width ÷ height)`,
        });
        heightControl.dataset.pointer = `${p}/aspect_ratio`;
        heightControl.dataset.label = 'Aspect ratio';
        heightControl.addEventListener('input', () => {
          const r = parseRatio(heightControl.value);
          style.aspect_ratio = r === null ? undefined : (Number.isNaN(r) ? heightControl.value : Math.round(r * 1e6) / 1e6);
          this.changed();
        });
      }

      const live = h('output', { class: 'size-live', 'data-testid': `size-${i}`, 'aria-label': `Size of ${label}` });
      const savedSize = style.id && saved.get(style.id);
      const server = h('span', { class: 'size-saved', 'data-testid': `saved-size-${i}` },
        savedSize ? `saved: ${formatSize(savedSize)}` : 'not saved yet');
      this.sizeOutputs.push({ style, live, index: i });

      this.designerUi[i] ??= {};
      const designer = new CellDesigner({
        family: () => this.draft, style, index: i, ui: this.designerUi[i],
        onChange: (change) => this.changed(change),
        onCellSize: (size) => { this.fitHeights[i] = size?.height; this.updateSizes(); },
        formRoot: () => this.form,
      });
      this.designers.push(designer);
      return h('div', { class: 'cs-row', role: 'group', 'aria-label': `Cell style ${i + 1}`, 'data-pointer': p, 'data-label': `Cell style ${i + 1}${style.id ? ` (${style.id})` : ''}` },
        h('div', { class: 'cs-fields' },
          h('div', { class: 'field cs-id' }, h('span', { class: 'mini-label', 'aria-hidden': 'true', text: 'ID' }), idInput),
          h('div', { class: 'field cs-dim' }, h('span', { class: 'mini-label', 'aria-hidden': 'true', text: 'Width by' }), h('div', { class: 'pair' }, widthSelect, widthControl)),
          h('div', { class: 'field cs-dim' }, h('span', { class: 'mini-label', 'aria-hidden': 'true', text: 'Height by' }), h('div', { class: 'pair' }, heightSelect, heightControl)),
          h('div', { class: 'cs-size' }, h('span', { class: 'mini-label', 'aria-hidden': 'true', text: 'Size (pt)' }), live, server),
          h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove cell style ${style.id || i + 1}`, title: 'Remove', text: '×', onclick: () => this.removeStyle(i) })),
        designer.el);
    }));
    idInputsPointer(this.rows, d.cell_styles.length);
    // Drawn once in the page (the drawing measures its panel).
    requestAnimationFrame(() => { for (const designer of this.designers) if (designer.el.isConnected) designer.start(); });
  }

  updateSizes() {
    const d = this.draft;
    for (const { style, live, index } of this.sizeOutputs || []) {
      const size = cellSize(d, style);
      // A fit height is the content's: the cell preview's, once it has laid the cell out.
      const fitHeight = this.fitHeights[index];
      live.textContent = size.fit && typeof fitHeight === 'number' ? `${formatSize({ ...size, height: fitHeight })} (fit)` : formatSize(size);
      live.classList.toggle('invalid', Boolean(size.error));
    }
    const available = availableWidth(d);
    if (this.availableNote) {
      this.availableNote.textContent = available === null ? '' : `Cells share ${round(available)} points between the left and right insets.`;
    }
  }

  updateStatus() {
    if (!this.status) return;
    const dirty = this.editor.dirty;
    this.status.textContent = this.editor.isNew ? 'Not created yet' : (dirty ? 'Unsaved changes' : `Saved · revision ${this.editor.revision}`);
    this.status.classList.toggle('dirty', dirty);
  }

  addStyle() {
    const styles = this.draft.cell_styles;
    let n = styles.length + 1;
    while (styles.some((s) => s.id === `STYLE_${n}`)) n += 1;
    styles.push({ id: `STYLE_${n}`, columns: 1, height: 80 });
    this.renderRows();
    this.changed({ label: `add cell style STYLE_${n}` });
    restoreFocus(this.rows, `cs-${styles.length - 1}-id`);
    announce(`Cell style STYLE_${n} added.`);
  }

  removeStyle(i) {
    const [removed] = this.draft.cell_styles.splice(i, 1);
    this.designerUi.splice(i, 1);
    this.fitHeights.splice(i, 1);
    this.renderRows();
    this.changed({ label: `remove cell style ${removed.id || i + 1}` });
    info(`Cell style ${removed.id || i + 1} removed.`, { action: { label: 'Undo', run: () => this.history.undo() } });
    announce(`Cell style ${removed.id || i + 1} removed.`);
    restoreFocus(this.rows, `cs-${Math.min(i, this.draft.cell_styles.length - 1)}-id`) || restoreFocus(this.form, 'add-style');
  }

  save({ overwrite = false } = {}) {
    return saveDraft(this.editor, {
      root: () => this.form,
      errorsHost: () => this.errorsHost,
      button: () => this.saveButton,
      context: this.editor.isNew ? 'Creating the family' : 'Saving the family',
      overwrite,
      check: () => familyProblems(this.draft, this.editor.isNew),
      saved: (record, { wasNew, merged }) => {
        putItem('families', record);
        if (merged) this.history.reset();
        if (wasNew && !state.screens.length) {
          info(`Family ${record.id} created. Next: a screen with it.`, { action: { label: 'New screen', run: () => navigate('/screens') } });
        } else {
          info(wasNew ? `Family ${record.id} created.` : `Family ${record.id} saved.`);
        }
        if (wasNew) { navigate(`/families/${encodeURIComponent(record.id)}`); return; }
        this.render();
        restoreFocus(this.pane, 'save');
      },
      reloaded: (record) => {
        putItem('families', record);
        this.history.reset();
        info('Reloaded their version; your changes were dropped.');
        this.render();
      },
      kept: () => this.render(),
    });
  }

  remove() {
    const d = this.editor.record;
    return deleteRecord({
      // The screens and layouts drawn with it keep it (the server's rule), said before asking.
      inUse: async () => {
        await Promise.all([refresh('screens'), refresh('layouts')]);
        return [...state.screens.map((s) => ({ ...s, kind: 'screen' })), ...state.layouts.map((l) => ({ ...l, kind: 'layout' }))]
          .filter((x) => x.family === d.id)
          .map((x) => ({ kind: x.kind, id: x.id, name: x.name, via: ['family'] }));
      },
      confirm: () => confirmDialog({ title: `Delete family ${d.id}?`, text: 'Screens and layouts that use it keep it from being deleted.', confirm: 'Delete family', danger: true }),
      remove: () => api.remove('families', d.id, this.editor.etag),
      context: 'Deleting the family',
      conflict: () => refresh('families'),
      done: () => {
        dropItem('families', d.id);
        this.editor.draft = clone(this.editor.base);
        this.editor.forgetLocal();
        info(`Family ${d.id} deleted.`);
        navigate('/families');
      },
    });
  }
}

const ID_PATTERN = /^[A-Z0-9_]+$/;

/**
 * What can be told before asking the server, all at once: the form's own rules (in its words),
 * then the contract's (openapi.json: types, limits, patterns), then each cell style's size (the
 * server's rule: it must fit between the insets), then ids used twice.
 */
export function familyProblems(d, isNew) {
  const own = familyOwnProblems(d, isNew);
  const contract = checkAgainst(isNew ? 'FamilyCreate' : 'Family', toBody(d));
  const sizes = (d.cell_styles || []).flatMap((style, i) => cellSize(d, style, `/cell_styles/${i}`).problems || [])
    .filter((p) => p.message !== 'incomplete');
  const seen = new Map();
  const twice = [];
  (d.cell_styles || []).forEach((style, i) => {
    if (!style.id) return;
    if (seen.has(style.id)) twice.push({ pointer: `/cell_styles/${i}/id`, message: `${style.id} is the ID of cell style ${seen.get(style.id) + 1} too: give each its own` });
    else seen.set(style.id, i);
  });
  return mergeProblems(own, contract, sizes, twice);
}

function familyOwnProblems(d, isNew) {
  const problems = [];
  if (isNew && !d.id) problems.push({ pointer: '/id', message: 'give the family an ID, like PHONES (upper-case letters, digits and _)' });
  else if (isNew && !ID_PATTERN.test(d.id)) problems.push({ pointer: '/id', message: 'use only upper-case letters, digits and _ in the ID, like PHONES' });
  if (!String(d.name ?? '').trim()) problems.push({ pointer: '/name', message: 'give the family a name' });
  (d.cell_styles || []).forEach((style, i) => {
    if (!style.id) problems.push({ pointer: `/cell_styles/${i}/id`, message: 'give the cell style an ID, like GRID_1' });
    else if (!ID_PATTERN.test(style.id)) problems.push({ pointer: `/cell_styles/${i}/id`, message: 'use only upper-case letters, digits and _ in the ID, like GRID_1' });
  });
  return problems;
}

/** The id inputs carry their pointer too (errors on /cell_styles/i/id). */
function idInputsPointer(rows, count) {
  const inputs = rows.querySelectorAll('.cs-id input');
  for (let i = 0; i < count && i < inputs.length; i += 1) inputs[i].dataset.pointer = `/cell_styles/${i}/id`;
}
