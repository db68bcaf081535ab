// Activity: the app's audit log, newest first: who changed what and when (families, screens,
// layouts, plugins, publishes, members, invitations, tokens, settings). Filters live in the page's
// address (#/activity?actor=…), so a filtered view can be passed on.
import { onLive } from '../together.js';
import { api, state, can, find } from '../state.js';
import { h, field, select, formatDate } from '../dom.js';
import { showError, explain } from '../notify.js';
import { navigate } from '../router.js';
import { adminOnly } from './members.js';
import { fieldLabel } from '../changes.js';

const KINDS = [
  { value: '', text: 'Anything' },
  { value: 'screen', text: 'Screens' },
  { value: 'family', text: 'Families' },
  { value: 'layout', text: 'Layouts' },
  { value: 'plugin', text: 'Plugins' },
  { value: 'version', text: 'Publishes and rollbacks' },
  { value: 'member', text: 'Members' },
  { value: 'invitation', text: 'Invitations' },
  { value: 'token', text: 'Tokens' },
  { value: 'preview_link', text: 'Preview links' },
  { value: 'channel', text: 'Channels (promotions)' },
  { value: 'release_rules', text: 'Release rules' },
  { value: 'schedule', text: 'Scheduled promotions' },
  { value: 'webhook', text: 'Webhooks' },
  { value: 'app', text: 'App settings' },
];
const KIND_NAME = {
  screen: 'Screen', family: 'Family', layout: 'Layout', plugin: 'Plugin', version: 'Version', member: 'Member',
  invitation: 'Invitation', token: 'Token', preview_link: 'Preview link', app: 'App', account: 'Account', session: 'Sign-in',
  channel: 'Channel', release_rules: 'Release rules', schedule: 'Scheduled promotion', webhook: 'Webhook',
};
const ACTION_WORD = {
  create: 'created', update: 'changed', delete: 'deleted', reorder: 'reordered', publish: 'published', rollback: 'rolled back',
  accept: 'accepted', archive: 'archived', restore: 'restored', import: 'imported', 'sign-in': 'signed in',
  'sign-in-failed': 'failed', 'set-password': 'password set', 'password-link': 'password link made',
  promote: 'moved', cancel: 'cancelled', fire: 'fired', 'rotate-secret': 'given a new secret',
  'seal-secret': 'secret sealed at rest',
};
/** Fields of an update the editor's own labels do not name (changes.js names the others). */
const AUDIT_FIELDS = {
  hooks: 'plugins run before and after loading', general: 'plugin settings', plugin_version: 'plugin version',
  revision: 'a new revision',
};
/** Kinds whose `update` summary lists the fields changed (the database's audit trigger writes their keys). */
const FIELD_KINDS = new Set(['screen', 'family', 'layout', 'plugin', 'app']);
const EMAIL = /[^\s@:()]+@[^\s@:()]+\.[^\s@:()]+/g;

/** "name, ui_components" → "name, components": an update's fields in the editor's words. */
export function fieldsInWords(summary) {
  return summary.split(/,\s*/).map((key) => {
    const m = /^([a-z_]+)(.*)$/.exec(key);
    if (!m) return key;
    return `${AUDIT_FIELDS[m[1]] || fieldLabel([m[1]])}${m[2]}`;
  }).join(', ');
}

const PAGE = 50;
const FILTERS = ['actor', 'kind', 'id', 'since', 'until'];

