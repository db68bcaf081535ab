// Webhooks: tell your own systems when something goes live (a publish, a promotion, a rollback, a
// schedule fired, the app archived). Each webhook shows its deliveries: what was sent, every try,
// the receiver's answer, and a button to send one again. Admins register, change, rotate the
// secret, test and remove; every member sees them.
import { onLive } from '../together.js';
import { api, state, can, roleReason } from '../state.js';
import { h, field, formatDate } from '../dom.js';
import { confirmDialog } from '../dialogs.js';
import { showError, info, announce, explain } from '../notify.js';
import { clearFieldErrors } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { onceBox } from '../copy.js';

/** The events a webhook can take, with the words the page uses for them. */
export const EVENTS = [
  ['version.published', 'A version is published'],
  ['channel.promoted', 'A channel is pointed at a version (a promotion)'],
  ['channel.rolled_back', 'A channel or production is rolled back'],
  ['schedule.fired', 'A scheduled promotion fires'],
  ['app.archived', 'The app is archived'],
];
const EVENT_NAMES = Object.fromEntries([...EVENTS, ['ping', 'Test event']]);

/** While a delivery is waiting, the list is read again this often (ms). */
const REFRESH = 3000;

export async function mount(root) {
  const view = new WebhooksView(root);
  view.render();
  await view.load();
  let timer = null;
  const off = onLive((type, change) => {
    if (type !== 'change' || !['webhook', 'channel', 'version', 'schedule'].includes(change.kind)) return;
    clearTimeout(timer);
    timer = setTimeout(() => view.load(), 400);
  });
  return { title: 'Webhooks', unmount: () => { off(); clearTimeout(timer); view.stop(); } };
}

class WebhooksView {
  constructor(root) {
    this.root = root;
    this.hooks = [];
    this.deliveries = new Map();
    this.open = new Set();
    this.poll = null;
  }

  stop() { clearTimeout(this.poll); this.stopped = true; }

