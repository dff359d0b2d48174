// Alerts in the console. A healthy server turns critical through its simulated BMC while an
// operator and a viewer have the Alerts page open: its health alert appears on both pages live,
// without a reload. The fleet table marks the node with a badge of its open alerts and the node
// page lists them. The viewer's Acknowledge is disabled with the role's reason; the operator
// acknowledges the alert (both pages and the API say acknowledged), silences the node for an hour
// with a comment (the silence is listed, and the API has it) and ends the silence.
import assert from 'node:assert/strict';
import { scenario, signIn, timed, waitFor } from './harness.mjs';

const s = scenario('alerts', { extraArgs: ['--sim-control', '--poll-status-interval', '2'] });
let target;    // the node made critical
let alert;     // its health alert, as the API answers it
let operator;  // page
let viewer;    // page
let silence;   // as POST /api/v1/silences answered it

const OPEN = 'state=firing,acknowledged';

const alertRow = (page, where) => page.locator(`[data-testid="alerts-table"] tr[data-testid="alert-row"]${where}`);

// Marks the document, so that a reload would show.
const markDocument = (page) => page.evaluate(() => { window.__ironholdTestDocument = 'loaded once'; });
const documentMark = (page) => page.evaluate(() => window.__ironholdTestDocument);

async function openAlertsPage(page) {
  await page.getByTestId('nav-alerts').click();
  await page.getByTestId('alerts-table').waitFor();
  await page.waitForFunction(() => document.querySelector('[data-testid="alerts-status"]')?.textContent === '');
}

