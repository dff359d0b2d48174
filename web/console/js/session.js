// The console's session: signed in with an API token, kept by an HttpOnly cookie the page cannot
// read; what the page knows is the role and the CSRF token, read again after every reload.

import { api, setCsrfToken } from './api.js';

let current = null;

export function session() {
  return current;
}

function adopt(s) {
  current = s;
  setCsrfToken(s ? s.csrf_token : null);
  return s;
}

// The current session, or null when there is none (show sign-in).
export async function loadSession() {
  try {
    return adopt(await api('/api/v1/session', { signIn: true }));
  } catch (e) {
    if (e.status === 401) return adopt(null);
    throw e;
  }
}

export async function signIn(token) {
  return adopt(await api('/api/v1/session', { method: 'POST', body: { token }, signIn: true }));
}

export async function signOut() {
  try {
    await api('/api/v1/session', { method: 'DELETE', signIn: true });
  } finally {
    adopt(null);
  }
}

export function forget() {
  adopt(null);
}

export function role() {
  return current ? current.role : null;
}

// Operators and admins act on nodes, tasks, rollouts and accounts.
export function canAct() {
  return role() === 'operator' || role() === 'admin';
}

export function canReadAudit() {
  return role() === 'auditor' || role() === 'admin';
}

// Why a button is disabled for this role.
export function actReason() {
  return `Your role (${role() || 'none'}) may only read: actions need operator or admin.`;
}
