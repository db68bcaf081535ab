// Layouts: templates of components that new screens start from. Made with "Save as layout" in a
// screen; here they are listed, renamed, deleted, and used to start new screens.
import { api, state, subscribe, find, refresh } from '../state.js';
import { h } from '../dom.js';
import { confirmDialog, promptDialog } from '../dialogs.js';
import { showError, info } from '../notify.js';
import { typeName } from './components.js';

export async function mount(root) {
  const list = h('div', { class: 'layout-list' });
  const render = () => list.replaceChildren(...(state.layouts.length ? state.layouts.map(card) : [
    h('p', { class: 'empty' }, 'No layouts yet. Open a screen and use ', h('strong', { text: 'Save as layout' }), ' to keep its components as a template.'),
  ]));
  render();
  const unsubscribe = subscribe((kind) => { if (kind === 'layouts' || kind === 'families') render(); });
  root.append(h('div', { class: 'pane-body' },
    h('h1', { text: 'Layouts' }),
    h('p', { class: 'lede', text: 'A layout is a set of components with a family. Start new screens from one; each screen gets its own copy.' }),
    list));
  refresh('layouts').catch((error) => showError(error, 'Loading layouts'));
  return { title: 'Layouts', unmount: unsubscribe };
}

function card(layout) {
  const family = find.family(layout.family);
  const headingId = `layout-${layout.id}`;
  return h('article', { class: 'layout-card', 'aria-labelledby': headingId, 'data-layout-id': layout.id },
    h('h2', { id: headingId, text: layout.name }),
    h('p', { class: 'item-meta' }, h('code', { text: layout.id }), ` · family ${family ? family.name : layout.family} · ${layout.ui_components.length} component${layout.ui_components.length === 1 ? '' : 's'}`),
    h('ol', { class: 'layout-components' }, layout.ui_components.map((c) => h('li', {},
      typeName(c.component_type),
      c.cell_styles?.length ? h('span', { class: 'muted', text: ` · ${c.cell_styles.join(', ')}` }) : null))),
    h('div', { class: 'card-actions' },
      h('a', { class: 'button primary', href: `#/screens?layout=${encodeURIComponent(layout.id)}`, 'aria-label': `New screen from layout ${layout.name}`, text: 'New screen from it' }),
      h('button', { type: 'button', class: 'button', 'aria-label': `Rename layout ${layout.name}`, text: 'Rename', onclick: () => rename(layout) }),
      h('button', { type: 'button', class: 'button danger', 'aria-label': `Delete layout ${layout.name}`, text: 'Delete', onclick: () => remove(layout) })));
}

async function rename(layout) {
  const name = await promptDialog({ title: `Rename layout “${layout.name}”`, label: 'Layout name', value: layout.name, confirm: 'Rename' });
  if (!name || name === layout.name) return;
  try {
    await api.patch('layouts', layout.id, { name }, `"${layout.revision}"`);
    info(`Layout renamed to “${name}”.`);
  } catch (error) {
    showError(error, error.isConflict ? 'Renaming the layout (it changed meanwhile; the list is reloaded, try again)' : 'Renaming the layout');
  }
  await refresh('layouts').catch((error) => showError(error, 'Loading layouts'));
}

async function remove(layout) {
  const ok = await confirmDialog({ title: `Delete layout “${layout.name}”?`, text: 'Screens made from it keep their components.', confirm: 'Delete layout', danger: true });
  if (!ok) return;
  try {
    await api.remove('layouts', layout.id, `"${layout.revision}"`);
    info(`Layout “${layout.name}” deleted.`);
  } catch (error) {
    showError(error, error.isConflict ? 'Deleting the layout (it changed meanwhile; the list is reloaded)' : 'Deleting the layout');
  }
  await refresh('layouts').catch((error) => showError(error, 'Loading layouts'));
}
