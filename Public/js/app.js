// The editor's entry point: sign-in (email and password; an API token as the other way), the top
// bar (the app switcher, the role, signing out), and the routes of every area.
import {
  api, state, loadApp, rememberToken, forgetToken, signedIn, useSession, resumeSession, rememberApp, can, subscribe, ROLES as ROLE_NAMES,
} from './state.js';
import { initNotify, showError, clearMessages, explain, waitText, info, notice } from './notify.js';
import { route, startRouter, stopRouter, isDirty, discardCurrent, splitHash, appHash, onOtherApp, rerender } from './router.js';
import { startLive, stopLive, configureLive } from './together.js';
import { confirmDialog } from './dialogs.js';
import { h } from './dom.js';
import { clearFieldErrors, placeErrors } from './field-errors.js';

route('/screens', () => import('./views/screens.js'), 'Screens');
route('/screens/:id', () => import('./views/screens.js'), 'Screen');
route('/map', () => import('./views/map.js'), 'Map');
route('/plugins', () => import('./views/plugins.js'), 'Plugins');
route('/plugins/:id', () => import('./views/plugins.js'), 'Plugin');
route('/families', () => import('./views/families.js'), 'Families');
route('/families/:id', () => import('./views/families.js'), 'Family');
route('/layouts', () => import('./views/layouts.js'), 'Layouts');
route('/layouts/:id', () => import('./views/layouts.js'), 'Layout');
route('/publish', () => import('./views/publish.js'), 'Publish');
route('/releases', () => import('./views/releases.js'), 'Releases');
route('/webhooks', () => import('./views/webhooks.js'), 'Webhooks');
route('/members', () => import('./views/members.js'), 'Members');
route('/tokens', () => import('./views/tokens.js'), 'Tokens');
route('/settings', () => import('./views/settings.js'), 'Settings');
route('/activity', () => import('./views/activity.js'), 'Activity');

const $ = (id) => document.getElementById(id);
/** How this browser signed in last: the sign-in page opens on that way ('password' or 'token'). */
const METHOD_KEY = 'rivers.sign-in-method';

/** Shows one of the two sign-in forms. */
function showMethod(method) {
  const token = method === 'token';
  $('sign-in-form').hidden = !token;
  $('password-form').hidden = token;
  $('use-token').textContent = token ? 'Use your email and password instead' : 'Use an API token instead';
}

function showSignIn(message = '') {
  stopLive();
  stopRouter();
  $('outlet').replaceChildren();
  $('nav').hidden = true;
  $('session').hidden = true;
  $('no-app').hidden = true;
  $('sign-in').hidden = false;
  const method = localStorage.getItem(METHOD_KEY) === 'token' ? 'token' : 'password';
  showMethod(method);
  // The message goes where the user looks: under the token field, or above the password form.
  const error = $('sign-in-error');
  const tokenMessage = method === 'token' ? message : '';
  error.hidden = !tokenMessage;
  error.textContent = tokenMessage;
  if (tokenMessage) $('token').setAttribute('aria-invalid', 'true'); else $('token').removeAttribute('aria-invalid');
  const note = $('sign-in-message');
  note.hidden = method === 'token' || !message;
  note.textContent = method === 'token' ? '' : message;
  (method === 'token' ? $('token') : ($('email').value ? $('password') : $('email'))).focus();
}

/** The top bar for the open app: its name or the switcher, the role, the person, the pages the role may use. */
function showApp() {
  const app = state.app;
  const several = (state.appsTotal ?? state.apps.length) > 1;
  $('app-single').hidden = several;
  $('app-choice').hidden = !several;
  $('app-name').textContent = app.name || app.slug;
  // A name that is the slug is said once (the slug).
  $('app-name').hidden = !app.name || app.name === app.slug;
  $('app-slug').textContent = app.slug;
  if (several) {
    fillSwitcher(state.apps);
    // More apps than the first page: a search finds the others (by slug or name).
    const search = $('app-search');
    search.hidden = (state.appsTotal ?? 0) <= state.apps.length;
    search.value = '';
  }
  const role = $('app-role');
  role.hidden = !state.role;
  role.textContent = state.role || '';
  role.title = state.role ? `Your role in this app: ${state.role}` : '';
  const user = $('user-name');
  user.hidden = !state.user;
  if (state.user) {
    user.textContent = state.user.name || state.user.email;
    user.title = `Signed in as ${state.user.email}${state.user.admin ? ' (instance administrator)' : ''}`;
  }
  // A narrow window has no room for the person's name in the top bar: Sign out says who it is.
  $('sign-out').title = state.user ? `Sign out ${state.user.name || state.user.email}` : 'Sign out';
  $('app-single').title = app.name && app.name !== app.slug ? `${app.name} (${app.slug})` : app.slug;
  for (const link of document.querySelectorAll('#nav [data-need]')) link.hidden = !can(link.dataset.need);
}

