// What the editor knows about the app: who is signed in (a person with the session cookie, or an
// API token), the apps they can open and their role in the one open, and lists of families,
// screens and layouts (refreshed after every change), plus the catalogs. Views subscribe to
// changes; each view keeps its own unsaved draft. What a role may do is decided here, once
// (`can`, `gate`).
import { Api } from './api.js';
import { h, uid } from './dom.js';
import { loadContract } from './contract.js';

const TOKEN_KEY = 'rivers.token';
const DEVICE_KEY = 'rivers.device';
const APP_KEY = 'rivers.app';
/** The app opened last in this browser: the next sign-in opens it again. */
const LAST_APP_KEY = 'rivers.last-app';

/** What this tab kept under `key` (null without it). Read as the module loads, so it is asked only
 *  where there is a sessionStorage: node --test loads the editor's modules without one. */
const kept = (key) => globalThis.sessionStorage?.getItem(key) ?? null;

export const api = new Api(kept(TOKEN_KEY));

export const state = {
  /** The signed-in person ({id, email, name, admin, …}); null when an API token is used. */
  user: null,
  /** The apps the person (or the token) can open, each with the `role` there. */
  apps: [],
  app: null,
  /** The role in the open app: viewer, editor, publisher or admin. */
  role: null,
  families: [],
  screens: [],
  layouts: [],
  componentTypes: [],
  devices: [],
  /** The device preset the preview uses (kept for the tab). */
  device: kept(DEVICE_KEY) || '',
};

const listeners = new Set();
/** Calls fn(kind) whenever a list changes; returns the unsubscribe function. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function emit(kind) { for (const fn of listeners) fn(kind); }

/** True when an API token is kept for this tab (a cookie session is asked for with `resumeSession`). */
export function signedIn() { return Boolean(api.token); }

