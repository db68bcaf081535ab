// Plugins: the app's registered plugins (screen, component, navigation and hook plugins, each
// described by its manifest). Listed with where they are used; a manifest registered by choosing
// its file or pasting it (read and summed up before it is sent); a plugin's page shows its fields,
// versions and users, takes a new version of its manifest, and removes it (saying first who still
// uses it). The server's problems with a manifest show at the manifest, in the page's words.
// Viewers see everything, read only.
import { api, state, can, gate } from '../state.js';
import { h, field, formatDate, debounce } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, explain } from '../notify.js';
import { clearFieldErrors } from '../field-errors.js';
import { deleteRecord } from '../save-flow.js';
import { readOnlyBanner } from '../editing.js';
import { navigate } from '../router.js';
import { onLive } from '../together.js';
import { forgetPluginForm } from '../plugins.js';
import { FIELD_TYPES, manifestProblem, manifestSummary, pluginKind, pluginUses, readManifest } from '../plugin-manifest.js';
import { typeName } from './components.js';

const VIA = {
  type: 'is a screen of this plugin', component: 'has a component of this plugin',
  hook: 'runs it as a hook', navigation: 'uses it as its navigation',
};

export async function mount(root, params = {}) {
  const view = params.id ? new PluginPage(root, params.id) : new PluginList(root);
  await view.load();
  // Someone registers, updates or removes a plugin (or changes a screen that uses one): this follows.
  let timer = null;
  const off = onLive((type, change) => {
    if (type !== 'change' || !['plugin', 'screen', 'layout'].includes(change.kind)) return;
    if (view.busy) return;
    clearTimeout(timer);
    timer = setTimeout(() => view.load({ quiet: true }), 250);
  });
  return { title: params.id ? `Plugin ${view.plugin?.name || params.id}` : 'Plugins', unmount: () => { off(); clearTimeout(timer); } };
}

/** Where each plugin is used, read fresh (the lists kept may be older than a save elsewhere). */
async function usesOf(identifiers) {
  const [screens, layouts] = await Promise.all([api.list('screens'), api.list('layouts')]);
  return new Map(identifiers.map((id) => [id, pluginUses(id, screens, layouts, { typeName })]));
}

/** After a plugin changed: the catalog of component types and the plugin forms are read again. */
async function catalogChanged(identifier) {
  forgetPluginForm(identifier);
  try { state.componentTypes = await api.componentTypes(); } catch { /* the next load reads it */ }
}

function useLine(use) {
  const href = use.kind === 'screen' ? `#/screens/${use.id}` : `#/layouts/${use.id}`;
  const ways = use.via.map((v) => VIA[v] || v).join('; ');
  return h('li', { 'data-kind': use.kind, 'data-id': use.id },
    `${use.kind === 'screen' ? 'Screen' : 'Layout'} `, h('a', { href, text: `“${use.name}”` }), ` ${ways}`,
    use.components.length ? ` (${use.components.join(', ')})` : '', '.');
}

/**
 * The manifest form of both pages: a file to choose or the text to paste, read as it changes
 * ("Screen plugin “Promo” (promo), version 1.0.0, 3 fields in General"), checked before it is
 * sent; the server's problems go under the manifest, each in words ("General section, field
 * “Title” (title) › type: …").
 */
class ManifestForm {
  /**
   * @param {{id: string, submitText: string, text?: string, hint?: string,
   *   note?: (manifest) => string, check?: (manifest) => string, send: (manifest) => Promise<void>, context: string}} options
   */
  constructor(options) {
    this.options = options;
    const { id } = options;
    this.file = h('input', { type: 'file', id: `${id}-file`, accept: '.json,application/json,text/plain', onchange: () => this.takeFile() });
    this.text = h('textarea', {
      id: `${id}-text`, rows: 14, spellcheck: 'false', autocomplete: 'off', class: 'manifest-text', 'data-pointer': '',
      placeholder: '{\n  "identifier": "my_plugin",\n  "name": "My plugin",\n  "type": "general",\n  "manifest_version": "1.0.0",\n  …\n}',
      oninput: () => { this.clearProblems(); this.readSoon(); },
    });
    this.text.value = options.text || '';
    this.reading = h('p', { class: 'manifest-reading hint', id: `${id}-reading`, 'aria-live': 'polite' });
    this.text.setAttribute('aria-describedby', this.reading.id);
    this.button = h('button', { type: 'submit', class: 'button primary', id: `${id}-submit`, text: options.submitText });
    this.readSoon = debounce(() => this.read(), 200);
    this.el = h('form', { class: 'manifest-form', id, novalidate: true, onsubmit: (e) => { e.preventDefault(); this.submit(); } },
      field('Manifest file', this.file, { hint: 'A .json manifest: its text goes into the box below, to check before it is sent.' }),
      h('div', { class: 'field manifest-field' },
        h('label', { for: this.text.id, text: 'Manifest (JSON)' }),
        options.hint ? h('p', { class: 'hint', text: options.hint }) : null,
        this.text, this.reading),
      h('div', { class: 'form-actions' }, this.button));
    this.read();
  }

