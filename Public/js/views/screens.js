// Screens: the tree of screens (home marked; root, connected and plugin screens told apart), a
// form to create one (blank, from a layout, or connected under a parent), and the screen editor
// (form, components, live preview).
import { api, state, subscribe, find, refresh, screenKind, gate, isGated, can } from '../state.js';
import { h, field, select, clone, stableStringify, focusKeyOf, restoreFocus, trackStickyBar } from '../dom.js';
import { ResourceEditor, conflictBanner, keptChangesBanner, mergedBanner, readOnlyBanner, editableArea, followLive } from '../editing.js';
import { DraftHistory, activeField, undoButtons } from '../history.js';
import { clearFieldErrors, placeErrors, focusPointer, showErrorSummary } from '../field-errors.js';
import { saveDraft, deleteRecord, showRequestError, showFieldProblems, recheckProblems, forgetProblems } from '../save-flow.js';
import { checkAgainst, mergeProblems } from '../contract.js';
import { confirmDialog, formDialog } from '../dialogs.js';
import { showError, info } from '../notify.js';
import { navigate, splitHash } from '../router.js';
import { ComponentList } from './components.js';
import { NavigationEditor, HooksEditor, pluginLoader } from './navigation.js';
import { PreviewPanel } from './preview.js';
import { layoutSketch } from '../layout-sketch.js';
import { pluginSettings, pluginFieldProblems } from '../plugins.js';
import { loadLive, screenState, liveName } from '../live.js';
import { webAddressProblem } from '../web-address.js';
import { sourceTypeProblems } from '../component-rules.js';
import { onLive } from '../together.js';

const KIND_LABEL = { root: 'Root', connected: 'Connected', plugin: 'Plugin' };

export function kindBadge(screen) {
  const kind = screenKind(screen);
  return h('span', { class: `badge kind-${kind}`, title: kind === 'plugin' ? `Screen plugin ${screen.type}` : `${KIND_LABEL[kind]} screen`, text: kind === 'plugin' ? `Plugin · ${screen.type}` : KIND_LABEL[kind] });
}

export function homeBadge(screen) {
  return screen.home ? h('span', { class: 'badge home', title: 'Home screen', text: '★ Home' }) : null;
}

/** Screens as a tree: children (connected screens) under their parents. */
function screenTree(selectedId) {
  const byParent = new Map();
  const ids = new Set(state.screens.map((s) => s.id));
  for (const s of state.screens) {
    const parent = s.parent && ids.has(s.parent) ? s.parent : null;
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(s);
  }
  const seen = new Set();
  const branch = (parent) => {
    const children = (byParent.get(parent) || []).filter((s) => !seen.has(s.id));
    if (!children.length) return null;
    return h('ul', { class: parent ? 'nav-list nested' : 'nav-list' }, children.map((s) => {
      seen.add(s.id);
      return h('li', { 'data-screen-id': s.id },
        h('a', { href: `#/screens/${s.id}`, 'aria-current': s.id === selectedId ? 'page' : null },
          h('span', { class: 'item-title', text: s.name }),
          h('span', { class: 'item-meta' }, homeBadge(s), kindBadge(s), h('span', { text: `${(s.ui_components || []).length} comp.` }))),
        branch(s.id));
    }));
  };
  return branch(null) || h('p', { class: 'empty', text: 'No screens yet.' });
}

function sidebar(selectedId) {
  const body = h('nav', { 'aria-label': 'Screens of the app' });
  const render = () => body.replaceChildren(screenTree(selectedId));
  render();
  const unsubscribe = subscribe((kind) => { if (kind === 'screens') render(); });
  const aside = h('aside', { class: 'sidebar', 'aria-labelledby': 'screens-heading' },
    h('div', { class: 'sidebar-head' },
      h('h2', { id: 'screens-heading', text: 'Screens' }),
      gate(h('a', {
        class: 'button small primary', href: '#/screens', id: 'new-screen-button', text: 'New screen',
        onclick: (event) => {
          // Already on the page that makes screens: go to its first field (or to what to do first).
          if (splitHash(location.hash).rest !== '/screens') return;
          event.preventDefault();
          const target = document.getElementById('new-screen-name') || document.getElementById('first-family-link');
          target?.scrollIntoView({ block: 'center' });
          target?.focus();
        },
      }), 'editor', { note: false })),
    body);
  return { aside, unsubscribe };
}

