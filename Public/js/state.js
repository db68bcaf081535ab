// What the editor knows about the app: the signed-in token, the app, and lists of families,
// screens and layouts (refreshed after every change), plus the catalogs. Views subscribe to
// changes; each view keeps its own unsaved draft.
import { Api } from './api.js';

const TOKEN_KEY = 'rivers.token';
const DEVICE_KEY = 'rivers.device';

export const api = new Api(sessionStorage.getItem(TOKEN_KEY));

export const state = {
  app: null,
  families: [],
  screens: [],
  layouts: [],
  componentTypes: [],
  devices: [],
  /** The device preset the preview uses (kept for the tab). */
  device: sessionStorage.getItem(DEVICE_KEY) || '',
};

const listeners = new Set();
/** Calls fn(kind) whenever a list changes; returns the unsubscribe function. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function emit(kind) { for (const fn of listeners) fn(kind); }

export function signedIn() { return Boolean(api.token); }

export function rememberToken(token) {
  api.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  api.token = null;
  api.app = null;
  state.app = null;
  sessionStorage.removeItem(TOKEN_KEY);
}

export function setDevice(id) {
  state.device = id;
  sessionStorage.setItem(DEVICE_KEY, id);
}

/** Finds the app the token sees and loads everything the views need. */
export async function loadApp() {
  const apps = await api.apps();
  if (!apps.length) throw new Error('This token sees no app.');
  state.app = apps[0];
  api.app = state.app.slug;
  const [componentTypes, devices] = await Promise.all([api.componentTypes(), api.devices(), refreshAll()]);
  state.componentTypes = componentTypes;
  state.devices = devices;
  if (!devices.some((d) => d.id === state.device)) setDevice(devices[1]?.id || devices[0]?.id || '');
  // The app object may carry more (public_url) than the list does.
  try { state.app = { ...state.app, ...(await api.getApp()) }; } catch { /* the list entry is enough */ }
  emit('app');
}

export async function refresh(kind) {
  state[kind] = await api.list(kind);
  emit(kind);
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
