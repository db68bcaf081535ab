// A screen's navigations (one nav bar, one menu: type, name, nav items that nest; their styles,
// rules and assets) and its hooks (preload and postload plugins, and the screen a hook is). Edits
// change the draft in place and call onChange; the screen editor saves. Every control carries the
// JSON pointer of what it edits, so 422 errors land on it.
import { api, state } from '../state.js';
import { h, select, uuid, uid, focusKeyOf, restoreFocus } from '../dom.js';
import { announce, showError } from '../notify.js';
import { MembersEditor } from '../members-editor.js';

const BUILT_IN_NAVIGATIONS = [
  { value: 'navigation_bar', text: 'Navigation bar' },
  { value: 'two_level_rn_menu', text: 'Two-level menu' },
  { value: 'side_menu', text: 'Side menu' },
  { value: 'tab_bar_menu', text: 'Tab bar menu' },
];
const CATEGORIES = [
  { id: 'nav_bar', label: 'Nav bar', initialType: 'navigation_bar' },
  { id: 'menu', label: 'Menu', initialType: 'two_level_rn_menu' },
];
const ITEM_TYPES = ['button', 'label', 'header', 'nested_menu', 'chromecast', 'live_drawer'];
const MAX_DEPTH = 3;
/** A navigation's free-form objects, as the app's navigation plugin reads them. */
const MEMBERS = [
  { key: 'styles', label: 'Styles', hint: 'colours, fonts and sizes' },
  { key: 'rules', label: 'Rules', hint: 'behaviour switches and limits' },
  { key: 'assets', label: 'Assets', hint: 'images and icons, by address' },
];

/** The registered plugins of the app, loaded once per editor. */
function pluginLoader() {
  let promise = null;
  return () => {
    promise ??= api.plugins().catch((error) => {
      if (!error.isMissingRoute) showError(error, 'Loading the plugins');
      return [];
    });
    return promise;
  };
}

function emptyData() { return { connected: null, source: null, target: null, type: null }; }

function linkKind(item) {
  const d = item.data || {};
  if (d.type === 'WEB_URL') return 'web';
  if (d.target) return 'screen';
  if (d.type || d.source) return 'other';
  return 'none';
}

function moveIn(list, from, to) {
  if (to < 0 || to >= list.length || from === to) return false;
  const [x] = list.splice(from, 1);
  list.splice(to, 0, x);
  return true;
}

export class NavigationEditor {
  /** @param {{getScreen: () => object, onChange: () => void, plugins: () => Promise<object[]>}} options */
  constructor({ getScreen, onChange, plugins }) {
    this.getScreen = getScreen;
    this.onChange = onChange;
    this.plugins = [];
    /** Link kinds chosen but not filled in yet (a screen link before its screen), by item id. */
    this.pendingKind = new Map();
    /** The editors of each navigation's styles, rules and assets (rows being typed survive a redraw). */
    this.members = new Map();
    /** Whether each navigation's styles, rules and assets are unfolded, by navigation id (when set). */
    this.unfolded = new Map();
    this.el = h('section', { class: 'navigation-editor', 'aria-labelledby': 'navigation-heading', 'data-pointer': '/navigations' });
    // Drawn again only when the plugins add choices: with none, what is drawn stays (a control the
    // user is about to press is not replaced under the pointer).
    plugins().then((list) => { this.plugins = list; if (list.length && this.el.isConnected) this.render(); });
  }

  get navigations() { return this.getScreen().navigations || []; }

  changed(rerender = false) {
    if (rerender) this.render();
    this.onChange();
  }

  render() {
    const focus = focusKeyOf(this.el);
    this.el.replaceChildren(
      h('h2', { id: 'navigation-heading', text: 'Navigation' }),
      h('p', { class: 'hint', text: 'At most one nav bar and one menu. Items link to a screen of the app or to a web address; nested menus hold items of their own.' }),
      ...CATEGORIES.map((cat) => this.navigationBox(cat)));
    restoreFocus(this.el, focus);
  }

  typeOptions(current) {
    const options = [...BUILT_IN_NAVIGATIONS];
    for (const p of this.plugins) options.push({ value: p.identifier, text: `Plugin: ${p.name || p.identifier}` });
    if (current && !options.some((o) => o.value === current)) options.push({ value: current, text: `${current} (not registered)` });
    return options;
  }

