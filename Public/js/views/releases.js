// Releases: getting a draft onto devices before it is live. A preview link is an unguessable URL
// that serves the app's current draft as a rivers.json; a test build pointed at it (its
// `rivers_url`) shows every save on its next start. Shown once with a QR code drawn here (no
// outside service), listed afterwards by name, revoked here.
import { onLive } from '../together.js';
import { api, state, can, roleReason } from '../state.js';
import { h, field, formatDate } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, announce, explain } from '../notify.js';
import { clearFieldErrors } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { onceBox } from '../copy.js';
import { qrSvg } from '../qr.js';

/** Days a new link lives, offered in the form; the server allows 1 to 30 (7 when none is given). */
const LIFETIMES = [1, 7, 30];

export async function mount(root) {
  const view = new ReleasesView(root);
  view.render();
  await view.load();
  // Someone makes or revokes a preview link: the list follows.
  let timer = null;
  const off = onLive((type, change) => {
    if (type !== 'change' || change.kind !== 'preview_link') return;
    clearTimeout(timer);
    timer = setTimeout(() => view.load(), 250);
  });
  return { title: 'Releases', unmount: () => { off(); clearTimeout(timer); } };
}

/** The QR code of a URL, as an element (an SVG the module draws), or a note when it cannot fit. */
export function qrFigure(url) {
  const figure = h('figure', { class: 'qr-figure' });
  try {
    figure.innerHTML = qrSvg(url, { ecc: 'M', scale: 4, margin: 4 });
    figure.append(h('figcaption', { text: 'Scan with the test device to open the link.' }));
  } catch (error) {
    figure.append(h('p', { class: 'hint', text: `No QR code: ${error.message}` }));
  }
  return figure;
}

class ReleasesView {
  constructor(root) {
    this.root = root;
    this.links = [];
  }

  render() {
    const editor = can('editor');
    this.listBox = h('div', { id: 'preview-links', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.resultBox = h('div', { id: 'preview-link-result' });
    this.name = h('input', { type: 'text', id: 'preview-link-name', autocomplete: 'off', maxlength: 100, placeholder: 'QA phones' });
    this.lifetime = h('select', { id: 'preview-link-lifetime' },
      LIFETIMES.map((days) => h('option', { value: String(days), text: days === 1 ? '1 day' : `${days} days` })));
    this.lifetime.value = '7';
    this.createButton = h('button', { type: 'submit', class: 'button primary', id: 'create-preview-link', text: 'Make a preview link' });
    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.form = h('form', { class: 'token-form', novalidate: true, 'aria-labelledby': 'new-preview-heading', onsubmit: (e) => { e.preventDefault(); this.create(); } },
      this.errorsHost,
      h('div', { class: 'row' },
        field('Name (optional)', this.name, { pointer: '/name', className: 'grow', hint: 'Who or what it is for, so you know which to revoke.' }),
        field('Works for', this.lifetime, { pointer: '/expires_at', className: 'narrow', hint: 'Then it stops serving the draft.' }),
        h('div', { class: 'form-actions' }, this.createButton)));
    this.root.replaceChildren(h('div', { class: 'pane-body team releases' },
      h('h1', { text: 'Releases' }),
      h('section', { class: 'panel', 'aria-labelledby': 'new-preview-heading' },
        h('h2', { id: 'new-preview-heading', text: 'See the draft on a device' }),
        h('p', { class: 'lede', text: `A preview link serves ${state.app.name || state.app.slug}'s draft, as it is now, to a test build of your app: nothing is published, and every save shows the next time the app starts. Anyone who has the link can read the draft until it expires or you revoke it.` }),
        editor ? this.form : h('p', { class: 'hint', id: 'preview-link-role', text: roleReason('editor') || 'Only editors make preview links.' }),
        this.resultBox),
      h('section', { class: 'panel', 'aria-labelledby': 'preview-links-heading' },
        h('h2', { id: 'preview-links-heading', text: 'Preview links' }),
        this.listBox),
      h('p', { class: 'hint', id: 'webhooks-link' }, 'Tell your own systems when something goes live: ', h('a', { href: '#/webhooks', text: 'Webhooks' }), '.')));
  }

  async load() {
    try {
      this.links = await api.previewLinks();
      this.show();
    } catch (error) {
      this.listBox.replaceChildren(h('p', { class: 'field-error', text: `The preview links could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the preview links');
    }
  }

  show() {
    if (!this.links.length) {
      this.listBox.replaceChildren(h('p', { class: 'empty', text: 'No preview links yet.' }));
      return;
    }
    const editor = can('editor');
    this.listBox.replaceChildren(h('table', { class: 'data-table preview-links-table' },
      h('caption', { class: 'visually-hidden', text: 'Preview links of this app' }),
      h('thead', {}, h('tr', {}, ['Name', 'Made by', 'Made', 'Expires', 'Last opened', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.links.map((link) => h('tr', { 'data-preview-link-id': link.id, 'data-name': link.name },
        h('th', { scope: 'row', text: link.name }),
        h('td', { text: link.created_by || '–' }),
        h('td', { class: 'nowrap', text: formatDate(link.created_at) }),
        h('td', { class: 'nowrap' }, formatDate(link.expires_at), link.expired ? h('span', { class: 'badge expired', text: 'expired' }) : null),
        h('td', { class: 'nowrap', text: link.last_used_at ? formatDate(link.last_used_at) : 'never' }),
        h('td', {}, editor ? h('button', {
          type: 'button', class: 'button small danger', 'aria-label': `Revoke preview link ${link.name}`, text: 'Revoke', onclick: () => this.revoke(link),
        }) : null))))));
  }

  async create() {
    clearFieldErrors(this.form);
    this.resultBox.replaceChildren();
    const days = Number(this.lifetime.value) || 7;
    const body = { expires_at: new Date(Date.now() + days * 86400_000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    const name = this.name.value.trim();
    if (name) body.name = name;
    this.createButton.disabled = true;
    try {
      const made = await api.createPreviewLink(body);
      const box = onceBox({
        id: 'new-preview-link', label: 'Preview link', value: made.url, what: 'Preview link',
        title: `Preview link “${made.name}”`,
        text: 'Copy it now or scan the code: it is shown only this once. In a test build, set rivers_url to it (one line in the app’s configuration), or open it in a browser to read the draft’s rivers.json.',
      });
      box.append(qrFigure(made.url), h('p', { class: 'hint' }, 'In the app: ', h('code', { class: 'rivers-url', text: `rivers_url = ${made.url}` })));
      this.resultBox.replaceChildren(box);
      this.resultBox.querySelector('input').focus();
      announce(`Preview link ${made.name} made. It is shown only now: copy it or scan it.`);
      this.name.value = '';
      await this.load();
    } catch (error) {
      showRequestError(error, { root: this.form, errorsHost: this.errorsHost, context: 'Making the preview link' });
    } finally {
      this.createButton.disabled = false;
    }
  }

  async revoke(link) {
    const ok = await confirmDialog({
      title: `Revoke preview link “${link.name}”?`,
      text: 'Devices using it stop getting the draft at once. This cannot be undone; make a new link instead.',
      confirm: 'Revoke link', danger: true,
    });
    if (!ok) return;
    try {
      await api.revokePreviewLink(link.id);
      info(`Preview link “${link.name}” revoked.`);
      this.resultBox.replaceChildren();
      await this.load();
    } catch (error) {
      showError(error, `Revoking preview link “${link.name}”`);
    }
  }
}
