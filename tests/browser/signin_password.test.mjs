// A person signs in with a user name and password: a wrong password is refused on the page, the
// right one reaches the overview with the user's name in the top bar, the node page names its
// project (and a second project brings a Project column to the table), the token form stays one
// click away after signing out, and repeated failures are throttled with the wait on the page.
// The same form signs people in through a real OpenLDAP directory (test_slapd): their groups give
// their roles, and a person in no mapped group is told they have no project. The page's single
// sign-on button signs people in through an OpenID Connect provider (`ironhold sim oidc`, its own
// process): the browser goes to the provider's form and comes back signed in, with the roles its
// groups claim maps to; refusing there comes back to the sign-in page saying so.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { freePort, scenario, startDirectory, startIssuer, useTokenForm, waitFor } from './harness.mjs';

const s = scenario('signin_password', {
  extraArgs: async (scene) => {
    scene.directory = await startDirectory(scene.artifacts);
    const config = {
      ldap: {
        url: scene.directory.ldapsUrl,
        ca_file: scene.directory.caFile,
        bind_dn: 'cn=ironhold-search,ou=services,dc=ironhold,dc=test',
        bind_password: 'search-secret',
        user_base: 'ou=people,dc=ironhold,dc=test',
        group_base: 'ou=groups,dc=ironhold,dc=test',
        groups: [
          { group: 'cn=gpu-ops,ou=groups,dc=ironhold,dc=test', project: 'default', role: 'operator' },
          { group: 'cn=fleet-admins,ou=groups,dc=ironhold,dc=test', project: null, role: 'admin' },
        ],
      },
    };
    // The provider must know where to send the browser back, so the console's port is chosen now.
    const port = await freePort();
    scene.issuer = await startIssuer(scene.artifacts, [
      '--client-id', 'ironhold-console', '--client-secret', 'console-secret',
      '--redirect-uri', `http://127.0.0.1:${port}/api/v1/session/oidc/callback`,
      '--user', 'oscar:oscar-oidc:gpu-ops,contractors', '--user', 'nadia:nadia-oidc']);
    const secret = scene.artifacts.file('oidc-client-secret');
    fs.writeFileSync(secret, 'console-secret\n');
    config.oidc = {
      issuer: scene.issuer.issuer,
      client_id: 'ironhold-console',
      client_secret_file: secret,
      redirect_uri: `http://127.0.0.1:${port}/api/v1/session/oidc/callback`,
      scopes: ['openid', 'profile', 'groups'],
      allow_plain_http: true,
      label: 'Sign in with Test SSO',
      roles: [{ value: 'gpu-ops', project: 'default', role: 'operator' }],
    };
    const file = scene.artifacts.file('identity.json');
    fs.writeFileSync(file, JSON.stringify(config, null, 2));
    return ['--listen', `127.0.0.1:${port}`, '--identity-config', file];
  },
});
const ADA = { name: 'ada', password: 'correct horse battery' };
let page;

// Fills the user name and password form and submits it; the answer's status.
async function submitPassword(name, password) {
  await page.getByTestId('signin-username').fill(name);
  await page.getByTestId('signin-password').fill(password);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/session') && r.request().method() === 'POST'),
    page.getByTestId('signin-submit').click(),
  ]);
  return answer.status();
}

// The headers of the node table, as shown.
function tableHeaders() {
  return page.locator('[data-testid="node-table"] thead th').evaluateAll((ths) => ths.map((th) => th.textContent.trim()));
}

s.test('the sign-in page asks for a user name and password', async () => {
  const user = await s.instance.createUser(ADA.name, ADA.password, [{ project: null, role: 'operator' }]);
  assert.equal(user.name, ADA.name);
  ({ page } = await s.user('ada'));
  await page.goto('/');
  const username = page.getByTestId('signin-username');
  const password = page.getByTestId('signin-password');
  await username.waitFor();
  assert.equal(await username.getAttribute('autocomplete'), 'username');
  assert.equal(await password.getAttribute('autocomplete'), 'current-password');
  assert.equal(await password.getAttribute('type'), 'password');
  assert.equal(await page.getByTestId('signin-token').isVisible(), false, 'the token field waits behind its link');
  assert.equal(await page.getByTestId('signin-use-token').isVisible(), true);
  await s.artifacts.screenshot(page, 'sign-in-password');
});