export function rememberToken(token) {
  api.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** Forgets every credential the editor holds (the token, the session's CSRF token) and the app. */
export function forgetToken() {
  api.token = null;
  api.csrf = null;
  api.app = null;
  state.app = null;
  state.user = null;
  state.role = null;
  state.apps = [];
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Takes a session answer ({user, csrf_token}) of signing in or of GET /session. */
export function useSession(session) {
  api.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  api.csrf = session.csrf_token;
  state.user = session.user;
}

/** Asks whether the browser's session cookie signs someone in; true when it does. */
export async function resumeSession() {
  try {
    useSession(await api.session());
    return true;
  } catch (error) {
    if (error.status === 401 || error.status === 403) return false;
    throw error;
  }
}

// Roles --------------------------------------------------------------------------------------------

export const ROLES = ['viewer', 'editor', 'publisher', 'admin'];
const PLURAL = { viewer: 'viewers', editor: 'editors', publisher: 'publishers', admin: 'admins' };
/** What a role below the one named cannot do, in words. */
const CANNOT = {
  editor: 'cannot change it',
  publisher: 'cannot publish or roll back',
  admin: 'cannot manage its members, tokens or settings',
};

function rank(role) { return ROLES.indexOf(role); }

/** True when the role in the open app is at least `role` (an app without roles: anything goes). */
export function can(role) {
  if (!state.role) return true;
  return rank(state.role) >= rank(role);
}

/** Why the role in the open app cannot do what needs `role` ('' when it can). */
export function roleReason(role) {
  if (can(role)) return '';
  return `Your role in this app is ${state.role}: ${PLURAL[state.role] || state.role} ${CANNOT[role] || `need the ${role} role for this`}.`;
}

/** A small note giving the reason a control is disabled (null when the role can use it). */
export function roleNote(role) {
  const reason = roleReason(role);
  return reason ? h('span', { class: 'role-note', id: uid('role'), 'data-needs': role, text: reason }) : null;
}

/**
 * The one way a control that needs a role is shown to roles below it: disabled (a link loses its
 * address), the reason as its title and, unless `note` is false, in a small note beside it that
 * the control is described by. Returns what to place: the control, or the control and its note.
 * @param {HTMLElement} el a button or a link
 * @param {'editor'|'publisher'|'admin'} role
 */
export function gate(el, role, { note = true } = {}) {
  const reason = roleReason(role);
  if (!reason) return el;
  el.dataset.needs = role;
  el.title = reason;
  if (el.tagName === 'A') {
    el.removeAttribute('href');
    el.setAttribute('role', 'link');
    el.setAttribute('aria-disabled', 'true');
    el.onclick = null;
    el.addEventListener('click', (event) => { event.preventDefault(); event.stopImmediatePropagation(); }, true);
  } else {
    el.disabled = true;
  }
  if (!note) return el;
  const noteEl = roleNote(role);
  const ids = (el.getAttribute('aria-describedby') || '').split(/\s+/).filter(Boolean);
  el.setAttribute('aria-describedby', [...ids, noteEl.id].join(' '));
  return [el, noteEl];
}

/** True when a control was disabled by `gate` (saves and re-enables leave it so). */
export function isGated(el) { return Boolean(el?.dataset?.needs); }

export function setDevice(id) {
  state.device = id;
  sessionStorage.setItem(DEVICE_KEY, id);
}

/**
 * Finds the apps the person or token can open, opens `key` (a slug or id), else the one chosen
 * before in this tab, else the first, and loads everything the views need.
 */
export async function loadApp(key = null) {
  // The first page only: an instance administrator may see thousands (the switcher searches).
  const page = await api.appsPage();
  const apps = page.items;
  state.appsTotal = page.total ?? apps.length;
  // The app asked for, else this tab's, else the last one opened in this browser.
  const wanted = key || sessionStorage.getItem(APP_KEY) || localStorage.getItem(LAST_APP_KEY);
  if (wanted && !apps.some((a) => a.slug === wanted || a.id === wanted)) {
    const found = await api.findApp(wanted);
    if (found) apps.unshift(found);
  }
  state.apps = apps;
  if (!apps.length) {
    const error = new Error(state.user
      ? 'You are not a member of any app yet: ask an app’s admin for an invitation.'
      : 'This token sees no app.');
    error.noApps = true;
    throw error;
  }
  state.app = apps.find((a) => a.slug === wanted || a.id === wanted) || apps[0];
  state.role = ROLES.includes(state.app.role) ? state.app.role : null;
  api.app = state.app.slug;
  if (state.appsTotal > 1) sessionStorage.setItem(APP_KEY, state.app.slug);
  localStorage.setItem(LAST_APP_KEY, state.app.slug);
  state.families = [];
  state.screens = [];
  state.layouts = [];
  // The contract (openapi.json) is read once, for the checks made before asking the server.
  const [componentTypes, devices] = await Promise.all([api.componentTypes(), api.devices(), refreshAll(), loadContract()]);
  state.componentTypes = componentTypes;
  state.devices = devices;
  if (!devices.some((d) => d.id === state.device)) setDevice(devices[1]?.id || devices[0]?.id || '');
  // The app object may carry more (public_url) than the list does.
  try { state.app = { ...state.app, ...(await api.getApp()) }; } catch { /* the list entry is enough */ }
  // The app says the caller's role in it (GET /apps/{app}): it decides what the editor lets them change.
  if (ROLES.includes(state.app.role)) state.role = state.app.role;
  emit('app');
}

/** Takes the app as the server answers it after a change of name or slug. */
export function appChanged(app) {
  const before = state.app;
  state.app = { ...before, ...app };
  api.app = state.app.slug;
  state.apps = state.apps.map((a) => (a.id === state.app.id ? { ...a, ...app, role: a.role } : a));
  if (sessionStorage.getItem(APP_KEY) === before.slug) sessionStorage.setItem(APP_KEY, state.app.slug);
  if (localStorage.getItem(LAST_APP_KEY) === before.slug) localStorage.setItem(LAST_APP_KEY, state.app.slug);
  // The address follows the new slug.
  const m = /^#\/apps\/[^/?]+(.*)$/.exec(location.hash || '');
  if (m) history.replaceState(null, '', `#/apps/${encodeURIComponent(state.app.slug)}${m[1] || '/screens'}`);
  emit('app');
}

/** The app chosen for this tab (the switcher); forgotten with `null`. */
export function rememberApp(slug) {
  if (slug) sessionStorage.setItem(APP_KEY, slug); else sessionStorage.removeItem(APP_KEY);
}

export async function refresh(kind) {
  const list = await api.list(kind);
  // A list read again that did not change (someone else's save of another field, our own save
  // heard back) draws nothing again: a redraw would move what the user is about to click.
  const same = Array.isArray(state[kind]) && JSON.stringify(state[kind]) === JSON.stringify(list);
  state[kind] = list;
  if (!same) emit(kind);
  return state[kind];
}

export function refreshAll() {
  return Promise.all([refresh('families'), refresh('screens'), refresh('layouts')]);
}

/** Replaces (or adds) one item of a list after a save, without another request. */
export function putItem(kind, item) {
  const list = state[kind];
  const i = list.findIndex((x) => x.id === item.id);
  if (i >= 0) list[i] = item; else list.push(item);
  emit(kind);
}

export function dropItem(kind, id) {
  state[kind] = state[kind].filter((x) => x.id !== id);
  emit(kind);
}

export const find = {
  family: (id) => state.families.find((f) => f.id === id),
  screen: (id) => state.screens.find((s) => s.id === id),
  layout: (id) => state.layouts.find((l) => l.id === id),
  componentType: (id) => state.componentTypes.find((t) => t.id === id),
};

/** Built-in screen types; anything else is a screen plugin. */
export const BUILT_IN_SCREEN_TYPES = ['general_content', 'favorites'];

/** root, connected or plugin. */
export function screenKind(screen) {
  if (screen.type && !BUILT_IN_SCREEN_TYPES.includes(screen.type)) return 'plugin';
  return screen.connected ? 'connected' : 'root';
}

/** A public URL for the app's document: the server's, or the documented path. */
export function publicUrl() {
  if (state.app?.public_url) return state.app.public_url;
  if (!state.app) return '';
  return `${location.origin}/rivers/${encodeURIComponent(state.app.slug)}/rivers.json`;
}
