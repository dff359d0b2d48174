// Sign-in: an API token traded for a session cookie (POST /api/v1/session). The token is sent
// once and not kept; what the console keeps is the session's role and CSRF token, in memory.

import { h } from '../dom.js';
import { signIn } from '../session.js';

export function mount(container, _route, { onSignedIn }) {
  const input = h('input', {
    id: 'signin-token', type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false',
    required: true, 'data-testid': 'signin-token', 'aria-describedby': 'signin-hint',
  });
  const error = h('p', { class: 'alert error-text', role: 'alert', 'data-testid': 'signin-error' });
  const submit = h('button', { type: 'submit', class: 'button primary', 'data-testid': 'signin-submit' }, 'Sign in');
  const form = h('form', { class: 'panel', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'signin-token' }, 'API token'),
      input,
      h('span', { class: 'hint', id: 'signin-hint' },
        'A token made on the server with ', h('code', {}, 'ironhold token create --role viewer --name you'),
        '; ', h('code', {}, 'ironhold demo'), ' prints an admin token.')),
    error,
    submit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const token = input.value.trim();
    if (!token) {
      error.textContent = 'Enter an API token.';
      input.focus();
      return;
    }
    submit.disabled = true;
    error.textContent = '';
    try {
      const s = await signIn(token);
      input.value = '';
      onSignedIn(s);
    } catch (err) {
      error.textContent = err.status === 401
        ? 'That token is not valid (unknown, revoked or expired).'
        : `Could not sign in: ${err.message}`;
      submit.disabled = false;
      input.select();
      input.focus();
    }
  });
  container.appendChild(h('section', { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, h('img', { src: document.querySelector('link[rel=icon]').href, alt: '', width: 28, height: 28 }), 'Sign in to Ironhold'),
    form));
  input.focus();
  return { refresh() {}, destroy() {} };
}