s.test('a wrong password is refused on the page, which stays on sign-in', async () => {
  assert.equal(await submitPassword(ADA.name, 'wrong horse battery'), 401);
  const error = page.getByTestId('signin-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.equal(await error.textContent(), 'Wrong user name or password.');
  assert.equal(await page.getByTestId('session-role').count(), 0, 'no signed-in page after a refusal');
  assert.equal(await page.getByTestId('signin-username').isVisible(), true);
  await s.artifacts.screenshot(page, 'sign-in-wrong-password');
});

s.test('the right password reaches the overview, and the top bar names ada', async () => {
  assert.equal(await submitPassword(ADA.name, ADA.password), 201);
  await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  assert.equal(await page.getByTestId('session-name').textContent(), ADA.name);
  assert.equal(await page.getByTestId('session-role').textContent(), 'operator');
  assert.ok(!(await tableHeaders()).includes('Project'), 'one project: no Project column');
  // The session is a cookie: a reload keeps ada signed in.
  await page.reload();
  await page.getByTestId('session-name').filter({ hasText: ADA.name }).waitFor();
  await s.artifacts.screenshot(page, 'signed-in-as-ada');
});

s.test('a node page names its project, and an operator may act on it', async () => {
  const [first] = await s.instance.nodes('?source=bmc&driver=redfish');
  await page.goto(`/#/nodes/${first.id}`);
  await page.getByTestId('node-name').filter({ hasText: first.name }).waitFor();
  const node = await s.instance.apiOk('GET', `/api/v1/nodes/${first.id}`);
  assert.ok(node.project, 'the API names the node\'s project');
  assert.equal(await page.getByTestId('node-project').textContent(), `Project: ${node.project}`);
  const actions = page.getByTestId('node-actions');
  await actions.waitFor();
  assert.equal(await page.getByTestId('role-note').isVisible(), false, 'no "may only read" note for an operator');
  assert.equal(await actions.locator('button[data-action="power-cycle"]').isDisabled(), false);
  await s.artifacts.screenshot(page, 'node-project');
});

s.test('with a second project, the node table shows each node\'s project', async () => {
  await s.instance.apiOk('POST', '/api/v1/projects', { body: { name: 'lab', description: 'browser test' } }, 201);
  await page.goto('/#/');
  await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  await waitFor('a Project column', async () => (await tableHeaders()).includes('Project'), { timeoutMs: 10_000 });
  const column = (await tableHeaders()).indexOf('Project');
  const shown = await page.locator('[data-testid="node-table"] tr[data-node-id]').evaluateAll(
    (trs, i) => trs.map((tr) => [tr.dataset.nodeId, tr.children[i].textContent]), column);
  const projects = new Map((await s.instance.nodes()).map((n) => [n.id, n.project]));
  for (const [id, project] of shown) assert.equal(project, projects.get(id), `node ${id}'s project`);
  await s.artifacts.screenshot(page, 'project-column');
});

s.test('after signing out, the token form is one click away and still signs in', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  assert.equal(await page.getByTestId('session-role').isVisible(), false);
  await useTokenForm(page);
  const token = await s.instance.createToken('viewer');
  await page.getByTestId('signin-token').fill(token);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/session') && r.request().method() === 'POST'),
    page.getByTestId('signin-submit').click(),
  ]);
  assert.equal(answer.status(), 201);
  await page.getByTestId('session-role').filter({ hasText: 'viewer' }).waitFor();
  const whoami = await s.instance.apiOk('GET', '/api/v1/whoami', { token });
  assert.equal(await page.getByTestId('session-name').textContent(), whoami.token.name);
  await s.artifacts.screenshot(page, 'signed-in-with-token');
});

s.test('a directory user signs in with their LDAP password and gets their group\'s role', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  assert.equal(await submitPassword('alice', 'not-alices-password'), 401);
  assert.equal(await submitPassword('alice', 'alice-password'), 201);
  await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  assert.equal(await page.getByTestId('session-name').textContent(), 'alice');
  assert.equal(await page.getByTestId('session-role').textContent(), 'operator');
  const users = await s.instance.apiOk('GET', '/api/v1/users');
  const alice = users.items.find((u) => u.name === 'alice');
  assert.equal(alice.source, 'ldap');
  assert.deepEqual(alice.roles, [{ project: 'default', role: 'operator' }]);
  const audit = await s.instance.apiOk('GET', '/api/v1/audit?action=session.create');
  const signIn = audit.items.find((e) => e.actor === 'alice' && e.outcome === '201');
  assert.equal(signIn.details.via, 'ldap');
  assert.ok(signIn.details.directory.groups.includes('cn=gpu-ops,ou=groups,dc=ironhold,dc=test'));
  await s.artifacts.screenshot(page, 'signed-in-through-ldap');
});

