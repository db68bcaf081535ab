// The components of a screen (or layout): add from the catalog, remove, reorder (drag and drop,
// move buttons, Alt+ArrowUp/Down), and edit cell styles, header, item limit, data source and
// target. Edits change the draft in place and call onChange; nothing is saved here.
import { state, find, can } from '../state.js';
import { h, select, uuid, uid, focusKeyOf, restoreFocus } from '../dom.js';
import { formatSize } from '../family-math.js';
import { SOURCE_TYPES, defaultCellStyle, sourceTypeProblem } from '../component-rules.js';
import { announce } from '../notify.js';
import { clearFieldErrors, placeErrors } from '../field-errors.js';
import { componentPluginSettings } from '../plugins.js';

export { SOURCE_TYPES, defaultCellStyle };

export function typeName(typeId) {
  return find.componentType(typeId)?.name || typeId;
}

const CUSTOM = '__custom__';

/** Snake-case keys in a description ("(cell_body_component_type)") read as words. */
export function plainDescription(text) {
  return String(text || '').replace(/\s*\(([a-z0-9]+(?:_[a-z0-9]+)+)\)/g, '').replace(/\b([a-z0-9]+(?:_[a-z0-9]+)+)\b/g, (m) => m.replace(/_/g, ' '));
}

/** One line saying what a folded component holds. */
function summary(c, screen) {
  const parts = [(c.cell_styles || []).join(', ') || 'no cell style'];
  if (c.header?.visible) parts.push('header');
  if (c.rules?.item_limit !== undefined && c.rules?.item_limit !== null) parts.push(`limit ${c.rules.item_limit}`);
  if (!screen.connected && (c.data?.source || c.data?.type)) parts.push(`${c.data.type || '?'} ${c.data.source || ''}`.trim());
  if (c.data?.target) parts.push(`opens ${find.screen(c.data.target)?.name || 'a screen'}`);
  return parts.join(' · ');
}

export class ComponentList {
  /**
   * @param {{getScreen: () => object, onChange: () => void, pointerBase?: string}} options
   *   getScreen returns the draft (its ui_components are edited in place).
   */
  constructor({ getScreen, onChange, pointerBase = '/ui_components', title = 'Components', getOwner = null, parentName = null }) {
    this.getScreen = getScreen;
    /** What holds the edited ui_components: the screen, or a group component (nested lists). */
    this.getOwner = getOwner || getScreen;
    this.parentName = parentName;
    this.nested = Boolean(parentName);
    this.onChange = onChange;
    this.pointerBase = pointerBase;
    this.title = title;
    this.dragIndex = null;
    /** Ids of the components shown folded (a summary line instead of their fields). */
    this.folded = new Set();
    /** The lists of the children of group components, by the group's id. */
    this.children = new Map();
    this.headingId = this.nested ? uid('children-heading') : 'components-heading';
    this.helpId = this.nested ? uid('children-help') : 'components-help';
    this.el = h('section', { class: ['components', this.nested && 'nested-components'], 'aria-labelledby': this.headingId, 'data-pointer': pointerBase });
  }

  get components() {
    const owner = this.getOwner();
    owner.ui_components ??= [];
    return owner.ui_components;
  }

  /** The list editing the children of group component `c` at pointer `p` (kept across renders). */
  childList(c, p, name) {
    let list = this.children.get(c.id);
    if (!list || list.pointerBase !== `${p}/ui_components` || list.parentName !== name) {
      const folded = list?.folded;
      list = new ComponentList({
        getScreen: this.getScreen, getOwner: () => c, onChange: this.onChange,
        pointerBase: `${p}/ui_components`, parentName: name,
      });
      if (folded) list.folded = folded;
      this.children.set(c.id, list);
    }
    list.getOwner = () => c;
    list.render();
    return list.el;
  }

  /** The cards of this list (not those of nested lists). */
  ownCards() {
    return this.list ? [...this.list.children].filter((el) => el.classList.contains('component-card')) : [];
  }

