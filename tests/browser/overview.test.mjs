// The fleet overview and a node, as a viewer sees them: the counts match the API's summary, the
// critical count filters the table to exactly the nodes the API calls critical, one of them opens
// with its health, its sensor charts plot the readings the API holds, and every action is disabled
// for the viewer with the reason. One more server is made critical through its simulated BMC first,
// so that the filter has more than one node to find whatever the demo's own fleet holds.
import assert from 'node:assert/strict';
import { scenario, signIn, timed, waitFor } from './harness.mjs';

const s = scenario('overview', {
  extraArgs: ['--sim-control', '--poll-status-interval', '5', '--poll-sensors-interval', '10'],
});
let page;
let viewer;   // {token, role}
let target;   // the node made critical

// What the overview's count hooks (docs/console.md) must show for an API summary.
function expectedCounts(summary) {
  const out = { 'count-total': summary.total };
  for (const [value, n] of Object.entries(summary.health)) out[`count-health-${value}`] = n;
  for (const [value, n] of Object.entries(summary.power_state)) out[`count-power-${value}`] = n;
  for (const [value, n] of Object.entries(summary.lifecycle)) out[`count-lifecycle-${value}`] = n;
  out['count-source-owned'] = summary.source.bmc;
  for (const [driver, n] of Object.entries(summary.driver))
    if (driver !== 'redfish' && driver !== 'ipmi') out[`count-source-${driver}`] = n;
  for (const [model, n] of Object.entries(summary.gpu_model || {})) out[`count-gpu-${model}`] = n;
  return out;
}

async function pageCounts() {
  return page.$$eval('[data-testid^="count-"]',
    (els) => Object.fromEntries(els.map((e) => [e.dataset.testid, Number(e.dataset.count)])));
}

// Differences between the page's counts and the API's; a count the page shows that the summary
// no longer names must be zero.
function countDifferences(shown, expected) {
  const diffs = [];
  for (const [key, n] of Object.entries(expected))
    if (shown[key] !== n) diffs.push(`${key}: page ${shown[key]}, API ${n}`);
  for (const [key, n] of Object.entries(shown))
    if (!(key in expected) && n !== 0) diffs.push(`${key}: page ${n}, not in the API's summary`);
  return diffs;
}

async function rowIds() {
  return page.$$eval('[data-testid="node-table"] tr[data-node-id]', (rows) => rows.map((r) => r.dataset.nodeId).sort());
}

// The kinds of reading the node page charts (docs/console.md: the sensor-chart hooks).
const CHARTED_KINDS = ['temperature', 'gpu_temperature', 'fan', 'power'];

// The readings of the charted kinds the API holds for a node over the last hour: how many (with a
// value) in all, and the most any one sensor has.
async function readings(nodeId) {
  const since = new Date(Date.now() - 3600e3).toISOString();
  const perSensor = new Map();
  const base = `/api/v1/nodes/${nodeId}/sensors`;
  let res = await s.instance.apiOk('GET',
    `${base}?since=${encodeURIComponent(since)}&kind=${CHARTED_KINDS.join(',')}&limit=10000`);
  for (;;) {
    for (const r of res.items) {
      if (r.value === null) continue;
      const key = `${r.kind}/${r.name}`;
      perSensor.set(key, (perSensor.get(key) || 0) + 1);
    }
    if (!res.next) break;
    res = await s.instance.apiOk('GET', `${base}?cursor=${encodeURIComponent(res.next)}`);
  }
  const counts = [...perSensor.entries()];
  return {
    total: counts.reduce((n, [, c]) => n + c, 0),
    most: Math.max(0, ...counts.map(([, c]) => c)),
    temperatureMost: Math.max(0, ...counts.filter(([k]) => k.startsWith('temperature/')).map(([, c]) => c)),
  };
}

let readingsBefore;  // taken just before the node page loads its readings

s.test('a healthy GPU server turns critical through its simulated BMC', async () => {
  const candidates = (await s.instance.nodes('?source=bmc&driver=redfish&health=ok'))
    .filter((n) => n.reachable && n.hardware?.gpu_count > 0);
  assert.ok(candidates.length > 0, 'the demo has a healthy, reachable Redfish GPU server');
  target = candidates[0];
  const control = await s.instance.bmcControl(target);
  const res = await fetch(`${control}/health`, { method: 'POST', body: JSON.stringify({ health: 'Critical' }) });
  assert.equal(res.status, 200, await res.text());
  await waitFor(`the API to report ${target.name} critical`,
    async () => (await s.instance.apiOk('GET', `/api/v1/nodes/${target.id}`)).health === 'critical');
  const critical = await s.instance.nodes('?health=critical');
  console.log(`# ${critical.length} critical nodes: ${critical.map((n) => n.name).join(', ')}`);
});