  render() {
    const admin = can('admin');
    this.listBox = h('div', { id: 'webhooks', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.resultBox = h('div', { id: 'webhook-result' });
    this.url = h('input', { type: 'url', id: 'webhook-url', autocomplete: 'off', maxlength: 2000, placeholder: 'https://hooks.example.com/rivers', spellcheck: 'false' });
    this.description = h('input', { type: 'text', id: 'webhook-description', autocomplete: 'off', maxlength: 500, placeholder: 'CDN purge' });
    this.eventBoxes = EVENTS.map(([name, text]) => {
      const box = h('input', { type: 'checkbox', value: name, checked: true, id: `webhook-event-${name.replace('.', '-')}` });
      return h('label', { class: 'check' }, box, ` ${text}`);
    });
    this.createButton = h('button', { type: 'submit', class: 'button primary', id: 'create-webhook', text: 'Add webhook' });
    this.errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.form = h('form', { class: 'token-form', novalidate: true, 'aria-labelledby': 'new-webhook-heading', onsubmit: (e) => { e.preventDefault(); this.create(); } },
      this.errorsHost,
      h('div', { class: 'row' },
        field('Address (URL)', this.url, { pointer: '/url', className: 'grow', hint: 'https only. Rivers POSTs each event there, signed, and tries again for a day until it answers 2xx.' }),
        field('Description (optional)', this.description, { pointer: '/description', className: 'grow' })),
      h('fieldset', { class: 'events', 'data-pointer': '/events' }, h('legend', { text: 'Tell it when' }), ...this.eventBoxes),
      h('div', { class: 'form-actions' }, this.createButton));
    this.root.replaceChildren(h('div', { class: 'pane-body team webhooks' },
      h('p', { class: 'breadcrumb' }, h('a', { href: '#/releases', text: 'Releases' }), ' › Webhooks'),
      h('h1', { text: 'Webhooks' }),
      h('section', { class: 'panel', 'aria-labelledby': 'new-webhook-heading' },
        h('h2', { id: 'new-webhook-heading', text: 'Tell your systems when something goes live' }),
        h('p', { class: 'lede', text: `A webhook is an address of yours that Rivers calls when ${state.app.name || state.app.slug} changes what apps get: to purge a CDN, post in a chat, or start a build. Each call is signed (Standard Webhooks), so the receiver can check it came from here.` }),
        admin ? this.form : h('p', { class: 'hint', id: 'webhook-role', text: roleReason('admin') || 'Only admins manage webhooks.' }),
        this.resultBox),
      h('section', { class: 'panel', 'aria-labelledby': 'webhooks-heading' },
        h('h2', { id: 'webhooks-heading', text: 'Webhooks of this app' }),
        this.listBox)));
  }

  async load() {
    try {
      this.hooks = (await api.request('GET', api.appPath('webhooks'))).data.items;
      await Promise.all(this.hooks.filter((hook) => this.open.has(hook.id)).map((hook) => this.loadDeliveries(hook)));
      this.show();
    } catch (error) {
      this.listBox.replaceChildren(h('p', { class: 'field-error', text: `The webhooks could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the webhooks');
    }
    this.schedulePoll();
  }

  async loadDeliveries(hook) {
    const list = (await api.request('GET', api.appPath(`webhooks/${encodeURIComponent(hook.id)}/deliveries?limit=20`))).data;
    this.deliveries.set(hook.id, list);
  }

  /** Reads the list again in a moment while something shown is still on its way. */
  schedulePoll() {
    clearTimeout(this.poll);
    const waiting = [...this.deliveries.values()].some((list) => list.items.some((d) => d.state === 'pending'));
    if (waiting && !this.stopped) this.poll = setTimeout(() => this.load(), REFRESH);
  }

  show() {
    if (!this.hooks.length) {
      this.listBox.replaceChildren(h('p', { class: 'empty', text: 'No webhooks yet.' }));
      return;
    }
    this.listBox.replaceChildren(...this.hooks.map((hook) => this.hookCard(hook)));
  }

  hookCard(hook) {
    const admin = can('admin');
    const label = hook.description || hook.url;
    const events = hook.events.map((e) => EVENT_NAMES[e] || e).join('; ');
    const actions = admin ? h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'button small', text: 'Send a test event', 'aria-label': `Send a test event to ${label}`, onclick: () => this.ping(hook) }),
      h('button', { type: 'button', class: 'button small', text: hook.enabled ? 'Pause' : 'Resume', 'aria-label': `${hook.enabled ? 'Pause' : 'Resume'} ${label}`, onclick: () => this.toggle(hook) }),
      h('button', { type: 'button', class: 'button small', text: 'New secret…', 'aria-label': `New secret for ${label}`, onclick: () => this.rotate(hook) }),
      h('button', { type: 'button', class: 'button small danger', text: 'Remove…', 'aria-label': `Remove ${label}`, onclick: () => this.remove(hook) })) : null;
    const details = h('details', { class: 'deliveries', 'data-webhook': hook.id, open: this.open.has(hook.id) },
      h('summary', { text: 'Deliveries' }),
      this.deliveriesTable(hook));
    details.addEventListener('toggle', async () => {
      if (details.open) {
        this.open.add(hook.id);
        try { await this.loadDeliveries(hook); } catch (error) { showError(error, 'Loading the deliveries'); }
        details.replaceChildren(details.firstChild, this.deliveriesTable(hook));
        this.schedulePoll();
      } else {
        this.open.delete(hook.id);
      }
    });
    return h('article', { class: 'webhook card', 'data-webhook-id': hook.id, 'aria-label': `Webhook ${label}` },
      h('h3', {}, h('code', { class: 'webhook-url', text: hook.url }), hook.enabled ? null : h('span', { class: 'badge', text: 'paused' })),
      hook.description ? h('p', { text: hook.description }) : null,
      h('p', { class: 'hint', text: `Told when: ${events}.` }),
      hook.previous_secret_until ? h('p', { class: 'hint', text: `The previous secret also signs until ${formatDate(hook.previous_secret_until)}.` }) : null,
      actions, details);
  }

  deliveriesTable(hook) {
    const list = this.deliveries.get(hook.id);
    if (!list) return h('p', { class: 'hint', text: 'Open to see what was sent.' });
    if (!list.items.length) return h('p', { class: 'empty', text: 'Nothing sent yet.' });
    const admin = can('admin');
    return h('table', { class: 'data-table deliveries-table' },
      h('caption', { class: 'visually-hidden', text: `Deliveries to ${hook.url}` }),
      h('thead', {}, h('tr', {}, ['Event', 'State', 'Tries', 'Last answer', 'Made', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, list.items.map((d) => h('tr', { 'data-delivery-id': d.id, 'data-state': d.state },
        h('th', { scope: 'row', text: EVENT_NAMES[d.event] || d.event }),
        h('td', {}, h('span', { class: `badge state-${d.state}`, text: stateText(d) })),
        h('td', { text: String(d.attempts) }),
        h('td', { text: lastAnswer(d) }),
        h('td', { class: 'when', text: formatDate(d.created_at) }),
        h('td', {}, admin ? h('button', {
          type: 'button', class: 'button small', text: 'Send again', 'aria-label': `Send ${EVENT_NAMES[d.event] || d.event} again`, onclick: () => this.redeliver(hook, d),
        }) : null)))));
  }

  eventsChosen() {
    return this.eventBoxes.map((label) => label.querySelector('input')).filter((box) => box.checked).map((box) => box.value);
  }

  async create() {
    clearFieldErrors(this.form);
    this.resultBox.replaceChildren();
    const body = { url: this.url.value.trim(), events: this.eventsChosen() };
    const description = this.description.value.trim();
    if (description) body.description = description;
    this.createButton.disabled = true;
    try {
      const made = (await api.request('POST', api.appPath('webhooks'), { body })).data;
      this.showSecret(made, 'Copy the signing secret now: it is shown only this once. The receiver checks each call with it (any Standard Webhooks library does).');
      announce(`Webhook added. Its secret is shown only now.`);
      this.url.value = '';
      this.description.value = '';
      this.open.add(made.id);
      await this.load();
    } catch (error) {
      showRequestError(error, { root: this.form, errorsHost: this.errorsHost, context: 'Adding the webhook' });
    } finally {
      this.createButton.disabled = false;
    }
  }

  showSecret(hook, text) {
    const box = onceBox({ id: 'webhook-secret', label: 'Signing secret', value: hook.secret, what: 'Secret', title: `Secret of ${hook.url}`, text });
    this.resultBox.replaceChildren(box);
    this.resultBox.querySelector('input').focus();
  }

  async ping(hook) {
    try {
      await api.request('POST', api.appPath(`webhooks/${encodeURIComponent(hook.id)}/ping`));
      info('Test event sent: it shows under Deliveries in a moment.');
      this.open.add(hook.id);
      await this.load();
    } catch (error) {
      showError(error, 'Sending a test event');
    }
  }

  async toggle(hook) {
    try {
      await api.request('PATCH', api.appPath(`webhooks/${encodeURIComponent(hook.id)}`), { body: { enabled: !hook.enabled }, etag: `"${hook.revision}"` });
      info(hook.enabled ? 'Webhook paused: it is told nothing until you resume it.' : 'Webhook resumed.');
      await this.load();
    } catch (error) {
      showError(error, hook.enabled ? 'Pausing the webhook' : 'Resuming the webhook');
      await this.load();
    }
  }

  async rotate(hook) {
    const ok = await confirmDialog({
      title: 'Make a new secret?',
      text: 'Calls are signed with both secrets for 24 hours, so the receiver can switch over; then only the new one signs.',
      confirm: 'Make a new secret',
    });
    if (!ok) return;
    try {
      const rotated = (await api.request('POST', api.appPath(`webhooks/${encodeURIComponent(hook.id)}/rotate-secret`))).data;
      this.showSecret(rotated, 'Copy the new secret now: it is shown only this once. Give it to the receiver within 24 hours.');
      await this.load();
    } catch (error) {
      showError(error, 'Making a new secret');
    }
  }

  async remove(hook) {
    const ok = await confirmDialog({
      title: `Remove the webhook to ${hook.url}?`,
      text: 'It is told nothing more, and its deliveries are forgotten. This cannot be undone.',
      confirm: 'Remove webhook', danger: true,
    });
    if (!ok) return;
    try {
      await api.request('DELETE', api.appPath(`webhooks/${encodeURIComponent(hook.id)}`));
      info('Webhook removed.');
      this.open.delete(hook.id);
      this.deliveries.delete(hook.id);
      this.resultBox.replaceChildren();
      await this.load();
    } catch (error) {
      showError(error, 'Removing the webhook');
    }
  }

  async redeliver(hook, delivery) {
    try {
      await api.request('POST', api.appPath(`webhooks/${encodeURIComponent(hook.id)}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`));
      info('Sent again: the answer shows here in a moment.');
      await this.load();
    } catch (error) {
      showError(error, 'Sending the delivery again');
    }
  }
}

/** A delivery's state in words. */
export function stateText(d) {
  if (d.state === 'delivered') return 'delivered';
  if (d.state === 'failed') return 'failed for good';
  return d.attempts ? 'trying again' : 'waiting';
}

/** What the receiver last answered, in words. */
export function lastAnswer(d) {
  if (d.last_status != null) return `HTTP ${d.last_status}`;
  if (d.last_error) return d.last_error;
  return '–';
}
