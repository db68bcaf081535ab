// Layouts: templates of components that new screens start from. Made with "Save as layout" in a
// screen; here they are listed (with a small preview), edited (name, family, components),
// deleted, and used to start new screens.
import { api, state, subscribe, find, refresh, putItem, gate, can, roleNote } from '../state.js';
import { h, field, select, clone, focusKeyOf, restoreFocus, trackStickyBar, stableStringify } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info } from '../notify.js';
import { ResourceEditor, conflictBanner, keptChangesBanner, mergedBanner, readOnlyBanner, editableArea, followLive } from '../editing.js';
import { DraftHistory, activeField, undoButtons } from '../history.js';
import { focusPointer } from '../field-errors.js';
import { saveDraft, deleteRecord, recheckProblems, forgetProblems } from '../save-flow.js';
import { checkAgainst, mergeProblems } from '../contract.js';
import { navigate } from '../router.js';
import { ComponentList, typeName } from './components.js';
import { pluginFieldProblems } from '../plugins.js';
import { sourceTypeProblems } from '../component-rules.js';
import { PreviewPanel } from './preview.js';
import { layoutSketch } from '../layout-sketch.js';

export async function mount(root, params) {
  if (params.id) return mountEditor(root, params.id);
  const list = h('div', { class: 'layout-list' });
  let shown = null;
  const render = () => {
    // Draw again only when something changed (a refresh that finds the same list leaves it be).
    const key = stableStringify([state.layouts, state.families.map((f) => [f.id, f.name])]);
    if (key === shown) return;
    shown = key;
    list.replaceChildren(...(state.layouts.length ? state.layouts.map(card) : [
    h('p', { class: 'empty' }, 'No layouts yet. Open a screen and use ', h('strong', { text: 'Save as layout' }), ' to keep its components as a template.'),
    ]));
  };
  render();
  const unsubscribe = subscribe((kind) => { if (kind === 'layouts' || kind === 'families') render(); });
  root.append(h('div', { class: 'pane-body' },
    h('h1', { text: 'Layouts' }),
    h('p', { class: 'lede', text: 'A layout is a set of components with a family. Start new screens from one; each screen gets its own copy.' }),
    roleNote('editor'),
    list));
  refresh('layouts').catch((error) => showError(error, 'Loading layouts'));
  return { title: 'Layouts', unmount: unsubscribe };
}

function card(layout) {
  const family = find.family(layout.family);
  const headingId = `layout-${layout.id}`;
  // A sketch of the screen it starts (device frame, soft blocks), named for screen readers.
  const thumb = layoutSketch(layout);
  return h('article', { class: 'layout-card', 'aria-labelledby': headingId, 'data-layout-id': layout.id },
    thumb,
    h('div', { class: 'layout-info' },
      h('h2', { id: headingId }, h('a', { href: `#/layouts/${encodeURIComponent(layout.id)}`, text: layout.name })),
      h('p', { class: 'hint' }, `Family ${family ? family.name : layout.family} · ${layout.ui_components.length} component${layout.ui_components.length === 1 ? '' : 's'}`),
      h('ol', { class: 'layout-components' }, layout.ui_components.map((c) => h('li', {},
        typeName(c.component_type),
        c.cell_styles?.length ? h('span', { class: 'muted', text: ` · ${c.cell_styles.join(', ')}` }) : null))),
      h('div', { class: 'card-actions' },
        gate(h('a', { class: 'button primary', href: `#/screens?layout=${encodeURIComponent(layout.id)}`, 'aria-label': `New screen from layout ${layout.name}`, text: 'New screen from it' }), 'editor', { note: false }),
        h('a', { class: 'button', href: `#/layouts/${encodeURIComponent(layout.id)}`, 'aria-label': `${can('editor') ? 'Edit' : 'Open'} layout ${layout.name}`, text: can('editor') ? 'Edit' : 'Open' }),
        gate(h('button', { type: 'button', class: 'button danger', 'aria-label': `Delete layout ${layout.name}`, text: 'Delete', onclick: () => remove(layout) }), 'editor', { note: false }))));
}

function remove(layout, etag) {
  return deleteRecord({
    confirm: () => confirmDialog({ title: `Delete layout “${layout.name}”?`, text: 'Screens made from it keep their components.', confirm: 'Delete layout', danger: true }),
    remove: () => api.remove('layouts', layout.id, etag || `"${layout.revision}"`),
    context: 'Deleting the layout',
    failed: () => refresh('layouts').catch((e) => showError(e, 'Reloading the layouts')),
    done: async () => {
      info(`Layout “${layout.name}” deleted.`);
      await refresh('layouts').catch((error) => showError(error, 'Loading layouts'));
    },
  });
}