  navigationBox(cat) {
    const screen = this.getScreen();
    const index = this.navigations.findIndex((n) => n.category === cat.id);
    const headingId = `nav-${cat.id}-legend`;
    if (index < 0) {
      // The type chosen so far survives a redraw (the plugins arriving redraw the editor).
      this.newType ??= {};
      const type = select(this.typeOptions(), this.newType[cat.id] ?? cat.initialType, { id: `nav-${cat.id}-new-type`, 'data-focus-key': `nav-${cat.id}-new-type` });
      type.addEventListener('change', () => { this.newType[cat.id] = type.value; });
      return h('fieldset', { class: 'group navigation-box', 'data-category': cat.id },
        h('legend', { id: headingId, text: cat.label }),
        h('div', { class: 'nested-add' },
          h('label', { for: type.id, text: `Type of the new ${cat.label.toLowerCase()}` }), type,
          h('button', {
            type: 'button', class: 'button small', 'data-focus-key': `nav-${cat.id}-add`, text: `+ Add ${cat.label.toLowerCase()}`,
            onclick: () => {
              screen.navigations = [...this.navigations, {
                id: uuid(), name: cat.label, category: cat.id, navigation_type: type.value,
                styles: {}, rules: {}, assets: {}, nav_items: [],
              }];
              this.changed(true);
              this.el.querySelector(`[data-focus-key="nav-${cat.id}-name"]`)?.focus();
              announce(`${cat.label} added.`);
            },
          })));
    }
    const nav = this.navigations[index];
    const p = `/navigations/${index}`;
    const name = h('input', { type: 'text', id: `nav-${cat.id}-name`, 'data-focus-key': `nav-${cat.id}-name`, value: nav.name ?? '' });
    name.dataset.pointer = `${p}/name`;
    name.addEventListener('input', () => { nav.name = name.value === '' ? null : name.value; this.changed(); });
    const type = select(this.typeOptions(nav.navigation_type), nav.navigation_type, { id: `nav-${cat.id}-type`, 'data-focus-key': `nav-${cat.id}-type` });
    type.dataset.pointer = `${p}/navigation_type`;
    type.addEventListener('change', () => { nav.navigation_type = type.value; this.changed(); });
    nav.nav_items ??= [];
    return h('fieldset', { class: 'group navigation-box', 'data-category': cat.id, 'data-pointer': p, 'data-label': cat.label },
      h('legend', { id: headingId, text: cat.label }),
      h('div', { class: 'row' },
        h('div', { class: 'field grow' }, h('label', { for: name.id, text: `${cat.label} name` }), name),
        h('div', { class: 'field' }, h('label', { for: type.id, text: `${cat.label} type` }), type),
        h('button', {
          type: 'button', class: 'button small danger nav-remove', 'data-focus-key': `nav-${cat.id}-remove`, text: `Remove ${cat.label.toLowerCase()}`,
          onclick: () => {
            screen.navigations = this.navigations.filter((n) => n !== nav);
            this.changed(true);
            this.el.querySelector(`[data-focus-key="nav-${cat.id}-add"]`)?.focus();
            announce(`${cat.label} removed.`);
          },
        })),
      this.membersBox(nav, p, cat),
      this.itemList(nav.nav_items, `${p}/nav_items`, cat.label, '', 1, nav));
  }

  membersEditor(nav, member, cat) {
    const id = `${nav.id}/${member.key}`;
    if (!this.members.has(id)) {
      this.members.set(id, new MembersEditor({
        get: () => nav[member.key],
        set: (object) => { nav[member.key] = object; },
        onChange: () => { this.onChange(); this.updateCounts(); },
        label: `${cat.label} ${member.label.toLowerCase()}`,
        idPrefix: `nav-${cat.id}-${member.key}`,
      }));
    }
    const editor = this.members.get(id);
    // The navigation drawn now (an undo or a reload puts another object in its place).
    editor.get = () => nav[member.key];
    editor.set = (object) => { nav[member.key] = object; };
    return editor;
  }