s.test('a directory user in no mapped group is signed in to a page that says so, with no project', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  assert.equal(await submitPassword('carol', 'carol-password'), 201);
  const note = page.getByTestId('no-project');
  await note.waitFor();
  assert.match(await note.textContent(), /carol/);
  assert.equal(await page.getByTestId('node-table').count(), 0, 'no fleet for someone without a project');
  const users = await s.instance.apiOk('GET', '/api/v1/users');
  assert.deepEqual(users.items.find((u) => u.name === 'carol').roles, []);
  await s.artifacts.screenshot(page, 'signed-in-without-project');
});

// From the sign-in page through the provider's form; resolves once the browser is back here.
async function signInAtProvider(name, password, { deny = false } = {}) {
  const button = page.getByTestId('signin-oidc');
  await button.waitFor();
  assert.equal(await button.textContent(), 'Sign in with Test SSO');
  await button.click();
  await page.waitForURL((url) => url.href.startsWith(`${s.issuer.issuer}/authorize`));
  await page.locator('#username').fill(name);
  await page.locator('#password').fill(password);
  await page.locator(deny ? '#deny' : '#sign-in').click();
  await page.waitForURL((url) => url.href.startsWith(s.instance.url));
}

s.test('a person signs in through the OIDC provider and gets the role their groups claim maps to', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  await signInAtProvider('oscar', 'oscar-oidc');
  await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  assert.equal(await page.getByTestId('session-name').textContent(), 'oscar');
  assert.equal(await page.getByTestId('session-role').textContent(), 'operator');
  const users = await s.instance.apiOk('GET', '/api/v1/users');
  const oscar = users.items.find((u) => u.name === 'oscar');
  assert.equal(oscar.source, 'oidc');
  assert.equal(oscar.external_id, `${s.issuer.issuer} sub-oscar`);
  assert.deepEqual(oscar.roles, [{ project: 'default', role: 'operator' }]);
  const audit = await s.instance.apiOk('GET', '/api/v1/audit?action=session.create');
  const signIn = audit.items.find((e) => e.actor === 'oscar' && e.outcome === '201');
  assert.equal(signIn.details.via, 'oidc');
  assert.deepEqual(signIn.details.directory.roles, ['gpu-ops', 'contractors']);
  // The session is the console's cookie, as with a password: a reload keeps oscar signed in.
  await page.reload();
  await page.getByTestId('session-name').filter({ hasText: 'oscar' }).waitFor();
  await s.artifacts.screenshot(page, 'signed-in-through-oidc');
});

s.test('refusing at the provider comes back to the sign-in page saying so', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  await signInAtProvider('oscar', 'oscar-oidc', { deny: true });
  const error = page.getByTestId('signin-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.match(await error.textContent(), /access_denied/);
  assert.equal(await page.getByTestId('session-role').count(), 0);
  assert.ok(!page.url().includes('sign_in_error'), 'the reason is not left in the address');
  await s.artifacts.screenshot(page, 'oidc-refused');
});

s.test('a person in no mapped group at the provider is signed in with no project', async () => {
  await page.reload();
  await page.getByTestId('signin-username').waitFor();
  await signInAtProvider('nadia', 'nadia-oidc');
  const note = page.getByTestId('no-project');
  await note.waitFor();
  assert.match(await note.textContent(), /nadia/);
  assert.equal(await page.getByTestId('node-table').count(), 0);
  await s.artifacts.screenshot(page, 'oidc-without-project');
});

s.test('repeated failures are throttled, and the page says how long to wait', async () => {
  await page.getByTestId('sign-out').click();
  await page.getByTestId('signin-username').waitFor();
  // Fail through the API until the server blocks this user (and this address).
  await waitFor('the server to throttle sign-ins as mallory', async () =>
    (await s.instance.api('POST', '/api/v1/session', { token: null, body: { username: 'mallory', password: 'guess' } })).status === 429,
  { timeoutMs: 30_000, intervalMs: 50 });
  assert.equal(await submitPassword('mallory', 'guess again'), 429);
  const error = page.getByTestId('signin-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.match(await error.textContent(), /^Too many failed sign-ins; try again in \d+ s\.$/);
  await s.artifacts.screenshot(page, 'sign-in-throttled');
});

s.testStopsCleanly();