s.test('a viewer signs in and the overview counts match the API', async () => {
  const token = await s.instance.createToken('viewer');
  viewer = { token, role: (await s.instance.apiOk('GET', '/api/v1/whoami', { token })).role };
  ({ page } = await s.user('viewer'));
  const [, ms] = await timed(async () => {
    await signIn(page, token);
    await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  });
  s.artifacts.time('sign-in until the first table row', ms);
  // The counts follow the fleet within seconds: compare until both agree at one moment.
  let diffs;
  await waitFor('the page\'s counts to equal the API\'s summary', async () => {
    const expected = expectedCounts(await s.instance.apiOk('GET', '/api/v1/nodes/summary'));
    diffs = countDifferences(await pageCounts(), expected);
    return diffs.length === 0;
  }, { timeoutMs: 30_000 }).catch((e) => {
    throw new Error(`${e.message}\n${diffs.join('\n')}`);
  });
  const rows = await rowIds();
  const all = await s.instance.nodes();
  assert.equal(rows.length, Math.min(all.length, 100), 'the first page holds the fleet, up to its 100 rows');
  await s.artifacts.screenshot(page, 'overview', { fullPage: true });
});

s.test('the critical count filters the table to exactly the critical nodes', async () => {
  await page.getByTestId('count-health-critical').click();
  await page.waitForFunction(() => /[?&]health=critical(&|$)/.test(location.hash));
  let expected;
  await waitFor('the table to show the API\'s critical nodes', async () => {
    expected = (await s.instance.nodes('?health=critical')).map((n) => n.id).sort();
    return JSON.stringify(await rowIds()) === JSON.stringify(expected);
  }, { timeoutMs: 30_000 });
  assert.ok(expected.includes(target.id));
  assert.equal(await page.getByTestId('count-health-critical').getAttribute('aria-pressed'), 'true');
  const chips = await page.getByTestId('filter-chip')
    .evaluateAll((els) => els.map((e) => `${e.dataset.filter}=${e.dataset.value}`));
  assert.deepEqual(chips, ['health=critical']);
  await s.artifacts.screenshot(page, 'critical-filter', { fullPage: true });
});

s.test('a critical node opens with its name and health', async () => {
  // Readings first, so that the charts have something to plot when the page loads them.
  await waitFor(`two temperature polls of ${target.name}`,
    async () => (await readings(target.id)).temperatureMost >= 2, { timeoutMs: 120_000, intervalMs: 1000 });
  readingsBefore = await readings(target.id);
  // Its BMC pushes its events to the demo (docs/events.md): subscribed before the page reads it.
  await waitFor(`${target.name}'s event subscription`,
    async () => (await s.instance.apiOk('GET', `/api/v1/nodes/${target.id}/event-subscription`)).state === 'active',
    { timeoutMs: 120_000, intervalMs: 1000 });
  const [, ms] = await timed(async () => {
    await page.locator(`tr[data-node-id="${target.id}"]`).click();
    await page.getByTestId('node-name').filter({ hasText: target.name }).waitFor();
  });
  s.artifacts.time('node page: click until its name shows', ms);
  const node = await s.instance.apiOk('GET', `/api/v1/nodes/${target.id}`);
  assert.equal(await page.getByTestId('node-name').textContent(), node.name);
  assert.equal(await page.getByTestId('node-health').getAttribute('data-state'), node.health);
  assert.equal(await page.getByTestId('node-power').getAttribute('data-state'), node.power_state);
  const pushed = page.getByTestId('event-subscription');
  await page.waitForFunction(() => document.querySelector('[data-testid="event-subscription"]')?.dataset.state === 'active',
    null, { timeout: 30_000 });
  assert.match(await pushed.textContent(), /^subscribed since .* received/);
  await s.artifacts.screenshot(page, 'node');
});

s.test('the sensor charts plot every reading the API holds', async () => {
  const [, ms] = await timed(() => page.waitForFunction(
    () => Number(document.querySelector('[data-testid="sensor-chart"][data-kind="temperature"]')?.dataset.points) > 0,
    null, { timeout: 90_000 }));
  s.artifacts.time('node page: until the temperature chart has points', ms);
  const charts = await page.getByTestId('sensor-chart')
    .evaluateAll((els) => els.map((e) => [e.dataset.kind, Number(e.dataset.points)]));
  const after = await readings(target.id);
  const plotted = charts.reduce((n, [, points]) => n + points, 0);
  console.log(`# charts: ${charts.map(([k, n]) => `${k} ${n}`).join(', ')}: ${plotted} points; ` +
    `the API held ${readingsBefore.total} readings of ${CHARTED_KINDS.join(', ')} before the page loaded, ` +
    `${after.total} after`);
  assert.ok(readingsBefore.total > 0 && plotted > 0);
  // The page read its readings between the two counts; a series over 360 readings is thinned.
  if (after.most <= 360)
    assert.ok(plotted >= readingsBefore.total && plotted <= after.total,
      `${plotted} points plotted, the API held ${readingsBefore.total}..${after.total} readings`);
  await page.locator('[data-testid="sensor-chart"][data-kind="temperature"]').scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(page.locator('#sensors'), 'sensor-charts');
});

