// The console's entry: finds the session (GET /api/v1/session) or shows sign-in, starts the live
// stream, and mounts the view the address names. Every view is a module with
// mount(container, route) → {refresh(), update?(route), destroy()}.

import { on } from './bus.js';
import { h, fill, toast } from './dom.js';
import { currentRoute, go } from './router.js';
import { loadSession, signOut, forget, session, displayName } from './session.js';
import { startStream, stopStream } from './stream.js';
import * as signin from './views/signin.js';
import * as overview from './views/overview.js';
import * as racks from './views/racks.js';
import * as node from './views/node.js';
import * as alerts from './views/alerts.js';
import * as tasks from './views/tasks.js';
import * as firmware from './views/firmware.js';
import * as cloud from './views/cloud.js';
import * as capacity from './views/capacity.js';
import * as cost from './views/cost.js';

const VIEWS = { overview, racks, node, alerts, tasks, firmware, cloud, capacity, cost };
const TITLES = { overview: 'Fleet', racks: 'Racks', node: 'Node', alerts: 'Alerts', tasks: 'Tasks', firmware: 'Firmware', cloud: 'Cloud accounts', capacity: 'GPU capacity', cost: 'GPU cost' };

const main = document.getElementById('main');
const topbar = document.getElementById('topbar');
let mounted = null;  // {name, path, view}
let returnTo = null;  // where to go after signing in again

function unmount() {
  if (mounted) {
    try {
      mounted.view.destroy();
    } catch (e) {
      console.error(e);
    }
  }
  mounted = null;
  fill(main);
}

function showSignIn() {
  unmount();
  stopStream();
  topbar.hidden = true;
  fill(document.getElementById('whoami'));
  document.title = 'Sign in · Ironhold';
  mounted = { name: 'signin', path: '/signin', view: signin.mount(main, currentRoute(), { onSignedIn: afterSignIn }) };
}

function afterSignIn() {
  const target = returnTo && returnTo !== '#/signin' ? returnTo : '#/';
  returnTo = null;
  showChrome();
  if (session().can?.read) startStream();
  if (location.hash === target) render();
  else location.hash = target;
}

// The top bar names who is signed in (a user, or a token) and their strongest role.
function showChrome() {
  const s = session();
  const name = displayName();
  const whoami = document.getElementById('whoami');
  topbar.hidden = false;
  whoami.title = `${s.user ? 'Signed in as' : 'Signed in with the API token'} ${name} (${s.role})`;
  fill(whoami, h('span', { 'data-testid': 'session-name' }, name), name ? ' · ' : null,
    h('span', { class: 'role', 'data-testid': 'session-role' }, s.role));
}

function render() {
  const route = currentRoute();
  if (!session()) {
    if (route.name !== 'signin') returnTo = location.hash || '#/';
    if (mounted?.name !== 'signin') showSignIn();
    return;
  }
  if (route.name === 'signin') {
    go('/');
    return;
  }
  // Signed in, but granted nothing (a directory user in no mapped group): every page would be
  // refused, so say why once.
  if (!session().can?.read) {
    if (mounted?.name === 'no-project') return;
    unmount();
    document.title = 'No project · Ironhold';
    main.appendChild(h('section', { 'data-testid': 'no-project' }, h('h1', {}, 'No project yet'),
      h('p', {}, `You are signed in as ${displayName()}, but no project is granted to you here. `,
        'If you signed in with your directory account, ask an admin to map one of your groups to a project.')));
    mounted = { name: 'no-project', path: route.path, view: { destroy() {}, refresh() {} } };
    return;
  }
  for (const a of document.querySelectorAll('[data-nav]')) {
    const current = a.dataset.nav === route.name || (route.name === 'node' && a.dataset.nav === 'overview');
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  // The same view and path: let it take the new parameters without a rebuild.
  if (mounted && mounted.name === route.name && mounted.path === route.path && mounted.view.update) {
    mounted.view.update(route);
    return;
  }
  unmount();
  const view = VIEWS[route.name];
  document.title = `${TITLES[route.name] || 'Not found'} · Ironhold`;
  if (!view) {
    main.appendChild(h('section', {}, h('h1', {}, 'Nothing here'), h('p', {}, 'This address names no page of the console. ', h('a', { href: '#/' }, 'Back to the fleet'))));
    return;
  }
  mounted = { name: route.name, path: route.path, view: view.mount(main, route) };
  main.focus({ preventScroll: true });
}

on('unauthorized', () => {
  if (!session() && mounted?.name === 'signin') return;
  forget();
  returnTo = location.hash || '#/';
  toast('Your session has ended: sign in again.', { kind: 'error' });
  showSignIn();
});
on('refresh', () => {
  if (mounted && mounted.name !== 'signin') mounted.view.refresh();
});

document.getElementById('sign-out').addEventListener('click', async () => {
  try {
    await signOut();
  } catch {
    // The cookie may be gone already; signed out either way.
  }
  returnTo = null;
  showSignIn();
  history.replaceState(null, '', '#/');
});

window.addEventListener('hashchange', render);

async function boot() {
  try {
    const s = await loadSession();
    if (s) {
      showChrome();
      // Someone granted nothing has no stream to follow (it would be refused over and over).
      if (s.can?.read) startStream();
    }
    render();
  } catch (e) {
    fill(main, h('section', {}, h('h1', {}, 'The console cannot start'), h('p', { class: 'error-text' }, e.message),
      h('button', { type: 'button', class: 'button', onclick: () => location.reload() }, 'Try again')));
  }
}

boot();
