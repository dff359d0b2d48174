// The console's session: signed in with a user's name and password or with an API token, kept by
// an HttpOnly cookie the page cannot read; what the page knows is who it is, what it may do (in
// which projects) and the CSRF token, read again after every reload. The server decides every
// request: what is known here only enables or disables buttons.

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

// signIn({username, password}) or signIn({token}).
export async function signIn(credentials) {
  return adopt(await api('/api/v1/session', { method: 'POST', body: credentials, signIn: true }));
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

// Who is signed in: the user's name, or the token's.
export function displayName() {
  if (!current) return '';
  return current.user?.name || current.token?.name || current.name || '';
}

// Whether the session may use `capability` (read, act, audit, manage): in `project` when one is
// named (a grant without a project holds in every project), otherwise in at least one project.
// Servers that predate capabilities answer with a role only.
function may(capability, project, rolesThatMay) {
  if (!current) return false;
  if (project && Array.isArray(current.grants))
    return current.grants.some((g) => (g.project === null || g.project === project) && g.capabilities?.includes(capability));
  if (current.can && typeof current.can[capability] === 'boolean') return current.can[capability];
  return rolesThatMay.includes(current.role);
}

// Operators and admins act on nodes, tasks, rollouts and accounts.
export function canAct(project) {
  return may('act', project, ['operator', 'admin']);
}

export function canReadAudit(project) {
  return may('audit', project, ['auditor', 'admin']);
}

// Why a button is disabled for this session (in `project`, when it acts elsewhere).
export function actReason(project) {
  if (project && canAct())
    return `You may only read in the project ${project}: actions there need operator or admin.`;
  return `Your role (${role() || 'none'}) may only read: actions need operator or admin.`;
}