  render() {
    const focus = focusKeyOf(this.el);
    const screen = this.getScreen();
    const components = this.components;
    const family = find.family(screen.family);
    this.list = h('ol', { class: 'component-list', 'aria-describedby': this.helpId },
      components.map((c, i) => this.card(c, i, components.length, family, screen)));
    if (!components.length) this.list.append(h('li', { class: 'empty', text: this.nested ? `${this.parentName} holds no components yet.` : 'No components yet: add one from the catalog below.' }));
    this.wireDragAndDrop();
    const ids = new Set(components.map((c) => c.id));
    for (const id of [...this.children.keys()]) if (!ids.has(id)) this.children.delete(id);
    if (this.nested) {
      this.el.replaceChildren(
        h('h4', { id: this.headingId, text: `Components in ${this.parentName} (${components.length})` }),
        h('p', { class: 'visually-hidden', id: this.helpId, text: can('editor') ? `Nested components of ${this.parentName}: reorder with the ↑ ↓ buttons or Alt+Arrow Up/Down.` : `Nested components of ${this.parentName}.` }),
        this.list,
        can('editor') ? this.nestedCatalog() : null);
      restoreFocus(this.el, focus);
      return;
    }
    this.el.replaceChildren(
      h('div', { class: 'section-head' },
        h('h2', { id: 'components-heading', text: `${this.title} (${components.length})` }),
        components.length ? h('button', {
          type: 'button', class: 'button small', 'data-focus-key': 'fold-all',
          text: components.every((c) => this.folded.has(c.id)) ? 'Unfold all' : 'Fold all',
          onclick: () => {
            const foldAll = !components.every((c) => this.folded.has(c.id));
            components.forEach((c) => (foldAll ? this.folded.add(c.id) : this.folded.delete(c.id)));
            this.render();
          },
        }) : null),
      // A role that may not change the app gets no way to add, move or remove components.
      can('editor')
        ? h('p', { class: 'hint', id: 'components-help', text: 'Reorder by dragging the ⠿ handle, with the ↑ ↓ buttons, or with Alt+Arrow Up/Down inside a component.' })
        : h('p', { class: 'visually-hidden', id: 'components-help', text: 'The components, in order (read only).' }),
      this.list,
      can('editor') ? this.catalog() : null);
    restoreFocus(this.el, focus);
  }

  card(c, i, count, family, screen) {
    const p = `${this.pointerBase}/${i}`;
    const editable = can('editor');
    const type = find.componentType(c.component_type);
    const name = `${typeName(c.component_type)} ${i + 1}${this.nested ? ` in ${this.parentName}` : ''}`;
    const holdsChildren = c.component_type === 'group' || Boolean(type?.holds_children);
    const key = (suffix) => `c-${c.id}-${suffix}`;
    const moveButton = (dir) => {
      const atEnd = dir < 0 ? i === 0 : i === count - 1;
      return h('button', {
        type: 'button', class: 'icon-button', 'data-focus-key': key(dir < 0 ? 'up' : 'down'),
        'aria-label': `Move ${name} ${dir < 0 ? 'up' : 'down'}`, title: dir < 0 ? 'Move up (Alt+↑)' : 'Move down (Alt+↓)',
        'aria-disabled': atEnd ? 'true' : null, text: dir < 0 ? '↑' : '↓',
        onclick: () => { if (!atEnd) this.move(i, i + dir); },
      });
    };
    // A span, not a <button>: Firefox starts no drag from a button.
    const handle = h('span', {
      class: 'drag-handle', role: 'button', tabindex: '0', 'data-focus-key': key('handle'),
      'aria-label': `Reorder ${name}: drag, or press Alt+Arrow Up or Down`, title: 'Drag to reorder (or Alt+↑ / Alt+↓)', text: '⠿',
    });
    const folded = this.folded.has(c.id);
    const bodyId = `${key('body')}`;
    const li = h('li', {
      class: ['component-card', folded && 'folded'], 'data-pointer': p, 'data-component-id': c.id, 'data-index': String(i),
      'data-component-type': c.component_type, 'aria-label': name,
      'data-label': `Component ${i + 1} (${typeName(c.component_type)})`,
    },
    h('div', { class: 'card-head' },
      editable ? handle : null,
      h(this.nested ? 'h5' : 'h3', {}, `${i + 1}. ${typeName(c.component_type)}`, h('span', { class: 'muted', text: ` ${c.component_type}` })),
      folded ? h('span', { class: 'card-summary', text: summary(c, screen) }) : null,
      h('div', { class: 'card-actions' },
        h('button', {
          type: 'button', class: 'icon-button', 'data-focus-key': key('fold'), 'aria-expanded': folded ? 'false' : 'true',
          'aria-controls': bodyId, 'aria-label': `${folded ? 'Show' : 'Hide'} the fields of ${name}`, title: folded ? 'Unfold' : 'Fold',
          text: folded ? '▸' : '▾', onclick: () => { if (folded) this.folded.delete(c.id); else this.folded.add(c.id); this.render(); },
        }),
        editable ? [moveButton(-1), moveButton(1),
          h('button', {
            type: 'button', class: 'icon-button danger', 'data-focus-key': key('remove'),
            'aria-label': `Remove ${name}`, title: 'Remove', text: '✕', onclick: () => this.remove(i),
          })] : null)),
    h('div', { class: 'card-body', id: bodyId, hidden: folded },
      this.cellStyleField(c, p, family, name, key),
      this.headerField(c, p, name, key, family),
      this.limitField(c, p, name, key),
      this.dataFields(c, p, type, screen, name, key),
      type?.plugin ? componentPluginSettings(c, type.plugin, p, () => this.onChange()) : null,
      holdsChildren || c.ui_components?.length ? h('div', { class: 'wide' }, this.childList(c, p, name)) : null));
    handle.addEventListener('mousedown', () => { li.draggable = true; });
    handle.addEventListener('touchstart', () => { li.draggable = true; }, { passive: true });
    li.addEventListener('mouseup', () => { li.draggable = false; });
    li.addEventListener('keydown', (event) => {
      const up = event.key === 'ArrowUp';
      const down = event.key === 'ArrowDown';
      if (!up && !down) return;
      if (event.target.closest('.component-card') !== li) return; // a nested card's own keys
      if (!event.altKey && event.target !== handle) return;
      event.preventDefault();
      const to = i + (up ? -1 : 1);
      if (to < 0 || to >= count) { announce(`${name} is already ${up ? 'first' : 'last'}.`); return; }
      this.move(i, to);
    });
    return li;
  }