/** The switcher's choices: `apps`, with the open app first when it is not among them. */
function fillSwitcher(apps, emptyText = '') {
  const app = state.app;
  const shown = apps.some((a) => a.slug === app.slug) ? apps : [app, ...apps];
  const switcher = $('app-switcher');
  switcher.replaceChildren(...shown.map((a) => h('option', {
    value: a.slug, text: a.name && a.name !== a.slug ? `${a.name} (${a.slug})` : a.slug, selected: a.slug === app.slug,
  })));
  if (emptyText) switcher.append(h('option', { value: '', text: emptyText, disabled: true }));
  switcher.value = app.slug;
}

let searchTimer = null;
let searchSerial = 0;
/** Typing in the app search asks the server for the apps whose slug or name contains it. */
function searchApps(text) {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const serial = ++searchSerial;
    try {
      const page = text.trim() ? await api.appsPage(text.trim()) : { items: state.apps };
      if (serial !== searchSerial) return; // a later search answered first
      fillSwitcher(page.items, page.items.length ? '' : `No app matches “${text.trim()}”`);
    } catch (error) {
      showError(error, 'Finding apps');
    }
  }, 250);
}

/** The pages of an area that only some roles may open: another role goes to the screens. */
function allowedHash() {
  const { rest } = splitHash(location.hash);
  const link = [...document.querySelectorAll('#nav [data-need]')].find((a) => rest.startsWith(a.dataset.nav));
  if (link && !can(link.dataset.need)) history.replaceState(null, '', appHash('/screens'));
}

function showNoApp(text) {
  stopLive();
  stopRouter();
  $('outlet').replaceChildren();
  $('sign-in').hidden = true;
  $('nav').hidden = true;
  $('session').hidden = false;
  $('app-single').hidden = true;
  $('app-choice').hidden = true;
  $('app-role').hidden = true;
  $('user-name').hidden = !state.user;
  if (state.user) $('user-name').textContent = state.user.name || state.user.email;
  $('no-app-title').textContent = 'No app yet';
  $('no-app-text').textContent = text;
  $('no-app').hidden = false;
}

async function enter(key = null) {
  const button = $('sign-in-button');
  button.disabled = true;
  // Read before asking: a 401 forgets the token (onUnauthorized) before it reaches the catch.
  const wasToken = Boolean(api.token);
  try {
    // The app the address names comes first (a link opened in a new tab opens where it points).
    await loadApp(key || splitHash(location.hash).app);
  } catch (error) {
    button.disabled = false;
    if (error.noApps) { showNoApp(error.message); return; }
    if (error.status === 401) {
      forgetToken();
      showSignIn(wasToken ? 'That token is not valid (the server answered 401). Check it and try again.' : 'Your session ended. Sign in again.');
    } else {
      showSignIn(`Could not open the app: ${explain(error).detail}`);
      showError(error, 'Signing in');
    }
    return;
  }
  button.disabled = false;
  const named = splitHash(location.hash);
  if (named.app && named.app !== state.app.slug && named.app !== state.app.id) {
    // The address names an app that cannot be opened (a former slug, another person's app): the
    // same page in the app that opened; said plainly when there was a choice of apps.
    history.replaceState(null, '', appHash(named.rest));
    if (state.apps.length > 1) info(`There is no app “${named.app}” you can open here: ${state.app.name || state.app.slug} is open instead.`);
  }
  $('sign-in').hidden = true;
  $('no-app').hidden = true;
  $('nav').hidden = false;
  $('session').hidden = false;
  showApp();
  allowedHash();
  startRouter($('outlet'));
  startLive();
}

