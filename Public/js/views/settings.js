// The app's settings: its name, its slug (which is in its public URL: the old URL redirects for 90
// days), and deleting it (archiving: an instance administrator can restore it).
import { api, state, can, appChanged, publicUrl, rememberApp } from '../state.js';
import { h, field } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { info, showError } from '../notify.js';
import { clearFieldErrors, placeErrors, focusPointer } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { adminOnly } from './members.js';

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export async function mount(root) {
  if (!can('admin')) return adminOnly(root, 'Settings');
  const view = new SettingsView(root);
  view.render();
  return {
    title: 'Settings',
    isDirty: () => view.dirty,
    discard: () => view.render(),
  };
}

class SettingsView {
  constructor(root) {
    this.root = root;
  }

  get dirty() {
    return Boolean(this.name && (this.name.value !== (state.app.name || '') || this.slug.value !== state.app.slug));
  }

  render() {
    const app = state.app;
    this.name = h('input', { type: 'text', id: 'app-name-input', value: app.name || '', autocomplete: 'off', maxlength: 200, required: true });
    this.nameButton = h('button', { type: 'submit', class: 'button primary', id: 'rename-app', text: 'Rename' });
    this.nameErrors = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.nameForm = h('form', { class: 'settings-form', novalidate: true, 'aria-labelledby': 'name-heading', onsubmit: (e) => { e.preventDefault(); this.rename(); } },
      this.nameErrors,
      h('div', { class: 'row' },
        field('Name', this.name, { pointer: '/name', className: 'grow', hint: 'How people see the app in the editor.' }),
        h('div', { class: 'form-actions' }, this.nameButton)));

    this.slug = h('input', { type: 'text', id: 'app-slug-input', value: app.slug, autocomplete: 'off', spellcheck: 'false', maxlength: 63, required: true, class: 'url-input' });
    this.newUrl = h('p', { class: 'hint', id: 'slug-new-url' });
    this.slugButton = h('button', { type: 'submit', class: 'button', id: 'change-slug', text: 'Change slug' });
    this.slugErrors = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.slug.addEventListener('input', () => this.showNewUrl());
    this.slugForm = h('form', { class: 'settings-form', novalidate: true, 'aria-labelledby': 'slug-heading', onsubmit: (e) => { e.preventDefault(); this.changeSlug(); } },
      this.slugErrors,
      h('p', { class: 'notice', id: 'slug-warning' },
        h('strong', { text: 'The slug is in the public URL apps download from. ' }),
        'After a change, the old URL redirects to the new one for 90 days, then stops working: update the apps that use it before then.'),
      h('div', { class: 'row' },
        field('Slug', this.slug, { pointer: '/slug', className: 'grow', hint: 'Lower-case letters, digits and -, starting with a letter or digit.' }),
        h('div', { class: 'form-actions' }, this.slugButton)),
      h('p', { class: 'hint' }, 'Public URL now: ', h('code', { id: 'slug-current-url', text: publicUrl() })),
      this.newUrl);
    this.slug.setAttribute('aria-describedby', `${this.slug.getAttribute('aria-describedby') || ''} slug-warning`.trim());

    this.deleteButton = h('button', { type: 'button', class: 'button danger', id: 'delete-app', text: 'Delete this app…', onclick: () => this.remove() });
    this.root.replaceChildren(h('div', { class: 'pane-body team' },
      h('h1', { text: 'Settings' }),
      h('p', { class: 'lede', text: `The settings of ${app.name || app.slug}.` }),
      h('section', { class: 'panel', 'aria-labelledby': 'name-heading' },
        h('h2', { id: 'name-heading', text: 'Name' }),
        this.nameForm),
      h('section', { class: 'panel', 'aria-labelledby': 'slug-heading' },
        h('h2', { id: 'slug-heading', text: 'Slug and public URL' }),
        this.slugForm),
      h('section', { class: 'panel danger-zone', 'aria-labelledby': 'delete-heading' },
        h('h2', { id: 'delete-heading', text: 'Delete the app' }),
        h('p', { text: 'Deleting archives the app: no one can open it in the editor, its tokens stop working and its public URL stops answering. Nothing is erased: an instance administrator can restore it.' }),
        this.deleteButton)));
  }

  showNewUrl() {
    const slug = this.slug.value.trim();
    const current = state.app.slug;
    if (!slug || slug === current) { this.newUrl.replaceChildren(); return; }
    const url = publicUrl().replace(`/rivers/${encodeURIComponent(current)}/`, `/rivers/${encodeURIComponent(slug)}/`);
    this.newUrl.replaceChildren('New public URL: ', h('code', { text: url }));
  }

  async save(body, { form, errorsHost, button, context }) {
    clearFieldErrors(form);
    button.disabled = true;
    try {
      const app = await api.updateApp(body);
      appChanged(app);
      return app;
    } catch (error) {
      showRequestError(error, { root: form, errorsHost, context });
      return null;
    } finally {
      button.disabled = false;
    }
  }

  async rename() {
    const name = this.name.value.trim();
    if (!name) {
      clearFieldErrors(this.nameForm);
      placeErrors(this.nameForm, [{ pointer: '/name', message: 'Give the app a name.' }]);
      focusPointer(this.nameForm, '/name');
      return;
    }
    if (name === state.app.name) { info('The name is unchanged.'); return; }
    const app = await this.save({ name }, { form: this.nameForm, errorsHost: this.nameErrors, button: this.nameButton, context: 'Renaming the app' });
    if (!app) return;
    info(`The app is now called “${app.name}”.`);
    this.render();
    document.getElementById('app-name-input')?.focus();
  }

  async changeSlug() {
    const slug = this.slug.value.trim();
    const before = state.app.slug;
    clearFieldErrors(this.slugForm);
    if (!SLUG.test(slug)) {
      placeErrors(this.slugForm, [{ pointer: '/slug', message: 'Use lower-case letters, digits and -, starting with a letter or digit (at most 63).' }]);
      focusPointer(this.slugForm, '/slug');
      return;
    }
    if (slug === before) { info('The slug is unchanged.'); return; }
    const ok = await confirmDialog({
      title: `Change the slug to “${slug}”?`,
      text: `The public URL changes with it. The old URL (…/rivers/${before}/rivers.json) redirects to the new one for 90 days, then stops working: update the apps that download it before then.`,
      confirm: 'Change slug', cancel: 'Keep the slug', danger: true,
    });
    if (!ok) return;
    const app = await this.save({ slug }, { form: this.slugForm, errorsHost: this.slugErrors, button: this.slugButton, context: 'Changing the slug' });
    if (!app) return;
    info(`The slug is now “${app.slug}”; the old public URL redirects for 90 days.`);
    this.render();
    document.getElementById('app-slug-input')?.focus();
  }

  async remove() {
    const app = state.app;
    const ok = await confirmDialog({
      title: `Delete ${app.name || app.slug}?`,
      text: 'The app is archived: no one can open it, its tokens stop working, and apps can no longer download its public document. Only an instance administrator can restore it.',
      confirm: 'Delete the app', cancel: 'Keep it', danger: true,
    });
    if (!ok) return;
    this.deleteButton.disabled = true;
    try {
      await api.archiveApp();
    } catch (error) {
      this.deleteButton.disabled = false;
      showError(error, 'Deleting the app');
      return;
    }
    info(`${app.name || app.slug} was deleted (archived).`);
    // The editor starts again on another app, or says there is none.
    rememberApp(null);
    history.replaceState(null, '', '#/screens');
    location.reload();
  }
}