  cellStyleField(c, p, family, name, key) {
    c.cell_styles ??= [];
    const known = family ? family.cell_styles : [];
    const unknown = c.cell_styles.filter((id) => !known.some((s) => s.id === id));
    const box = (id, label, missing) => {
      const input = h('input', { type: 'checkbox', id: `${key('cs')}-${id}`, 'data-focus-key': `${key('cs')}-${id}`, checked: c.cell_styles.includes(id) });
      input.addEventListener('change', () => {
        const chosen = new Set(c.cell_styles);
        if (input.checked) chosen.add(id); else chosen.delete(id);
        c.cell_styles = [...known.map((s) => s.id), ...unknown].filter((s) => chosen.has(s));
        this.onChange();
      });
      return h('span', { class: ['check', missing && 'missing'] }, input, h('label', { for: input.id, text: label }));
    };
    return h('fieldset', { class: 'mini-group cell-style-choice', 'data-pointer': `${p}/cell_styles`, 'data-label': 'Cell styles' },
      h('legend', { text: `Cell styles of ${name}` }),
      known.length ? known.map((s) => box(s.id, `${s.id} (${formatSize(s.computed)})`, false))
        : h('span', { class: 'hint', text: family ? 'The family has no cell styles.' : 'Choose the screen’s family first.' }),
      unknown.map((id) => box(id, `${id} (not in the family)`, true)));
  }

  headerField(c, p, name, key, family) {
    c.header ??= { visible: false, style: null };
    const visible = h('input', { type: 'checkbox', id: key('hv'), 'data-focus-key': key('hv'), checked: Boolean(c.header.visible) });
    visible.dataset.pointer = `${p}/header/visible`;
    visible.dataset.label = 'Show header';
    // A header takes the height of the family's cell style it names (the default height without one).
    const styles = family ? family.cell_styles : [];
    const options = [{ value: '', text: 'Default height' },
      ...styles.map((s) => ({ value: s.id, text: `${s.id} (${formatSize(s.computed)})` }))];
    if (c.header.style && !styles.some((s) => s.id === c.header.style)) options.push({ value: c.header.style, text: `${c.header.style} (not in the family)` });
    const style = select(options, c.header.style ?? '', { id: key('hs'), 'data-focus-key': key('hs') });
    style.dataset.pointer = `${p}/header/style`;
    style.dataset.label = 'Header style';
    visible.addEventListener('change', () => { c.header = { ...c.header, visible: visible.checked }; this.onChange(); });
    style.addEventListener('change', () => { c.header = { ...c.header, style: style.value === '' ? null : style.value }; this.onChange(); });
    return h('fieldset', { class: 'mini-group' },
      h('legend', { text: `Header of ${name}` }),
      h('div', { class: 'inline-pair' },
        h('span', { class: 'check' }, visible, h('label', { for: visible.id, text: 'Show' })),
        h('label', { for: style.id, class: 'visually-hidden', text: `Header style of ${name}` }), style));
  }

