// Together: the open app's live stream (one per open app) and presence. Every change saved by
// anyone reaches the views here (`onLive`); the lists refresh themselves; who else is in the app
// shows as avatars in the top bar, as initials on the rows of the items they have open and as a
// coloured outline on the field or component they are editing. The editor says where it is (the
// address, the focused field) with PUT …/presence, at most every 150 ms and every 10 s as a
// heartbeat, and leaves with DELETE on sign-out.
import { api, state, refresh, find } from './state.js';
import { newIdempotencyKey } from './api.js';
import { EventStream } from './sse.js';
import { h } from './dom.js';
import { splitHash } from './router.js';
import {
  initials, colorOf, placeOf, placeText, fieldText, others, pointerTargets, listOf,
} from './presence.js';

const HEARTBEAT = 10000;
const MIN_GAP = 150;
const OFF_KEY = 'rivers.live';

const listeners = new Set();
/** Calls fn(type, data) for each live event: 'change', 'access', 'presence', 'reload', 'status'. */
export function onLive(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function emit(type, data) {
  for (const fn of [...listeners]) {
    try { fn(type, data); } catch (error) { console.error('live listener', error); }
  }
}

export const live = {
  /** Everyone in the app (me included), as the last presence event said. */
  people: [],
  /** Who I am in presence: user:<id> or token:<id>. */
  me: null,
  status: 'off',
};

let stream = null;
let appKey = null;
let hooks = { accessChanged: async () => true };
let where = null;
let fieldPointer = '';
let lastSent = 0;
let sendTimer = null;
let heartbeat = null;
let inFlight = null; // the presence update under way (a promise)
let sentKey = '';
let listTimers = {};
let observer = null;
let decorateQueued = false;
/** Bumped by every start and stop: a start that was overtaken (another app, a sign-out) gives up. */
let generation = 0;

/** Whether this tab follows the app live (sessionStorage rivers.live = off turns it off: a slow link). */
export function liveEnabled() { return globalThis.sessionStorage?.getItem(OFF_KEY) !== 'off'; }

/** `accessChanged(reason)`: called when the stream says the caller's access changed. */
export function configureLive(options) { hooks = { ...hooks, ...options }; }

function authHeaders() {
  if (api.token) return { Authorization: `Bearer ${api.token}` };
  return {};
}

/** Opens the open app's stream (closing any other) and starts saying where this tab is. */
export async function startLive() {
  if (!state.app) return;
  const key = state.app.id || state.app.slug;
  if (stream && appKey === key) return;
  stopLive({ leave: false });
  const mine = ++generation;
  appKey = key;
  live.people = [];
  live.me = state.user ? `user:${state.user.id}` : null;
  if (!live.me && api.token) {
    try {
      const { data } = await api.request('GET', 'token');
      live.me = `token:${data.token?.id ?? data.id}`;
    } catch { /* unknown: every entry is shown, mine too */ }
  }
  if (mine !== generation) return;
  installDom();
  if (!liveEnabled()) { setStatus('off'); return; }
  stream = new EventStream(`/api/v1/apps/${encodeURIComponent(state.app.id || api.app)}/events`, {
    headers: authHeaders,
    onEvent: handle,
    onOpen: () => { sentKey = ''; sendPresence(true); },
    onState: (s) => setStatus(s),
    onError: ({ status }) => {
      if (status === 401) { api.onUnauthorized?.({ status }); return false; }
      if (status === 403 || status === 404) { hooks.accessChanged('you no longer have access to this app'); return false; }
      return true;
    },
  }).start();
  placeChanged();
  clearInterval(heartbeat);
  heartbeat = setInterval(() => sendPresence(true), HEARTBEAT);
}

/**
 * Closes the stream; `leave` also takes this tab out of the others' presence (sign-out, another
 * app): after any update still under way, so that it cannot bring the tab back. Resolves when done.
 */
export function stopLive({ leave = false } = {}) {
  const hadApp = appKey;
  // The credentials and the app of now: signing out forgets them before the request goes.
  const path = api.app ? `/api/v1/${api.appPath('presence')}` : null;
  const headers = { ...authHeaders(), ...(api.csrf && !api.token ? { 'X-CSRF-Token': api.csrf } : {}) };
  const pending = inFlight;
  generation += 1;
  stream?.close();
  stream = null;
  appKey = null;
  clearInterval(heartbeat);
  clearTimeout(sendTimer);
  heartbeat = null;
  live.people = [];
  where = null;
  fieldPointer = '';
  sentKey = '';
  renderAvatars();
  decorate();
  setStatus('off');
  if (!leave || !hadApp || !path) return Promise.resolve();
  return Promise.resolve(pending).catch(() => {})
    .then(() => fetch(path, { method: 'DELETE', headers: { ...headers, 'Idempotency-Key': newIdempotencyKey() }, keepalive: true, cache: 'no-store' }))
    .catch(() => {});
}

function setStatus(s) {
  live.status = s;
  document.getElementById('presence')?.setAttribute('data-live', s);
  emit('status', s);
}

function parse(data) {
  try { return JSON.parse(data); } catch { return null; }
}

function handle({ event, data }) {
  const body = parse(data);
  if (event === 'presence') {
    live.people = Array.isArray(body?.people) ? body.people : [];
    renderAvatars();
    queueDecorate();
    emit('presence', live.people);
    return;
  }
  if (event === 'change' && body) {
    const list = listOf(body);
    if (list) refreshSoon(list);
    if (body.kind === 'app' && body.action === 'update') refreshApp();
    emit('change', body);
    return;
  }
  if (event === 'access' && body) { emit('access', body); return; }
  if (event === 'reload') {
    const reason = body?.reason || '';
    emit('reload', reason);
    const current = stream;
    // Why, for programs (`code`: access, stopping, missed, behind); an older server says it in words only.
    const code = body?.code || (/role|revoked|archived|access|removed/i.test(reason) ? 'access' : /miss|read|behind/i.test(reason) ? 'missed' : '');
    if (code === 'access') {
      // What is left is asked first; the stream opens again only when the app still is.
      current?.controller?.abort();
      Promise.resolve(hooks.accessChanged(reason)).then((open) => { if (open && stream === current) current.restart(0); });
    } else {
      if ((code === 'missed' || code === 'behind') && current) {
        // Events were lost: start from now, and read again what is shown.
        current.lastId = '';
        resync();
      }
      current?.restart(0);
    }
  }
}

/** After events were lost: the lists, and (through listeners) the open record, read again. */
function resync() {
  for (const kind of ['screens', 'families', 'layouts']) refreshSoon(kind);
  emit('resync', null);
}

/** A list changed by someone: fetched again (several changes at once, once). */
function refreshSoon(kind) {
  clearTimeout(listTimers[kind]);
  listTimers[kind] = setTimeout(() => refresh(kind).catch(() => {}), 120);
}

async function refreshApp() {
  try {
    const app = await api.getApp();
    if (app && state.app && app.id === state.app.id && (app.name !== state.app.name || app.slug !== state.app.slug)) {
      const { appChanged } = await import('./state.js');
      appChanged(app);
    }
  } catch { /* the next change tries again */ }
}

// Saying where this tab is ---------------------------------------------------------------------

function placeChanged() {
  const next = placeOf(splitHash(location.hash).rest);
  if (next !== where) { where = next; fieldPointer = ''; sendPresence(); }
  queueDecorate();
}

function focusChanged(event) {
  if (!stream) return;
  const outlet = document.getElementById('outlet');
  const target = event.type === 'focusin' ? event.target : null;
  const holder = target && outlet?.contains(target) ? target.closest('[data-pointer]') : null;
  const pointer = holder && holder.dataset.pointer ? holder.dataset.pointer : '';
  if (pointer === fieldPointer) return;
  fieldPointer = pointer;
  sendPresence();
}

/** Sends where this tab is: at once when the last was ≥ 150 ms ago, else then (the latest wins). */
function sendPresence(force = false) {
  if (!stream || !where || !api.app) return;
  const key = `${where}\n${fieldPointer}`;
  if (!force && key === sentKey) return;
  const wait = Math.max(0, lastSent + MIN_GAP - Date.now());
  clearTimeout(sendTimer);
  if (wait > 0 || inFlight) { sendTimer = setTimeout(() => sendPresence(force), Math.max(wait, 50)); return; }
  lastSent = Date.now();
  sentKey = key;
  const body = { where };
  if (fieldPointer) body.field = fieldPointer;
  const mine = stream;
  const request = api.request('PUT', api.appPath('presence'), { body, quiet401: true })
    .catch((error) => {
      // 429: too soon after another tab of the same person; said again shortly.
      if (stream === mine && (error?.status === 429 || error?.status === 0)) { sentKey = ''; sendTimer = setTimeout(() => sendPresence(), 400); }
    })
    .finally(() => { if (inFlight === request) inFlight = null; });
  inFlight = request;
}

// Showing who else is here ----------------------------------------------------------------------

function nameOf(area, id) {
  const item = area === 'screens' ? find.screen(id) : area === 'families' ? find.family(id) : area === 'layouts' ? find.layout(id) : null;
  return item?.name || null;
}

/** "Ann Editor, on screen “Home”, in component 3, data, source". */
export function describe(person) {
  const field = fieldText(person.field);
  return `${person.name || 'Someone'}, on ${placeText(person.where, nameOf)}${field ? `, editing ${field}` : ''}`;
}

function avatar(person, { small = false } = {}) {
  const text = describe(person);
  return h('span', {
    class: small ? 'avatar small' : 'avatar', role: 'img', 'aria-label': text, title: text,
    style: `--avatar: ${colorOf(person.who)}`, 'data-who': person.who, text: initials(person.name),
  });
}

function renderAvatars() {
  const host = document.getElementById('presence');
  if (!host) return;
  const people = others(live.people, live.me);
  host.hidden = !people.length;
  const shown = people.slice(0, 4);
  const more = people.length - shown.length;
  const label = people.length === 1 ? `Also in this app: ${people[0].name}` : `Also in this app: ${people.length} people`;
  host.setAttribute('aria-label', label);
  host.replaceChildren(
    h('span', { class: 'avatars' }, shown.map((p) => avatar(p)), more > 0 ? h('span', { class: 'avatar more', text: `+${more}`, title: people.slice(4).map(describe).join('\n') }) : null),
    // A narrow window shows the count only (its title names everyone).
    h('span', { class: 'presence-count', title: people.map(describe).join('\n'), 'aria-hidden': 'true', text: people.length > 1 ? `+${people.length - 1}` : '' }),
  );
}

function queueDecorate() {
  if (decorateQueued) return;
  decorateQueued = true;
  requestAnimationFrame(() => { decorateQueued = false; decorate(); });
}

const ITEM_LINK = /#\/(?:apps\/[^/]+\/)?(screens|families|layouts)\/([^/?#]+)$/;

/** Marks the list rows of items others have open, and the fields they are editing here. */
function decorate() {
  const outlet = document.getElementById('outlet');
  if (!outlet) return;
  const people = others(live.people, live.me);
  // Rows: each link to an item others have open gets their initials.
  const byPlace = new Map();
  for (const p of people) {
    if (!byPlace.has(p.where)) byPlace.set(p.where, []);
    byPlace.get(p.where).push(p);
  }
  for (const link of outlet.querySelectorAll('.sidebar a[href], .data-table a[href], .layout-card a[href], .nav-list a[href]')) {
    if (link.classList.contains('button')) continue;
    const m = ITEM_LINK.exec(link.getAttribute('href') || '');
    const here = m ? byPlace.get(`${m[1]}/${decodeURIComponent(m[2])}`) || [] : [];
    const key = here.map((p) => p.who).join(' ');
    let dots = link.querySelector(':scope > .presence-dots, :scope > .item-meta > .presence-dots');
    if ((dots?.dataset.key || '') === key) continue;
    dots?.remove();
    if (!here.length) continue;
    dots = h('span', { class: 'presence-dots', 'data-key': key }, here.map((p) => avatar(p, { small: true })));
    link.append(dots);
    // On a row with its badges (the screens' sidebar), beside them.
    link.querySelector(':scope > .item-meta')?.append(dots);
  }
  // Fields: the one each person is editing on the page open here.
  const mine = where;
  const wanted = new Map(); // element → {people, named}
  for (const p of people) {
    if (p.where !== mine || !p.field) continue;
    let shown = false; // the name is shown once: at the field when it is in sight, else at its component
    for (const pointer of pointerTargets(p.field)) {
      const el = [...outlet.querySelectorAll(`[data-pointer="${CSS.escape(pointer)}"]`)].find((e) => !e.classList.contains('form-errors'));
      if (!el) continue;
      if (!wanted.has(el)) wanted.set(el, { people: [], named: [] });
      const entry = wanted.get(el);
      entry.people.push(p);
      if (!shown && el.getClientRects().length) { entry.named.push(p); shown = true; }
      // The component holding the field is outlined too (folded, the field is out of sight).
      if (el.classList.contains('component-card')) break;
    }
  }
  for (const el of outlet.querySelectorAll('.presence-outline')) {
    if (!wanted.has(el)) unmark(el);
  }
  for (const [el, { people: here, named }] of wanted) mark(el, here, named);
}

function tagHost(el) {
  if (el.classList.contains('component-card')) return el;
  return el.closest('.field, fieldset, .component-card') || el.parentElement;
}

function mark(el, people, named) {
  const key = `${people.map((p) => p.who).join(' ')}|${named.map((p) => p.who).join(' ')}`;
  if (el.dataset.presence === key) return;
  unmark(el);
  el.dataset.presence = key;
  el.classList.add('presence-outline');
  el.style.setProperty('--presence', colorOf(people[0].who));
  if (!named.length) return;
  const host = tagHost(el);
  const tag = h('span', {
    class: 'presence-tag', 'data-for': el.dataset.pointer, style: `--presence: ${colorOf(named[0].who)}`,
    text: named.map((p) => p.name).join(', '),
    title: named.map(describe).join('\n'),
  });
  el._presenceTag = tag;
  if (el.classList.contains('component-card')) host.prepend(tag);
  else host.append(tag);
  host.classList.add('presence-host');
}

function unmark(el) {
  delete el.dataset.presence;
  el.classList.remove('presence-outline');
  el.style.removeProperty('--presence');
  el._presenceTag?.remove();
  el._presenceTag = null;
}

let domInstalled = false;
function installDom() {
  if (domInstalled) return;
  domInstalled = true;
  const session = document.getElementById('session');
  if (session && !document.getElementById('presence')) {
    session.prepend(h('span', { id: 'presence', class: 'presence', role: 'group', 'aria-label': 'Also in this app', hidden: true }));
  }
  window.addEventListener('hashchange', () => { if (stream) placeChanged(); });
  document.addEventListener('focusin', focusChanged);
  document.addEventListener('focusout', (event) => {
    // Leaving a field for nothing (a click on the page) clears it; moving to another field is a focusin.
    if (!event.relatedTarget) focusChanged({ type: 'focusout' });
  });
  const outlet = document.getElementById('outlet');
  observer = new MutationObserver((records) => {
    const ours = records.every((r) => [...r.addedNodes, ...r.removedNodes].every((n) => n.nodeType === 1
      && (n.classList.contains('presence-dots') || n.classList.contains('presence-tag'))));
    if (!ours) queueDecorate();
  });
  if (outlet) observer.observe(outlet, { childList: true, subtree: true });
  // Leaving the page: out of the others' presence at once, not 30 s later.
  window.addEventListener('pagehide', () => {
    if (!stream || !api.app) return;
    try {
      fetch(`/api/v1/${api.appPath('presence')}`, {
        method: 'DELETE', keepalive: true,
        headers: { ...authHeaders(), ...(api.csrf && !api.token ? { 'X-CSRF-Token': api.csrf } : {}) },
      }).catch(() => {});
    } catch { /* leaving anyway */ }
  });
}