  /** A navigation's styles, rules and assets: folded to a count until opened (or holding some). */
  membersBox(nav, p, cat) {
    const count = MEMBERS.reduce((n, m) => n + Object.keys(nav[m.key] || {}).length, 0);
    const open = this.unfolded.get(nav.id) ?? count > 0;
    const summary = h('summary', { 'data-focus-key': `nav-${cat.id}-members` },
      'Styles, rules and assets', h('span', { class: 'muted members-count', text: count ? ` · ${count} entr${count === 1 ? 'y' : 'ies'}` : ' · none' }));
    const box = h('details', { class: 'nav-members', open, 'data-category': cat.id }, summary,
      h('p', { class: 'hint', text: 'Values the app’s navigation reads as they are: text stays text, numbers stay numbers.' }),
      h('div', { class: 'members-grid' }, MEMBERS.map((m) => {
        const editor = this.membersEditor(nav, m, cat);
        const legendId = uid('members');
        return h('fieldset', { class: 'mini-group members-group', 'data-pointer': `${p}/${m.key}`, 'data-member': m.key, 'aria-labelledby': legendId },
          h('legend', { id: legendId }, `${cat.label} ${m.label.toLowerCase()}`, h('span', { class: 'muted', text: ` (${m.hint})` })),
          editor.render(`${p}/${m.key}`));
      })));
    box.addEventListener('toggle', () => { this.unfolded.set(nav.id, box.open); });
    return box;
  }

  /** The counts in the folded summaries, after an edit (nothing else is drawn again). */
  updateCounts() {
    for (const box of this.el.querySelectorAll('.nav-members')) {
      const nav = this.navigations.find((n) => n.category === box.dataset.category);
      if (!nav) continue;
      const count = MEMBERS.reduce((n, m) => n + Object.keys(nav[m.key] || {}).length, 0);
      box.querySelector('.members-count').textContent = count ? ` · ${count} entr${count === 1 ? 'y' : 'ies'}` : ' · none';
    }
  }

  /** What keeps the navigations from being saved: an item set to open a screen with none chosen
   *  (it would publish with no target, and do nothing when tapped), and styles, rules and assets
   *  rows without a key of their own. */
  problems() {
    const out = [];
    const items = (list, pointer) => (list || []).forEach((item, j) => {
      const p = `${pointer}/${j}`;
      if (this.pendingKind.get(item.id) === 'screen' && !item.data?.target) {
        out.push({ pointer: `${p}/data/target`, message: `${item.title || 'This item'} opens a screen: choose which one (or set Opens to Nothing).` });
      }
      items(item.nav_items, `${p}/nav_items`);
    });
    this.navigations.forEach((nav, i) => items(nav.nav_items, `/navigations/${i}/nav_items`));
    this.navigations.forEach((nav, i) => {
      const cat = CATEGORIES.find((c) => c.id === nav.category);
      if (!cat) return;
      for (const m of MEMBERS) {
        const editor = this.members.get(`${nav.id}/${m.key}`);
        if (!editor) continue;
        editor.sync();
        out.push(...editor.problems(`/navigations/${i}/${m.key}`));
      }
    });
    return out;
  }

  /** Unfolds the styles, rules and assets a pointer is in (so its field can show an error or take focus). */
  unfoldFor(pointer) {
    const m = /^(?:\/screen)?\/navigations\/(\d+)\/(styles|rules|assets)(\/|$)/.exec(pointer || '');
    const nav = m && this.navigations[Number(m[1])];
    if (!nav || this.unfolded.get(nav.id) === true) return;
    this.unfolded.set(nav.id, true);
    if (this.el.isConnected) this.render();
  }

  itemList(items, pointer, ownerName, prefix, depth, owner) {
    const addKey = `nav-add-${owner.id}`;
    const list = h('ol', { class: 'nav-items', 'data-pointer': pointer },
      items.map((item, i) => this.itemCard(items, item, i, `${pointer}/${i}`, `${prefix}${i + 1}`, ownerName, depth)));
    if (!items.length) list.append(h('li', { class: 'empty', text: `${ownerName} has no items yet.` }));
    return h('div', { class: 'nav-item-list' }, list,
      h('button', {
        type: 'button', class: 'button small nav-add-item', 'data-focus-key': addKey, text: `+ Add item to ${ownerName}`,
        onclick: () => {
          const item = { id: uuid(), title: `Item ${items.length + 1}`, type: 'button', data: emptyData(), assets: {}, styles: {}, rules: {}, nav_items: [] };
          items.push(item);
          this.changed(true);
          this.el.querySelector(`[data-focus-key="ni-${item.id}-title"]`)?.select();
          announce(`Item added to ${ownerName}.`);
        },
      }));
  }

