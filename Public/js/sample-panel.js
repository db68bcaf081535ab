// The preview's "Sample content" panel: for each data source of the screen (or each component
// without one), the section title and the item titles the preview shows, editable; kept in
// localStorage per app (sample-feed.js) and never sent to the server or published.
import { h } from './dom.js';
import { typeName } from './views/components.js';
import { feedKey, feedLabel, feedFor, defaultFeed, parseTitles, formatTitles, loadFeeds, saveFeed } from './sample-feed.js';

const OPEN_KEY = 'rivers.sampleOpen';

/** Every component of a screen (groups' children too), with its name as the form says it. */
function componentsOf(screen) {
  const out = [];
  const walk = (list, parent) => (Array.isArray(list) ? list : []).forEach((c, i) => {
    const name = `${typeName(c?.component_type)} ${i + 1}${parent ? ` in ${parent}` : ''}`;
    out.push({ component: c, index: i, name });
    walk(c?.ui_components, name);
  });
  walk(screen?.ui_components, '');
  return out;
}

export class SamplePanel {
  /** @param {{appId: string, onChange: (feeds: object) => void}} options */
  constructor({ appId, onChange }) {
    this.appId = appId;
    this.onChange = onChange;
    this.feeds = loadFeeds(globalThis.localStorage, appId);
    this.signature = null;
    this.body = h('div', { class: 'sample-feeds', id: 'sample-feeds' });
    this.el = h('details', { class: 'sample-panel', id: 'sample-panel' },
      h('summary', { text: 'Sample content' }),
      h('p', { class: 'hint', text: 'The titles the preview shows, per data source. Kept in this browser; never saved or published.' }),
      this.body);
    this.el.open = sessionStorage.getItem(OPEN_KEY) === '1';
    this.el.addEventListener('toggle', () => sessionStorage.setItem(OPEN_KEY, this.el.open ? '1' : '0'));
    // Ctrl+Z in these fields undoes the typing, not an edit of the screen (the editor's history).
    this.el.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && /^[zy]$/i.test(event.key) && event.target.matches('input, textarea')) event.stopPropagation();
    });
  }

  /** Redraws the list when the screen's data sources change (fields being typed in are kept). */
  update(screen) {
    const groups = new Map();
    for (const { component, index, name } of componentsOf(screen)) {
      const key = feedKey(component, index);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(name);
    }
    const signature = JSON.stringify([...groups.entries()]);
    if (signature === this.signature) return;
    this.signature = signature;
    if (!groups.size) {
      this.body.replaceChildren(h('p', { class: 'hint', text: 'Add a component to give it sample content.' }));
      return;
    }
    this.body.replaceChildren(...[...groups.entries()].map(([key, names], n) => this.feedFields(key, names, n)));
  }

  feedFields(key, names, n) {
    const shown = feedFor(this.feeds, key);
    const base = defaultFeed(key);
    const mine = this.feeds[key];
    const title = h('input', { type: 'text', id: `sample-title-${n}`, value: mine?.title || '', placeholder: base.title, autocomplete: 'off', maxlength: 80 });
    const items = h('textarea', { id: `sample-items-${n}`, rows: 3, spellcheck: 'false' });
    items.value = formatTitles(mine?.items?.length ? mine.items : shown.items);
    const store = () => {
      const typed = parseTitles(items.value);
      const same = typed.join('\n') === base.items.join('\n');
      const feed = { title: title.value.trim(), items: same ? [] : typed };
      this.feeds = saveFeed(globalThis.localStorage, this.appId, key, feed.title || feed.items.length ? feed : null);
      this.onChange(this.feeds);
    };
    title.addEventListener('input', store);
    items.addEventListener('input', store);
    const reset = h('button', {
      type: 'button', class: 'link-button', text: 'Start over',
      onclick: () => {
        this.feeds = saveFeed(globalThis.localStorage, this.appId, key, null);
        title.value = '';
        items.value = formatTitles(base.items);
        this.onChange(this.feeds);
      },
    });
    return h('fieldset', { class: 'sample-feed', 'data-feed': key },
      h('legend', { text: `${names.join(', ')}${key.startsWith('#') ? '' : ` · ${feedLabel(key)}`}` }),
      h('div', { class: 'field' }, h('label', { for: `sample-title-${n}`, text: 'Section title' }), title),
      h('div', { class: 'field' }, h('label', { for: `sample-items-${n}`, text: 'Item titles, one a line' }), items),
      reset);
  }
}
