// Publishing: what keeps the app from publishing (each problem jumps to its field), publish with a
// note, the version history with rollback, the diff of two versions, and the public URL apps read.
import { onLive } from '../together.js';
import { api, state, find, publicUrl, refresh, refreshAll, gate, can, roleNote } from '../state.js';
import { h, field, select, formatDate, formatBytes, stableStringify } from '../dom.js';
import { confirmDialog, formDialog } from '../dialogs.js';
import { copyText } from '../copy.js';
import { showError, info, announce, explain } from '../notify.js';
import { typeName } from './components.js';
import { loadLive, liveName } from '../live.js';
import { documentChanges, renderChanges, summarize } from '../changes.js';

const UNAVAILABLE = 'This server does not offer publishing yet (its publish routes answer 404).';

/** "/screens/<id>/ui_components/0/data" → where to go and how to say it. */
export function locate(pointer) {
  const parts = (pointer || '').split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [collection, id, ...rest] = parts;
  const inner = rest.length ? `/${rest.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}` : '';
  const words = [];
  let href = null;
  if (collection === 'screens' && id) {
    const screen = find.screen(id);
    words.push(`Screen “${screen?.name || id}”`);
    href = `#/screens/${encodeURIComponent(id)}`;
    let list = screen?.ui_components || [];
    for (let i = 0; i < rest.length; i += 1) {
      if (rest[i] === 'ui_components' && /^\d+$/.test(rest[i + 1] || '')) {
        const index = Number(rest[i + 1]);
        const c = list[index];
        words.push(`component ${index + 1}${c ? ` (${typeName(c.component_type)})` : ''}`);
        list = c?.ui_components || [];
        i += 1;
      } else {
        words.push(rest[i].replace(/_/g, ' '));
      }
    }
  } else if (collection === 'families' && id) {
    words.push(`Family ${id}`, ...rest);
    href = `#/families/${encodeURIComponent(id)}`;
  } else if (collection === 'layouts' && id) {
    words.push(`Layout ${find.layout(id)?.name || id}`, ...rest);
    href = '#/layouts';
  } else {
    words.push(pointer || 'the app');
  }
  return { href, inner, label: words.join(' › ') };
}

export async function mount(root) {
  const view = new PublishView(root);
  view.render();
  view.loadAll();
  // Someone saves, publishes or rolls back: what a publish would change, and the versions, follow.
  let timer = null;
  const off = onLive((type, change) => {
    if (type !== 'change' || !['screen', 'family', 'layout', 'plugin', 'version', 'app', 'channel'].includes(change.kind)) return;
    clearTimeout(timer);
    timer = setTimeout(() => view.liveRefresh().catch(() => {}), 250);
  });
  return { title: 'Publish', unmount: () => { off(); clearTimeout(timer); } };
}

class PublishView {
  constructor(root) {
    this.root = root;
    this.versions = [];
    this.total = 0;
    this.unavailable = false;
  }

