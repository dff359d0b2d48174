// A fleet of 5,000 more servers (enrolled through the API, each at a loopback address nothing
// answers) in the overview table: the total matches the API, the table pages through every node
// exactly once at 500 rows a page and scrolls, and a name search and a count filter show what the
// API returns for the same filter. Times are reported (and kept in timings.json), never asserted.
import assert from 'node:assert/strict';
import { scenario, signIn, timed, waitFor } from './harness.mjs';

const s = scenario('fleet5000');
const EXTRA = 5000;
const PARALLEL = 32;  // enrollments in flight at once
let page;

const rowIds = () => page.$$eval('[data-testid="node-table"] tr[data-node-id]', (rows) => rows.map((r) => r.dataset.nodeId));
// The table has its rows for the current filters and page (it sets aria-busy while it loads).
const tableIdle = () => page.waitForFunction(
  () => document.querySelector('[data-testid="node-table"]')?.getAttribute('aria-busy') === 'false',
  null, { timeout: 60_000 });

async function enroll(i) {
  const name = `scale-${String(i).padStart(4, '0')}`;
  const res = await s.instance.api('POST', '/api/v1/nodes', {
    body: {
      // Each at its own loopback address, where nothing listens (port 9): refused at once.
      name, driver: 'redfish', endpoint: `https://127.1.${Math.floor(i / 250)}.${(i % 250) + 1}:9`,
      credentials: { username: 'admin', password: 'not-used' },
      location: { site: 'scale', rack: `S${i % 50}`, unit: (i % 40) + 1 },
      tags: { scale: 'true' },
    },
  });
  if (res.status !== 201) throw new Error(`enrolling ${name}: ${res.status} ${res.text.slice(0, 300)}`);
}

s.test(`${EXTRA} more servers are enrolled through the API`, async () => {
  const before = (await s.instance.apiOk('GET', '/api/v1/nodes/summary')).total;
  let next = 0;
  const [, ms] = await timed(() => Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < EXTRA) await enroll(next++);
  })));
  s.artifacts.time(`enrolling ${EXTRA} nodes (${PARALLEL} requests at a time)`, ms,
    { per_second: Math.round(EXTRA / (ms / 1000)) });
  assert.equal((await s.instance.apiOk('GET', '/api/v1/nodes/summary')).total, before + EXTRA);
});

s.test('the overview shows the whole fleet\'s total', async () => {
  ({ page } = await s.user('viewer'));
  const [, ms] = await timed(async () => {
    await signIn(page, await s.instance.createToken('viewer'));
    await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  });
  s.artifacts.time('sign-in until the first table row', ms);
  const total = (await s.instance.apiOk('GET', '/api/v1/nodes/summary')).total;
  await waitFor('count-total to show the API\'s total', async () =>
    Number(await page.getByTestId('count-total').getAttribute('data-count')) === total, { timeoutMs: 30_000 });
  await s.artifacts.screenshot(page, 'fleet5000-overview');
});