export async function mount(root, params, query) {
  const { aside, unsubscribe } = sidebar(params.id);
  const pane = h('section', { class: 'pane', 'aria-label': params.id ? 'Screen editor' : 'Screens' });
  root.append(h('div', { class: 'split' }, aside, pane));
  if (!params.id) {
    pane.append(createPanel(query));
    return { title: 'Screens', unmount: unsubscribe };
  }
  const editor = new ResourceEditor({
    kind: 'screens', noun: 'screen',
    labels: {
      ui_components: 'components', styles: 'styles (presentation)', home: 'home', parent: 'parent screen',
      navigations: 'navigation', hooks: 'plugins run before and after loading', home_offline: 'home when offline',
      supports_offline: 'works offline', general: 'plugin settings (general)', data: 'data', rules: 'rules',
      advertising: 'advertising', plugin_version: 'plugin version', screen_type: 'screen type', type: 'screen type',
    },
  });
  try {
    const { data, etag } = await api.get('screens', params.id);
    editor.load(data, etag);
  } catch (error) {
    showError(error, 'Opening the screen');
    pane.append(h('div', { class: 'pane-body' }, h('p', { class: 'empty', text: 'This screen could not be opened.' }), h('a', { href: '#/screens', text: 'Back to screens' })));
    return { title: 'Screen', unmount: unsubscribe };
  }
  editor.keepLocally(params.id);
  const view = new ScreenEditor(pane, editor);
  view.render();
  view.start(query);
  return {
    get title() { return `Screen ${editor.draft.name}`; },
    isDirty: () => editor.dirty,
    save: () => view.save(),
    discard: () => { editor.draft = clone(editor.base); editor.forgetLocal(); },
    unmount: () => { unsubscribe(); view.destroy(); },
  };
}

// Creating a screen ------------------------------------------------------------------------------

