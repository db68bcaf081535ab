// Hash routes (#/apps/<app>/screens/<id>?focus=/name): every address names its app, so a link
// opens where it points, in any tab. A view is mounted into the outlet and may say it has unsaved
// changes; leaving it then asks first.
import { choiceDialog } from './dialogs.js';
import { can, state } from './state.js';
import { clearErrors } from './notify.js';

/** A hash split into its app and the rest: '#/apps/x/screens/1?a' → {app: 'x', rest: '/screens/1?a'};
 *  a hash without an app (older links, the views' own links) has app null. */
export function splitHash(hash) {
  const text = (hash || '').replace(/^#/, '') || '/screens';
  const m = /^\/apps\/([^/?]+)(.*)$/.exec(text);
  if (!m) return { app: null, rest: text };
  return { app: decodeURIComponent(m[1]), rest: m[2] || '/screens' };
}

/** The hash of `path` (a path below the app: '/screens/1') in the app being edited. */
export function appHash(path, app = state.app?.slug) {
  const rest = path.replace(/^#/, '');
  return app ? `#/apps/${encodeURIComponent(app)}${rest.startsWith('/') ? rest : `/${rest}`}` : `#${rest}`;
}

/** Called with an app's slug or id when the address names another app than the one open. */
let otherApp = null;
export function onOtherApp(handler) { otherApp = handler; }

/** A link written by a view as '#/…' gets the app in front when it is about to be used (pointed
 *  at, focused, pressed), so that opening it in a new tab, or copying it, keeps the app. */
function withAppLink(event) {
  const a = event.target?.closest?.('a[href^="#/"]');
  if (!a || !state.app || a.getAttribute('href').startsWith('#/apps/')) return;
  a.setAttribute('href', appHash(a.getAttribute('href')));
}

const routes = [];
let outlet = null;
let current = null; // {controller, hash}
let lastHash = '';
let guarding = false;
let sequence = 0;
let started = false;

/** pattern like '/screens/:id'; load: () => import(...) returning {mount}. */
export function route(pattern, load, name) {
  const keys = [];
  const regex = new RegExp(`^${pattern.replace(/:([a-z]+)/g, (_, k) => { keys.push(k); return '([^/]+)'; })}$`);
  routes.push({ regex, keys, load, name });
}

export function navigate(path) {
  const hash = appHash(splitHash(path.startsWith('#') ? path : `#${path}`).rest);
  if (location.hash === hash) { render(true); return; }
  location.hash = hash;
}

function parse(hash) {
  const text = splitHash(hash).rest;
  const [path, queryText = ''] = text.split('?');
  const query = Object.fromEntries(new URLSearchParams(queryText));
  for (const r of routes) {
    const m = r.regex.exec(path);
    if (m) {
      const params = {};
      r.keys.forEach((k, i) => { params[k] = decodeURIComponent(m[i + 1]); });
      return { route: r, params, query, path };
    }
  }
  return null;
}

export function isDirty() { return Boolean(current?.controller?.isDirty?.()); }

/** Drops the current view's unsaved changes (and the copy the browser keeps of them). */
export function discardCurrent() { current?.controller?.discard?.(); }

async function render(force = false) {
  if (guarding) return;
  const hash = location.hash || '#/screens';
  if (!force && current && hash === lastHash) return;
  if (current && isDirty() && hash !== lastHash) {
    guarding = true;
    const target = hash;
    history.replaceState(null, '', lastHash); // stay until the user says so
    // A role that may not save is not offered to (the editing views save families, screens, layouts).
    const canSave = typeof current.controller?.save === 'function' && can('editor');
    const choice = await choiceDialog({
      title: 'Save your changes before leaving?',
      text: 'This page has changes that are not saved.',
      choices: [
        { value: 'stay', label: 'Stay here' },
        { value: 'drop', label: 'Leave and drop changes', kind: 'danger' },
        ...(canSave ? [{ value: 'save', label: 'Save and leave', kind: 'primary' }] : []),
      ],
      cancel: 'stay', focus: canSave ? 'save' : 'stay', className: 'leave-dialog',
    });
    if (choice === 'save') {
      // Leaves only once saved: a refusal or a conflict keeps the page, with its errors shown.
      const outcome = await current.controller.save();
      guarding = false;
      if (outcome !== 'saved' && outcome !== 'merged') return;
    } else {
      guarding = false;
      if (choice !== 'drop') return;
      current.controller?.discard?.();
    }
    history.replaceState(null, '', target);
  }
  const { app, rest } = splitHash(location.hash);
  if (app && state.app && app !== state.app.slug && app !== state.app.id && otherApp) {
    // The address names another app: it is opened, at this address.
    otherApp(app);
    return;
  }
  // Every address names its app.
  if (state.app && location.hash !== appHash(rest)) history.replaceState(null, '', appHash(rest));
  const match = parse(location.hash || '#/screens');
  const previous = lastHash;
  lastHash = location.hash || '#/screens';
  // An error toast is about the page it came from: it does not follow the user to another one.
  if (previous && previous !== lastHash) clearErrors();
  current?.controller?.unmount?.();
  current = null;
  document.querySelectorAll('[data-nav]').forEach((a) => {
    const active = match && rest.startsWith(a.dataset.nav);
    if (active) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  });
  const root = document.createElement('div');
  root.className = 'view-root';
  outlet.replaceChildren(root);
  if (!match) {
    root.textContent = 'No such page.';
    return;
  }
  const mine = ++sequence;
  const module = await match.route.load();
  if (mine !== sequence) return;
  const controller = await module.mount(root, match.params, match.query);
  if (mine !== sequence) { controller?.unmount?.(); return; }
  current = { controller };
  document.title = `${controller?.title || match.route.name} · Rivers`;
}

let listening = false;

export function startRouter(outletEl) {
  outlet = outletEl;
  started = true;
  for (const a of document.querySelectorAll('#nav a[data-nav], a.brand')) a.setAttribute('href', appHash(a.dataset.nav || '/screens'));
  if (!listening) {
    listening = true;
    window.addEventListener('hashchange', () => { if (started) render(); });
    for (const type of ['pointerover', 'focusin', 'pointerdown', 'contextmenu']) document.addEventListener(type, withAppLink, true);
    window.addEventListener('beforeunload', (event) => {
      if (isDirty()) { event.preventDefault(); event.returnValue = ''; }
    });
  }
  render(true);
}

export function stopRouter() {
  started = false;
  sequence += 1;
  current?.controller?.unmount?.();
  current = null;
  lastHash = '';
}

/** Re-renders the current route (after a reload of data). */
export function rerender() { render(true); }
