// Releases: which document each app gets, and getting a draft onto devices before it is live.
// Channels are named pointers to published versions (production is the app's main URL): each is
// promoted to a version, rolled back, made and removed here, with its history. Release rules send
// apps of a store and app-version range to a channel or a pinned version (first match wins; no
// match is production), with a preview of which URL gets what. Scheduled promotions move a channel
// at a time. A preview link is an unguessable URL that serves the app's current draft as a
// rivers.json; a test build pointed at it (its `rivers_url`) shows every save on its next start.
// Shown once with a QR code drawn here (no outside service), listed afterwards by name, revoked
// here. Viewers see everything; editors make preview links; admins change channels, rules and
// schedules.
import { onLive } from '../together.js';
import { api, state, can, roleReason } from '../state.js';
import { h, field, formatDate, stableStringify } from '../dom.js';
import { confirmDialog, formDialog } from '../dialogs.js';
import { showError, info, announce, explain } from '../notify.js';
import { clearFieldErrors, placeErrors, focusPointer } from '../field-errors.js';
import { showRequestError } from '../save-flow.js';
import { copyText, onceBox } from '../copy.js';
import { qrSvg } from '../qr.js';
import {
  STORES, storeLabel, channelNameProblem, rulesToRows, rowsToRules, plainRuleProblem, ruleProblems, ruleWho,
  targetText, ruleWarnings, plainWarning, exampleUrls, localToIso, toLocalInput, sortSchedules, channelUrl,
} from '../release-rules.js';

/** Days a new link lives, offered in the form; the server allows 1 to 30 (7 when none is given). */
const LIFETIMES = [1, 7, 30];

/** Which lists a live change of each kind reads again. */
const FOLLOWS = {
  preview_link: ['links'],
  channel: ['channels', 'schedules'],
  version: ['versions', 'channels'],
  release_rules: ['rules'],
  schedule: ['schedules', 'channels'],
};