  async takeFile() {
    const file = this.file.files?.[0];
    if (!file) return;
    try {
      this.text.value = await file.text();
    } catch (error) {
      this.showProblems([`The file could not be read: ${error.message}`]);
      return;
    }
    this.clearProblems();
    this.read();
  }

  /** What the text says, or what is wrong with it as JSON, as it changes. */
  read() {
    const { manifest, problem } = readManifest(this.text.value);
    if (!this.text.value.trim()) { this.reading.textContent = ''; return null; }
    if (problem) { this.reading.textContent = problem; this.reading.classList.add('is-problem'); return null; }
    this.reading.classList.remove('is-problem');
    const note = this.options.note?.(manifest) || '';
    this.reading.textContent = `Reads as: ${manifestSummary(manifest)}${note ? ` ${note}` : ''}`;
    return manifest;
  }

  clearProblems() {
    clearFieldErrors(this.el);
    this.el.querySelector('.manifest-problems')?.remove();
    this.text.removeAttribute('aria-invalid');
    this.text.setAttribute('aria-describedby', this.reading.id);
  }

  /** Problems at the manifest: under it, linked to it, the box marked. */
  showProblems(lines, title = '') {
    this.clearProblems();
    const box = h('div', { class: 'manifest-problems', id: `${this.options.id}-problems`, role: 'alert' },
      h('strong', { text: title || (lines.length === 1 ? 'Not sent: 1 thing to fix in the manifest' : `Not sent: ${lines.length} things to fix in the manifest`) }),
      h('ul', {}, lines.map((text) => h('li', { class: 'field-error', text }))));
    this.reading.after(box);
    this.text.setAttribute('aria-invalid', 'true');
    this.text.setAttribute('aria-describedby', `${this.reading.id} ${box.id}`);
    this.text.focus();
  }

  async submit() {
    const { manifest, problem } = readManifest(this.text.value);
    if (problem) { this.showProblems([problem]); return; }
    const local = this.options.check?.(manifest);
    if (local) { this.showProblems([local]); return; }
    this.clearProblems();
    this.button.disabled = true;
    try {
      await this.options.send(manifest);
    } catch (error) {
      if (error?.isValidation && error.errors.length) {
        this.showProblems(error.errors.map((e) => manifestProblem(e, manifest)),
          error.errors.length === 1 ? 'The server refused it: 1 thing to fix in the manifest' : `The server refused it: ${error.errors.length} things to fix in the manifest`);
      } else if (error?.status === 400 || error?.status === 404 || error?.status === 409) {
        this.showProblems([explain(error).detail], `${this.options.context}: ${explain(error).title}`);
      } else {
        showError(error, this.options.context);
      }
    } finally {
      this.button.disabled = false;
    }
  }
}

// The list --------------------------------------------------------------------------------------