// Editing one layout ------------------------------------------------------------------------------

async function mountEditor(root, id) {
  const editor = new ResourceEditor({ kind: 'layouts', noun: 'layout', labels: { ui_components: 'components' } });
  try {
    const { data, etag } = await api.get('layouts', id);
    editor.load(data, etag);
  } catch (error) {
    showError(error, 'Opening the layout');
    root.append(h('div', { class: 'pane-body' }, h('p', { class: 'empty', text: 'This layout could not be opened.' }), h('a', { href: '#/layouts', text: 'Back to layouts' })));
    return { title: 'Layout' };
  }
  editor.keepLocally(id);
  const view = new LayoutEditor(root, editor);
  view.render();
  view.preview.load();
  // What someone else saves shows here within a second (merged into unsaved edits).
  const unfollow = editor.isNew ? () => {} : followLive(editor, {
    reloaded: (_, change) => {
      view.history.reset();
      view.render();
      view.preview.refresh.flush();
      info(`${change.actor || 'Someone'} saved this layout: their version is shown (revision ${editor.revision}).`);
    },
    merged: (_, change) => {
      view.history.reset();
      view.render();
      view.preview.refresh.flush();
      info(`${change.actor || 'Someone'} saved this layout: their changes are merged into your unsaved edits.`);
    },
  });
  return {
    get title() { return `Layout ${editor.draft.name}`; },
    isDirty: () => editor.dirty,
    save: () => view.save(),
    discard: () => { editor.draft = clone(editor.base); editor.forgetLocal(); },
    unmount: () => { unfollow(); view.destroy(); },
  };
}

class LayoutEditor {
  constructor(root, editor) {
    this.root = root;
    this.editor = editor;
    this.components = new ComponentList({ getScreen: () => this.screenView(), onChange: (change) => this.edited(change) });
    this.history = new DraftHistory({
      get: () => this.editor.draft,
      set: (draft) => { this.editor.draft = draft; this.render(); this.editor.persist(); },
      onChange: () => this.undoUi?.update(),
    });
    this.preview = new PreviewPanel({
      getScreen: () => ({ name: this.editor.draft.name || 'Layout', family: this.editor.draft.family, ui_components: this.editor.draft.ui_components }),
      onPickComponent: (i) => this.components.focusComponent(i),
      onFocusPointer: (pointer) => { this.components.unfoldFor(pointer); focusPointer(this.root, pointer); },
      // Not asked for when the editor knows it would be refused (the same rules as Save).
      check: () => mergeProblems(sourceTypeProblems(this.editor.draft.ui_components),
        checkAgainst('PreviewScreen', { family: this.editor.draft.family, ui_components: this.editor.draft.ui_components })),
      onMoveComponent: (from, to) => this.components.move(from, to),
      canMove: () => can('editor'),
    });
    this.onKey = (event) => {
      if (document.querySelector('dialog[open]')) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') { event.preventDefault(); this.save(); return; }
      this.history.handleKey(event);
    };
    document.addEventListener('keydown', this.onKey);
  }

  /** The components editor reads a screen; a layout is a root screen without id or home. */
  screenView() {
    const d = this.editor.draft;
    d.ui_components ??= [];
    return d;
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    forgetProblems(this.editor);
    this.preview.destroy();
    this.widthObserver?.disconnect();
  }

  /** The Save bar stops where the form and its preview stop (the grid is capped; see app.css). */
  fitToolbar(toolbar, grid) {
    this.widthObserver?.disconnect();
    this.widthObserver = new ResizeObserver(() => {
      toolbar.style.maxWidth = `calc(${Math.ceil(grid.getBoundingClientRect().width)}px + 2.5rem)`;
    });
    this.widthObserver.observe(grid);
  }

  /** After an edit: what changed() does, the copy kept in the browser, and an undo step. */
  edited(change) {
    this.changed();
    this.editor.persist();
    const field = change?.label ? { label: change.label, key: null } : activeField();
    this.history.record(field.label, field.key);
    if (change?.removed) info(`${change.removed} removed.`, { action: { label: 'Undo', run: () => this.history.undo() } });
  }

  changed() {
    const dirty = this.editor.dirty;
    this.status.textContent = dirty ? 'Unsaved changes' : `Saved · revision ${this.editor.revision}`;
    this.status.classList.toggle('dirty', dirty);
    this.preview.refresh();
    recheckProblems(this.editor);
  }