function createPanel(query) {
  const modes = [
    { value: 'blank', text: 'Blank', hint: 'No components yet.' },
    { value: 'layout', text: 'From a layout', hint: 'Starts with a copy of the layout’s components.' },
    { value: 'connected', text: 'Connected, under a parent', hint: 'Shows what a tapped item of the parent holds: no data sources of its own.' },
  ];
  let mode = query.layout ? 'layout' : (query.parent ? 'connected' : 'blank');
  const parentScreen = query.parent ? find.screen(query.parent) : null;
  const name = h('input', { type: 'text', required: true, id: 'new-screen-name', autocomplete: 'off' });
  const familyOptions = [{ value: '', text: '(choose a family)' }, ...state.families.map((f) => ({ value: f.id, text: `${f.name} (${f.id})` }))];
  const family = select(familyOptions, parentScreen?.family || state.families[0]?.id || '', { id: 'new-screen-family' });
  const layout = select([{ value: '', text: '(choose a layout)' }, ...state.layouts.map((l) => ({ value: l.id, text: `${l.name} · ${l.ui_components.length} components` }))], query.layout || state.layouts[0]?.id || '', { id: 'new-screen-layout' });
  const parent = select([{ value: '', text: '(choose a parent screen)' }, ...state.screens.map((s) => ({ value: s.id, text: s.name }))], query.parent || '', { id: 'new-screen-parent' });
  const layoutFamily = select([{ value: '', text: '(the layout’s family)' }, ...state.families.map((f) => ({ value: f.id, text: `${f.name} (${f.id})` }))], '', { id: 'new-screen-layout-family' });

  const screenType = select([{ value: '', text: 'Components (general content)' }], '', { id: 'new-screen-type' });
  const typeField = field('Screen type', screenType, { pointer: '/type', hint: 'Screen plugins registered in the app are listed too.' });
  typeField.hidden = true;
  api.plugins().then((plugins) => {
    const screens = plugins.filter((p) => p.screen);
    if (!screens.length) return;
    screens.forEach((p) => screenType.append(h('option', { value: p.identifier, text: `Plugin: ${p.name || p.identifier}` })));
    typeField.hidden = mode === 'layout';
  }).catch((error) => { if (!error.isMissingRoute) showError(error, 'Loading the screen plugins'); });
  const familyField = field('Family', family, { pointer: '/family' });
  const layoutField = field('Layout', layout, { pointer: '/from_layout' });
  if (!state.layouts.length) {
    // Nothing to choose: say how a layout is made, and where they are.
    layout.setAttribute('aria-describedby', 'no-layouts-hint');
    layoutField.append(h('p', { class: 'hint no-layouts', id: 'no-layouts-hint' },
      'There are no layouts yet. Make one from a screen: open it and use ', h('strong', { text: 'Save as layout' }),
      ' (its components become the layout). The ', h('a', { href: '#/layouts', id: 'no-layouts-link', text: 'Layouts page' }), ' lists them.'));
  }
  // The chosen layout's sketch beside the list (drawn when "From a layout" is chosen).
  const layoutPick = h('div', { class: 'layout-pick' });
  let sketched = null;
  const sketchLayout = () => {
    if (mode !== 'layout' || sketched === layout.value) return;
    sketched = layout.value;
    const chosen = state.layouts.find((l) => l.id === layout.value);
    layoutPick.replaceChildren(chosen ? layoutSketch(chosen) : '');
  };
  layout.addEventListener('change', sketchLayout);
  if (state.layouts.length) layoutField.append(layoutPick);
  const layoutFamilyField = field('Family', layoutFamily, { hint: 'Leave as is to use the layout’s family.' });
  layoutFamily.dataset.pointer = '/family';
  const parentField = field('Parent screen', parent, { pointer: '/parent' });

  const errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
  const radios = h('fieldset', { class: 'group radios' }, h('legend', { text: 'Start from' }),
    modes.map((m) => {
      const input = h('input', { type: 'radio', name: 'mode', value: m.value, id: `mode-${m.value}`, checked: m.value === mode, 'aria-describedby': `mode-${m.value}-hint` });
      input.addEventListener('change', () => { mode = m.value; update(); });
      return h('div', { class: 'radio' }, input, h('label', { for: input.id, text: m.text }), h('span', { class: 'hint', id: `mode-${m.value}-hint`, text: ` — ${m.hint}` }));
    }));
  const update = () => {
    familyField.hidden = mode === 'layout';
    layoutField.hidden = mode !== 'layout';
    layoutFamilyField.hidden = mode !== 'layout';
    parentField.hidden = mode !== 'connected';
    if (screenType.options.length > 1) typeField.hidden = mode === 'layout';
    sketchLayout();
  };
  update();
  const button = h('button', { type: 'submit', class: 'button primary', text: 'Create screen' });
  const form = h('form', {
    class: 'resource-form create-form', novalidate: true, 'aria-labelledby': 'create-screen-heading',
    onsubmit: async (event) => {
      event.preventDefault();
      clearFieldErrors(form);
      const body = { name: name.value.trim() };
      if (mode === 'layout') {
        body.from_layout = layout.value;
        if (layoutFamily.value) body.family = layoutFamily.value;
      } else {
        body.family = family.value;
        if (screenType.value) body.type = screenType.value;
        if (mode === 'connected') { body.connected = true; body.parent = parent.value || null; body.ui_components = []; }
      }
      const local = [];
      if (!body.name) local.push({ pointer: '/name', message: 'give the screen a name' });
      if (mode !== 'layout' && !body.family) local.push({ pointer: '/family', message: 'choose a family' });
      if (mode === 'layout' && !body.from_layout) local.push({ pointer: '/from_layout', message: 'choose a layout' });
      if (mode === 'connected' && !body.parent) local.push({ pointer: '/parent', message: 'choose the parent screen' });
      if (local.length) { placeErrors(form, local); focusPointer(form, local[0].pointer); return; }
      if (isGated(button)) return;
      button.disabled = true;
      try {
        const { data } = await api.create('screens', body);
        await refresh('screens');
        info(`Screen “${data.name}” created.`);
        navigate(`/screens/${data.id}`);
      } catch (error) {
        showRequestError(error, { root: form, errorsHost, context: 'Creating the screen' });
      } finally { if (!isGated(button)) button.disabled = false; }
    },
  },
  h('h2', { id: 'create-screen-heading', text: 'New screen' }),
  errorsHost,
  field('Name', name, { pointer: '/name' }),
  radios, typeField, familyField, layoutField, layoutFamilyField, parentField,
  h('div', { class: 'form-actions' }, gate(button, 'editor')));

  // The table follows the list (someone makes, renames or deletes a screen).
  const table = h('div', { id: 'screens-table-host' }, screensTable());
  const off = subscribe((kind) => { if (kind === 'screens' && table.isConnected) table.replaceChildren(screensTable() || ''); else if (!table.isConnected) off(); });
  if (!can('editor')) {
    // A role that may not change the app lands on the screens it can look at, not on a form it cannot use.
    return h('div', { class: 'pane-body' },
      h('h1', { text: 'Screens' }),
      readOnlyBanner(),
      state.screens.length
        ? h('p', { class: 'lede', text: 'Open a screen to see its components, its navigation and how apps draw it.' })
        : h('p', { class: 'empty', id: 'no-screens', text: 'This app has no screens yet. An editor or an admin of the app makes them.' }),
      table);
  }
  return h('div', { class: 'pane-body' },
    h('h1', { text: 'Screens' }),
    state.families.length ? form : h('section', { class: 'notice first-steps', id: 'no-family', 'aria-labelledby': 'no-family-heading' },
      h('h2', { id: 'no-family-heading', text: 'First, create a family' }),
      h('p', { text: 'A screen needs a family before it can have components: the family sets the sizes its cells are drawn at (the reference size, the insets and spacing, and cell styles such as one column of 80 points, or two columns at 16:9).' }),
      h('ol', {},
        h('li', { text: 'Create a family (it starts with a one-column cell style; add a two-column one for grids).' }),
        h('li', { text: 'Come back here and create the screen with it.' })),
      gate(h('a', { class: 'button primary', id: 'first-family-link', href: '#/families/new', text: 'Create a family' }), 'editor')),
    table);
}

