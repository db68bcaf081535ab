// The page of a one-time link (/link.html#<secret>): setting a password for an account, or
// accepting an invitation to an app. The secret is in the fragment, so it never reaches a server
// log or a Referer. Using the link signs in and opens the editor.
import { Api } from './api.js';
import { initNotify, showError, explain, waitText } from './notify.js';
import { clearFieldErrors, placeErrors, focusPointer } from './field-errors.js';
import { formatDate } from './dom.js';

const $ = (id) => document.getElementById(id);
const api = new Api();
const MIN_PASSWORD = 10;

function say(title, text, { after = true } = {}) {
  $('link-title').textContent = title;
  $('link-text').textContent = text;
  $('link-text').classList.remove('hint');
  $('link-form').hidden = true;
  $('link-after').hidden = !after;
  $('link-page').removeAttribute('aria-busy');
  document.title = `${title} · Rivers`;
  $('main').focus();
}

async function start() {
  initNotify();
  const secret = decodeURIComponent(location.hash.replace(/^#/, '')).trim();
  if (!secret) {
    say('This link is incomplete', 'The address has no secret after “#”. Copy the whole link you were given, then open it again.');
    return;
  }
  let link;
  try {
    link = await api.link(secret);
  } catch (error) {
    if (error.status === 404) {
      say('This link is not known', 'Check that you copied the whole link. If it still does not work, ask for a new one.');
    } else if (error.status === 410) {
      say('This link was used or has expired', 'Each link works once, for a limited time. Ask whoever sent it for a new one.');
    } else {
      say('The link could not be opened', explain(error).detail);
      showError(error, 'Opening the link');
    }
    return;
  }
  show(link, secret);
}

function show(link, secret) {
  const invitation = link.kind === 'invitation';
  const appName = link.app ? (link.app.name || link.app.slug) : 'an app';
  const existing = Boolean(link.has_password);
  let title;
  let text;
  let button;
  if (invitation) {
    title = `You are invited to ${appName} as ${link.role}`;
    text = existing
      ? `${link.created_by ? `${link.created_by} invited you. ` : ''}You have an account already: enter your password to accept.`
      : `${link.created_by ? `${link.created_by} invited you. ` : ''}Choose a password for your new account to accept.`;
    button = existing ? 'Accept and sign in' : 'Set password and accept';
  } else {
    title = existing ? `Set a new password for ${link.email}` : `Set a password for ${link.email}`;
    text = existing ? 'Choose a new password. Your other sessions end: sign in again on your other devices.' : 'Choose a password for your Rivers account, then you are signed in.';
    button = 'Set password and sign in';
  }
  $('link-title').textContent = title;
  $('link-text').textContent = `${text} This link works once, until ${formatDate(link.expires_at)}.`;
  $('link-text').classList.remove('hint');
  $('link-email').textContent = link.email;
  $('link-email-row').hidden = !invitation; // a password link names the account in its title
  $('link-name-field').hidden = existing;
  const password = $('link-password');
  const acceptWithPassword = invitation && existing;
  $('link-password-label').textContent = acceptWithPassword ? 'Your password' : (existing ? 'New password' : 'Choose a password');
  password.autocomplete = acceptWithPassword ? 'current-password' : 'new-password';
  $('link-password-hint').textContent = acceptWithPassword ? 'The password you sign in to Rivers with.' : `At least ${MIN_PASSWORD} characters.`;
  $('link-submit').textContent = button;
  $('link-form').hidden = false;
  $('link-page').removeAttribute('aria-busy');
  document.title = `${title} · Rivers`;
  ($('link-name-field').hidden ? password : $('link-name')).focus();

  $('link-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = $('link-form');
    clearFieldErrors(form);
    const body = { password: password.value };
    if (!existing && $('link-name').value.trim()) body.name = $('link-name').value.trim();
    if (!body.password) {
      placeErrors(form, [{ pointer: '/password', message: acceptWithPassword ? 'Enter your password.' : 'Choose a password.' }]);
      focusPointer(form, '/password');
      return;
    }
    if (!acceptWithPassword && body.password.trim().length < MIN_PASSWORD) {
      placeErrors(form, [{ pointer: '/password', message: `Use at least ${MIN_PASSWORD} characters (not counting spaces at either end).` }]);
      focusPointer(form, '/password');
      return;
    }
    const submit = $('link-submit');
    submit.disabled = true;
    try {
      await api.useLink(secret, body);
    } catch (error) {
      submit.disabled = false;
      if (error.status === 410 || error.status === 404) {
        say('This link was used or has expired', 'Each link works once, for a limited time. Ask whoever sent it for a new one.');
      } else if (error.status === 403 && error.type === '/problems/wrong-password') {
        placeErrors(form, [{ pointer: '/password', message: 'That is not your password. Enter the one you sign in to Rivers with.' }]);
        focusPointer(form, '/password');
      } else if (error.status === 429) {
        const wait = error.retryAfter;
        const note = $('link-wait');
        note.hidden = false;
        note.textContent = `Too many wrong passwords: try again in ${wait ? waitText(wait) : 'a while'}.`;
        submit.disabled = true;
        setTimeout(() => { submit.disabled = false; note.hidden = true; }, (wait || 60) * 1000);
      } else if (error.isValidation && error.errors.length) {
        const unplaced = placeErrors(form, error.errors);
        focusPointer(form, error.errors[0].pointer);
        if (unplaced.length) showError(error, 'Setting the password');
      } else {
        showError(error, invitation ? 'Accepting the invitation' : 'Setting the password');
      }
      return;
    }
    // Signed in with the session cookie: the editor opens on the app of the invitation.
    sessionStorage.removeItem('rivers.token');
    if (invitation && link.app) sessionStorage.setItem('rivers.app', link.app.slug);
    localStorage.setItem('rivers.sign-in-method', 'password');
    location.replace('/#/screens');
  });
}

start();
