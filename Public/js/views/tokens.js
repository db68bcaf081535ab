// API tokens: what automation uses instead of a person's sign-in. Listed with their role and
// use; made here (the token is shown once, to copy) and revoked.
import { api, state, can, ROLES } from '../state.js';
import { h, field, select, formatDate } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, announce, explain } from '../notify.js';
import { clearFieldErrors, placeErrors, focusPointer } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { onceBox } from '../copy.js';
import { adminOnly, roleHelp } from './members.js';

/** The last moment of a day (yyyy-mm-dd) where the browser is, as the server writes times. */
function endOfDay(date) {
  const d = new Date(`${date}T23:59:59`);
  return Number.isNaN(d.getTime()) ? date : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function today(plusDays = 0) {
  const d = new Date();
  d.setDate(d.getDate() + plusDays);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export async function mount(root) {
  if (!can('admin')) return adminOnly(root, 'Tokens');
  const view = new TokensView(root);
  view.render();
  await view.load();
  return { title: 'Tokens' };
}

class TokensView {
  constructor(root) {
    this.root = root;
    this.tokens = [];
  }

  render() {
    this.listBox = h('div', { id: 'tokens', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.resultBox = h('div', { id: 'token-result' });
    this.name = h('input', { type: 'text', id: 'token-name', autocomplete: 'off', required: true, maxlength: 100, placeholder: 'CI publish job' });
    this.role = select(ROLES.map((r) => ({ value: r, text: r.charAt(0).toUpperCase() + r.slice(1) })), 'publisher', { id: 'token-role' });
    this.expires = h('input', { type: 'date', id: 'token-expires', min: today(1), max: today(5 * 365) });
    this.createButton = h('button', { type: 'submit', class: 'button primary', id: 'create-token', text: 'Create token' });
    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.form = h('form', { class: 'token-form', novalidate: true, 'aria-labelledby': 'new-token-heading', onsubmit: (e) => { e.preventDefault(); this.create(); } },
      this.errorsHost,
      h('div', { class: 'row' },
        field('Name', this.name, { pointer: '/name', className: 'grow', hint: 'What uses it, so you know which to revoke.' }),
        field('Role', this.role, { pointer: '/role', className: 'narrow' }),
        field('Expires (optional)', this.expires, { pointer: '/expires_at', hint: 'Stops working after this day. Empty: until revoked.' }),
        h('div', { class: 'form-actions' }, this.createButton)));
    this.root.replaceChildren(h('div', { class: 'pane-body team' },
      h('h1', { text: 'Tokens' }),
      h('p', { class: 'lede', text: `API tokens let scripts and build jobs use ${state.app.name || state.app.slug} without a person’s password: send one as “Authorization: Bearer <token>”. Each has a role like a member’s.` }),
      roleHelp(),
      h('section', { class: 'panel', 'aria-labelledby': 'new-token-heading' },
        h('h2', { id: 'new-token-heading', text: 'New token' }),
        this.form,
        this.resultBox),
      h('section', { class: 'panel', 'aria-labelledby': 'tokens-heading' },
        h('h2', { id: 'tokens-heading', text: 'Tokens' }),
        this.listBox)));
  }

  async load() {
    try {
      this.tokens = await api.tokens();
      this.show();
    } catch (error) {
      this.listBox.replaceChildren(h('p', { class: 'field-error', text: `The tokens could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the tokens');
    }
  }

  show() {
    if (!this.tokens.length) {
      this.listBox.replaceChildren(h('p', { class: 'empty', text: 'No tokens.' }));
      return;
    }
    const now = Date.now();
    this.listBox.replaceChildren(h('table', { class: 'data-table tokens-table' },
      h('caption', { class: 'visually-hidden', text: 'API tokens of this app' }),
      h('thead', {}, h('tr', {}, ['Name', 'Role', 'Created by', 'Created', 'Expires', 'Last used', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.tokens.map((t) => {
        const expired = t.expires_at && new Date(t.expires_at).getTime() <= now;
        return h('tr', { 'data-token-id': t.id, 'data-name': t.name },
          h('th', { scope: 'row', text: t.name }),
          h('td', {}, h('span', { class: `badge role-${t.role}`, text: t.role })),
          h('td', { text: t.created_by || '–' }),
          h('td', { class: 'when', text: formatDate(t.created_at) }),
          h('td', { class: 'when' }, t.expires_at ? formatDate(t.expires_at) : 'never', expired ? h('span', { class: 'badge expired', text: 'expired' }) : null),
          h('td', { class: 'when', text: t.last_used_at ? formatDate(t.last_used_at) : 'never' }),
          h('td', {}, h('button', {
            type: 'button', class: 'button small danger', 'aria-label': `Revoke token ${t.name}`, text: 'Revoke', onclick: () => this.revoke(t),
          })));
      }))));
  }

  async create() {
    clearFieldErrors(this.form);
    this.resultBox.replaceChildren();
    const body = { name: this.name.value.trim(), role: this.role.value };
    if (this.expires.value) body.expires_at = endOfDay(this.expires.value);
    if (!body.name) {
      placeErrors(this.form, [{ pointer: '/name', message: 'Give the token a name: what will use it?' }]);
      focusPointer(this.form, '/name');
      return;
    }
    this.createButton.disabled = true;
    try {
      const made = await api.createToken(body);
      this.resultBox.replaceChildren(onceBox({
        id: 'new-token', label: 'New token', value: made.token, what: 'Token',
        title: `Token “${made.name}” (${made.role})`,
        text: 'Copy it now and keep it somewhere safe: it is shown only this once. Anyone who has it can act on this app with its role.',
      }));
      this.resultBox.querySelector('input').focus();
      announce(`Token ${made.name} made. It is shown only now: copy it.`);
      this.name.value = '';
      this.expires.value = '';
      await this.load();
    } catch (error) {
      showRequestError(error, { root: this.form, errorsHost: this.errorsHost, context: 'Creating the token' });
    } finally {
      this.createButton.disabled = false;
    }
  }

  async revoke(token) {
    const ok = await confirmDialog({
      title: `Revoke token “${token.name}”?`,
      text: 'Whatever uses it stops working at once: its requests are refused. This cannot be undone; make a new token instead.',
      confirm: 'Revoke token', danger: true,
    });
    if (!ok) return;
    try {
      await api.revokeToken(token.id);
      info(`Token “${token.name}” revoked.`);
      this.resultBox.replaceChildren();
      await this.load();
    } catch (error) {
      showError(error, `Revoking token “${token.name}”`);
    }
  }
}