  itemCard(items, item, i, p, number, ownerName, depth) {
    const key = (s) => `ni-${item.id}-${s}`;
    const navName = `item ${number}`;
    const move = (dir) => {
      const atEnd = dir < 0 ? i === 0 : i === items.length - 1;
      return h('button', {
        type: 'button', class: 'icon-button', 'data-focus-key': key(dir < 0 ? 'up' : 'down'), text: dir < 0 ? '↑' : '↓',
        'aria-label': `Move ${navName} (${item.title || 'untitled'}) ${dir < 0 ? 'up' : 'down'}`, 'aria-disabled': atEnd ? 'true' : null,
        onclick: () => {
          if (atEnd || !moveIn(items, i, i + dir)) return;
          this.changed(true);
          announce(`${item.title || 'Item'} moved to position ${i + dir + 1} of ${items.length}.`);
        },
      });
    };
    const title = h('input', { type: 'text', id: key('title'), 'data-focus-key': key('title'), value: item.title ?? '' });
    title.dataset.pointer = `${p}/title`;
    const heading = h('h4', { text: `${number}. ${item.title || '(untitled)'}` });
    title.addEventListener('input', () => { item.title = title.value; heading.textContent = `${number}. ${item.title || '(untitled)'}`; this.changed(); });

    const typeOptions = ITEM_TYPES.map((t) => ({ value: t, text: t.replace(/_/g, ' ') }));
    if (item.type && !ITEM_TYPES.includes(item.type)) typeOptions.push({ value: item.type, text: item.type });
    const type = select(typeOptions, item.type ?? 'button', { id: key('type'), 'data-focus-key': key('type') });
    type.dataset.pointer = `${p}/type`;
    type.addEventListener('change', () => {
      const nesting = type.value === 'nested_menu' || item.type === 'nested_menu';
      item.type = type.value;
      item.nav_items ??= [];
      this.changed(nesting);
    });

    const kind = this.pendingKind.get(item.id) || linkKind(item);
    const kinds = [{ value: 'none', text: 'Nothing' }, { value: 'screen', text: 'A screen' }, { value: 'web', text: 'A web address' }];
    if (kind === 'other') kinds.push({ value: 'other', text: `Data ${item.data?.type || ''} (kept)` });
    const link = select(kinds, kind, { id: key('link'), 'data-focus-key': key('link') });
    link.addEventListener('change', () => {
      const data = { ...emptyData(), ...(item.data || {}) };
      if (link.value === 'web') Object.assign(data, { type: 'WEB_URL', target: null, source: data.type === 'WEB_URL' ? data.source : null });
      else Object.assign(data, { type: null, source: null, target: link.value === 'screen' ? data.target : null });
      item.data = data;
      if (link.value === 'screen' && !data.target) this.pendingKind.set(item.id, 'screen'); else this.pendingKind.delete(item.id);
      this.changed(true);
    });

    let linkField = null;
    if (kind === 'screen') {
      const screen = this.getScreen();
      const options = [{ value: '', text: '(choose a screen)' }, ...state.screens.map((s) => ({ value: s.id, text: s.id === screen.id ? `${s.name} (this screen)` : s.name }))];
      if (item.data?.target && !state.screens.some((s) => s.id === item.data.target)) options.push({ value: item.data.target, text: `${item.data.target} (unknown screen)` });
      const target = select(options, item.data?.target ?? '', { id: key('target'), 'data-focus-key': key('target') });
      target.dataset.pointer = `${p}/data/target`;
      target.addEventListener('change', () => { item.data = { ...emptyData(), ...(item.data || {}), target: target.value || null }; this.changed(); });
      linkField = h('div', { class: 'field' }, h('label', { for: target.id, text: 'Screen' }), target);
    } else if (kind === 'web') {
      const url = h('input', { type: 'text', inputmode: 'url', id: key('url'), 'data-focus-key': key('url'), value: item.data?.source ?? '', placeholder: 'https://…' });
      url.dataset.pointer = `${p}/data/source`;
      url.addEventListener('input', () => { item.data = { ...emptyData(), ...(item.data || {}), type: 'WEB_URL', source: url.value === '' ? null : url.value }; this.changed(); });
      linkField = h('div', { class: 'field' }, h('label', { for: url.id, text: 'Web address' }), url);
    }

    const nested = item.type === 'nested_menu';
    item.nav_items ??= [];
    const children = nested
      ? (depth < MAX_DEPTH ? this.itemList(item.nav_items, `${p}/nav_items`, `${ownerName} › ${item.title || navName}`, `${number}.`, depth + 1, item)
        : h('p', { class: 'hint', text: `Menus nest at most ${MAX_DEPTH} levels here.` }))
      : (item.nav_items.length ? h('p', { class: 'hint', text: `Holds ${item.nav_items.length} nested item(s), kept; make it a nested menu to edit them.` }) : null);

    return h('li', {
      class: 'nav-item', 'data-pointer': p, 'data-item-id': item.id, 'data-item-type': item.type || '', 'aria-label': `${ownerName} ${navName}`,
      'data-label': `Item ${number}${item.title ? ` (${item.title})` : ''}`,
    },
      h('div', { class: 'card-head' },
        heading,
        h('div', { class: 'card-actions' }, move(-1), move(1),
          h('button', {
            type: 'button', class: 'icon-button danger', 'data-focus-key': key('remove'), text: '✕',
            'aria-label': `Remove ${navName} (${item.title || 'untitled'}) of ${ownerName}`,
            onclick: () => {
              items.splice(i, 1);
              this.changed(true);
              announce(`${item.title || 'Item'} removed.`);
            },
          }))),
      h('div', { class: 'nav-item-fields', 'data-pointer': `${p}/data` },
        h('div', { class: 'field' }, h('label', { for: title.id, text: 'Title' }), title),
        h('div', { class: 'field' }, h('label', { for: type.id, text: 'Type' }), type),
        h('div', { class: 'field' }, h('label', { for: link.id, text: 'Opens' }), link),
        linkField),
      children);
  }
}