function screensTable() {
  const rows = state.screens.map((s) => h('tr', {},
    h('th', { scope: 'row' }, h('a', { href: `#/screens/${s.id}`, text: s.name })),
    h('td', {}, homeBadge(s), ' ', kindBadge(s)),
    h('td', { text: s.parent ? (find.screen(s.parent)?.name || s.parent) : '–' }),
    h('td', {}, h('code', { text: s.family })),
    h('td', { text: String((s.ui_components || []).length) })));
  return state.screens.length ? h('table', { class: 'data-table', id: 'screens-table' },
    h('caption', { text: 'All screens' }),
    h('thead', {}, h('tr', {}, ['Name', 'Kind', 'Parent', 'Family', 'Components'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows)) : null;
}

// Editing a screen -------------------------------------------------------------------------------

/** True when the draft differs from the saved screen only in the order of its components. */
function onlyReordered(base, draft) {
  const a = { ...base, ui_components: null };
  const b = { ...draft, ui_components: null };
  if (stableStringify(a) !== stableStringify(b)) return false;
  const x = base.ui_components || [];
  const y = draft.ui_components || [];
  if (x.length !== y.length) return false;
  const byId = new Map(x.map((c) => [c.id, stableStringify(c)]));
  if (!y.every((c) => byId.get(c.id) === stableStringify(c))) return false;
  return x.some((c, i) => c.id !== y[i].id);
}

/**
 * What can be told before asking the server, all at once: the form's own rules (in its words),
 * then the contract's (openapi.json). The preview (`preview`: true) reads the same rules, but a
 * screen with no name yet can be drawn.
 */
export function screenChecks(d, { preview = false } = {}) {
  const own = screenProblems(d).filter((p) => !(preview && (p.pointer === '/name' || p.pointer === '/parent')));
  const contract = checkAgainst(preview ? 'PreviewScreen' : 'Screen', d);
  return mergeProblems(own, contract, cellStyleProblems(d));
}

/** Cell styles a component names that the screen's family does not have. */
function cellStyleProblems(d) {
  const family = find.family(d.family);
  if (!family) return [];
  const known = new Set((family.cell_styles || []).map((s) => s.id));
  const out = [];
  const walk = (list, pointer) => (list || []).forEach((c, i) => {
    (c?.cell_styles || []).forEach((id, j) => {
      if (typeof id === 'string' && !known.has(id)) out.push({ pointer: `${pointer}/${i}/cell_styles/${j}`, message: `${id} is not a cell style of family ${family.id}: choose one it has` });
    });
    walk(c?.ui_components, `${pointer}/${i}/ui_components`);
  });
  walk(d.ui_components, '/ui_components');
  return out;
}

function screenProblems(d) {
  const problems = [];
  if (!String(d.name ?? '').trim()) problems.push({ pointer: '/name', message: 'give the screen a name' });
  // It would publish broken: nothing could open it.
  if (d.connected && !d.parent) problems.push({ pointer: '/parent', message: 'choose the screen whose items open this connected screen' });
  const web = (data, pointer) => {
    if (data?.type !== 'WEB_URL') return;
    const problem = webAddressProblem(data.source);
    if (problem) problems.push({ pointer: `${pointer}/data/source`, message: problem });
  };
  const walkItems = (items, pointer) => (items || []).forEach((item, i) => {
    const p = `${pointer}/${i}`;
    web(item?.data, p);
    walkItems(item?.nav_items, `${p}/nav_items`);
  });
  (d.navigations || []).forEach((nav, i) => walkItems(nav.nav_items, `/navigations/${i}/nav_items`));
  if (!d.connected) {
    const walkComponents = (list, pointer) => (list || []).forEach((c, i) => {
      const p = `${pointer}/${i}`;
      web(c?.data, p);
      walkComponents(c?.ui_components, `${p}/ui_components`);
    });
    walkComponents(d.ui_components, '/ui_components');
    problems.push(...sourceTypeProblems(d.ui_components));
  }
  return problems;
}

/** Every screen id a screen points at: its components', nav items' and hooks' targets. */
function screenTargets(screen) {
  const found = new Set();
  const walk = (value, key) => {
    if (typeof value === 'string') { if (key === 'target' || key === 'screen_id') found.add(value); return; }
    if (Array.isArray(value)) { value.forEach((v) => walk(v, null)); return; }
    if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk([screen.ui_components, screen.navigations, screen.hooks], null);
  return found;
}

/** The screens that keep screen `id` from being deleted (the server's rule: its children, and
 *  the screens that open it), as the server's `used_by`. */
export function screenUsers(id) {
  return state.screens.filter((s) => s.id !== id).flatMap((s) => {
    const via = [s.parent === id ? 'parent' : null, screenTargets(s).has(id) ? 'target' : null].filter(Boolean);
    return via.length ? [{ kind: 'screen', id: s.id, name: s.name, via }] : [];
  });
}

function stripIds(components) {
  return (components || []).map((c) => {
    const copy = clone(c);
    delete copy.id;
    if (copy.ui_components) copy.ui_components = stripIds(copy.ui_components);
    return copy;
  });
}

class ScreenEditor {
  constructor(pane, editor) {
    this.pane = pane;
    this.editor = editor;
    this.components = new ComponentList({ getScreen: () => this.editor.draft, onChange: (change) => this.changed(change) });
    this.history = new DraftHistory({
      get: () => this.editor.draft,
      set: (draft) => { this.editor.draft = draft; this.redraw(); },
      onChange: () => this.undoUi?.update(),
    });
    const plugins = pluginLoader();
    this.navigation = new NavigationEditor({ getScreen: () => this.editor.draft, onChange: () => this.changed(), plugins });
    this.hooks = new HooksEditor({ getScreen: () => this.editor.draft, onChange: () => this.changed(), plugins });
    this.preview = new PreviewPanel({
      getScreen: () => this.editor.draft,
      // A preview the editor knows the server would refuse is not asked for: the same rules as Save.
      check: () => [...screenChecks(this.editor.draft, { preview: true }), ...pluginFieldProblems(this.pane)],
      onPickComponent: (i) => this.components.focusComponent(i),
      // Dragged on the drawing: the same move (and undo step) as in the components list.
      onMoveComponent: (from, to) => this.components.move(from, to),
      canMove: () => can('editor'),
      onFocusPointer: (pointer) => this.focusPointer(pointer),
    });
    this.onKey = (event) => {
      if (document.querySelector('dialog[open]')) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') { event.preventDefault(); this.save(); return; }
      this.history.handleKey(event);
    };
    document.addEventListener('keydown', this.onKey);
    /** Whether the saved screen is what apps get now (kept across renders). */
    this.liveBadge = h('a', { class: 'badge live-badge', id: 'live-badge', href: '#/publish', hidden: true });
    this.liveSequence = 0;
  }

  destroy() {
    document.removeEventListener('keydown', this.onKey);
    forgetProblems(this.editor);
    this.preview.destroy();
    this.liveSequence += 1;
    this.unfollow?.();
    this.offFamily?.();
  }

  start(query) {
    // Someone changes this screen's family (its sizes, its cells): the preview draws it again.
    this.offFamily = onLive((type, change) => {
      if (type === 'change' && change.kind === 'family' && change.resource_id === this.editor.draft.family) this.preview.refresh();
    });
    // What someone else saves shows here within a second (merged into unsaved edits).
    this.unfollow = followLive(this.editor, {
      reloaded: (_, change) => {
        this.history.reset();
        this.render();
        this.preview.refresh.flush();
        this.loadLive();
        info(`${change.actor || 'Someone'} saved this screen: their version is shown (revision ${this.editor.revision}).`);
      },
      merged: (_, change) => {
        this.history.reset();
        this.render();
        this.preview.refresh.flush();
        info(`${change.actor || 'Someone'} saved this screen: their changes are merged into your unsaved edits.`);
      },
    });
    this.preview.load();
    this.loadLive();
    if (query.focus !== undefined) {
      this.components.unfoldFor(query.focus);
      if (query.message) placeErrors(this.pane, [{ pointer: query.focus, message: query.message }]);
      requestAnimationFrame(() => focusPointer(this.pane, query.focus));
    }
  }

  /** Compares the saved screen with the live version and says so in the badge. */
  async loadLive() {
    const mine = ++this.liveSequence;
    let status;
    try {
      status = await loadLive();
    } catch (error) {
      if (mine === this.liveSequence) this.liveBadge.hidden = true;
      return;
    }
    if (mine !== this.liveSequence) return;
    const badge = this.liveBadge;
    if (!status.available) { badge.hidden = true; return; }
    const which = screenState(status, this.editor.record.id);
    const live = status.live;
    const rollback = live?.rollback_of ? ` (rollback to ${live.rollback_of})` : '';
    const texts = {
      unpublished: ['Not published yet', 'Nothing is live yet: publish to send apps their first version.'],
      new: [`Not live yet · live is version ${live?.number}${rollback}`, `Apps do not have this screen: the live ${liveName(live)} was published before it. Publish to send it.`],
      same: [`Live · version ${live?.number}${rollback}`, `The saved screen is what apps get now (${liveName(live)}).`],
      changed: [`Changed since live version ${live?.number}${rollback}`, `The saved screen differs from what apps get now (${liveName(live)}). Publish to send it; the Publish page shows what changes.`],
    }[which];
    badge.textContent = texts[0];
    badge.title = `${texts[1]} Unsaved changes are not counted until saved.`;
    badge.setAttribute('aria-label', `${texts[0]}. ${texts[1]} Open the Publish page.`);
    badge.dataset.state = which;
    badge.dataset.liveVersion = live ? String(live.number) : '';
    badge.className = `badge live-badge live-${which}`;
    badge.hidden = false;
  }

  focusPointer(pointer) {
    this.components.unfoldFor(pointer);
    this.navigation.unfoldFor(pointer);
    return focusPointer(this.pane, pointer);
  }

  get draft() { return this.editor.draft; }

  /** After every edit: the status, the preview, the copy kept in the browser, and an undo step. */
  changed(change) {
    this.updateStatus();
    this.preview.refresh();
    this.editor.persist();
    const field = change?.label ? { label: change.label, key: null } : activeField();
    this.history.record(field.label, field.key);
    recheckProblems(this.editor);
    if (change?.removed) info(`${change.removed} removed.`, { action: { label: 'Undo', run: () => this.history.undo() } });
  }

  /** Draws the draft again after an undo, a redo or a restore. */
  redraw() {
    this.components.render();
    this.render();
    this.preview.refresh();
    this.editor.persist();
    recheckProblems(this.editor);
  }

  updateStatus() {
    const dirty = this.editor.dirty;
    this.status.textContent = dirty ? 'Unsaved changes' : `Saved · revision ${this.editor.revision}`;
    this.status.classList.toggle('dirty', dirty);
    this.heading.textContent = `Screen: ${this.draft.name || '(no name)'}`;
  }

  render() {
    const focus = focusKeyOf(this.pane);
    const d = this.draft;
    const base = this.editor.base;
    const kind = screenKind(d);

    this.heading = h('h1', { id: 'screen-heading' });
    this.status = h('p', { class: 'save-status', role: 'status', 'aria-live': 'polite', id: 'save-status' });
    this.saveButton = h('button', { type: 'submit', class: 'button primary', id: 'save-screen', 'data-focus-key': 'save', text: 'Save screen' });
    this.undoUi = undoButtons(this.history, h);
    const toolbar = h('div', { class: 'toolbar' },
      h('div', { class: 'toolbar-title' }, this.heading, homeBadge(base), kindBadge(d), this.liveBadge),
      h('div', { class: 'toolbar-actions' },
        this.status,
        can('editor') ? this.undoUi.el : null,
        gate(h('button', { type: 'button', class: 'button', 'data-focus-key': 'as-layout', text: 'Save as layout', onclick: () => this.saveAsLayout() }), 'editor', { note: false }),
        gate(h('a', { class: 'button', href: `#/screens?parent=${encodeURIComponent(d.id)}`, text: 'Add connected screen' }), 'editor', { note: false }),
        gate(h('button', { type: 'button', class: 'button danger', text: 'Delete', 'aria-label': 'Delete screen', onclick: () => this.remove() }), 'editor', { note: false }),
        gate(this.saveButton, 'editor')));

    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    const banner = conflictBanner(this.editor, {
      onReload: () => { this.editor.acceptTheirs(); this.afterReload(); },
      onOverwrite: () => this.save({ overwrite: true }),
    });
    const kept = keptChangesBanner(this.editor, { history: this.history, redraw: () => this.redraw(), render: () => this.render() });

    this.components.render();
    this.navigation.render();
    this.hooks.render();
    this.form = h('form', {
      class: 'resource-form screen-form', novalidate: true, 'aria-labelledby': 'screen-heading',
      onsubmit: (e) => { e.preventDefault(); this.save(); },
    },
    toolbar, readOnlyBanner(), banner, kept, mergedBanner(this.editor, { onDismiss: () => this.render() }),
    h('div', { class: 'editor-grid' },
      h('div', { class: 'editor-main' },
        this.errorsHost,
        editableArea(
          this.screenFields(d, base, kind),
          kind === 'plugin' ? pluginSettings(d, () => this.changed(), (form) => {
            // A screen plugin that holds no components shows no component editor (unless it has some).
            if (form.can_have_components === false && !(d.ui_components || []).length) {
              this.components.el.replaceChildren(h('p', { class: 'hint', text: `${form.name || d.type} holds no components.` }));
            }
          }) : null,
          this.components.el,
          this.navigation.el,
          this.hooks.el)),
      this.preview.el));
    this.pane.replaceChildren(h('div', { class: 'pane-body wide' }, this.form));
    trackStickyBar(toolbar);
    this.updateStatus();
    restoreFocus(this.pane, focus);
  }

  screenFields(d, base, kind) {
    const name = h('input', { type: 'text', id: 'screen-name', 'data-focus-key': 'name', value: d.name ?? '', required: true });
    name.addEventListener('input', () => { d.name = name.value; this.changed(); });

    const familyOptions = state.families.map((f) => ({ value: f.id, text: `${f.name} (${f.id})` }));
    if (!find.family(d.family)) familyOptions.unshift({ value: d.family || '', text: `${d.family || '(none)'} — not in this app` });
    const family = select(familyOptions, d.family, { id: 'screen-family', 'data-focus-key': 'family' });
    family.addEventListener('change', () => { d.family = family.value; this.components.render(); this.changed(); });

    const wasHome = Boolean(base.home);
    const currentHome = state.screens.find((s) => s.home && s.id !== d.id);
    const home = h('input', { type: 'checkbox', id: 'screen-home', 'data-focus-key': 'home', checked: Boolean(d.home), disabled: wasHome || (d.connected && !d.home), 'aria-describedby': 'screen-home-hint' });
    home.dataset.pointer = '/home';
    home.addEventListener('change', () => { d.home = home.checked; this.changed(); });
    const homeHint = wasHome
      ? 'This is the app’s home screen. To move home, make another screen home.'
      : (d.connected ? 'A connected screen cannot be home: nothing sends it items.'
        : `Checking it and saving moves home here${currentHome ? ` from “${currentHome.name}”` : ''}.`);

    d.styles ??= {};
    const presentation = select([
      { value: '', text: 'Default (the app decides)' },
      { value: 'push', text: 'Push (slides in)' },
      { value: 'present', text: 'Present (modal)' },
    ], d.styles.presentation ?? '', { id: 'screen-presentation', 'data-focus-key': 'presentation' });
    presentation.addEventListener('change', () => {
      const styles = { ...d.styles };
      if (presentation.value) styles.presentation = presentation.value; else delete styles.presentation;
      d.styles = styles;
      this.changed();
    });

    let parentField = null;
    if (d.connected || d.parent) {
      const descendants = new Set([d.id]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const s of state.screens) if (s.parent && descendants.has(s.parent) && !descendants.has(s.id)) { descendants.add(s.id); grew = true; }
      }
      const options = [{ value: '', text: '(no parent)' }, ...state.screens.filter((s) => !descendants.has(s.id)).map((s) => ({ value: s.id, text: s.name }))];
      const parent = select(options, d.parent ?? '', { id: 'screen-parent', 'data-focus-key': 'parent' });
      parent.addEventListener('change', () => { d.parent = parent.value || null; this.changed(); });
      parentField = field('Parent screen', parent, { pointer: '/parent', hint: d.connected ? 'The screen whose tapped item opens this one.' : '' });
    }

    const kindText = {
      root: 'Root screen: its components bring their own data.',
      connected: 'Connected screen: component i shows child i of the item that opened it.',
      plugin: `Screen plugin ${d.type}.`,
    }[kind];

    return h('fieldset', { class: 'group screen-fields' },
      h('legend', { text: 'Screen' }),
      h('div', { class: 'row' },
        field('Name', name, { pointer: '/name', className: 'grow' }),
        field('Family', family, { pointer: '/family' }),
        field('Presentation', presentation, { pointer: '/styles/presentation' })),
      h('div', { class: 'row' },
        h('div', { class: 'field check home-field' }, home, h('label', { for: 'screen-home', text: 'Home screen' }), h('p', { class: 'hint', id: 'screen-home-hint', text: homeHint })),
        parentField),
      h('div', { class: 'row' },
        this.offlineCheck(d, 'home_offline', 'Home when offline', 'The app opens this screen first when it has no network.'),
        this.offlineCheck(d, 'supports_offline', 'Works offline', 'The app may show this screen without a network.')),
      h('p', { class: 'hint' }, kindText, ' Screen type ', h('code', { text: d.screen_type || '–' }), '.'));
  }

  /** A checkbox for one of the screen's offline flags (`home_offline`, `supports_offline`). */
  offlineCheck(d, key, label, hint) {
    const id = `screen-${key.replace('_', '-')}`;
    const box = h('input', { type: 'checkbox', id, 'data-focus-key': key, checked: Boolean(d[key]), 'aria-describedby': `${id}-hint` });
    box.dataset.pointer = `/${key}`;
    box.addEventListener('change', () => { d[key] = box.checked; this.changed(); });
    return h('div', { class: 'field check' }, box, h('label', { for: id, text: label }), h('p', { class: 'hint', id: `${id}-hint`, text: hint }));
  }

  afterReload() {
    this.components.render();
    this.history.reset();
    this.render();
    this.preview.refresh.flush();
    this.loadLive();
    info('Reloaded their version; your changes were dropped.');
  }

  save({ overwrite = false } = {}) {
    const reorder = !overwrite && !this.editor.conflict && onlyReordered(this.editor.base, this.editor.draft);
    return saveDraft(this.editor, {
      root: () => this.pane,
      errorsHost: () => this.errorsHost,
      button: () => this.saveButton,
      context: 'Saving the screen',
      overwrite,
      send: reorder ? (body, etag) => api.reorder(this.editor.record.id, body.ui_components.map((c) => c.id), etag) : undefined,
      reveal: (errors) => this.reveal(errors),
      check: () => mergeProblems(screenChecks(this.editor.draft), this.navigation.problems(), pluginFieldProblems(this.pane)),
      afterRequest: () => refresh('screens').catch((error) => showError(error, 'Reloading the screen list')),
      saved: (record, { merged }) => {
        if (merged) this.history.reset();
        this.render();
        restoreFocus(this.pane, 'save');
        this.preview.refresh.flush();
        this.loadLive();
        info(merged ? `Screen “${record.name}” saved with their changes merged in (revision ${record.revision}).` : `Screen “${record.name}” saved (revision ${record.revision}).`);
      },
      reloaded: () => this.afterReload(),
      kept: () => this.render(),
    });
  }

  /** Unfolds what holds the fields of these errors (folded components, a navigation's styles). */
  reveal(errors) {
    this.components.unfoldAllWithErrors(errors);
    for (const e of errors) this.navigation.unfoldFor(e.pointer);
  }

  /**
   * Keeps the components (as they are now, saved or not) as a layout. The dialog asks for its
   * name and family; what the server refuses shows at its field: the name and the family in the
   * dialog (which stays open), a component's problem at that component in the screen.
   */
  async saveAsLayout() {
    const d = this.draft;
    const count = (d.ui_components || []).length;
    const name = h('input', { type: 'text', id: 'layout-dialog-name', value: `${d.name} layout`, autocomplete: 'off' });
    const familyOptions = state.families.map((f) => ({ value: f.id, text: `${f.name} (${f.id})` }));
    if (!find.family(d.family)) familyOptions.unshift({ value: d.family || '', text: `${d.family || '(none)'} — not in this app` });
    const family = select(familyOptions, d.family, { id: 'layout-dialog-family' });
    const result = await formDialog({
      title: 'Save the components as a layout', confirm: 'Save layout', className: 'layout-dialog',
      fields: [
        h('p', { class: 'hint', text: `Keeps the ${count} component${count === 1 ? '' : 's'} as they are now (saved or not). New screens can start from it.` }),
        field('Layout name', name, { pointer: '/name' }),
        field('Family', family, { pointer: '/family', hint: 'The family whose cell styles the components use.' }),
      ],
      submit: async ({ form, errorsHost }) => {
        const body = { name: name.value.trim(), family: family.value, ui_components: stripIds(d.ui_components) };
        if (!body.name) {
          showFieldProblems([{ pointer: '/name', message: 'give the layout a name' }], { root: form, errorsHost, title: 'Not saved yet: 1 thing to fix' });
          return undefined;
        }
        try {
          const { data } = await api.create('layouts', body);
          return { layout: data };
        } catch (error) {
          if (!error?.isValidation || !error.errors.length) {
            showError(error, 'Saving the layout');
            return undefined;
          }
          // The components' problems go to the components in the screen; the rest stay here.
          const inComponents = error.errors.filter((e) => /^\/ui_components(\/|$)/.test(e.pointer || ''));
          const here = error.errors.filter((e) => !inComponents.includes(e));
          if (inComponents.length) this.showLayoutProblems(inComponents);
          if (!here.length) return { refused: inComponents.length };
          showFieldProblems(here, { root: form, errorsHost, title: `The layout was not saved: ${here.length === 1 ? '1 problem' : `${here.length} problems`}` });
          if (inComponents.length) {
            errorsHost.querySelector('.error-summary')?.append(h('p', { class: 'hint', text:
              `And ${inComponents.length === 1 ? '1 problem' : `${inComponents.length} problems`} in the components, shown at them in the screen.` }));
          }
          return undefined;
        }
      },
    });
    if (result?.layout) {
      await refresh('layouts').catch((error) => showError(error, 'Reloading the layouts'));
      info(`Layout “${result.layout.name}” saved with ${result.layout.ui_components.length} components.`);
    } else if (result?.refused) {
      this.errorsHost.querySelector('.error-summary')?.focus();
    }
  }

  /** A refused layout's component problems, at the screen's components, with a summary. */
  showLayoutProblems(problems) {
    clearFieldErrors(this.pane);
    this.reveal(problems);
    placeErrors(this.pane, problems);
    showErrorSummary(this.errorsHost, this.pane, problems, {
      title: `The layout was not saved: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`} in the components`,
    });
  }

  remove() {
    const record = this.editor.record;
    return deleteRecord({
      inUse: async () => { await refresh('screens'); return screenUsers(record.id); },
      confirm: () => confirmDialog({
        title: `Delete screen “${record.name}”?`,
        text: this.editor.dirty ? 'Your unsaved changes go with it. Screens that point at it keep it from being deleted.' : 'Screens that point at it (as parent or target) keep it from being deleted.',
        confirm: 'Delete screen', danger: true,
      }),
      remove: () => api.remove('screens', record.id, this.editor.etag),
      context: 'Deleting the screen',
      done: async () => {
        this.editor.draft = clone(this.editor.base);
        this.editor.forgetLocal();
        await refresh('screens');
        info(`Screen “${record.name}” deleted.`);
        navigate('/screens');
      },
    });
  }
}
