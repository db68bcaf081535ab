// Hash routes (#/screens/<id>?focus=/name). A view is mounted into the outlet and may say it has
// unsaved changes; leaving it then asks first.
import { choiceDialog } from './dialogs.js';
import { can } from './state.js';

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
  if (location.hash === `#${path}`) { render(true); return; }
  location.hash = path;
}

function parse(hash) {
  const text = hash.replace(/^#/, '') || '/screens';
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
  const match = parse(location.hash || '#/screens');
  lastHash = location.hash || '#/screens';
  current?.controller?.unmount?.();
  current = null;
  document.querySelectorAll('[data-nav]').forEach((a) => {
    const active = match && lastHash.replace(/^#/, '').startsWith(a.dataset.nav);
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
  if (!listening) {
    listening = true;
    window.addEventListener('hashchange', () => { if (started) render(); });
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