export async function mount(root) {
  const view = new ReleasesView(root);
  view.render();
  await view.load();
  // Someone changes a channel, the rules or a schedule, publishes, or makes or revokes a preview
  // link (a schedule firing included): what it shows follows.
  const timers = {};
  const off = onLive((type, change) => {
    if (type !== 'change') return;
    for (const part of FOLLOWS[change.kind] || []) {
      clearTimeout(timers[part]);
      timers[part] = setTimeout(() => view.reload(part), 250);
    }
  });
  return { title: 'Releases', unmount: () => { off(); Object.values(timers).forEach(clearTimeout); view.dispose(); } };
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

const MAIN_URL_NOTE = 'the app’s main URL';
/** Why a role below admin sees no controls here. */
function adminOnly(what) {
  return `Your role in this app is ${state.role}: only admins ${what}.`;
}
const etagOf = (channel) => `"${channel.revision}"`;

/** New options for a select, keeping its choice when it is still offered (the control stays the same element). */
function refill(select, options) {
  const value = select.value;
  select.replaceChildren(...options);
  if ([...select.options].some((o) => o.value === value)) select.value = value;
}
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A read-only URL with Copy and Open, labelled for screen readers. */
function urlRow(url, { id, label }) {
  const input = h('input', { type: 'text', readonly: true, id, value: url, class: 'url-input', spellcheck: 'false', 'aria-label': label });
  input.addEventListener('focus', () => input.select());
  return h('div', { class: 'url-row' }, input,
    h('button', { type: 'button', class: 'button small', text: 'Copy', 'aria-label': `Copy ${label.charAt(0).toLowerCase()}${label.slice(1)}`, onclick: () => copyText(input, 'URL') }),
    h('a', { class: 'button small', href: url, target: '_blank', rel: 'noopener', text: 'Open', 'aria-label': `Open ${label.charAt(0).toLowerCase()}${label.slice(1)}` }));
}

class ReleasesView {
  constructor(root) {
    this.root = root;
    this.links = [];
    this.channels = [];
    this.versions = [];
    this.schedules = [];
    /** The rules as saved ({rules, revision, warnings}) with their ETag, and the form's rows. */
    this.saved = { rules: [], revision: 0, warnings: [] };
    this.rulesEtag = null;
    this.rows = [];
    this.scheduleTimer = null;
  }

  dispose() { clearTimeout(this.scheduleTimer); }

  get admin() { return can('admin'); }

  render() {
    const origin = location.origin;
    this.channelsMessage = h('div', { id: 'channels-message', 'aria-live': 'polite' });
    this.channelsBox = h('div', { id: 'channels' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.newChannelBox = h('div', { id: 'new-channel-box' });
    this.rulesBox = h('div', { id: 'release-rules-box' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.examplesBox = h('div', { id: 'rule-examples' });
    this.schedulesBox = h('div', { id: 'schedules' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.scheduleFormBox = h('div', { id: 'schedule-form-box' });
    this.root.replaceChildren(h('div', { class: 'pane-body team releases' },
      h('h1', { text: 'Releases' }),
      h('p', { class: 'lede', text: 'Which published version each app gets: channels and what they serve, the rules that send app versions to them, promotions at a set time, and the draft on a test device before anything is published.' }),
      this.admin ? null : h('p', { class: 'hint role-note', id: 'releases-role', text: adminOnly('promote, roll back, make or remove channels and change the rules and schedules; you see them here as they are') }),
      h('section', { class: 'panel', id: 'channels-panel', 'aria-labelledby': 'channels-heading' },
        h('h2', { id: 'channels-heading', text: 'Channels' }),
        h('p', { class: 'hint' }, 'A channel names a published version. ', h('strong', { text: 'production' }),
          ` is ${MAIN_URL_NOTE} (`, h('code', { text: channelUrl('', state.app.slug, 'production') }),
          '); point a test build at another channel’s URL to try a version before production gets it.'),
        this.channelsMessage,
        this.channelsBox,
        this.newChannelBox),
      this.previewSection(),
      h('section', { class: 'panel', id: 'rules-panel', 'aria-labelledby': 'rules-heading' },
        h('h2', { id: 'rules-heading', text: 'Release rules: app versions' }),
        h('p', { class: 'hint' }, 'Each app can read the URL of its store and version, ',
          h('code', { text: `${origin}/rivers/${state.app.slug}/{store}/{app_version}/rivers.json` }),
          '. The first rule that names the app decides what it gets; an app no rule names gets production.'),
        this.rulesBox,
        h('h3', { id: 'resolve-heading', text: 'Which URL gets what' }),
        this.resolveForm(),
        this.examplesBox),
      h('section', { class: 'panel', id: 'schedules-panel', 'aria-labelledby': 'schedules-heading' },
        h('h2', { id: 'schedules-heading', text: 'Scheduled promotions' }),
        h('p', { class: 'hint', text: 'Points a channel at a version at the time you choose (within 2 seconds of it), with nobody signed in. Only published versions can be scheduled, so a promotion cannot fail when it is due.' }),
        this.scheduleFormBox,
        this.schedulesBox),
      h('section', { class: 'panel', id: 'webhooks-panel', 'aria-labelledby': 'webhooks-heading' },
        h('h2', { id: 'webhooks-heading', text: 'Webhooks' }),
        h('p', { class: 'hint', id: 'webhooks-link' }, 'Tell your own systems when something goes live (purge a CDN, post in a chat, start a build): ',
          h('a', { href: '#/webhooks', text: 'Webhooks and their deliveries' }), '.'))));
  }

  async load() {
    await Promise.all([this.reload('versions'), this.reload('links'), this.reload('rules'), this.reload('schedules')]);
    // Channels after the versions (each shows its version's note and date).
    await this.reload('channels');
  }

  /** Reads one part again and draws it: links, channels, versions, rules, schedules. */
  async reload(part) {
    const loaders = {
      links: () => this.loadLinks(),
      channels: () => this.loadChannels(),
      versions: () => this.loadVersions(),
      rules: () => this.loadRules(),
      schedules: () => this.loadSchedules(),
    };
    return loaders[part]?.();
  }

  // Channels ------------------------------------------------------------------------------------

  async loadVersions() {
    try {
      const page = await api.versions(200, 0);
      const same = stableStringify(page.items) === stableStringify(this.versions);
      this.versions = page.items;
      if (!same) {
        this.showChannels();
        this.showNewChannel();
        this.showScheduleForm();
        this.showRules();
      }
    } catch (error) {
      showError(error, 'Loading the versions');
    }
  }

  versionText(number) {
    const v = this.versions.find((x) => x.number === number);
    if (!v) return `version ${number}`;
    return `version ${number}${v.note ? ` — ${v.note.length > 40 ? `${v.note.slice(0, 40)}…` : v.note}` : ''}`;
  }

  versionOptions(selected) {
    return this.versions.map((v) => h('option', { value: String(v.number), text: `${this.versionText(v.number)} (${formatDate(v.created_at)})`, selected: v.number === selected }));
  }

  async loadChannels() {
    try {
      this.channels = await api.channels();
      this.showChannels();
      this.showNewChannel();
      this.showScheduleForm();
      this.showRules({ keepRows: true });
      this.showExamples();
    } catch (error) {
      this.channelsBox.replaceChildren(h('p', { class: 'field-error', text: `The channels could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the channels');
    }
  }

  showChannels() {
    if (!this.channelsBox) return;
    if (!this.channels.length) {
      this.channelsBox.replaceChildren(h('p', { class: 'empty', id: 'no-channels', text: 'Nothing is published yet: production serves the first version you publish.' }));
      return;
    }
    // Drawn again only when something shown changed (a button about to be pressed stays put).
    const key = stableStringify([this.channels, this.versions.map((v) => [v.number, v.note, v.created_at]), this.admin]);
    if (key === this.channelsKey && this.channelsBox.querySelector('table')) {
      this.channelsBox.querySelectorAll('details[open]').forEach((d) => this.loadHistory(this.channels.find((c) => c.name === d.dataset.channel), d));
      return;
    }
    this.channelsKey = key;
    // History disclosures stay open across a redraw.
    const open = new Set([...this.channelsBox.querySelectorAll('details[open]')].map((d) => d.dataset.channel));
    const admin = this.admin;
    this.channelsBox.replaceChildren(h('table', { class: ['data-table channels-table', admin && 'with-actions'] },
      h('caption', { class: 'visually-hidden', text: 'Channels of this app and the version each serves' }),
      h('colgroup', {}, h('col', { class: 'col-channel' }), h('col', { class: 'col-serves' }), h('col', { class: 'col-url' }), admin ? h('col', { class: 'col-actions' }) : null),
      h('thead', {}, h('tr', {}, ['Channel', 'Serves', 'Public URL', admin ? '' : null].filter((t) => t !== null).map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.channels.map((c) => {
        const version = this.versions.find((v) => v.number === c.version);
        const history = h('details', { class: 'channel-history', 'data-channel': c.name, open: open.has(c.name) },
          h('summary', { text: 'History', 'aria-label': `History of channel ${c.name}` }),
          h('div', { class: 'history-body' }, h('p', { class: 'hint', text: 'Loading…' })));
        history.addEventListener('toggle', () => { if (history.open) this.loadHistory(c, history); });
        if (history.open) this.loadHistory(c, history);
        return h('tr', { 'data-channel': c.name, 'data-version': String(c.version) },
          h('th', { scope: 'row' },
            h('span', { class: 'channel-name', text: c.name }),
            c.name === 'production' ? h('span', { class: 'badge home', text: 'main URL' }) : null,
            history),
          h('td', { class: 'channel-serves' },
            h('strong', { class: 'channel-version', text: `Version ${c.version}` }),
            version ? h('span', { class: 'hint block' }, version.note ? `“${version.note}”, ` : '', `published ${formatDate(version.created_at)}`) : null,
            h('span', { class: 'hint block channel-since', text: `Served since ${formatDate(c.updated_at)}` })),
          h('td', { class: 'channel-url' }, urlRow(c.public_url, { id: `channel-url-${c.name}`, label: `Public URL of channel ${c.name}` })),
          admin ? h('td', {}, h('div', { class: 'actions' },
            h('button', { type: 'button', class: 'button small', 'data-action': 'promote', 'aria-label': `Promote channel ${c.name} to a version`, text: 'Promote…', onclick: () => this.promote(c) }),
            h('button', { type: 'button', class: 'button small', 'data-action': 'rollback', 'aria-label': `Roll back channel ${c.name}`, text: 'Roll back', onclick: () => this.rollback(c) }),
            c.name === 'production' ? null : h('button', { type: 'button', class: 'button small danger', 'data-action': 'remove', 'aria-label': `Remove channel ${c.name}`, text: 'Remove', onclick: () => this.removeChannel(c) }))) : null);
      }))));
  }

  async loadHistory(channel, details) {
    const body = details.querySelector('.history-body');
    try {
      const { data } = await api.channel(channel.name);
      const moves = data.history || [];
      body.replaceChildren(moves.length ? h('ol', { class: 'history-list' }, moves.map((m) => h('li', {},
        h('strong', { text: m.previous_version ? `${m.previous_version} → ${m.version}` : `made at ${m.version}` }),
        ` · ${formatDate(m.at)} · ${m.moved_by === 'schedule' ? 'by a schedule' : `by ${m.moved_by}`}`,
        m.note ? h('span', { class: 'muted', text: ` · ${m.note}` }) : null))) : h('p', { class: 'hint', text: 'No moves yet.' }));
    } catch (error) {
      body.replaceChildren(h('p', { class: 'field-error', text: `The history could not be loaded: ${explain(error).detail}` }));
    }
  }

  say(box, text, { error = false } = {}) {
    box.replaceChildren(h('p', { class: error ? 'field-error' : 'ok', role: error ? 'alert' : 'status', text }));
    if (!error) announce(text);
  }

  /** Promote: choose a version for the channel (the dialog is the confirmation). */
  async promote(channel) {
    if (!this.versions.length) { info('Publish a version first.', { refused: true }); return; }
    const other = this.versions.find((v) => v.number !== channel.version);
    const version = h('select', { id: 'promote-version' }, this.versionOptions(other ? other.number : channel.version));
    const note = h('textarea', { id: 'promote-note', rows: 2, maxlength: 1000, placeholder: 'Why, for the channel’s history (optional)' });
    const text = h('p', { id: 'promote-text' });
    const say = () => {
      const n = Number(version.value);
      text.textContent = n === channel.version
        ? `${channel.name} serves version ${n} already: nothing changes.`
        : `Apps reading ${channel.name} get version ${n} instead of version ${channel.version} on their next download.`;
    };
    version.addEventListener('change', say);
    say();
    const moved = await formDialog({
      title: `Promote ${channel.name}`, confirm: 'Promote', className: 'promote-dialog',
      fields: [field('Version', version, { pointer: '/version' }), text, field('Note (optional)', note, { pointer: '/note' })],
      submit: async ({ form, errorsHost }) => {
        try {
          const { data } = await api.moveChannel(channel.name, Number(version.value), note.value.trim(), etagOf(channel));
          return data;
        } catch (error) {
          if (error.isValidation) { showRequestError(error, { root: form, errorsHost, context: `Promoting ${channel.name}` }); return undefined; }
          showError(error, `Promoting ${channel.name}`);
          return false;
        }
      },
    });
    if (moved) this.say(this.channelsMessage, `${channel.name} now serves version ${moved.version}.`);
    if (moved !== null) await Promise.all([this.loadChannels(), this.loadSchedules()]);
  }

  /** Roll back: to the version the channel served before its last move. */
  async rollback(channel) {
    let detail;
    try {
      detail = await api.channel(channel.name);
    } catch (error) {
      showError(error, `Rolling back ${channel.name}`);
      return;
    }
    const last = detail.data.history?.[0];
    const back = last?.previous_version;
    if (!back) {
      this.say(this.channelsMessage, `${channel.name} has never pointed at another version: there is nothing to roll back to.`, { error: true });
      return;
    }
    const ok = await confirmDialog({
      title: `Roll back ${channel.name} to version ${back}?`,
      text: `Apps reading ${channel.name} get version ${back} again instead of version ${detail.data.version} on their next download.`,
      confirm: `Roll back to ${back}`, danger: true,
    });
    if (!ok) return;
    try {
      const { data } = await api.rollbackChannel(channel.name, '', detail.etag);
      this.say(this.channelsMessage, `${channel.name} rolled back: it serves version ${data.version} again.`);
    } catch (error) {
      showError(error, `Rolling back ${channel.name}`);
    }
    await this.loadChannels();
  }

  async removeChannel(channel) {
    const ok = await confirmDialog({
      title: `Remove channel ${channel.name}?`,
      text: `Its URL stops serving a document at once: test builds reading it get nothing. The versions stay; you can make the channel again.`,
      confirm: 'Remove channel', danger: true,
    });
    if (!ok) return;
    try {
      await api.removeChannel(channel.name, etagOf(channel));
      this.say(this.channelsMessage, `Channel ${channel.name} removed.`);
    } catch (error) {
      if (error.status === 409) {
        // Who still uses it (a rule, a pending schedule), in the server's words.
        this.say(this.channelsMessage, `Channel ${channel.name} was not removed: ${error.detail}.`, { error: true });
      } else {
        showError(error, `Removing channel ${channel.name}`);
      }
    }
    await this.loadChannels();
  }

  showNewChannel() {
    if (!this.newChannelBox) return;
    if (!this.admin) { this.newChannelBox.replaceChildren(); return; }
    if (!this.versions.length) {
      this.newChannelBox.replaceChildren(h('p', { class: 'hint', id: 'new-channel-hint', text: 'Publish a version first: a channel points at a published version.' }));
      return;
    }
    // Drawn once: later changes (someone publishes) only refill the versions, so nothing moves or is lost.
    if (this.newChannelForm?.isConnected) { refill(this.newChannelVersion, this.versionOptions(this.versions[0]?.number)); return; }
    this.newChannelName = h('input', { type: 'text', id: 'new-channel-name', autocomplete: 'off', maxlength: 32, placeholder: 'staging', spellcheck: 'false' });
    this.newChannelVersion = h('select', { id: 'new-channel-version' }, this.versionOptions(this.versions[0]?.number));
    const errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.newChannelForm = h('form', { class: 'token-form', id: 'new-channel-form', novalidate: true, 'aria-labelledby': 'new-channel-heading', onsubmit: (e) => { e.preventDefault(); this.createChannel(errorsHost); } },
      h('h3', { id: 'new-channel-heading', text: 'New channel' }),
      errorsHost,
      h('div', { class: 'row' },
        field('Name', this.newChannelName, { pointer: '/name', hint: 'Lowercase letters, digits, _ and -; it is part of the URL.' }),
        field('Serves', this.newChannelVersion, { pointer: '/version', className: 'grow' }),
        h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'button primary', id: 'create-channel', text: 'Make channel' }))));
    this.newChannelBox.replaceChildren(this.newChannelForm);
  }

  async createChannel(errorsHost) {
    const form = this.newChannelForm;
    clearFieldErrors(form);
    const name = this.newChannelName.value.trim();
    const problem = channelNameProblem(name);
    const taken = this.channels.some((c) => c.name === name);
    if (problem || taken) {
      placeErrors(form, [{ pointer: '/name', message: taken ? `There is a channel ${name} already: promote it instead.` : `The name ${problem}.` }]);
      this.newChannelName.focus();
      return;
    }
    const button = form.querySelector('#create-channel');
    button.disabled = true;
    try {
      const { data } = await api.moveChannel(name, Number(this.newChannelVersion.value), 'made in the editor');
      this.newChannelName.value = '';
      this.say(this.channelsMessage, `Channel ${data.name} made: it serves version ${data.version} at its own URL.`);
      await this.loadChannels();
    } catch (error) {
      showRequestError(error, { root: form, errorsHost, context: 'Making the channel' });
    } finally {
      button.disabled = false;
    }
  }

  // Release rules -------------------------------------------------------------------------------

  async loadRules() {
    try {
      const { data, etag } = await api.releaseRules();
      const dirty = this.rulesDirty();
      this.saved = data;
      this.rulesEtag = etag;
      // Someone else's change while this form has unsaved edits: the edits stay, and it says so.
      if (dirty && this.rulesForm?.isConnected) {
        this.rulesStale = true;
        this.showRulesState();
      } else {
        this.rulesStale = false;
        const same = this.rulesForm?.isConnected && stableStringify(rowsToRules(this.rows)) === stableStringify(rowsToRules(rulesToRows(data.rules)));
        this.rows = same ? this.rows : rulesToRows(data.rules);
        // Our own save heard back draws nothing again (focus and buttons stay where they are).
        if (same) this.showRulesState(); else this.showRules();
      }
      this.showExamples();
    } catch (error) {
      this.rulesBox.replaceChildren(h('p', { class: 'field-error', text: `The release rules could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the release rules');
    }
  }

  rulesDirty() {
    return Boolean(this.rulesForm) && stableStringify(rowsToRules(this.rows)) !== stableStringify(rowsToRules(rulesToRows(this.saved.rules)));
  }

  targetOptions(selected) {
    const options = [h('option', { value: '', text: 'Choose…' })];
    const channels = this.channels.map((c) => c.name);
    const [kind, value] = String(selected || '').split(':');
    if (kind === 'channel' && value && !channels.includes(value)) channels.push(value);
    options.push(h('optgroup', { label: 'Channel (follows its promotions)' },
      channels.map((name) => {
        const c = this.channels.find((x) => x.name === name);
        return h('option', { value: `channel:${name}`, text: `${name}${c ? ` (now version ${c.version})` : ''}` });
      })));
    const numbers = this.versions.map((v) => v.number);
    if (kind === 'version' && value && !numbers.includes(Number(value))) numbers.push(Number(value));
    options.push(h('optgroup', { label: 'Pinned version' }, numbers.map((n) => h('option', { value: `version:${n}`, text: this.versionText(n) }))));
    return options;
  }

  showRules({ keepRows = false } = {}) {
    if (!this.rulesBox) return;
    if (!this.admin) { this.showRulesReadOnly(); return; }
    if (keepRows && this.rulesForm?.isConnected) {
      // The channels or versions changed: the target lists follow, what is typed stays.
      this.rulesForm.querySelectorAll('select[data-target]').forEach((el) => {
        const value = el.value;
        el.replaceChildren(...this.targetOptions(value));
        el.value = value;
      });
      return;
    }
    const focus = document.activeElement?.id;
    this.rulesErrors = h('div', { class: 'form-errors', id: 'rules-errors' });
    this.rulesList = h('ol', { class: 'rule-list', id: 'release-rules' }, this.rows.map((row, i) => this.ruleRow(row, i)));
    this.rulesState = h('span', { class: 'hint', id: 'rules-state', role: 'status' });
    this.rulesForm = h('form', { class: 'rules-form', id: 'release-rules-form', novalidate: true, 'aria-labelledby': 'rules-heading', onsubmit: (e) => { e.preventDefault(); this.saveRules(); } },
      this.rulesErrors,
      this.rows.length ? null : h('p', { class: 'empty', id: 'no-rules', text: 'No rules: every app gets production.' }),
      this.rulesList,
      h('div', { class: 'form-actions' },
        h('button', { type: 'button', class: 'button', id: 'add-rule', text: 'Add rule', onclick: () => this.addRule() }),
        h('button', { type: 'submit', class: 'button primary', id: 'save-rules', text: 'Save rules' }),
        this.rulesState));
    this.rulesBox.replaceChildren(this.rulesForm);
    this.showRuleWarnings();
    this.showRulesState();
    if (focus) document.getElementById(focus)?.focus();
  }

  ruleRow(row, i) {
    const id = (what) => `rule-${i}-${what}`;
    const at = `/rules/${i}`;
    const store = h('select', { id: id('store') },
      h('option', { value: '', text: 'Any store' }), STORES.map((s) => h('option', { value: s.id, text: s.label })));
    store.value = row.store || '';
    const from = h('input', { type: 'text', id: id('from'), value: row.from, inputmode: 'decimal', autocomplete: 'off', placeholder: 'any', spellcheck: 'false' });
    const below = h('input', { type: 'text', id: id('below'), value: row.below, inputmode: 'decimal', autocomplete: 'off', placeholder: 'any', spellcheck: 'false' });
    const target = h('select', { id: id('target'), 'data-target': '' }, this.targetOptions(row.target));
    target.value = row.target || '';
    const who = h('p', { class: 'rule-who', id: id('who') });
    const sayWho = () => {
      const [rule] = rowsToRules([row]);
      who.textContent = `${ruleWho(rule)} → ${targetText(rule)}`;
    };
    const changed = () => {
      row.store = store.value;
      row.from = from.value;
      row.below = below.value;
      row.target = target.value;
      sayWho();
      this.showRuleWarnings();
      this.showRulesState();
    };
    for (const el of [store, from, below, target]) { el.addEventListener('input', changed); el.addEventListener('change', changed); }
    sayWho();
    const n = i + 1;
    const last = i === this.rows.length - 1;
    return h('li', { class: 'rule-row', 'data-index': String(i) },
      h('fieldset', { class: 'rule-fields', 'data-pointer': at },
        h('legend', { text: `Rule ${n}` }),
        h('div', { class: 'row' },
          field('Store', store, { pointer: `${at}/store`, className: 'store-field' }),
          field('From version', from, { pointer: `${at}/from_version`, className: 'narrow', hint: 'Included' }),
          field('Below version', below, { pointer: `${at}/below_version`, className: 'narrow', hint: 'Not included' }),
          field('Sends apps to', target, { pointer: `${at}/target`, className: 'grow' }),
          h('div', { class: 'rule-actions' },
            h('button', { type: 'button', class: 'button small', text: '↑', 'aria-label': `Move rule ${n} up`, disabled: i === 0, onclick: () => this.moveRule(i, -1) }),
            h('button', { type: 'button', class: 'button small', text: '↓', 'aria-label': `Move rule ${n} down`, disabled: last, onclick: () => this.moveRule(i, 1) }),
            h('button', { type: 'button', class: 'button small danger', text: 'Remove', 'aria-label': `Remove rule ${n}`, onclick: () => this.removeRule(i) }))),
        who,
        h('p', { class: 'rule-warning', id: id('warning'), hidden: true })));
  }

  addRule() {
    this.rows.push({ store: '', from: '', below: '', target: '' });
    this.showRules();
    document.getElementById(`rule-${this.rows.length - 1}-store`)?.focus();
    announce(`Rule ${this.rows.length} added.`);
  }

  moveRule(i, by) {
    const j = i + by;
    if (j < 0 || j >= this.rows.length) return;
    [this.rows[i], this.rows[j]] = [this.rows[j], this.rows[i]];
    this.showRules();
    const button = this.rulesList.querySelector(`li[data-index="${j}"] button[aria-label^="Move rule ${j + 1} ${by < 0 ? 'up' : 'down'}"]`);
    (button && !button.disabled ? button : document.getElementById(`rule-${j}-store`))?.focus();
    announce(`Rule ${i + 1} is now rule ${j + 1}.`);
  }

  removeRule(i) {
    this.rows.splice(i, 1);
    this.showRules();
    (document.getElementById(`rule-${Math.min(i, this.rows.length - 1)}-store`) || document.getElementById('add-rule'))?.focus();
    announce(`Rule ${i + 1} removed.`);
  }

  /** Overlaps, as the rules stand in the form (the server warns of the same when they are saved). */
  showRuleWarnings() {
    const warnings = ruleWarnings(rowsToRules(this.rows));
    this.rulesList?.querySelectorAll('.rule-warning').forEach((el, i) => {
      const w = warnings.find((x) => x.pointer === `/rules/${i}`);
      el.hidden = !w;
      el.textContent = w ? `⚠ ${w.message}` : '';
    });
  }

  showRulesState() {
    if (!this.rulesState) return;
    const dirty = this.rulesDirty();
    const parts = [];
    if (this.rulesStale) parts.push('Someone else changed the rules meanwhile: Save replaces theirs with yours. ');
    parts.push(dirty ? 'Unsaved changes.' : (this.saved.revision ? 'Saved.' : 'No rules saved yet.'));
    this.rulesState.replaceChildren(parts.join(''));
    if (this.rulesStale) {
      this.rulesState.append(h('button', { type: 'button', class: 'button small', id: 'reload-rules', text: 'Show theirs (drops yours)', onclick: () => { this.rulesStale = false; this.rows = rulesToRows(this.saved.rules); this.showRules(); } }));
    }
  }

  /** Problems at their fields with a summary of links above the list. */
  showRuleProblems(problems, title) {
    const unplaced = placeErrors(this.rulesForm, problems);
    const summary = h('div', { class: 'error-summary', role: 'alert', tabindex: '-1' },
      h('h3', { text: title }),
      h('ul', {}, problems.map((p) => {
        const m = /^\/rules\/(\d+)/.exec(p.pointer);
        const where = m ? `Rule ${Number(m[1]) + 1}` : 'The rules';
        return h('li', {}, h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); focusPointer(this.rulesForm, p.pointer); } }, where), `: ${p.message}`);
      })));
    this.rulesErrors.replaceChildren(summary);
    summary.focus();
    return unplaced;
  }

  async saveRules() {
    clearFieldErrors(this.rulesForm);
    this.rulesErrors.replaceChildren();
    const local = ruleProblems(this.rows);
    if (local.length) {
      this.showRuleProblems(local, local.length === 1 ? 'Not saved yet: 1 thing to fix' : `Not saved yet: ${local.length} things to fix`);
      return;
    }
    const button = this.rulesForm.querySelector('#save-rules');
    button.disabled = true;
    try {
      // Before the rules are first set the server answers ETag "0" but refuses If-Match "0" (412):
      // then "*" is sent instead.
      const { data, etag } = await api.saveReleaseRules(rowsToRules(this.rows), this.saved.revision ? this.rulesEtag : '*');
      this.saved = data;
      this.rulesEtag = etag;
      this.rulesStale = false;
      this.rows = rulesToRows(data.rules);
      this.showRules();
      this.showExamples();
      const warned = data.warnings.length ? ` ${plural(data.warnings.length, 'warning')}: see the rules marked ⚠.` : '';
      info(`Release rules saved.${warned}`);
    } catch (error) {
      if (error.isValidation && error.errors.length) {
        const problems = error.errors.map(plainRuleProblem);
        const unplaced = this.showRuleProblems(problems, problems.length === 1 ? 'Not saved: 1 problem' : `Not saved: ${problems.length} problems`);
        if (unplaced.length) showError(error, 'Saving the release rules', { placed: true });
      } else if (error.isConflict) {
        // Theirs is read (kept aside: the form keeps the edits) so that "Show theirs" shows it.
        await this.loadRules();
        this.rulesStale = true;
        this.showRulesState();
        this.rulesErrors.replaceChildren(h('p', { class: 'field-error', role: 'alert', text: 'Not saved: someone else changed the rules first, and nothing was overwritten. Show theirs (your edits here are dropped), or Save again to replace theirs with yours.' }));
      } else {
        showError(error, 'Saving the release rules');
      }
    } finally {
      button.disabled = false;
    }
  }

  /** The saved rules for those who cannot change them: a table with the warnings beside. */
  showRulesReadOnly() {
    const rules = this.saved.rules || [];
    if (!rules.length) { this.rulesBox.replaceChildren(h('p', { class: 'empty', id: 'no-rules', text: 'No rules: every app gets production.' })); return; }
    const warnings = this.saved.warnings || [];
    this.rulesBox.replaceChildren(h('table', { class: 'data-table rules-table', id: 'release-rules-table' },
      h('caption', { class: 'visually-hidden', text: 'Release rules, in order: the first that matches wins' }),
      h('thead', {}, h('tr', {}, ['#', 'Store', 'From version', 'Below version', 'Sends apps to', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, rules.map((r, i) => {
        const w = warnings.find((x) => x.pointer === `/rules/${i}`);
        return h('tr', { 'data-index': String(i) },
          h('th', { scope: 'row', text: String(i + 1) }),
          h('td', { text: storeLabel(r.store) }),
          h('td', { text: r.from_version || 'any' }),
          h('td', { text: r.below_version || 'any' }),
          h('td', { text: targetText(r) }),
          h('td', { class: 'rule-warning', text: w ? `⚠ ${plainWarning(w.message)}` : '' }));
      }))));
  }

  // Which URL gets what -------------------------------------------------------------------------

  resolveForm() {
    this.resolveStore = h('select', { id: 'resolve-store' }, STORES.map((s) => h('option', { value: s.id, text: s.label })));
    this.resolveVersion = h('input', { type: 'text', id: 'resolve-version', autocomplete: 'off', placeholder: '5.1', inputmode: 'decimal', spellcheck: 'false' });
    this.resolveResult = h('div', { id: 'resolve-result', 'aria-live': 'polite' });
    return h('form', { class: 'token-form', id: 'resolve-form', novalidate: true, 'aria-labelledby': 'resolve-heading', onsubmit: (e) => { e.preventDefault(); this.resolve(); } },
      h('p', { class: 'hint', text: 'What an installed app gets now, by its store and version (the rules as saved).' }),
      h('div', { class: 'row' },
        field('Store', this.resolveStore, { className: 'store-field' }),
        field('App version', this.resolveVersion, { className: 'narrow' }),
        h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'button', id: 'resolve-button', text: 'Show what it gets' }))),
      this.resolveResult);
  }

  async resolve() {
    const version = this.resolveVersion.value.trim();
    if (!version) { this.say(this.resolveResult, 'Type an app version, like 5.1.', { error: true }); this.resolveVersion.focus(); return; }
    try {
      const r = await api.resolveRelease(this.resolveStore.value, version);
      const why = r.rule === null ? 'no rule names it' : `rule ${r.rule + 1}`;
      const what = r.channel
        ? `channel ${r.channel}${r.version ? `, now version ${r.version}` : ', which serves nothing yet'}`
        : `version ${r.version}, pinned`;
      this.resolveResult.replaceChildren(
        h('p', { class: 'resolve-answer', id: 'resolve-answer', 'data-version': String(r.version ?? ''), 'data-channel': r.channel || '' },
          `${storeLabel(r.store)} ${r.app_version} gets `, h('strong', { text: what }), ` (${why}).`),
        urlRow(r.url, { id: 'resolve-url', label: `URL of ${storeLabel(r.store)} apps at ${r.app_version}` }));
    } catch (error) {
      this.say(this.resolveResult, `Not shown: ${explain(error).detail}`, { error: true });
    }
  }

  showExamples() {
    if (!this.examplesBox) return;
    const rules = this.saved.rules || [];
    const examples = exampleUrls(rules, { origin: location.origin, slug: state.app.slug });
    const gets = (g) => {
      if (!g) return '–';
      if (g.channel) {
        const c = this.channels.find((x) => x.name === g.channel);
        return `channel ${g.channel}${c ? ` (now version ${c.version})` : ''}`;
      }
      return `version ${g.version} (pinned)`;
    };
    // (the channel's words: "channel production (now version 2)")
    this.examplesBox.replaceChildren(
      h('h4', { id: 'examples-heading', text: rules.length ? 'An app of each rule' : 'With no rules' }),
      h('table', { class: 'data-table examples-table', 'aria-labelledby': 'examples-heading' },
        h('thead', {}, h('tr', {}, ['Rule', 'Apps', 'Example URL', 'Gets'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, examples.map((e) => h('tr', { 'data-rule': e.index === null ? 'none' : String(e.index) },
          h('th', { scope: 'row', text: e.index === null ? '–' : String(e.index + 1) }),
          h('td', { text: e.who }),
          h('td', { class: 'example-url' }, e.url ? h('a', { href: e.url, target: '_blank', rel: 'noopener', text: e.url.replace(location.origin, '') }) : h('span', { class: 'hint', text: 'no app version is below it' })),
          h('td', {}, gets(e.gets), e.gets && e.index !== null && e.gets.rule !== e.index
            ? h('span', { class: 'hint block', text: e.gets.rule === null ? 'no rule: production' : `rule ${e.gets.rule + 1} comes first` }) : null))))));
  }

  // Schedules -----------------------------------------------------------------------------------

  async loadSchedules() {
    try {
      this.schedules = sortSchedules(await api.schedules());
      this.showSchedules();
    } catch (error) {
      this.schedulesBox.replaceChildren(h('p', { class: 'field-error', text: `The schedules could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading the schedules');
    }
  }

  showSchedules() {
    clearTimeout(this.scheduleTimer);
    const key = stableStringify(this.schedules);
    const same = key === this.schedulesKey;
    this.schedulesKey = key;
    if (!this.schedules.length) {
      this.schedulesBox.replaceChildren(h('p', { class: 'empty', id: 'no-schedules', text: 'No promotions scheduled.' }));
      return;
    }
    const admin = this.admin;
    if (!same || !this.schedulesBox.querySelector('table')) this.schedulesBox.replaceChildren(h('table', { class: 'data-table schedules-table' },
      h('caption', { class: 'visually-hidden', text: 'Scheduled promotions, pending first' }),
      h('thead', {}, h('tr', {}, ['When', 'Promotes', 'State', 'Scheduled by', admin ? '' : null].filter((t) => t !== null).map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, this.schedules.map((s) => h('tr', { 'data-schedule-id': s.id, 'data-state': s.state },
        h('th', { scope: 'row', class: 'when', text: formatDate(s.at) }),
        h('td', {}, h('strong', { text: s.channel }), ` to version ${s.version}`),
        h('td', {},
          h('span', { class: `badge schedule-${s.state}`, text: s.state }),
          s.late ? h('span', { class: 'badge late', title: 'No server was running at its time: it fired when one started.', text: 'late' }) : null,
          s.fired_at ? h('span', { class: 'hint block', text: `fired ${formatDate(s.fired_at)}` }) : null,
          s.cancelled_at ? h('span', { class: 'hint block', text: `cancelled ${formatDate(s.cancelled_at)}` }) : null),
        h('td', { text: s.created_by === 'schedule' ? 'a schedule' : s.created_by }),
        admin ? h('td', {}, s.state === 'pending' ? h('button', {
          type: 'button', class: 'button small danger', text: 'Cancel', 'aria-label': `Cancel promoting ${s.channel} to version ${s.version} at ${formatDate(s.at)}`,
          onclick: () => this.cancelSchedule(s),
        }) : null) : null)))));
    // The live stream says when one fires; a look just after the soonest is due covers a stream that is late.
    const next = this.schedules.find((s) => s.state === 'pending');
    const wait = next ? Date.parse(next.at) - Date.now() + 2500 : null;
    if (wait !== null && wait < 3600_000) {
      this.scheduleTimer = setTimeout(() => { if (this.root.isConnected) Promise.all([this.loadSchedules(), this.loadChannels()]); }, Math.max(wait, 1000));
    }
  }

  showScheduleForm() {
    if (!this.scheduleFormBox) return;
    if (!this.admin) { this.scheduleFormBox.replaceChildren(); return; }
    if (!this.versions.length || !this.channels.length) {
      this.scheduleFormBox.replaceChildren(h('p', { class: 'hint', id: 'schedule-hint', text: 'Publish a version first: a promotion points a channel at a published version.' }));
      return;
    }
    const channelOptions = () => this.channels.map((c) => h('option', { value: c.name, text: `${c.name} (now version ${c.version})` }));
    // Drawn once: later changes only refill the lists, so nothing moves or is lost while it is filled.
    if (this.scheduleForm?.isConnected) {
      refill(this.scheduleChannel, channelOptions());
      refill(this.scheduleVersion, this.versionOptions(this.versions[0]?.number));
      return;
    }
    this.scheduleChannel = h('select', { id: 'schedule-channel' }, channelOptions());
    this.scheduleVersion = h('select', { id: 'schedule-version' }, this.versionOptions(this.versions[0]?.number));
    this.scheduleAt = h('input', { type: 'datetime-local', id: 'schedule-at', min: toLocalInput(new Date()) });
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'this computer’s time zone';
    const errorsHost = h('div', { class: 'form-errors', 'data-pointer': '' });
    this.scheduleForm = h('form', { class: 'token-form', id: 'schedule-form', novalidate: true, 'aria-labelledby': 'schedule-form-heading', onsubmit: (e) => { e.preventDefault(); this.createSchedule(errorsHost); } },
      h('h3', { id: 'schedule-form-heading', text: 'Schedule a promotion' }),
      errorsHost,
      h('div', { class: 'row' },
        field('Channel', this.scheduleChannel, { pointer: '/channel' }),
        field('To version', this.scheduleVersion, { pointer: '/version', className: 'grow' }),
        field('At', this.scheduleAt, { pointer: '/at', hint: `Your time (${zone}).` }),
        h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'button primary', id: 'create-schedule', text: 'Schedule' }))));
    this.scheduleFormBox.replaceChildren(this.scheduleForm);
  }

  async createSchedule(errorsHost) {
    const form = this.scheduleForm;
    clearFieldErrors(form);
    const at = localToIso(this.scheduleAt.value);
    if (!at) {
      placeErrors(form, [{ pointer: '/at', message: 'Choose a date and a time.' }]);
      this.scheduleAt.focus();
      return;
    }
    const button = form.querySelector('#create-schedule');
    button.disabled = true;
    try {
      const made = await api.createSchedule({ channel: this.scheduleChannel.value, version: Number(this.scheduleVersion.value), at });
      this.scheduleAt.value = '';
      info(`Scheduled: ${made.channel} goes to version ${made.version} at ${formatDate(made.at)}.`);
      await this.loadSchedules();
    } catch (error) {
      if (error.isValidation) {
        const problems = error.errors.map((p) => (p.pointer === '/at' ? { ...p, message: `The time ${p.message}` } : p));
        placeErrors(form, problems);
        const first = problems[0];
        if (first) focusPointer(form, first.pointer);
      } else {
        showRequestError(error, { root: form, errorsHost, context: 'Scheduling the promotion' });
      }
    } finally {
      button.disabled = false;
    }
  }

  async cancelSchedule(s) {
    const ok = await confirmDialog({
      title: 'Cancel this promotion?',
      text: `${s.channel} will not move to version ${s.version} at ${formatDate(s.at)}. It stays in the list as cancelled.`,
      confirm: 'Cancel promotion', cancel: 'Keep it', danger: true,
    });
    if (!ok) return;
    try {
      await api.cancelSchedule(s.id);
      info('Promotion cancelled.');
    } catch (error) {
      showError(error, 'Cancelling the promotion');
    }
    await this.loadSchedules();
  }

  // Preview links -------------------------------------------------------------------------------

  previewSection() {
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
    return h('section', { class: 'panel', id: 'preview-panel', 'aria-labelledby': 'new-preview-heading' },
      h('h2', { id: 'new-preview-heading', text: 'See the draft on a device' }),
      h('p', { class: 'lede', text: `A preview link serves ${state.app.name || state.app.slug}'s draft, as it is now, to a test build of your app: nothing is published, and every save shows the next time the app starts. Anyone who has the link can read the draft until it expires or you revoke it.` }),
      editor ? this.form : h('p', { class: 'hint', id: 'preview-link-role', text: roleReason('editor') || 'Only editors make preview links.' }),
      this.resultBox,
      h('h3', { id: 'preview-links-heading', text: 'Preview links' }),
      this.listBox);
  }

  async loadLinks() {
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
        h('td', { class: 'when', text: formatDate(link.created_at) }),
        h('td', { class: 'when' }, formatDate(link.expires_at), link.expired ? h('span', { class: 'badge expired', text: 'expired' }) : null),
        h('td', { class: 'when', text: link.last_used_at ? formatDate(link.last_used_at) : 'never' }),
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
      await this.loadLinks();
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
      await this.loadLinks();
    } catch (error) {
      showError(error, `Revoking preview link “${link.name}”`);
    }
  }
}