  limitField(c, p, name, key) {
    const input = h('input', {
      type: 'number', min: 0, step: 1, id: key('limit'), 'data-focus-key': key('limit'),
      value: c.rules?.item_limit ?? '', placeholder: 'no limit', 'aria-describedby': `${key('limit')}-hint`,
    });
    input.dataset.pointer = `${p}/rules/item_limit`;
    input.addEventListener('input', () => {
      const rules = { ...(c.rules || {}) };
      if (input.value === '') delete rules.item_limit;
      else rules.item_limit = Number(input.value);
      c.rules = rules;
      this.onChange();
    });
    return h('div', { class: 'field' },
      h('label', { for: input.id, text: 'Item limit' }), input,
      h('span', { class: 'visually-hidden', id: `${key('limit')}-hint`, text: 'Empty: show every item.' }));
  }

  setData(c, field, value) {
    const data = { source: '', type: '', ...(c.data || {}) };
    if (field === 'target' && !value) delete data.target;
    else data[field] = value;
    const empty = !data.source && !data.type && !data.target && (data.connected === undefined || data.connected === null);
    c.data = empty ? null : data;
    this.onChange();
  }

  dataFields(c, p, type, screen, name, key) {
    const parts = [];
    const needsSource = type ? type.needs_data_source : true;
    const hasSource = Boolean(c.data?.source || c.data?.type);
    if (screen.connected) {
      parts.push(h('p', { class: 'hint', text: 'Connected screen: this component shows child ' + `${Number(p.split('/').pop()) + 1}` + ' of the item that opened the screen; it has no data source of its own.' }));
    } else if (needsSource || hasSource) {
      const source = h('input', { type: 'text', id: key('src'), 'data-focus-key': key('src'), value: c.data?.source ?? '', placeholder: 'e.g. 3119' });
      source.dataset.pointer = `${p}/data/source`;
      source.addEventListener('input', () => this.setData(c, 'source', source.value));
      parts.push(h('div', { class: 'field' }, h('label', { for: source.id, text: 'Data source' }), source),
        this.sourceTypeField(c, p, key));
    }
    const targets = [{ value: '', text: '(nothing)' }, ...state.screens.map((s) => ({ value: s.id, text: s.id === screen.id ? `${s.name} (this screen)` : s.name }))];
    if (c.data?.target && !state.screens.some((s) => s.id === c.data.target)) targets.push({ value: c.data.target, text: `${c.data.target} (unknown screen)` });
    const target = select(targets, c.data?.target ?? '', { id: key('target'), 'data-focus-key': key('target') });
    target.dataset.pointer = `${p}/data/target`;
    target.addEventListener('change', () => this.setData(c, 'target', target.value));
    parts.push(h('div', { class: 'field' }, h('label', { for: target.id, text: 'Tapping an item opens' }), target));
    return h('fieldset', { class: 'mini-group data-group', 'data-pointer': `${p}/data` },
      h('legend', { text: `Data of ${name}` }), parts);
  }