/** Why the live stream last said this caller's access changed, and when. */
let accessLost = null;

/**
 * The live stream said this caller's access changed (a member removed or given another role, a
 * token revoked, the app archived): asks the server what is left, and says so. Resolves true
 * when the app is still open (the stream reconnects), false when it is not.
 */
async function accessChanged(reason) {
  // Kept before anything is awaited: a request of another part of the page may hear the 401 first.
  if (reason) accessLost = { reason, at: Date.now() };
  const app = state.app;
  if (!app) return false;
  const name = app.name || app.slug;
  let answer;
  try {
    answer = (await api.request('GET', `apps/${encodeURIComponent(app.id || app.slug)}`, { quiet401: true })).data;
  } catch (error) {
    if (error.status === 401) {
      const wasToken = Boolean(api.token);
      forgetToken();
      $('token').value = '';
      showSignIn(wasToken ? `This token no longer works (${reason || 'it was revoked'}). Sign in with another token.`
        : 'Your session ended. Sign in again.');
      return false;
    }
    if (error.status !== 404 && error.status !== 403) return true; // unreachable: try the stream again
    discardCurrent();
    rememberApp(null);
    if (localStorage.getItem('rivers.last-app') === app.slug) localStorage.removeItem('rivers.last-app');
    history.replaceState(null, '', '#/screens');
    stopLive();
    stopRouter();
    clearMessages();
    await enter();
    const text = `You no longer have access to “${name}”: you were removed from it, or it was archived. Ask one of its admins if you need it again.`;
    if (!$('no-app').hidden) {
      $('no-app-title').textContent = 'No access to this app any more';
      $('no-app-text').textContent = text;
    }
    notice(`No access to “${name}” any more`, text);
    return false;
  }
  const role = ROLE_NAMES.includes(answer.role) ? answer.role : state.role;
  if (role !== state.role) {
    state.role = role;
    state.app = { ...state.app, ...answer };
    state.apps = state.apps.map((a) => (a.id === state.app.id ? { ...a, role } : a));
    showApp();
    allowedHash();
    if (!isDirty()) rerender();
    notice(`Your role in “${name}” is now ${role}`, 'An admin changed it; the editor shows what this role may do.');
  }
  return true;
}

/** Asks first when the page has unsaved changes; true when it may go on (the changes dropped). */
async function mayLeave(title, confirm, cancel, text) {
  if (!isDirty()) return true;
  const leave = await confirmDialog({ title, text, confirm, cancel, danger: true });
  if (leave) discardCurrent();
  return leave;
}

/** Opens another app: from the switcher at its area's list (a page of one app's screen or family
 *  means nothing in another), or (`keepPath`) at the address that named it. */
async function switchApp(slug, keepPath = false) {
  if (slug === state.app?.slug || slug === state.app?.id) return;
  const wanted = location.hash;
  const ok = await mayLeave('Switch apps without saving?', 'Switch and drop changes', 'Stay in this app',
    'This page has changes that are not saved. Opening another app drops them.');
  if (!ok) { $('app-switcher').value = state.app.slug; history.replaceState(null, '', appHash(splitHash(location.hash).rest)); return; }
  rememberApp(slug);
  clearMessages();
  await stopLive({ leave: true });
  stopRouter();
  const { rest } = splitHash(keepPath ? wanted : location.hash);
  const area = rest.split('?')[0].split('/')[1] || 'screens';
  history.replaceState(null, '', appHash(keepPath ? rest : `/${area}`, slug));
  await enter(slug);
}

async function signOut() {
  const ok = await mayLeave('Sign out without saving?', 'Sign out and drop changes', 'Stay signed in',
    'This page has changes that are not saved. Signing out drops them.');
  if (!ok) return;
  // Out of the others' presence first, while the credentials still work.
  await stopLive({ leave: true });
  if (!api.token && api.csrf) {
    try {
      await api.signOut();
    } catch (error) {
      if (error.status !== 401) { showError(error, 'Signing out'); return; }
    }
  }
  forgetToken();
  rememberApp(null);
  clearMessages();
  $('token').value = '';
  $('password').value = '';
  showSignIn();
}

