// The editor's entry point: sign-in, the top bar, and the routes of every area.
import { api, state, loadApp, rememberToken, forgetToken, signedIn } from './state.js';
import { initNotify, showError, clearMessages, explain } from './notify.js';
import { route, startRouter, stopRouter, isDirty, discardCurrent } from './router.js';
import { confirmDialog } from './dialogs.js';

route('/screens', () => import('./views/screens.js'), 'Screens');
route('/screens/:id', () => import('./views/screens.js'), 'Screen');
route('/families', () => import('./views/families.js'), 'Families');
route('/families/:id', () => import('./views/families.js'), 'Family');
route('/layouts', () => import('./views/layouts.js'), 'Layouts');
route('/layouts/:id', () => import('./views/layouts.js'), 'Layout');
route('/publish', () => import('./views/publish.js'), 'Publish');

const $ = (id) => document.getElementById(id);

function showSignIn(message = '') {
  stopRouter();
  $('outlet').replaceChildren();
  $('nav').hidden = true;
  $('session').hidden = true;
  $('sign-in').hidden = false;
  const error = $('sign-in-error');
  error.hidden = !message;
  error.textContent = message;
  if (message) $('token').setAttribute('aria-invalid', 'true'); else $('token').removeAttribute('aria-invalid');
  $('token').focus();
}

async function enter() {
  const button = $('sign-in-button');
  button.disabled = true;
  try {
    await loadApp();
  } catch (error) {
    button.disabled = false;
    if (error.status === 401) {
      forgetToken();
      showSignIn('That token is not valid (the server answered 401). Check it and try again.');
    } else {
      showSignIn(`Could not open the app: ${explain(error).detail}`);
      showError(error, 'Signing in');
    }
    return;
  }
  button.disabled = false;
  $('sign-in').hidden = true;
  $('nav').hidden = false;
  $('session').hidden = false;
  $('app-name').textContent = state.app.name || state.app.slug;
  $('app-slug').textContent = state.app.slug;
  startRouter($('outlet'));
}

function init() {
  initNotify();
  api.onUnauthorized = () => {
    forgetToken();
    showSignIn('Your token stopped working (401). Sign in again.');
  };
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (!token) { showSignIn('Enter an API token.'); return; }
    clearMessages();
    rememberToken(token);
    enter();
  });
  $('token').addEventListener('input', () => { $('token').removeAttribute('aria-invalid'); $('sign-in-error').hidden = true; });
  $('sign-out').addEventListener('click', async () => {
    if (isDirty()) {
      const leave = await confirmDialog({
        title: 'Sign out without saving?', text: 'This page has changes that are not saved. Signing out drops them.',
        confirm: 'Sign out and drop changes', cancel: 'Stay signed in', danger: true,
      });
      if (!leave) return;
      discardCurrent();
    }
    forgetToken();
    clearMessages();
    $('token').value = '';
    showSignIn();
  });
  window.addEventListener('unhandledrejection', (event) => showError(event.reason, 'Unexpected error'));
  if (signedIn()) enter(); else showSignIn();
}

init();
