// The console is served and signing in works: the sign-in page loads, a token the server does not
// know is refused on the page, and the admin token reaches a signed-in page that names its role.
import assert from 'node:assert/strict';
import { scenario, signIn, useTokenForm } from './harness.mjs';

const s = scenario('smoke');
let page;

s.test('the sign-in page loads', async () => {
  ({ page } = await s.user('admin'));
  const res = await page.goto('/');
  assert.equal(res.status(), 200);
  await page.getByTestId('signin-username').waitFor();  // a user name and password first
  await useTokenForm(page);
  assert.equal(await page.getByTestId('signin-token').getAttribute('type'), 'password');
  await s.artifacts.screenshot(page, 'sign-in');
});

s.test('a token the server does not know is refused on the page', async () => {
  await page.getByTestId('signin-token').fill('ih_not-a-token-this-server-made');
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/session') && r.request().method() === 'POST'),
    page.getByTestId('signin-submit').click(),
  ]);
  assert.equal(answer.status(), 401);
  const error = page.getByTestId('signin-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.equal(await page.getByTestId('session-role').count(), 0, 'no signed-in page after a refusal');
  await s.artifacts.screenshot(page, 'sign-in-refused');
});

s.test('signing in with the admin token reaches a signed-in page', async () => {
  await signIn(page, s.instance.adminToken);
  const whoami = await s.instance.apiOk('GET', '/api/v1/whoami');
  assert.equal(await page.getByTestId('session-role').textContent(), whoami.role);
  // The session is a cookie: a reload keeps the user signed in.
  await page.reload();
  await page.getByTestId('session-role').waitFor();
  await s.artifacts.screenshot(page, 'signed-in');
});

s.testStopsCleanly();