export class HooksEditor {
  constructor({ getScreen, onChange, plugins }) {
    this.getScreen = getScreen;
    this.onChange = onChange;
    this.plugins = null;
    this.el = h('section', { class: 'hooks-editor', 'aria-labelledby': 'hooks-heading', 'data-pointer': '/hooks' });
    plugins().then((list) => { this.plugins = list; if (this.el.isConnected) this.render(); });
  }

  render() {
    const focus = focusKeyOf(this.el);
    const lists = [
      { key: 'preload_plugins', label: 'Preload plugins', hint: 'run before the screen loads' },
      { key: 'postload_plugins', label: 'Postload plugins', hint: 'run after it loads' },
    ];
    this.el.replaceChildren(
      h('h2', { id: 'hooks-heading', text: 'Hooks' }),
      ...[this.plugins === null ? h('p', { class: 'hint', text: 'Loading the plugins…' })
        : (this.plugins.length ? null : h('p', { class: 'hint' }, 'No plugins are registered in this app: ', h('a', { href: '#/plugins', text: 'register one' }), ' to hook it here.')),
      h('div', { class: 'hooks-grid' }, lists.map((l) => this.hookList(l)))].filter(Boolean));
    restoreFocus(this.el, focus);
  }

  hookList({ key, label, hint }) {
    const screen = this.getScreen();
    const entries = screen.hooks?.[key] || [];
    const p = `/hooks/${key}`;
    const legendId = uid('hooks');
    const rows = entries.map((entry, i) => {
      const plugin = (this.plugins || []).find((x) => x.identifier === entry.identifier);
      const weight = h('input', { type: 'number', step: 1, id: `hook-${key}-${i}-weight`, 'data-focus-key': `hook-${key}-${i}-weight`, value: entry.weight ?? '' });
      weight.dataset.pointer = `${p}/${i}/weight`;
      weight.addEventListener('input', () => { entry.weight = weight.value === '' ? null : Number(weight.value); this.onChange(); });
      return h('li', { class: 'hook-row', 'data-pointer': `${p}/${i}`, 'data-identifier': entry.identifier, 'data-label': plugin?.name || entry.identifier },
        h('span', { class: 'hook-name', 'data-pointer': `${p}/${i}/identifier` },
          h('strong', { text: plugin?.name || entry.identifier }), ' ', h('code', { text: entry.identifier }),
          entry.type ? h('span', { class: 'muted', text: ` · ${entry.type}` }) : null),
        this.hookScreenField(entry, key, i, `${p}/${i}/screen_id`),
        h('div', { class: 'field inline' }, h('label', { for: weight.id, text: 'Weight' }), weight),
        h('button', {
          type: 'button', class: 'icon-button danger', 'data-focus-key': `hook-${key}-${i}-remove`, text: '✕',
          'aria-label': `Remove ${entry.identifier} from the ${label.toLowerCase()}`,
          onclick: () => {
            screen.hooks = { ...screen.hooks, [key]: entries.filter((e) => e !== entry) };
            this.render();
            this.onChange();
            this.el.querySelector(`[data-focus-key="hook-${key}-add"]`)?.focus();
            announce(`${entry.identifier} removed from the ${label.toLowerCase()}.`);
          },
        }));
    });
    let add = null;
    if (this.plugins?.length) {
      const choice = select(this.plugins.map((x) => ({ value: x.identifier, text: `${x.name || x.identifier} (${x.identifier})` })), this.plugins[0].identifier,
        { id: `hook-${key}-choice`, 'data-focus-key': `hook-${key}-choice` });
      add = h('div', { class: 'nested-add' },
        h('label', { for: choice.id, text: `Plugin to add (${hint})` }), choice,
        h('button', {
          type: 'button', class: 'button small', 'data-focus-key': `hook-${key}-add`, text: `+ Add to ${label.toLowerCase()}`,
          onclick: () => {
            const plugin = this.plugins.find((x) => x.identifier === choice.value);
            const weight = entries.reduce((m, e) => Math.max(m, Number(e.weight) || 0), 0) + 1;
            const entry = { identifier: plugin.identifier, type: plugin.type || 'general', weight };
            screen.hooks = { preload_plugins: [], postload_plugins: [], ...(screen.hooks || {}), [key]: [...entries, entry] };
            this.render();
            this.onChange();
            this.el.querySelector(`[data-focus-key="hook-${key}-${entries.length}-weight"]`)?.focus();
            announce(`${plugin.identifier} added to the ${label.toLowerCase()}.`);
          },
        }));
    }
    return h('fieldset', { class: 'group hook-list', 'data-pointer': p, 'data-hook': key, 'data-label': label },
      h('legend', { id: legendId, text: label }),
      rows.length ? h('ol', { class: 'hook-rows' }, rows) : h('p', { class: 'empty', text: `No ${label.toLowerCase()}.` }),
      add);
  }