  /**
   * The source type: a picker of the types apps know, or a custom one (a data-source plugin's)
   * typed in. A value not in the list shows as custom.
   */
  sourceTypeField(c, p, key) {
    const current = c.data?.type ?? '';
    const known = SOURCE_TYPES.some((t) => t.value === current);
    const custom = Boolean(current) && !known;
    const picker = select([
      { value: '', text: '(choose a type)' },
      ...SOURCE_TYPES.map((t) => ({ value: t.value, text: `${t.text} · ${t.value}` })),
      { value: CUSTOM, text: 'Other (a data-source plugin’s type)…' },
    ], custom ? CUSTOM : current, { id: key('stype'), 'data-focus-key': key('stype') });
    const other = h('input', {
      type: 'text', id: key('stype-custom'), 'data-focus-key': key('stype-custom'), value: custom ? current : '',
      placeholder: 'e.g. MY_PLUGIN_FEED', hidden: !custom, 'aria-label': 'Custom source type',
    });
    // Errors about the type go to what the user sees: the picker, or the custom field.
    (custom ? other : picker).dataset.pointer = `${p}/data/type`;
    picker.addEventListener('change', () => {
      if (picker.value === CUSTOM) {
        other.hidden = false;
        delete picker.dataset.pointer;
        other.dataset.pointer = `${p}/data/type`;
        other.focus();
        this.setData(c, 'type', other.value);
        return;
      }
      other.hidden = true;
      delete other.dataset.pointer;
      picker.dataset.pointer = `${p}/data/type`;
      this.setData(c, 'type', picker.value);
    });
    other.addEventListener('input', () => this.setData(c, 'type', other.value));
    const host = h('div', { class: 'field' }, h('label', { for: picker.id, text: 'Source type' }), picker, other);
    // A type no data-source plugin can have is said at the field as soon as it is left (and the
    // save stops at it: sourceTypeProblems), not first on the Publish page.
    other.addEventListener('change', () => {
      clearFieldErrors(host);
      host.classList.remove('has-error');
      const message = sourceTypeProblem(other.value);
      if (message) placeErrors(host, [{ pointer: `${p}/data/type`, message }]);
    });
    return host;
  }

  /** A compact "add" for the components of a group: a type and a button. */
  nestedCatalog() {
    const types = state.componentTypes;
    const ownerId = this.getOwner().id;
    const choice = select(types.map((t) => ({ value: t.id, text: t.name })), types.some((t) => t.id === 'list') ? 'list' : types[0]?.id,
      { id: uid('nested-type'), 'data-focus-key': `nested-type-${ownerId}` });
    return h('div', { class: 'nested-add' },
      h('label', { for: choice.id, text: `Component type to add to ${this.parentName}` }), choice,
      h('button', {
        type: 'button', class: 'button small', 'data-focus-key': `nested-add-${ownerId}`, text: '+ Add component',
        'aria-label': `Add the chosen component type to ${this.parentName}`, onclick: () => this.add(choice.value),
      }));
  }

  catalog() {
    const screen = this.getScreen();
    return h('div', { class: 'catalog', role: 'group', 'aria-labelledby': 'catalog-heading' },
      h('h3', { id: 'catalog-heading', text: 'Add a component' }),
      h('div', { class: 'catalog-grid' }, state.componentTypes.map((t) => h('button', {
        type: 'button', class: 'catalog-item', 'data-type': t.id, 'data-focus-key': `add-${t.id}`,
        'aria-label': `Add ${t.name}`, title: plainDescription(t.description),
        onclick: () => this.add(t.id, screen),
      }, h('strong', { text: t.name }), h('span', { text: plainDescription(t.description) }),
      t.plugin ? h('span', { class: 'badge', text: 'plugin' }) : null))));
  }

  add(typeId) {
    if (!can('editor')) return;
    const screen = this.getScreen();
    const family = find.family(screen.family);
    const component = {
      id: uuid(),
      component_type: typeId,
      cell_styles: family?.cell_styles?.length ? [defaultCellStyle(family, typeId)] : [],
      header: { visible: false, style: null },
      rules: {},
      data: null,
    };
    this.components.push(component);
    this.render();
    this.onChange({ label: `add ${typeName(typeId)} ${this.components.length}${this.nested ? ` in ${this.parentName}` : ''}` });
    const first = this.el.querySelector(`[data-component-id="${CSS.escape(component.id)}"] input`);
    first?.focus();
    first?.closest('li')?.scrollIntoView({ block: 'nearest' });
    announce(`${typeName(typeId)} added as component ${this.components.length}.`);
  }

  remove(i) {
    if (!can('editor')) return;
    const [removed] = this.components.splice(i, 1);
    this.render();
    const label = `${typeName(removed.component_type)} ${i + 1}${this.nested ? ` in ${this.parentName}` : ''}`;
    this.onChange({ label: `remove ${label}`, removed: label });
    announce(`${label} removed.`);
    const cards = this.ownCards();
    const next = cards[Math.min(i, cards.length - 1)];
    (next?.querySelector('.drag-handle') || this.el.querySelector('.catalog-item, .nested-add select'))?.focus();
  }