  render() {
    const focus = focusKeyOf(this.root);
    const d = this.editor.draft;
    const name = h('input', { type: 'text', id: 'layout-name', 'data-focus-key': 'name', value: d.name ?? '' });
    name.addEventListener('input', () => { d.name = name.value; this.edited(); });
    const familyOptions = state.families.map((f) => ({ value: f.id, text: `${f.name} (${f.id})` }));
    if (!find.family(d.family)) familyOptions.unshift({ value: d.family || '', text: `${d.family || '(none)'} — not in this app` });
    const family = select(familyOptions, d.family, { id: 'layout-family', 'data-focus-key': 'family' });
    family.addEventListener('change', () => { d.family = family.value; this.components.render(); this.edited(); });

    this.status = h('p', { class: 'save-status', id: 'save-status', role: 'status', 'aria-live': 'polite' });
    this.saveButton = h('button', { type: 'submit', class: 'button primary', 'data-focus-key': 'save', text: 'Save layout' });
    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.components.render();
    this.undoUi = undoButtons(this.history, h);
    const toolbar = h('div', { class: 'toolbar' },
      h('div', { class: 'toolbar-title' }, h('a', { href: '#/layouts', text: 'Layouts' }), ' › ', h('h1', { id: 'layout-heading', text: `Layout: ${d.name}` })),
      h('div', { class: 'toolbar-actions' },
        this.status,
        can('editor') ? this.undoUi.el : null,
        gate(h('a', { class: 'button', href: `#/screens?layout=${encodeURIComponent(d.id)}`, text: 'New screen from it' }), 'editor', { note: false }),
        gate(h('button', {
          type: 'button', class: 'button danger', text: 'Delete',
          onclick: async () => { if (await remove(this.editor.record, this.editor.etag)) { this.editor.draft = clone(this.editor.base); navigate('/layouts'); } },
        }), 'editor', { note: false }),
        gate(this.saveButton, 'editor')));
    const form = h('form', { class: 'resource-form', novalidate: true, 'aria-labelledby': 'layout-heading', onsubmit: (e) => { e.preventDefault(); this.save(); } },
      toolbar,
      readOnlyBanner(),
      conflictBanner(this.editor, {
        onReload: () => { this.editor.acceptTheirs(); this.history.reset(); this.render(); this.preview.refresh.flush(); info('Reloaded their version.'); },
        onOverwrite: () => this.save({ overwrite: true }),
      }),
      mergedBanner(this.editor, { onDismiss: () => this.render() }),
      keptChangesBanner(this.editor, {
        history: this.history, redraw: () => { this.render(); this.editor.persist(); }, render: () => this.render(),
      }),
      h('div', { class: 'editor-grid' },
        h('div', { class: 'editor-main' },
          this.errorsHost,
          editableArea(
            h('fieldset', { class: 'group' }, h('legend', { text: 'Layout' }),
              h('div', { class: 'row' }, field('Name', name, { pointer: '/name', className: 'grow' }), field('Family', family, { pointer: '/family' }))),
            this.components.el)),
        this.preview.el));
    this.root.replaceChildren(h('div', { class: 'pane-body wide layout-editor' }, form));
    trackStickyBar(toolbar);
    this.fitToolbar(toolbar, form.querySelector('.editor-grid'));
    this.changed();
    restoreFocus(this.root, focus);
  }

  save({ overwrite = false } = {}) {
    return saveDraft(this.editor, {
      root: () => this.root,
      errorsHost: () => this.errorsHost,
      button: () => this.saveButton,
      context: 'Saving the layout',
      overwrite,
      reveal: (errors) => this.components.unfoldAllWithErrors(errors),
      check: () => mergeProblems([
        ...(String(this.editor.draft.name ?? '').trim() ? [] : [{ pointer: '/name', message: 'give the layout a name' }]),
        ...sourceTypeProblems(this.editor.draft.ui_components),
        ...pluginFieldProblems(this.root),
      ], checkAgainst('Layout', this.editor.draft)),
      saved: (record, { merged }) => {
        putItem('layouts', record);
        if (merged) this.history.reset();
        this.render();
        restoreFocus(this.root, 'save');
        info(`Layout “${record.name}” saved.`);
        this.preview.refresh.flush();
      },
      reloaded: (record) => {
        putItem('layouts', record);
        this.history.reset();
        this.render();
        info('Reloaded their version; your changes were dropped.');
        this.preview.refresh.flush();
      },
      kept: () => { this.render(); this.preview.refresh.flush(); },
    });
  }
}