/** An ISO time → the value of a datetime-local field (the browser's time zone). */
function localValue(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A datetime-local value → ISO with Z, as the server reads it. */
function isoValue(local) {
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export async function mount(root, params, query) {
  if (!can('admin')) return adminOnly(root, 'Activity');
  const filter = Object.fromEntries(FILTERS.map((k) => [k, query[k] || '']));
  const view = new ActivityView(root, filter);
  view.render();
  await view.load();
  // A new entry in the log (a change or an access event): the first page is read again, unless
  // the user has read on past it.
  let timer = null;
  const off = onLive((type) => {
    if ((type !== 'change' && type !== 'access') || view.entries.length > PAGE) return;
    clearTimeout(timer);
    timer = setTimeout(() => view.load(), 250);
  });
  return { title: 'Activity', unmount: () => { off(); clearTimeout(timer); } };
}

class ActivityView {
  constructor(root, filter) {
    this.root = root;
    this.filter = filter;
    this.entries = [];
    this.total = 0;
    this.capped = false;
    this.next = null;
  }

  render() {
    const f = this.filter;
    this.actor = h('input', { type: 'text', id: 'audit-actor', value: f.actor, autocomplete: 'off', spellcheck: 'false', placeholder: 'email or token name' });
    this.kind = select(KINDS, f.kind, { id: 'audit-kind' });
    this.id = h('input', { type: 'text', id: 'audit-id', value: f.id, autocomplete: 'off', spellcheck: 'false' });
    this.since = h('input', { type: 'datetime-local', id: 'audit-since', value: f.since ? localValue(f.since) : '' });
    this.until = h('input', { type: 'datetime-local', id: 'audit-until', value: f.until ? localValue(f.until) : '' });
    this.box = h('div', { id: 'audit', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    const filtered = FILTERS.some((k) => f[k]);
    this.root.replaceChildren(h('div', { class: 'pane-body team' },
      h('h1', { text: 'Activity' }),
      h('p', { class: 'lede', text: `Everything changed in ${state.app.name || state.app.slug}, newest first: by whom (a person or a token), when, and from where.` }),
      h('section', { class: 'panel', 'aria-labelledby': 'audit-filter-heading' },
        h('h2', { id: 'audit-filter-heading', text: 'Filter' }),
        h('form', { class: 'audit-filter', novalidate: true, 'aria-labelledby': 'audit-filter-heading', onsubmit: (e) => { e.preventDefault(); this.apply(); } },
          h('div', { class: 'row' },
            field('Who', this.actor, { pointer: '/actor' }),
            field('What', this.kind, { pointer: '/kind' }),
            field('Item ID', this.id, { pointer: '/id' }),
            field('From', this.since, { pointer: '/since' }),
            field('Until', this.until, { pointer: '/until' })),
          h('div', { class: 'form-actions' },
            h('button', { type: 'submit', class: 'button primary', id: 'audit-apply', text: 'Show' }),
            filtered ? h('button', { type: 'button', class: 'button', id: 'audit-clear', text: 'Clear filters', onclick: () => navigate('/activity') }) : null))),
      h('section', { class: 'panel', 'aria-labelledby': 'audit-heading' },
        h('h2', { id: 'audit-heading', text: filtered ? 'Entries matching the filter' : 'All entries' }),
        this.box)));
  }

  apply() {
    const query = new URLSearchParams();
    const values = {
      actor: this.actor.value.trim(), kind: this.kind.value, id: this.id.value.trim(),
      since: this.since.value ? isoValue(this.since.value) : '', until: this.until.value ? isoValue(this.until.value) : '',
    };
    for (const k of FILTERS) if (values[k]) query.set(k, values[k]);
    const text = query.toString();
    navigate(text ? `/activity?${text}` : '/activity');
  }

  /** People's names by email: the members of the app (the API gives each one's name) and the
   *  person signed in; an email without a name stays as it is. */
  async loadNames() {
    this.names = new Map();
    if (state.user?.email && state.user.name) this.names.set(state.user.email.toLowerCase(), state.user.name);
    try {
      for (const m of await api.members()) if (m.email && m.name) this.names.set(m.email.toLowerCase(), m.name);
    } catch (error) {
      if (!error.isMissingRoute) showError(error, 'Loading the members’ names');
    }
  }

  /** Who did it: a person's name (the email on hover), a token or the command line as it is. */
  who(e) {
    const name = e.actor_kind === 'user' ? this.names?.get(String(e.actor).toLowerCase()) : null;
    const badge = e.actor_kind && e.actor_kind !== 'user' && e.actor_kind !== e.actor ? h('span', { class: 'badge', text: e.actor_kind }) : null;
    if (name) return [h('span', { class: 'actor', title: e.actor, text: name }), badge];
    return [h('span', { class: 'actor', text: e.actor || '–' }), badge];
  }

  /** The summary in words: an update's fields by their labels; people by their names. */
  summaryText(e) {
    let text = e.summary || '';
    if (e.action === 'update' && FIELD_KINDS.has(e.kind) && /^[a-z_]+(, [a-z_]+)*$/.test(text)) text = fieldsInWords(text);
    return text.replace(EMAIL, (email) => {
      const name = this.names?.get(email.toLowerCase());
      return name ? `${name} (${email})` : email;
    });
  }

  async load(more = false) {
    if (!this.names) await this.loadNames();
    try {
      const page = await api.audit(this.filter, PAGE, more ? this.next : 0);
      this.entries = more ? [...this.entries, ...page.items] : page.items;
      this.total = page.total ?? this.entries.length;
      this.capped = page.total_capped === true;
      this.next = page.next_offset ?? null;
      this.show();
      if (more) (this.box.querySelector('#audit-more') || this.box.querySelector('tbody tr:last-child th'))?.focus();
    } catch (error) {
      if (error.status === 400 && error.problem.field) {
        this.box.replaceChildren(h('p', { class: 'field-error', text: `The filter is not valid: ${explain(error).detail}` }));
      } else {
        this.box.replaceChildren(h('p', { class: 'field-error', text: `The activity could not be loaded: ${explain(error).detail}` }));
      }
      showError(error, 'Loading the activity');
    }
  }

  /** The item an entry is about: a link where the editor has a page for it. */
  item(e) {
    const id = e.resource_id || '';
    if (!id) return '–';
    const short = id.length > 13 && /^[0-9a-f-]{36}$/i.test(id) ? `${id.slice(0, 8)}…` : id;
    if (e.action !== 'delete') {
      if (e.kind === 'screen' && find.screen(id)) return h('a', { href: `#/screens/${encodeURIComponent(id)}`, title: id, text: find.screen(id).name });
      if (e.kind === 'family' && find.family(id)) return h('a', { href: `#/families/${encodeURIComponent(id)}`, title: id, text: id });
      if (e.kind === 'layout' && find.layout(id)) return h('a', { href: `#/layouts/${encodeURIComponent(id)}`, title: id, text: find.layout(id).name });
      if (e.kind === 'version') return h('a', { href: '#/publish', text: `version ${id}` });
    }
    return h('code', { title: id, text: short });
  }

  show() {
    if (!this.entries.length) {
      this.box.replaceChildren(h('p', { class: 'empty', text: FILTERS.some((k) => this.filter[k]) ? 'No entries match the filter.' : 'Nothing has happened in this app yet.' }));
      return;
    }
    const revision = (e) => {
      if (e.revision_before === null && e.revision_after === null) return null;
      const text = e.revision_before === null ? `revision ${e.revision_after}`
        : (e.revision_after === null ? `was revision ${e.revision_before}` : `revision ${e.revision_before} → ${e.revision_after}`);
      return h('span', { class: 'audit-meta', text });
    };
    this.box.replaceChildren(
      h('p', { class: 'hint', id: 'audit-count', text: this.capped
        ? `${this.entries.length} of the newest ${this.total.toLocaleString('en')} entries (more match: narrow with the dates to reach older ones), newest first.`
        : `${this.entries.length} of ${this.total} entr${this.total === 1 ? 'y' : 'ies'}, newest first.` }),
      h('table', { class: 'data-table audit-table' },
        h('caption', { class: 'visually-hidden', text: 'Activity, newest first' }),
        h('thead', {}, h('tr', {}, ['When', 'Who', 'What', 'Item', 'Details'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, this.entries.map((e) => h('tr', { 'data-entry-id': String(e.id), 'data-kind': e.kind, 'data-action': e.action },
          h('td', { class: 'nowrap' }, h('time', { datetime: e.at, text: formatDate(e.at) })),
          h('td', {}, this.who(e)),
          h('th', { scope: 'row' }, `${KIND_NAME[e.kind] || e.kind} ${ACTION_WORD[e.action] || e.action}`),
          h('td', {}, this.item(e), revision(e)),
          h('td', { class: 'audit-summary' },
            e.summary ? h('span', { class: 'audit-text', title: e.summary, text: this.summaryText(e) }) : null,
            h('span', { class: 'audit-meta', title: 'Request id and address, to match the server log' },
              // Request ids share their leading digits (a process's prefix): the end tells them apart.
              e.request_id ? h('code', { class: 'request-id', title: e.request_id, text: `…${e.request_id.slice(-12)}` }) : null,
              e.address ? ` ${e.address}` : '')))))),
      ...(this.next !== null
        ? [h('button', { type: 'button', class: 'button small', id: 'audit-more', text: 'Show older entries', onclick: () => this.load(true) })]
        : []));
  }
}