  /** Moves component `from` to index `to` (keeping focus where it was). */
  move(from, to) {
    const list = this.components;
    if (!can('editor') || from === to || to < 0 || to >= list.length) return;
    const [c] = list.splice(from, 1);
    list.splice(to, 0, c);
    this.render();
    this.onChange({ label: `move ${typeName(c.component_type)} to position ${to + 1}` });
    announce(`${typeName(c.component_type)} moved to position ${to + 1} of ${list.length}.`);
  }

  /** Unfolds the component a pointer is in (so its field can take focus or show an error). */
  unfoldFor(pointer) {
    const m = new RegExp(`^${this.pointerBase}/(\\d+)`).exec(pointer || '');
    const c = m && this.components[Number(m[1])];
    if (c && this.folded.has(c.id)) { this.folded.delete(c.id); this.render(); }
    if (c) this.children.get(c.id)?.unfoldFor(pointer);
  }

  unfoldAllWithErrors(errors) {
    let changed = false;
    for (const e of errors) {
      const m = new RegExp(`^(?:/screen)?${this.pointerBase}/(\\d+)`).exec(e.pointer || '');
      const c = m && this.components[Number(m[1])];
      if (c && this.folded.delete(c.id)) changed = true;
    }
    if (changed) this.render();
    for (const list of this.children.values()) list.unfoldAllWithErrors(errors);
  }

  focusComponent(index) {
    const c = this.components[index];
    if (c && this.folded.has(c.id)) { this.folded.delete(c.id); this.render(); }
    const card = this.ownCards()[index];
    if (!card) return;
    card.scrollIntoView({ block: 'center' });
    card.classList.add('flash');
    setTimeout(() => card.classList.remove('flash'), 1200);
    card.querySelector('.drag-handle')?.focus();
  }

  wireDragAndDrop() {
    const list = this.list;
    const clear = () => list.querySelectorAll('.drop-before, .drop-after, .dragging').forEach((el) => el.classList.remove('drop-before', 'drop-after', 'dragging'));
    const ownCard = (target) => {
      const card = target.closest?.('.component-card');
      return card && card.parentElement === list ? card : null;
    };
    // Over a nested card: the card of this list that holds it.
    const enclosingCard = (target) => {
      let card = target.closest?.('.component-card');
      while (card && card.parentElement !== list) card = card.parentElement?.closest('.component-card');
      return card || null;
    };
    const dropIndex = (event) => {
      const card = enclosingCard(event.target);
      if (!card) return null;
      const rect = card.getBoundingClientRect();
      const before = event.clientY < rect.top + rect.height / 2;
      return { card, before, index: Number(card.dataset.index) + (before ? 0 : 1) };
    };
    list.addEventListener('dragstart', (event) => {
      const card = ownCard(event.target);
      if (!card) return;
      this.dragIndex = Number(card.dataset.index);
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', card.dataset.componentId);
      card.classList.add('dragging');
    });
    list.addEventListener('dragover', (event) => {
      if (this.dragIndex === null) return;
      const target = dropIndex(event);
      if (!target) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      list.querySelectorAll('.drop-before, .drop-after').forEach((el) => el.classList.remove('drop-before', 'drop-after'));
      target.card.classList.add(target.before ? 'drop-before' : 'drop-after');
    });
    list.addEventListener('dragleave', (event) => {
      if (!list.contains(event.relatedTarget)) list.querySelectorAll('.drop-before, .drop-after').forEach((el) => el.classList.remove('drop-before', 'drop-after'));
    });
    list.addEventListener('drop', (event) => {
      if (this.dragIndex === null) return;
      event.preventDefault();
      const target = dropIndex(event);
      const from = this.dragIndex;
      this.dragIndex = null;
      clear();
      if (!target) return;
      const to = target.index > from ? target.index - 1 : target.index;
      this.move(from, to);
    });
    list.addEventListener('dragend', () => {
      this.dragIndex = null;
      clear();
      list.querySelectorAll('[draggable="true"]').forEach((el) => { el.draggable = false; });
    });
  }
}