s.test('a viewer sees every action disabled, with the reason', async () => {
  const actions = page.getByTestId('node-actions');
  await actions.waitFor();
  const buttons = await actions.locator('button[data-action]').evaluateAll((els) =>
    els.map((b) => ({ action: b.dataset.action, disabled: b.disabled, reason: b.dataset.reason || '' })));
  assert.ok(buttons.some((b) => b.action === 'power-cycle'), 'the power-cycle button is shown');
  for (const b of buttons) {
    assert.equal(b.disabled, true, `${b.action} is disabled for a ${viewer.role}`);
    assert.match(b.reason, new RegExp(viewer.role), `${b.action} says why`);
  }
  const note = page.getByTestId('role-note');
  assert.equal(await note.isVisible(), true);
  assert.match(await note.textContent(), new RegExp(viewer.role));
  // The server is the judge: the same action with the viewer's token is refused.
  const refused = await s.instance.api('POST', `/api/v1/nodes/${target.id}/power`,
    { token: viewer.token, body: { action: 'cycle' } });
  assert.equal(refused.status, 403);
  await actions.scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(actions, 'viewer-actions-disabled');
});

s.test('the capacity page shows the GPUs the capacity report counts, per group, and its CSV', async () => {
  await page.getByTestId('nav-capacity').click();
  await page.getByTestId('capacity-chart').waitFor();
  await page.getByTestId('capacity-table').locator('tbody tr[data-group]').first().waitFor();
  // The page asked for the last 7 days, grouped by GPU model and source: the same report from the
  // API (GPUs installed do not change while the demo runs; GPU-hours do, so they are not compared).
  const url = new URL(await page.getByTestId('capacity-csv').getAttribute('href'), s.instance.url);
  const query = new URLSearchParams(url.search);
  query.delete('format');
  const report = await s.instance.apiOk('GET', `/api/v1/capacity?${query}`, { token: viewer.token });
  assert.ok(report.totals.gpus_installed > 0, 'the demo fleet has GPUs');
  const shown = (await page.getByTestId('capacity-gpus-installed').locator('.big').textContent()).replace(/[^0-9]/g, '');
  assert.equal(Number(shown), report.totals.gpus_installed);
  const rows = await page.getByTestId('capacity-table').locator('tbody tr[data-group]').count();
  assert.equal(rows, report.groups.length);
  assert.equal(Number(await page.getByTestId('capacity-chart').getAttribute('data-buckets')), report.totals.series.length);
  const csv = await s.instance.api('GET', `${url.pathname}${url.search}`, { token: viewer.token });
  assert.equal(csv.status, 200);
  const lines = csv.text.trim().split('\n');
  assert.match(lines[0], /^from,to,gpu_model,source,gpus_installed,/);
  assert.equal(lines.length - 1, report.groups.length);
  await s.artifacts.screenshot(page, 'capacity');
});

s.test('the cost page puts owned and rented side by side per GPU model, priced by the demo\'s prices', async () => {
  await page.getByTestId('nav-cost').click();
  await page.getByTestId('cost-chart').waitFor();
  await page.getByTestId('cost-table').locator('tbody tr[data-group]').first().waitFor();
  const url = new URL(await page.getByTestId('cost-csv').getAttribute('href'), s.instance.url);
  const query = new URLSearchParams(url.search);
  query.delete('format');
  query.set('inputs', 'false');
  const report = await s.instance.apiOk('GET', `/api/v1/cost?${query}`, { token: viewer.token });
  assert.equal(report.currency, 'USD', 'the demo enters its example prices in USD');
  const rows = await page.getByTestId('cost-table').locator('tbody tr[data-group]').evaluateAll((trs) => trs.map((tr) => tr.dataset.group));
  assert.deepEqual(rows, report.groups.map((g) => g.key.gpu_model || 'unknown model'));
  // Owned H100 servers and rented H100 instances are both in the demo fleet.
  const h100 = report.groups.find((g) => g.key.gpu_model === 'NVIDIA H100 SXM5 80GB');
  assert.ok(h100 && h100.owned.gpu_hours_installed > 0 && h100.rented.gpu_hours_used > 0, 'H100s owned and rented');
  const csv = await s.instance.api('GET', `${url.pathname}${url.search}`, { token: viewer.token });
  assert.equal(csv.status, 200);
  assert.match(csv.text.split('\n')[0], /^gpu_model,node_id,node,kind,from,to,quantity,unit,rate,currency,/);
  await s.artifacts.screenshot(page, 'cost');
});

s.testStopsCleanly();