class PluginList {
  constructor(root) {
    this.root = root;
    this.plugins = null;
    this.uses = new Map();
    this.listBox = h('div', { id: 'plugins-list', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.form = can('editor') ? new ManifestForm({
      id: 'register-plugin', submitText: 'Register plugin', context: 'Registering the plugin',
      note: (m) => {
        const known = (this.plugins || []).find((p) => p.identifier === m.identifier);
        if (!known) return '';
        const replaces = known.versions.some((v) => v.manifest_version === String(m.manifest_version));
        return `“${m.identifier}” is registered already: this ${replaces ? `replaces its version ${m.manifest_version}` : 'adds a new version'} and makes it current.`;
      },
      send: async (manifest) => {
        this.busy = true;
        try {
          const { data, status } = await api.registerPlugin(manifest);
          await catalogChanged(data.identifier);
          info(status === 201 ? `Plugin “${data.name}” registered (version ${data.current_version}).` : `Plugin “${data.name}”: version ${data.current_version} registered.`);
          this.form.text.value = '';
          this.form.file.value = '';
          navigate(`/plugins/${encodeURIComponent(data.identifier)}`);
        } finally {
          this.busy = false;
        }
      },
    }) : null;
    root.replaceChildren(h('div', { class: 'pane-body plugins-page' },
      h('h1', { text: 'Plugins' }),
      h('p', { class: 'lede', text: 'Plugins add screen types, component types, navigations and hooks to the app. Each is described by its manifest (JSON, from its developer): register it here, and its types and fields appear in the screen editor.' }),
      readOnlyBanner(),
      h('section', { class: 'panel', 'aria-labelledby': 'plugins-heading' },
        h('h2', { id: 'plugins-heading', text: 'Registered plugins' }),
        this.listBox),
      this.form ? h('section', { class: 'panel', 'aria-labelledby': 'register-plugin-heading' },
        h('h2', { id: 'register-plugin-heading', text: 'Register a plugin' }),
        h('p', { class: 'hint', text: 'Choose the manifest’s file or paste it. A manifest whose identifier is registered already adds a version of that plugin.' }),
        this.form.el) : null));
  }

  async load({ quiet = false } = {}) {
    try {
      this.plugins = await api.allPlugins();
      this.uses = await usesOf(this.plugins.map((p) => p.identifier));
      this.show();
      this.form?.read();
    } catch (error) {
      if (quiet) return;
      this.listBox.replaceChildren(h('p', { class: 'field-error', text: `The plugins could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the plugins');
    }
  }

  show() {
    if (!this.plugins.length) {
      this.listBox.replaceChildren(h('p', { class: 'empty', text: 'No plugins are registered in this app yet.' }));
      return;
    }
    this.listBox.replaceChildren(h('table', { class: 'data-table plugins-table' },
      h('caption', { class: 'visually-hidden', text: 'Plugins registered in this app' }),
      h('thead', {}, h('tr', {}, ['Plugin', 'Kind', 'Version', 'Used by'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.plugins.map((p) => {
        const uses = this.uses.get(p.identifier) || [];
        const screens = uses.filter((u) => u.kind === 'screen').length;
        const layouts = uses.length - screens;
        const used = [screens ? `${screens} screen${screens === 1 ? '' : 's'}` : '', layouts ? `${layouts} layout${layouts === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
        return h('tr', { 'data-plugin': p.identifier },
          h('th', { scope: 'row' }, h('a', { href: `#/plugins/${encodeURIComponent(p.identifier)}`, text: p.name || p.identifier }), ' ', h('code', { text: p.identifier })),
          h('td', { text: pluginKind(p) }),
          h('td', { text: `${p.current_version}${p.versions.length > 1 ? ` (${p.versions.length} versions)` : ''}` }),
          h('td', { class: 'plugin-used', text: used || 'not used' }));
      }))));
  }
}

// One plugin ------------------------------------------------------------------------------------

class PluginPage {
  constructor(root, identifier) {
    this.root = root;
    this.identifier = identifier;
    this.plugin = null;
    root.replaceChildren(h('div', { class: 'pane-body plugins-page' }, h('p', { class: 'hint', text: 'Loading…' })));
  }

  async load({ quiet = false } = {}) {
    if (this.updateForm && this.updateForm.text.value !== this.shownText && quiet) {
      // Someone changed it while this page's manifest is being edited: the edit stays, the rest follows.
      try { await this.refreshParts(); } catch { /* the next change tries again */ }
      return;
    }
    try {
      const { data, etag } = await api.plugin(this.identifier);
      this.plugin = data;
      this.etag = etag;
      const [form, uses] = await Promise.all([
        api.pluginForm(this.identifier).catch(() => null),
        usesOf([this.identifier]).then((m) => m.get(this.identifier)),
      ]);
      // Heard back (our own save, a change elsewhere that moves nothing here): nothing is drawn again.
      const same = quiet && this.shown === JSON.stringify([data.revision, uses, form]);
      this.form = form;
      this.uses = uses;
      this.shown = JSON.stringify([data.revision, uses, form]);
      if (!same) this.render();
    } catch (error) {
      if (quiet && !error.isNotFound) return;
      const gone = error.isNotFound;
      this.root.replaceChildren(h('div', { class: 'pane-body plugins-page' },
        h('p', {}, h('a', { href: '#/plugins', text: '← Plugins' })),
        h('h1', { text: this.identifier }),
        h('p', { class: gone ? 'empty' : 'field-error', id: 'plugin-missing', text: gone ? 'There is no such plugin in this app (any more): someone may have removed it.' : `The plugin could not be loaded: ${explain(error).detail}` })));
      if (!gone) showError(error, 'Loading the plugin');
    }
  }

  /** The parts someone else's change can move (where it is used, its versions), leaving the form be. */
  async refreshParts() {
    const { data, etag } = await api.plugin(this.identifier);
    this.plugin = data;
    this.etag = etag;
    this.uses = (await usesOf([this.identifier])).get(this.identifier);
    this.root.querySelector('#plugin-uses')?.replaceWith(this.usesBox());
    this.root.querySelector('#plugin-versions')?.replaceWith(this.versionsBox());
  }

  render() {
    const p = this.plugin;
    const m = p.manifest || {};
    const editor = can('editor');
    this.shownText = JSON.stringify(m, null, 2);
    this.updateForm = editor ? new ManifestForm({
      id: 'update-plugin', submitText: 'Save this manifest', context: 'Updating the plugin', text: this.shownText,
      hint: 'Change its manifest_version to add a version; the same version replaces that version. Screens keep the version they were made with.',
      note: (next) => {
        if (next.identifier !== p.identifier) return '';
        if (String(next.manifest_version) === p.current_version) return `Saving replaces version ${p.current_version}.`;
        return p.versions.some((v) => v.manifest_version === String(next.manifest_version))
          ? `Saving replaces version ${next.manifest_version} and makes it current.` : `Saving adds version ${next.manifest_version} and makes it current.`;
      },
      check: (next) => (next.identifier === p.identifier ? ''
        : `Identifier: this manifest is for “${next.identifier ?? '(none)'}”, not “${p.identifier}”. A plugin keeps its identifier: register the other one on the Plugins page.`),
      send: async (next) => {
        this.busy = true;
        try {
          const { data } = await api.replacePlugin(p.identifier, next, this.etag);
          await catalogChanged(p.identifier);
          info(`Plugin “${data.name}”: version ${data.current_version} saved.`);
          this.updateForm = null;
          await this.load();
        } catch (error) {
          if (error?.isConflict) {
            showError(error, 'Updating the plugin');
            await this.refreshParts();
            return;
          }
          throw error;
        } finally {
          this.busy = false;
        }
      },
    }) : null;
    const remove = h('button', { type: 'button', class: 'button danger', id: 'remove-plugin', text: 'Remove plugin', onclick: () => this.remove() });
    this.root.replaceChildren(h('div', { class: 'pane-body plugins-page plugin-page', 'data-plugin': p.identifier },
      h('p', { class: 'crumbs' }, h('a', { href: '#/plugins', text: '← Plugins' })),
      h('h1', {}, p.name || p.identifier, ' ', h('span', { class: 'badge', text: pluginKind(p) })),
      h('dl', { class: 'plugin-facts', id: 'plugin-facts' },
        h('dt', { text: 'Identifier' }), h('dd', {}, h('code', { text: p.identifier })),
        h('dt', { text: 'Current version' }), h('dd', { id: 'plugin-version', text: p.current_version }),
        m.description ? [h('dt', { text: 'Description' }), h('dd', { text: m.description })] : null,
        m.author_name || m.author_email ? [h('dt', { text: 'Author' }), h('dd', { text: [m.author_name, m.author_email && `<${m.author_email}>`].filter(Boolean).join(' ') })] : null,
        p.can_have_components ? [h('dt', { text: 'Components' }), h('dd', { text: 'Its screens hold components.' })] : null),
      readOnlyBanner(),
      h('section', { class: 'panel', 'aria-labelledby': 'plugin-fields-heading' },
        h('h2', { id: 'plugin-fields-heading', text: 'Fields' }),
        h('p', { class: 'hint', text: p.screen ? 'What a screen of this plugin is set up with, in the screen editor.' : (p.ui_component ? 'What a component of this plugin is set up with, in the screen editor.' : 'The values its manifest declares.') }),
        this.fieldsBox()),
      this.usesBox(),
      this.versionsBox(),
      this.updateForm ? h('section', { class: 'panel', 'aria-labelledby': 'update-plugin-heading' },
        h('h2', { id: 'update-plugin-heading', text: 'Update the manifest' }),
        this.updateForm.el) : null,
      h('section', { class: 'panel', 'aria-labelledby': 'remove-plugin-heading' },
        h('h2', { id: 'remove-plugin-heading', text: 'Remove' }),
        h('p', { class: 'hint', text: 'Removes the plugin with every version. A plugin that screens or layouts still use cannot be removed: change them first.' }),
        h('div', { class: 'form-actions' }, editor ? remove : gate(remove, 'editor')))));
  }

  fieldsBox() {
    const sections = [...(this.form?.sections || [])];
    if (this.form?.custom_configuration_fields?.length) sections.push({ name: 'configuration', fields: this.form.custom_configuration_fields });
    if (!this.form) return h('p', { class: 'hint', id: 'plugin-fields', text: 'Its fields could not be loaded.' });
    if (!sections.some((s) => s.fields?.length)) return h('p', { class: 'empty', id: 'plugin-fields', text: 'This plugin has no fields.' });
    const show = (v) => (v === null || v === undefined || v === '' ? '—' : (typeof v === 'object' ? JSON.stringify(v) : String(v)));
    const rows = (items, depth = 0) => (items || []).flatMap((item) => {
      if (item.group) {
        return [h('tr', { class: 'plugin-group-row' }, h('th', { colspan: 5, scope: 'rowgroup', text: `${'— '.repeat(depth)}${item.label || 'Group'}${item.folded ? ' (folded)' : ''}` })),
          ...rows(item.fields, depth + 1)];
      }
      const options = (item.options || []).map((o) => o.text ?? o.value).join(', ');
      return [h('tr', { 'data-key': item.key },
        h('td', { text: item.label || item.key }),
        h('td', {}, h('code', { text: item.key })),
        h('td', { text: `${FIELD_TYPES[item.type] || item.type}${options ? `: ${options}` : ''}${item.form_sections?.length ? ` (${item.form_sections.length} part${item.form_sections.length === 1 ? '' : 's'})` : ''}` }),
        h('td', { text: show(item.initial_value) }),
        h('td', { text: item.mandatory ? 'required' : '' }))];
    });
    return h('div', { id: 'plugin-fields' }, sections.filter((s) => s.fields?.length).map((s) => h('table', { class: 'data-table plugin-fields', 'data-section': s.name },
      h('caption', { text: `${s.name.charAt(0).toUpperCase()}${s.name.slice(1)}` }),
      h('thead', {}, h('tr', {}, ['Label', 'Key', 'Type', 'Starts as', ''].map((t, i) => h('th', { scope: 'col', text: t, 'aria-label': i === 4 ? 'Required' : null })))),
      h('tbody', {}, rows(s.fields)))));
  }

  usesBox() {
    const uses = this.uses || [];
    return h('section', { class: 'panel', id: 'plugin-uses', 'aria-labelledby': 'plugin-uses-heading' },
      h('h2', { id: 'plugin-uses-heading', text: 'Where it is used' }),
      uses.length ? h('ul', { class: 'plugin-uses' }, uses.map(useLine)) : h('p', { class: 'empty', text: 'No screen or layout uses it.' }));
  }

  versionsBox() {
    const p = this.plugin;
    return h('section', { class: 'panel', id: 'plugin-versions', 'aria-labelledby': 'plugin-versions-heading' },
      h('h2', { id: 'plugin-versions-heading', text: 'Versions' }),
      h('ul', { class: 'plugin-version-list' }, [...p.versions].reverse().map((v) => h('li', { 'data-version': v.manifest_version },
        h('strong', { text: v.manifest_version }), ` · registered ${formatDate(v.created_at)}`,
        v.manifest_version === p.current_version ? [' ', h('span', { class: 'badge live-same', text: 'current' })] : null))));
  }

  async remove() {
    const p = this.plugin;
    this.busy = true;
    try {
      await deleteRecord({
        context: `Removing plugin “${p.name || p.identifier}”`,
        inUse: async () => (await usesOf([p.identifier])).get(p.identifier),
        confirm: () => confirmDialog({
          title: `Remove plugin “${p.name || p.identifier}”?`,
          text: `It goes with all ${p.versions.length === 1 ? 'its version' : `its ${p.versions.length} versions`}; no screen or layout uses it. Its manifest can be registered again later.`,
          confirm: 'Remove plugin', danger: true,
        }),
        remove: () => api.removePlugin(p.identifier, this.etag),
        conflict: () => this.load(),
        done: async () => {
          await catalogChanged(p.identifier);
          info(`Plugin “${p.name || p.identifier}” removed.`);
          navigate('/plugins');
        },
      });
    } finally {
      this.busy = false;
    }
  }
}