s.test('an operator and a viewer open the Alerts page', async () => {
  const candidates = (await s.instance.nodes('?source=bmc&driver=redfish&health=ok')).filter((n) => n.reachable);
  assert.ok(candidates.length > 0, 'the demo has a healthy, reachable Redfish server');
  target = candidates[0];
  const open = await s.instance.apiOk('GET', `/api/v1/alerts?node=${target.id}&${OPEN}`);
  assert.deepEqual(open.items.filter((a) => a.source === 'health'), [], `${target.name} starts without a health alert`);

  const pages = [];
  for (const role of ['operator', 'viewer']) {
    const { page } = await s.user(role);
    await signIn(page, await s.instance.createToken(role));
    await openAlertsPage(page);
    assert.match(page.url(), /#\/alerts$/);
    assert.equal(await page.getByTestId('nav-alerts').getAttribute('aria-current'), 'page');
    // Firing and acknowledged by default.
    const states = await page.getByTestId('alert-filter-state')
      .evaluateAll((els) => els.filter((e) => e.checked).map((e) => e.value));
    assert.deepEqual(states, ['firing', 'acknowledged']);
    await markDocument(page);
    pages.push(page);
  }
  [operator, viewer] = pages;
  // What the page lists is what the API lists.
  const api = (await s.instance.apiOk('GET', `/api/v1/alerts?${OPEN}&limit=100`)).items.map((a) => String(a.id));
  await waitFor('the table to list the API\'s open alerts', async () => {
    const shown = await alertRow(operator, '').evaluateAll((rows) => rows.map((r) => r.dataset.alertId));
    return api.every((id) => shown.includes(id));
  }, { timeoutMs: 15_000 });
  await s.artifacts.screenshot(operator, 'alerts-before', { fullPage: true });
});

s.test('a server turned critical appears on both Alerts pages live', async () => {
  const control = await s.instance.bmcControl(target);
  const sent = Date.now();
  const res = await fetch(`${control}/health`, { method: 'POST', body: JSON.stringify({ health: 'Critical' }) });
  assert.equal(res.status, 200, await res.text());
  alert = await waitFor(`the API to have a health alert for ${target.name}`, async () => {
    const { items } = await s.instance.apiOk('GET', `/api/v1/alerts?node=${target.id}&source=health&${OPEN}`);
    return items[0];
  }, { timeoutMs: 90_000, intervalMs: 500 });
  s.artifacts.time('critical through the BMC until the API had the alert', Date.now() - sent);
  assert.equal(alert.severity, 'critical');
  assert.equal(alert.state, 'firing');
  assert.equal(alert.node_id, target.id);
  for (const [who, page] of [['operator', operator], ['viewer', viewer]]) {
    const row = alertRow(page, `[data-alert-id="${alert.id}"]`);
    await row.waitFor({ timeout: 30_000 });
    s.artifacts.time(`${who}: critical through the BMC until the row showed`, Date.now() - sent);
    assert.equal(await row.getAttribute('data-state'), 'firing');
    assert.equal(await row.getAttribute('data-severity'), 'critical');
    assert.equal(await row.getAttribute('data-node-id'), target.id);
    assert.match(await row.textContent(), new RegExp(target.name));
    assert.equal(await row.locator(`a[href="#/nodes/${target.id}"]`).count(), 1, 'the row links to the node');
    assert.equal(await documentMark(page), 'loaded once', `${who}'s page was not reloaded`);
  }
  await s.artifacts.screenshot(operator, 'alert-firing');
});

s.test('the viewer\'s Acknowledge is disabled, with the reason', async () => {
  const row = alertRow(viewer, `[data-alert-id="${alert.id}"]`);
  const ack = row.getByTestId('alert-ack');
  assert.equal(await ack.isVisible(), true);
  assert.equal(await ack.isDisabled(), true);
  const role = (await s.instance.apiOk('GET', '/api/v1/whoami', { token: await s.instance.createToken('viewer') })).role;
  assert.match(await ack.getAttribute('data-reason'), new RegExp(role));
  assert.match(await ack.getAttribute('title'), new RegExp(role));
  assert.equal(await row.getByTestId('alert-silence').isDisabled(), true);
  // The operator's are enabled.
  const mine = alertRow(operator, `[data-alert-id="${alert.id}"]`);
  assert.equal(await mine.getByTestId('alert-ack').isEnabled(), true);
  assert.equal(await mine.getByTestId('alert-silence').isEnabled(), true);
  await s.artifacts.screenshot(row, 'viewer-ack-disabled');
});

s.test('the fleet table marks the node with its open alerts, and the node page lists them', async () => {
  await operator.goto(`/#/?q=${encodeURIComponent(target.name)}`);
  const badge = operator.locator(`[data-testid="node-table"] tr[data-node-id="${target.id}"] [data-testid="node-alert-badge"]`);
  await badge.waitFor();
  let open;
  await waitFor('the badge to count the API\'s open alerts of the node', async () => {
    open = (await s.instance.apiOk('GET', `/api/v1/alerts?node=${target.id}&${OPEN}`)).items;
    return Number(await badge.getAttribute('data-count')) === open.length && (await badge.textContent()) === String(open.length);
  }, { timeoutMs: 30_000 });
  assert.ok(open.length >= 1);
  assert.equal(await badge.getAttribute('data-severity'), 'critical', 'coloured by the worst severity');
  assert.match(await badge.getAttribute('class'), /\bsev-critical\b/);
  await s.artifacts.screenshot(operator, 'fleet-alert-badge');

  await operator.goto(`/#/nodes/${target.id}`);
  await operator.getByTestId('node-name').filter({ hasText: target.name }).waitFor();
  const listed = operator.locator(`[data-testid="node-alerts"] tr[data-testid="alert-row"][data-alert-id="${alert.id}"]`);
  await listed.waitFor();
  assert.equal(await listed.getAttribute('data-state'), 'firing');
  await operator.locator('#alerts').scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(operator.locator('#alerts'), 'node-alerts');
});

s.test('the operator acknowledges the alert; both pages and the API say so', async () => {
  await openAlertsPage(operator);
  await markDocument(operator);
  const row = alertRow(operator, `[data-alert-id="${alert.id}"]`);
  await row.waitFor();
  const [answer] = await Promise.all([
    operator.waitForResponse((r) => r.url().endsWith(`/api/v1/alerts/${alert.id}/ack`) && r.request().method() === 'POST'),
    row.getByTestId('alert-ack').click(),
  ]);
  assert.equal(answer.status(), 200);
  assert.ok(answer.request().headers()['x-csrf-token'], 'the change carries the CSRF token');
  const acknowledged = await s.instance.apiOk('GET', `/api/v1/alerts/${alert.id}`);
  assert.equal(acknowledged.state, 'acknowledged');
  assert.ok(acknowledged.acknowledged_by, 'the API says who acknowledged it');
  for (const [who, page] of [['operator', operator], ['viewer', viewer]]) {
    const shown = alertRow(page, `[data-alert-id="${alert.id}"]`);
    await waitFor(`${who}'s row to show acknowledged`, async () => (await shown.getAttribute('data-state')) === 'acknowledged',
      { timeoutMs: 30_000, intervalMs: 200 });
    assert.match(await shown.textContent(), new RegExp(acknowledged.acknowledged_by.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await shown.getByTestId('alert-ack').isVisible(), false, 'no Acknowledge on an acknowledged alert');
    assert.equal(await documentMark(page), 'loaded once', `${who}'s page was not reloaded`);
  }
  await s.artifacts.screenshot(operator, 'alert-acknowledged');
});

s.test('the operator silences the node for an hour with a comment', async () => {
  const comment = `browser test: ${target.name} is being looked at`;
  const row = alertRow(operator, `[data-alert-id="${alert.id}"]`);
  await row.getByTestId('alert-silence').click();
  const dialog = operator.getByTestId('confirm-dialog');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), new RegExp(target.name));
  await operator.getByTestId('silence-duration').selectOption('1h');
  await operator.getByTestId('silence-comment').fill(comment);
  await s.artifacts.screenshot(operator, 'silence-dialog');
  const asked = Date.now();
  const [answer] = await Promise.all([
    operator.waitForResponse((r) => r.url().endsWith('/api/v1/silences') && r.request().method() === 'POST'),
    operator.getByTestId('confirm-action').click(),
  ]);
  assert.equal(answer.status(), 201, await answer.text());
  silence = await answer.json();
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(silence.selector, { ids: [target.id] });
  assert.equal(silence.comment, comment);
  const hour = Date.parse(silence.ends_at) - asked;
  assert.ok(hour > 3590e3 && hour < 3700e3, `ends about an hour from now (${silence.ends_at})`);

  const listed = operator.locator(`[data-testid="silences"] tr[data-silence-id="${silence.id}"]`);
  await listed.waitFor({ timeout: 15_000 });
  assert.match(await listed.textContent(), new RegExp(target.name));
  assert.match(await listed.textContent(), /is being looked at/);
  assert.equal(await listed.getAttribute('data-state'), 'active');
  const { items } = await s.instance.apiOk('GET', '/api/v1/silences');
  const held = items.find((x) => x.id === silence.id);
  assert.ok(held, 'the API lists the silence');
  assert.deepEqual(held.selector, { ids: [target.id] });
  assert.equal(held.comment, comment);
  await listed.scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(operator, 'silence-listed');
});

