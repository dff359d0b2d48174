// Sign-in: a user's name and password, or an API token, traded for a session cookie (POST
// /api/v1/session). Neither is kept; what the console keeps is who signed in, what they may do and
// the CSRF token, in memory. When the server has an OpenID Connect provider, a button sends the
// browser there (GET /api/v1/session/oidc); a sign-in that fails there comes back to this page
// with ?sign_in_error= saying why.

import { api } from '../api.js';
import { h } from '../dom.js';
import { signIn } from '../session.js';

// What a 429 says: how long to wait, from its Retry-After when it has one.
function throttledMessage(err) {
  const wait = err.retryAfter;
  return wait === null || wait === undefined
    ? 'Too many failed sign-ins; try again later.'
    : `Too many failed sign-ins; try again in ${wait} s.`;
}

export function mount(container, _route, { onSignedIn }) {
  let mode = 'password';  // or 'token'

  const username = h('input', {
    id: 'signin-username', type: 'text', name: 'username', autocomplete: 'username', spellcheck: 'false',
    autocapitalize: 'none', required: true, 'data-testid': 'signin-username',
  });
  const password = h('input', {
    id: 'signin-password', type: 'password', name: 'password', autocomplete: 'current-password',
    required: true, 'data-testid': 'signin-password',
  });
  const token = h('input', {
    id: 'signin-token', type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false',
    required: true, 'data-testid': 'signin-token', 'aria-describedby': 'signin-hint',
  });
  const passwordFields = h('div', {},
    h('div', { class: 'field' }, h('label', { for: 'signin-username' }, 'User name'), username),
    h('div', { class: 'field' }, h('label', { for: 'signin-password' }, 'Password'), password));
  const tokenFields = h('div', { class: 'field' },
    h('label', { for: 'signin-token' }, 'API token'),
    token,
    h('span', { class: 'hint', id: 'signin-hint' },
      'A token made on the server with ', h('code', {}, 'ironhold token create --role viewer --name you'),
      '; ', h('code', {}, 'ironhold demo'), ' prints an admin token.'));
  const useToken = h('button', { type: 'button', class: 'button subtle small', 'data-testid': 'signin-use-token' },
    'Use an API token instead');
  const usePassword = h('button', { type: 'button', class: 'button subtle small', 'data-testid': 'signin-use-password' },
    'Use a user name and password instead');
  const error = h('p', { class: 'alert error-text', role: 'alert', 'data-testid': 'signin-error' });
  const submit = h('button', { type: 'submit', class: 'button primary', 'data-testid': 'signin-submit' }, 'Sign in');
  const form = h('form', { class: 'panel', novalidate: true },
    passwordFields, tokenFields, error,
    h('div', { class: 'signin-actions' }, submit, useToken, usePassword));

  // Only the shown fields are in the form (hidden ones are disabled: no autofill, no validation).
  function show(next) {
    mode = next;
    const withPassword = mode === 'password';
    passwordFields.hidden = !withPassword;
    tokenFields.hidden = withPassword;
    username.disabled = password.disabled = !withPassword;
    token.disabled = withPassword;
    useToken.hidden = !withPassword;
    usePassword.hidden = withPassword;
    error.textContent = '';
    (withPassword ? (username.value ? password : username) : token).focus();
  }
  useToken.addEventListener('click', () => show('token'));
  usePassword.addEventListener('click', () => show('password'));

  // The credentials the form holds, or null after saying what is missing.
  function credentials() {
    if (mode === 'token') {
      const value = token.value.trim();
      if (value) return { token: value };
      error.textContent = 'Enter an API token.';
      token.focus();
      return null;
    }
    const name = username.value.trim();
    if (!name) {
      error.textContent = 'Enter your user name.';
      username.focus();
      return null;
    }
    if (!password.value) {
      error.textContent = 'Enter your password.';
      password.focus();
      return null;
    }
    return { username: name, password: password.value };
  }

  function failed(err) {
    if (err.status === 429) return throttledMessage(err);
    if (err.status === 401)
      return mode === 'token' ? 'That token is not valid (unknown, revoked or expired).' : 'Wrong user name or password.';
    return `Could not sign in: ${err.message}`;
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const asked = credentials();
    if (!asked) return;
    submit.disabled = true;
    error.textContent = '';
    try {
      const s = await signIn(asked);
      token.value = '';
      password.value = '';
      onSignedIn(s);
    } catch (err) {
      error.textContent = failed(err);
      submit.disabled = false;
      const retry = mode === 'token' ? token : password;
      retry.select();
      retry.focus();
    }
  });
  // Single sign-on, when the server offers it: above the form, as the usual way in.
  const singleSignOn = h('div', { class: 'signin-sso', hidden: true });
  container.appendChild(h('section', { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, h('img', { src: document.querySelector('link[rel=icon]').href, alt: '', width: 28, height: 28 }), 'Sign in to Ironhold'),
    singleSignOn, form));
  show('password');

  // Why a sign-in at the identity provider did not finish, said once, then gone from the address.
  const params = new URLSearchParams(location.search);
  const providerError = params.get('sign_in_error');
  if (providerError) {
    error.textContent = `Could not sign in: ${providerError}`;
    history.replaceState(null, '', location.pathname + location.hash);
  }

  let alive = true;
  api('/api/v1/session/providers', { signIn: true }).then((offered) => {
    if (!alive || !offered?.oidc) return;
    const back = location.hash && location.hash !== '#/signin' ? location.hash : '#/';
    const start = `${offered.oidc.start}?return_to=${encodeURIComponent(`/${back}`)}`;
    singleSignOn.append(
      h('a', { class: 'button primary', href: start, 'data-testid': 'signin-oidc' }, offered.oidc.label),
      h('p', { class: 'hint' }, 'or with a user name and password:'));
    singleSignOn.hidden = false;
  }).catch(() => { /* an older server: passwords and tokens only */ });
  return { refresh() {}, destroy() { alive = false; } };
}
