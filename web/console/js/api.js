// The public REST API, as the console calls it: same-origin with the session cookie, the CSRF
// token on every change, problem+json errors as ApiError, and 401 anywhere sending the console
// back to sign-in. The CSRF token lives only in this module's memory.

import { emit } from './bus.js';

let csrfToken = null;

export function setCsrfToken(token) {
  csrfToken = token || null;
}

export class ApiError extends Error {
  constructor(status, problem, fallback, headers = null) {
    super((problem && (problem.detail || problem.title)) || fallback || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || null;
    this.headers = headers;  // the answer's (a Headers), when there was one
  }

  // Seconds to wait before trying again, from Retry-After (seconds or an HTTP date); null if none.
  get retryAfter() {
    const value = this.headers?.get('Retry-After');
    if (!value) return null;
    if (/^\d+$/.test(value.trim())) return Number(value.trim());
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// api('/api/v1/nodes/x/power', {method: 'POST', body: {action: 'cycle'}}) → the JSON answer (null
// for 204). `signIn`: a 401 is the caller's answer to give, not a lost session.
export async function api(path, { method = 'GET', body, signal, signIn = false, headers = {} } = {}) {
  const init = {
    method,
    credentials: 'same-origin',
    cache: 'no-store',
    signal,
    headers: { Accept: 'application/json', ...headers },
  };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (MUTATING.has(method) && csrfToken) init.headers['X-CSRF-Token'] = csrfToken;
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, null, 'the server cannot be reached');
  }
  if (res.status === 401 && !signIn) emit('unauthorized');
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) throw new ApiError(res.status, typeof data === 'object' ? data : null, `${method} ${path}: HTTP ${res.status}`, res.headers);
  return data;
}

// {health: ['critical', 'warning'], q: 'gpu', empty: ''} → "?health=critical,warning&q=gpu"
export function query(params) {
  const parts = [];
  for (const [key, value] of Object.entries(params || {})) {
    if (value === null || value === undefined || value === '') continue;
    const text = Array.isArray(value) ? value.join(',') : String(value);
    if (text === '') continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

// Every page of a keyset-paged list ({items, next}); `onPage(items)` sees each as it arrives.
export async function allPages(path, params, { onPage, signal, max = Infinity } = {}) {
  const items = [];
  let page = await api(path + query(params), { signal });
  for (;;) {
    items.push(...page.items);
    if (onPage) onPage(page.items, items.length);
    if (!page.next || items.length >= max) break;
    page = await api(`${path}?cursor=${encodeURIComponent(page.next)}`, { signal });
  }
  return items;
}

export const post = (path, body, opts = {}) => api(path, { ...opts, method: 'POST', body: body ?? {} });
export const patch = (path, body, opts = {}) => api(path, { ...opts, method: 'PATCH', body });
export const del = (path, opts = {}) => api(path, { ...opts, method: 'DELETE' });