let waitTimer = null;
/** 429: the button waits as long as the server says, counting down. */
function waitBeforeRetry(seconds) {
  const note = $('password-wait');
  const button = $('password-sign-in');
  clearInterval(waitTimer);
  let left = seconds;
  const tick = () => {
    if (left <= 0) {
      clearInterval(waitTimer);
      note.hidden = true;
      button.disabled = false;
      return;
    }
    note.hidden = false;
    note.textContent = `Too many failed sign-ins: try again in ${waitText(left)}.`;
    button.disabled = true;
    left -= 1;
  };
  tick();
  waitTimer = setInterval(tick, 1000);
}

async function passwordSignIn(event) {
  event.preventDefault();
  const form = $('password-form');
  const errorsHost = form.querySelector('.form-errors');
  clearFieldErrors(form);
  clearMessages();
  $('sign-in-message').hidden = true;
  const email = $('email').value.trim();
  const password = $('password').value;
  const local = [];
  if (!email) local.push({ pointer: '/email', message: 'Enter your email address.' });
  if (!password) local.push({ pointer: '/password', message: 'Enter your password.' });
  if (local.length) {
    placeErrors(form, local);
    $(local[0].pointer.slice(1)).focus();
    return;
  }
  const button = $('password-sign-in');
  button.disabled = true;
  try {
    const session = await api.signIn(email, password);
    useSession(session);
    localStorage.setItem(METHOD_KEY, 'password');
    $('password').value = '';
    button.disabled = false;
    await enter();
  } catch (error) {
    button.disabled = false;
    if (error.status === 401) {
      placeErrors(form, [{ pointer: '/password', message: 'The email or the password is wrong.' }]);
      $('password').select();
      $('password').focus();
    } else if (error.status === 429) {
      waitBeforeRetry(error.retryAfter || 60);
    } else if (error.isValidation && error.errors.length) {
      const unplaced = placeErrors(form, error.errors);
      if (unplaced.length) showError(error, 'Signing in');
    } else {
      errorsHost.replaceChildren();
      showError(error, 'Signing in');
    }
  }
}

function init() {
  initNotify();
  configureLive({ accessChanged });
  api.onUnauthorized = () => {
    const wasToken = Boolean(api.token);
    forgetToken();
    // The live stream may have said why a moment ago; any request can be the first to hear the 401.
    const why = accessLost && Date.now() - accessLost.at < 10000 ? accessLost.reason : 'it was revoked, or its app was archived';
    showSignIn(wasToken ? `This token no longer works (${why}). Sign in with another token.` : 'Your session ended (it expired, or you signed out elsewhere). Sign in again.');
  };
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (!token) { showSignIn('Enter an API token.'); return; }
    clearMessages();
    rememberToken(token);
    localStorage.setItem(METHOD_KEY, 'token');
    enter();
  });
  $('token').addEventListener('input', () => { $('token').removeAttribute('aria-invalid'); $('sign-in-error').hidden = true; });
  $('password-form').addEventListener('submit', passwordSignIn);
  $('use-token').addEventListener('click', () => {
    const token = $('sign-in-form').hidden;
    showMethod(token ? 'token' : 'password');
    $('sign-in-message').hidden = true;
    $(token ? 'token' : 'email').focus();
  });
  $('sign-out').addEventListener('click', signOut);
  $('app-switcher').addEventListener('change', (event) => switchApp(event.target.value));
  onOtherApp((app) => switchApp(app, true));
  $('app-search').addEventListener('input', (event) => searchApps(event.target.value));
  subscribe((kind) => { if (kind === 'app' && state.app) showApp(); });
  window.addEventListener('unhandledrejection', (event) => showError(event.reason, 'Unexpected error'));
  start();
}

/** A token kept for the tab signs in; else the session cookie, when it has one; else the sign-in page. */
async function start() {
  if (signedIn()) { enter(); return; }
  try {
    if (await resumeSession()) { enter(); return; }
  } catch (error) {
    showError(error, 'Checking whether you are signed in');
  }
  showSignIn();
}

init();