  render() {
    const url = publicUrl();
    this.urlInput = h('input', { type: 'text', readonly: true, id: 'public-url', value: url, class: 'url-input' });
    this.currentNote = h('p', { class: 'hint', id: 'current-version' });
    this.problemsBox = h('div', { id: 'problems', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Checking…' }));
    this.note = h('textarea', { id: 'publish-note', rows: 2, placeholder: 'What changed, for the history (optional)' });
    // Where the new version goes: production (the main URL, the default) or another channel, to
    // promote later on the Releases page.
    this.channel = h('select', { id: 'publish-channel' }, h('option', { value: 'production', text: 'production (the main URL)' }));
    this.publishButton = h('button', { type: 'submit', class: 'button primary', id: 'publish-button', text: 'Publish' });
    this.result = h('div', { id: 'publish-result', role: 'status', 'aria-live': 'polite' });
    this.liveSummary = h('p', { id: 'live-summary', class: 'live-summary' });
    this.changesBox = h('div', { id: 'publish-changes', class: 'publish-changes', 'aria-live': 'polite' }, h('p', { class: 'hint', text: 'Comparing the draft with the live version…' }));
    this.versionsBox = h('div', { id: 'versions' }, h('p', { class: 'hint', text: 'Loading…' }));
    this.from = h('select', { id: 'diff-from' });
    this.to = h('select', { id: 'diff-to' });
    this.diffBox = h('div', { id: 'diff-result', 'aria-live': 'polite' });
    this.banner = h('div', { id: 'publish-unavailable' });

    this.root.replaceChildren(h('div', { class: 'pane-body publish' },
      h('h1', { text: 'Publish' }),
      this.banner,
      h('section', { class: 'panel', 'aria-labelledby': 'url-heading' },
        h('h2', { id: 'url-heading', text: 'Public URL' }),
        h('p', { class: 'hint', text: 'Apps download the published document from this address (no token needed).' }),
        h('div', { class: 'url-row' },
          h('label', { for: 'public-url', class: 'visually-hidden', text: 'Public URL of rivers.json' }),
          this.urlInput,
          h('button', { type: 'button', class: 'button', id: 'copy-url', text: 'Copy URL', onclick: () => this.copy() }),
          h('a', { class: 'button', href: url, target: '_blank', rel: 'noopener', text: 'Open' })),
        this.currentNote,
        this.liveSummary),
      h('div', { class: 'publish-columns' },
        h('section', { class: 'panel', 'aria-labelledby': 'problems-heading' },
          h('div', { class: 'section-head' },
            h('h2', { id: 'problems-heading', text: 'Problems' }),
            h('button', { type: 'button', class: 'button small', text: 'Check again', onclick: () => this.loadProblems() })),
          this.problemsBox),
        h('section', { class: 'panel', 'aria-labelledby': 'publish-heading' },
          h('h2', { id: 'publish-heading', text: 'Publish a version' }),
          h('h3', { id: 'changes-heading', text: 'What this publish changes' }),
          this.changesBox,
          h('form', { class: 'resource-form', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.publish(); } },
            h('div', { class: 'field' }, h('label', { for: 'publish-note', text: 'Note' }), this.note),
            h('div', { class: 'form-actions' },
              h('div', { class: 'field inline', title: 'Another channel gets it at its own URL; promote it to production later on the Releases page.' },
                h('label', { for: 'publish-channel', text: 'Publish to' }), this.channel),
              gate(this.publishButton, 'publisher'))),
          this.result)),
      h('section', { class: 'panel', 'aria-labelledby': 'versions-heading' },
        h('h2', { id: 'versions-heading', text: 'Versions' }),
        roleNote('publisher'),
        this.versionsBox),
      h('section', { class: 'panel', 'aria-labelledby': 'diff-heading' },
        h('h2', { id: 'diff-heading', text: 'Compare two versions' }),
        h('form', { class: 'diff-form', novalidate: true, onsubmit: (e) => { e.preventDefault(); this.compare(); } },
          h('div', { class: 'field inline' }, h('label', { for: 'diff-from', text: 'From version' }), this.from),
          h('div', { class: 'field inline' }, h('label', { for: 'diff-to', text: 'To version' }), this.to),
          h('button', { type: 'submit', class: 'button', id: 'diff-button', text: 'Compare' })),
        this.diffBox)));
  }

  async loadAll() {
    await Promise.all([this.loadProblems(), this.loadVersions(), this.loadLive(), this.loadChannels(), refresh('screens').catch((e) => showError(e, 'Loading the screens'))]);
  }

  /** The channels a publish can go to (production first); the choice made stays. */
  async loadChannels() {
    try {
      const channels = await api.channels();
      const chosen = this.channel.value;
      const names = channels.map((c) => c.name).filter((n) => n !== 'production');
      this.channel.replaceChildren(h('option', { value: 'production', text: 'production (the main URL)' }),
        ...names.map((n) => h('option', { value: n, text: n })));
      this.channel.value = names.includes(chosen) ? chosen : 'production';
    } catch (error) {
      if (!error.isMissingRoute) showError(error, 'Loading the channels');
    }
  }

  /** After someone's change (the live stream): read again, and draw again only what differs, so
   *  that a button about to be pressed stays where it is. */
  async liveRefresh() {
    await Promise.all([this.loadProblems({ quiet: true }), this.loadVersions(false, { quiet: true }), this.loadLive({ quiet: true }), this.loadChannels()]);
  }

  /** The live version against the draft: a line under the URL, and what a publish would change. */
  async loadLive({ quiet = false } = {}) {
    let status;
    try {
      status = await loadLive();
      const key = stableStringify([status.live, status.draft, status.liveDocument]);
      if (quiet && key === this.liveKey) return;
      this.liveKey = key;
    } catch (error) {
      this.changesBox.replaceChildren(h('p', { class: 'field-error', text: `The draft could not be compared with the live version: ${explain(error).detail}` }));
      showError(error, 'Comparing the draft with the live version');
      return;
    }
    if (!status.available) { this.changesBox.replaceChildren(); return; }
    this.live = status;
    const { live, changes } = status;
    if (!live) {
      this.liveSummary.replaceChildren(h('span', { class: 'badge live-badge live-unpublished', text: 'Nothing live yet' }), ' Apps get nothing until the first publish.');
      const count = (status.draft || []).length;
      this.changesBox.replaceChildren(h('p', { text: `The first publish: ${count === 1 ? '1 screen goes' : `${count} screens go`} live.` }),
        h('ul', {}, (status.draft || []).slice(0, 12).map((s) => h('li', {}, h('span', { class: 'diff-added', text: s.name })))));
      this.changesBox.dataset.state = 'first';
      return;
    }
    const when = live.created_at ? `, published ${formatDate(live.created_at)}` : '';
    this.liveSummary.replaceChildren(
      h('span', { class: `badge live-badge ${status.differs ? 'live-changed' : 'live-same'}`, text: status.differs ? 'Draft differs from live' : 'Draft is live' }),
      ` Apps get ${liveName(live)}${when}. `,
      status.differs ? `The saved screens differ from it: ${summarize(changes) || 'the document differs'}.` : 'The saved screens are the same.');
    this.changesBox.dataset.state = status.differs ? 'changes' : 'same';
    if (!status.differs) {
      this.changesBox.replaceChildren(h('p', { class: 'ok', text: `✓ Nothing to publish: the draft is the same as the live ${liveName(live)}.` }));
      return;
    }
    this.changesBox.replaceChildren(...[
      live.rollback_of ? h('p', { class: 'notice', text: `Live is a rollback to version ${live.rollback_of}. Publishing sends the draft below instead, newer content included.` }) : null,
      renderChanges(changes, { id: 'publish-diff', title: `Live ${liveName(live)} → this publish`, nothing: 'The screens are the same; only the document’s form differs.' }),
    ].filter(Boolean));
  }

  markUnavailable() {
    if (this.unavailable) return;
    this.unavailable = true;
    this.publishButton.disabled = true;
    this.banner.replaceChildren(h('p', { class: 'notice', role: 'status', text: `${UNAVAILABLE} Everything else in the editor works; come back once the server has them.` }));
  }

  async loadProblems({ quiet = false } = {}) {
    if (!quiet) this.problemsBox.replaceChildren(h('p', { class: 'hint', text: 'Checking…' }));
    try {
      const { problems, warnings } = await api.publishReport();
      const key = stableStringify([problems, warnings]);
      if (quiet && key === this.problemsKey) return;
      this.problemsKey = key;
      this.showProblems(problems);
      this.showWarnings(warnings);
    } catch (error) {
      if (error.isMissingRoute) { this.markUnavailable(); this.problemsBox.replaceChildren(h('p', { class: 'hint', text: UNAVAILABLE })); return; }
      this.problemsBox.replaceChildren(h('p', { class: 'field-error', text: `The check failed: ${explain(error).detail}` }));
      showError(error, 'Checking for problems');
    }
  }

  /** A list of problems or warnings, each linking to its field where it has one. */
  pointerList(id, items) {
    return h('ul', { class: 'problem-list', id }, items.map((p) => {
      const where = locate(p.pointer);
      const text = `${where.label}: ${p.message}`;
      if (!where.href) return h('li', { text });
      const query = where.href.startsWith('#/screens/') ? `?focus=${encodeURIComponent(where.inner)}&message=${encodeURIComponent(p.message)}` : '';
      return h('li', {}, h('a', { href: `${where.href}${query}`, 'data-pointer-target': p.pointer }, where.label), `: ${p.message}`);
    }));
  }

  /** Warnings: published anyway, but worth a look (a list without a data source, an unknown source type). */
  showWarnings(warnings) {
    if (!warnings.length) return;
    this.problemsBox.append(
      h('p', { class: 'hint', text: `${warnings.length} warning${warnings.length === 1 ? '' : 's'}: publishing goes ahead, but apps may show less than you expect:` }),
      this.pointerList('warning-list', warnings));
  }

  showProblems(problems, { title } = {}) {
    if (!problems.length) {
      this.problemsBox.replaceChildren(h('p', { class: 'ok', text: '✓ No problems: the app can be published.' }));
      return;
    }
    this.problemsBox.replaceChildren(
      h('p', { class: 'field-error', text: title || `${problems.length} problem${problems.length === 1 ? '' : 's'} to fix before publishing:` }),
      this.pointerList('problem-list', problems));
  }

  /** What a publish would send, in one sentence (from the comparison with the live version). */
  publishText() {
    const status = this.live;
    const channel = this.channel?.value || 'production';
    if (channel !== 'production') return `The saved screens become a version that channel ${channel} serves; production stays as it is until you promote it.`;
    if (!status) return 'Apps get the saved screens on their next download.';
    if (!status.live) {
      const count = (status.draft || []).length;
      return `This is the first publish: ${count === 1 ? '1 screen goes' : `${count} screens go`} live, and apps get ${count === 1 ? 'it' : 'them'} on their next download.`;
    }
    if (!status.differs) return `Nothing changed since the live ${liveName(status.live)}: no new version is made.`;
    const what = summarize(status.changes);
    return `Apps get the saved screens on their next download${what ? `: ${what}` : ''}.`;
  }

  /** Asks before publishing (apps get it at once), with the note for the history; null when cancelled. */
  async confirmPublish() {
    // The server keeps at most 1000 characters (openapi.json, PublishRequest.note maxLength).
    const note = h('textarea', { id: 'publish-dialog-note', rows: 3, maxlength: 1000, placeholder: 'What changed, for the history (optional)' });
    note.value = this.note.value;
    return formDialog({
      title: 'Publish a new version?', confirm: 'Publish', className: 'publish-dialog',
      fields: [
        h('p', { id: 'publish-dialog-text', text: this.publishText() }),
        field('Note (optional)', note, { hint: 'Shown in the version history and the activity.' }),
      ],
      submit: async () => ({ note: note.value.trim() }),
    });
  }

  async publish() {
    if (this.unavailable || !can('publisher')) return;
    const answer = await this.confirmPublish();
    if (!answer) { this.publishButton.focus(); return; }
    this.note.value = answer.note;
    this.publishButton.disabled = true;
    this.result.replaceChildren(h('p', { class: 'hint', text: 'Publishing…' }));
    try {
      const channel = this.channel.value || 'production';
      const { data, status } = await api.publish(answer.note, channel);
      const v = data.version || {};
      const number = typeof v === 'object' ? v.number : v;
      const text = data.changed === false || status === 200
        ? `Nothing changed since version ${number}: no new version was made${channel === 'production' ? '' : `; channel ${channel} serves version ${number}`}.`
        : `Published version ${number}${channel === 'production' ? '' : ` to channel ${channel}`}.`;
      this.result.replaceChildren(h('p', { class: 'ok', id: 'publish-message', 'data-version': String(number ?? ''), text }));
      info(text);
      this.note.value = '';
      await Promise.all([this.loadVersions(), this.loadProblems(), this.loadLive()]);
    } catch (error) {
      if (error.isMissingRoute) { this.markUnavailable(); this.result.replaceChildren(h('p', { class: 'hint', text: UNAVAILABLE })); return; }
      if (error.isValidation) {
        this.result.replaceChildren(h('p', { class: 'field-error', text: 'Not published: fix the problems listed first.' }));
        this.showProblems(error.errors, { title: `Not published: ${error.errors.length} problem${error.errors.length === 1 ? '' : 's'}:` });
        announce('Not published: there are problems to fix.');
      } else {
        this.result.replaceChildren(h('p', { class: 'field-error', text: `Not published: ${explain(error).detail}` }));
        showError(error, 'Publishing');
      }
    } finally {
      if (!this.unavailable && can('publisher')) this.publishButton.disabled = false;
    }
  }

  async loadVersions(more = false, { quiet = false } = {}) {
    try {
      const page = await api.versions(50, more ? this.versions.length : 0);
      if (quiet && page.total === this.total && stableStringify(page.items) === stableStringify(this.versions.slice(0, page.items.length))) return;
      this.versions = more ? [...this.versions, ...page.items] : page.items;
      this.total = page.total ?? this.versions.length;
      this.showVersions(page.next_offset !== null && page.next_offset !== undefined);
    } catch (error) {
      if (error.isMissingRoute) { this.markUnavailable(); this.versionsBox.replaceChildren(h('p', { class: 'hint', text: UNAVAILABLE })); return; }
      this.versionsBox.replaceChildren(h('p', { class: 'field-error', text: `The versions could not be loaded: ${explain(error).detail}` }));
      showError(error, 'Loading versions');
    }
  }

  showVersions(hasMore) {
    const versions = this.versions;
    const current = state.app?.current_version ?? versions[0]?.number;
    this.currentNote.textContent = versions.length ? `${this.total} version${this.total === 1 ? '' : 's'} published.` : 'Nothing published yet: the URL answers 404 until the first publish.';
    const options = versions.map((v) => ({ value: v.number, text: `${v.number}${v.note ? ` — ${v.note.slice(0, 40)}` : ''}` }));
    const fill = (el, value) => { el.replaceChildren(...select(options, value).children); el.value = String(value ?? ''); };
    fill(this.from, versions[1]?.number ?? versions[0]?.number);
    fill(this.to, versions[0]?.number);
    if (!versions.length) {
      this.versionsBox.replaceChildren(h('p', { class: 'hint', text: 'No versions yet.' }));
      return;
    }
    this.versionsBox.replaceChildren(...[h('table', { class: 'data-table versions-table' },
      h('caption', { class: 'visually-hidden', text: 'Published versions, newest first' }),
      h('thead', {}, h('tr', {}, ['Version', 'Published', 'By', 'Note', 'Size (gzip)', 'SHA-256', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, versions.map((v) => h('tr', { 'data-version': String(v.number) },
        h('th', { scope: 'row' }, String(v.number), v.number === current ? h('span', { class: 'badge home', text: 'live' }) : null),
        h('td', { text: formatDate(v.created_at) }),
        h('td', { text: v.published_by || '–' }),
        h('td', {}, v.rollback_of ? h('span', { class: 'badge', title: `Republishes version ${v.rollback_of}`, text: `↺ rollback to ${v.rollback_of}` }) : null, v.rollback_of && v.note ? ' ' : '', v.note || (v.rollback_of ? '' : '–')),
        h('td', { text: `${formatBytes(v.size)} (${formatBytes(v.gzip_size)})` }),
        h('td', {}, h('code', { title: v.sha256, text: (v.sha256 || '').slice(0, 12) })),
        h('td', {}, h('div', { class: 'actions' },
          v.url ? h('a', { href: v.url, target: '_blank', rel: 'noopener', 'aria-label': `Open version ${v.number}`, text: 'JSON' }) : null,
          gate(h('button', {
            type: 'button', class: 'button small', 'aria-label': `Restore version ${v.number} into the draft`, text: 'Restore into the draft',
            'data-restore': String(v.number), onclick: () => this.restore(v),
          }), 'editor', { note: false }),
          v.number === current ? null : gate(h('button', {
            type: 'button', class: 'button small', 'aria-label': `Roll back to version ${v.number}`, text: 'Roll back to this',
            onclick: () => this.rollback(v),
          }), 'publisher', { note: false }))))))),
    hasMore ? h('button', { type: 'button', class: 'button small', text: 'Show older versions', onclick: () => this.loadVersions(true) }) : null].filter(Boolean));
  }

  /**
   * Makes version `v`'s screens the draft (one request, one transaction on the server), so that
   * the next publish starts from it; Undo puts back the draft as it was just before.
   */
  async restore(v) {
    const ok = await confirmDialog({
      title: `Restore version ${v.number} into the draft?`,
      text: `The screens you are editing become version ${v.number}’s, as it was published: screens made since then leave the draft, and changes since then are undone. Nothing is published, and you can undo it right after. Families, layouts and plugins stay as they are.`,
      confirm: `Restore version ${v.number}`,
    });
    if (!ok) return;
    try {
      const [before, version] = await Promise.all([api.request('GET', api.appPath('draft.json')).then((r) => r.data), api.version(v.number)]);
      await api.request('PUT', api.appPath('draft.json'), { body: version.document });
      await refreshAll();
      const text = `Version ${v.number} is the draft now: publish it, or keep editing.`;
      this.result.replaceChildren(h('p', { class: 'ok', id: 'restore-message', 'data-version': String(v.number), text }));
      info(text, {
        action: {
          label: 'Undo',
          run: async () => {
            try {
              await api.request('PUT', api.appPath('draft.json'), { body: before });
              await refreshAll();
              this.result.replaceChildren(h('p', { class: 'ok', id: 'restore-message', text: 'Undone: the draft is as it was before the restore.' }));
              info('Undone: the draft is as it was before the restore.');
              await this.loadLive();
            } catch (error) {
              showError(error, 'Undoing the restore');
            }
          },
        },
      });
      await this.loadLive();
    } catch (error) {
      showError(error, `Restoring version ${v.number} into the draft`);
    }
  }

  async rollback(v) {
    const ok = await confirmDialog({
      title: `Roll back to version ${v.number}?`,
      text: `Publishes version ${v.number}’s document again as a new version; apps get it on their next download. The editor’s screens do not change.`,
      confirm: `Roll back to ${v.number}`, danger: true,
    });
    if (!ok) return;
    try {
      const { data } = await api.rollback(v.number);
      const number = data?.number ?? data?.version?.number ?? data?.version;
      const text = data?.changed === false
        ? `Nothing to roll back: version ${number} already serves the same document as version ${v.number}.`
        : (number ? `Rolled back: version ${number} serves version ${v.number}’s document.` : `Rolled back to version ${v.number}.`);
      info(text);
      this.result.replaceChildren(h('p', { class: 'ok', id: 'publish-message', 'data-version': String(number ?? ''), text }));
      try { state.app = { ...state.app, ...(await api.getApp()) }; } catch (e) { showError(e, 'Reloading the app'); }
      await Promise.all([this.loadVersions(), this.loadLive()]);
    } catch (error) {
      showError(error, `Rolling back to version ${v.number}`);
    }
  }

  async compare() {
    const from = this.from.value;
    const to = this.to.value;
    if (!from || !to) { this.diffBox.replaceChildren(h('p', { class: 'hint', text: 'Publish at least one version first.' })); return; }
    this.diffBox.replaceChildren(h('p', { class: 'hint', text: 'Comparing…' }));
    try {
      const [a, b] = await Promise.all([api.version(from), api.version(to)]);
      this.diffBox.replaceChildren(renderChanges(documentChanges(a.document, b.document), { id: 'diff', title: `Version ${from} → ${to}` }));
    } catch (error) {
      this.diffBox.replaceChildren(h('p', { class: 'field-error', text: `The comparison failed: ${explain(error).detail}` }));
      showError(error, 'Comparing versions');
    }
  }

  copy() { return copyText(this.urlInput, 'Public URL'); }
}