s.test('at 500 rows a page, the table scrolls and pages through every node once', async () => {
  const all = await s.instance.nodes();
  let [, ms] = await timed(async () => {
    await Promise.all([
      page.waitForResponse((r) => /\/api\/v1\/nodes\?.*limit=500/.test(r.url())),
      page.locator('#page-size').selectOption('500'),
    ]);
    await tableIdle();
  });
  let ids = await rowIds();
  assert.equal(ids.length, Math.min(500, all.length));
  s.artifacts.time('500 rows a page: until the first page was shown', ms);

  // Scroll to the bottom of the page in wheel steps, as a user would, then back to the top.
  [, ms] = await timed(async () => {
    await page.mouse.move(700, 500);
    for (let i = 0; i < 200; i += 1) {
      await page.mouse.wheel(0, 800);
      const atBottom = await page.evaluate(
        () => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
      if (atBottom) break;
    }
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  });
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  s.artifacts.time('scrolling through 500 rows to the bottom (wheel steps of 800 px)', ms, { page_height_px: height });
  await s.artifacts.screenshot(page, 'fleet5000-scrolled-to-bottom');
  await page.evaluate(() => window.scrollTo(0, 0));

  // Every page: no node twice, none left out.
  const seen = new Set(ids);
  const pageTimes = [];
  while (await page.getByTestId('page-next').isEnabled()) {
    [, ms] = await timed(async () => {
      await Promise.all([
        page.waitForResponse((r) => r.url().includes('/api/v1/nodes?cursor=')),
        page.getByTestId('page-next').click(),
      ]);
      await tableIdle();
    });
    pageTimes.push(ms);
    ids = await rowIds();
    for (const id of ids) {
      assert.ok(!seen.has(id), `node ${id} shown on two pages`);
      seen.add(id);
    }
    assert.ok(pageTimes.length <= Math.ceil(all.length / 500), 'no more pages than the fleet fills');
  }
  const missing = all.filter((n) => !seen.has(n.id)).map((n) => n.name);
  assert.deepEqual(missing, [], 'every node appears on some page');
  assert.equal(seen.size, all.length);
  s.artifacts.time(`paging: next page shown (mean of ${pageTimes.length})`,
    pageTimes.reduce((a, b) => a + b, 0) / pageTimes.length, { max_ms: Math.round(Math.max(...pageTimes)) });
  await s.artifacts.screenshot(page, 'fleet5000-last-page');
});

s.test('a name search shows the nodes the API finds for it', async () => {
  assert.equal(await page.getByTestId('filter-chip').count(), 0, 'no filter set yet');
  const q = 'scale-12';
  const expected = (await s.instance.nodes(`?q=${encodeURIComponent(q)}`)).map((n) => n.id).sort();
  assert.ok(expected.length > 0 && expected.length <= 500);
  const search = page.getByTestId('node-search');
  const [, ms] = await timed(async () => {
    await search.fill(q);
    await waitFor(`the table to show the ${expected.length} nodes matching "${q}"`,
      async () => JSON.stringify((await rowIds()).sort()) === JSON.stringify(expected),
      { timeoutMs: 30_000, intervalMs: 50 });
  });
  s.artifacts.time(`search "${q}": typing until the ${expected.length} matching rows were shown ` +
    '(includes the page\'s 300 ms debounce)', ms);
  await page.evaluate(() => window.scrollTo(0, 0));
  const matching = await page.getByTestId('matching').textContent();
  assert.match(matching.replace(/,/g, ''), new RegExp(`\\b${expected.length}\\b`), `"${matching}" names the number of matches`);
  await s.artifacts.screenshot(page, 'fleet5000-search');
  await search.fill('');
});

s.test('a count filter shows the first page the API returns for it', async () => {
  await waitFor('no search filter left',
    async () => (await page.getByTestId('filter-chip').count()) === 0, { timeoutMs: 10_000 });
  await tableIdle();
  // The health with the most nodes (the new servers, which nothing answers, among them).
  const summary = await s.instance.apiOk('GET', '/api/v1/nodes/summary');
  const [health] = Object.entries(summary.health).sort((a, b) => b[1] - a[1])[0];
  const [, ms] = await timed(async () => {
    await Promise.all([
      page.waitForResponse((r) => r.url().includes(`health=${health}`) && r.url().includes('/api/v1/nodes?')),
      page.getByTestId(`count-health-${health}`).click(),
    ]);
    await tableIdle();
  });
  s.artifacts.time(`filter health=${health} (${summary.health[health]} nodes): click until the first page was shown`, ms);
  await page.evaluate(() => window.scrollTo(0, 0));
  // The poller changes nodes meanwhile: compare until the page and the API agree at one moment.
  await waitFor(`the rows to be the API's first page of health=${health}`, async () => {
    const firstPage = await s.instance.apiOk('GET', `/api/v1/nodes?health=${health}&sort=name&limit=500`);
    return JSON.stringify(await rowIds()) === JSON.stringify(firstPage.items.map((n) => n.id));
  }, { timeoutMs: 30_000 });
  await s.artifacts.screenshot(page, `fleet5000-filter-health-${health}`);
});

s.testStopsCleanly();