s.test('the operator ends the silence', async () => {
  const listed = operator.locator(`[data-testid="silences"] tr[data-silence-id="${silence.id}"]`);
  await listed.getByTestId('silence-end').click();
  await operator.getByTestId('confirm-dialog').waitFor();
  const [[answer], ms] = await timed(() => Promise.all([
    operator.waitForResponse((r) => r.url().endsWith(`/api/v1/silences/${silence.id}`) && r.request().method() === 'DELETE'),
    operator.getByTestId('confirm-action').click(),
  ]));
  assert.equal(answer.status(), 200, await answer.text());
  s.artifacts.time('End until the answer', ms);
  await listed.waitFor({ state: 'detached', timeout: 15_000 });
  const active = (await s.instance.apiOk('GET', '/api/v1/silences')).items;
  assert.equal(active.some((x) => x.id === silence.id), false, 'the API no longer has it in force');
  const ended = (await s.instance.apiOk('GET', '/api/v1/silences?include_ended=true')).items.find((x) => x.id === silence.id);
  assert.ok(ended?.expired_at, 'the API keeps it, ended');
  // Shown again, ended, when asked for.
  await operator.getByTestId('silences-ended').check();
  const again = operator.locator(`[data-testid="silences"] tr[data-silence-id="${silence.id}"]`);
  await again.waitFor();
  assert.equal(await again.getAttribute('data-state'), 'ended');
  assert.equal(await again.getByTestId('silence-end').isVisible(), false);
  assert.equal(await documentMark(operator), 'loaded once', 'the page was not reloaded');
  await s.artifacts.screenshot(operator, 'silence-ended', { fullPage: true });
});

s.testStopsCleanly();