  /**
   * The screen a hook is, when the hook is itself a screen (`screen_id`): one of the app's screens
   * by name, or none (the member is then left out, as the server writes it).
   */
  hookScreenField(entry, key, i, pointer) {
    const screen = this.getScreen();
    const options = [{ value: '', text: '(not a screen)' },
      ...state.screens.map((s) => ({ value: s.id, text: s.id === screen.id ? `${s.name} (this screen)` : s.name }))];
    const current = entry.screen_id ? String(entry.screen_id).toLowerCase() : '';
    if (current && !state.screens.some((s) => s.id === current)) options.push({ value: current, text: 'A screen not in this app' });
    const picker = select(options, current, { id: `hook-${key}-${i}-screen`, 'data-focus-key': `hook-${key}-${i}-screen` });
    picker.dataset.pointer = pointer;
    const clear = h('button', {
      type: 'button', class: 'link-button hook-screen-clear', 'data-focus-key': `hook-${key}-${i}-screen-clear`, text: 'Clear',
      'aria-label': `Clear the screen of ${entry.identifier}`, title: 'Not a screen', hidden: !current,
      onclick: () => { picker.value = ''; picker.dispatchEvent(new Event('change', { bubbles: true })); picker.focus(); },
    });
    picker.addEventListener('change', () => {
      if (picker.value) entry.screen_id = picker.value; else delete entry.screen_id;
      clear.hidden = !picker.value;
      this.onChange();
    });
    return h('div', { class: 'field inline hook-screen' }, h('label', { for: picker.id, text: 'Screen' }), picker, clear);
  }
}

export { pluginLoader };
