// A dropped change stream resumes without losing an event. The browser reaches the service through
// a proxy that cuts every connection and refuses new ones (a real network drop); meanwhile three
// servers go into maintenance through the API (a fourth, changed before the drop, shows the stream
// live). Once the network is back, the page's EventSource reconnects by itself, the stream
// delivers each of the three changes (watched through Chromium's DevTools protocol, so the page's
// own reload-on-reconnect cannot hide a lost event), no event twice, and the table shows all
// three, without a reload.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { DroppableProxy, scenario, signIn, streamState, timed, waitFor } from './harness.mjs';

const s = scenario('stream');
let proxy;
let page;
const events = [];          // every event the page's EventSource received: {name, id, data, at}
const streamRequests = [];  // every GET /api/v1/stream the page sent: {at, lastEventId}

after(() => proxy?.close());

function rowMaintenance(id) {
  return page.locator(`tr[data-node-id="${id}"]`).evaluate((tr) =>
    [...tr.querySelectorAll('.badge')].some((b) => /maint/i.test(`${b.textContent} ${b.title}`)));
}

s.test('a viewer watches the fleet live through a proxy', async () => {
  proxy = await DroppableProxy.start(s.instance.url);
  const user = await s.user('viewer', { baseURL: proxy.url });
  page = user.page;
  const cdp = await user.context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.eventSourceMessageReceived', (e) =>
    events.push({ name: e.eventName, id: e.eventId, data: e.data, at: Date.now() }));
  // The headers as sent (Last-Event-ID is added below Blink) come in the ExtraInfo event.
  const streamIds = new Set();
  cdp.on('Network.requestWillBeSent', (e) => {
    if (new URL(e.request.url).pathname === '/api/v1/stream') streamIds.add(e.requestId);
  });
  cdp.on('Network.requestWillBeSentExtraInfo', (e) => {
    const header = Object.entries(e.headers).find(([k]) => k.toLowerCase() === 'last-event-id');
    const path = Object.entries(e.headers).find(([k]) => k === ':path')?.[1];
    if (streamIds.has(e.requestId) || path?.startsWith('/api/v1/stream') || header)
      streamRequests.push({ at: Date.now(), lastEventId: header ? header[1] : null });
  });
  await signIn(page, await s.instance.createToken('viewer'));
  await page.locator('[data-testid="node-table"] tr[data-node-id]').first().waitFor();
  await waitFor('the stream to be live', async () => (await streamState(page)) === 'live', { timeoutMs: 30_000 });
  await page.evaluate(() => { window.__ironholdTestDocument = 'loaded once'; });
});

s.test('changes made while the stream is down all arrive once it is back', async () => {
  const [live, ...nodes] = (await s.instance.nodes('?source=bmc&maintenance=false')).slice(0, 4);
  assert.equal(nodes.length, 3);
  for (const n of [live, ...nodes]) assert.equal(await rowMaintenance(n.id), false, `${n.name} starts out of maintenance`);
  // One change while the stream is up: it arrives live.
  const sent = Date.now();
  await s.instance.apiOk('PATCH', `/api/v1/nodes/${live.id}`,
    { body: { maintenance: true, maintenance_reason: 'browser test: live' } });
  await waitFor(`${live.name}'s row to show maintenance`, () => rowMaintenance(live.id), { timeoutMs: 30_000 });
  s.artifacts.time('a change through the API until its row showed it', Date.now() - sent);

  const dropped = Date.now();
  proxy.drop();
  const [, noticed] = await timed(() => waitFor('the page to notice the drop',
    async () => (await streamState(page)) !== 'live', { timeoutMs: 30_000, intervalMs: 100 }));
  s.artifacts.time('drop until the status indicator left live', noticed);
  await s.artifacts.screenshot(page, 'stream-dropped');
  const lastBefore = events.filter((e) => e.at < dropped).pop();

  for (const n of nodes)
    await s.instance.apiOk('PATCH', `/api/v1/nodes/${n.id}`,
      { body: { maintenance: true, maintenance_reason: 'browser test: stream resume' } });

  const restored = Date.now();
  proxy.restore();
  const [, back] = await timed(() => waitFor('the stream to be live again',
    async () => (await streamState(page)) === 'live', { timeoutMs: 60_000, intervalMs: 100 }));
  s.artifacts.time('network back until the status indicator was live', back);

  // Every change arrives as an event on the resumed stream.
  const missing = () => nodes.filter((n) => !events.some((e) => e.at >= restored && e.name === 'node.updated' &&
    JSON.parse(e.data).id === n.id && JSON.parse(e.data).maintenance === true));
  await waitFor('node.updated for each of the three servers', async () => missing().length === 0, { timeoutMs: 30_000 })
    .catch((e) => { throw new Error(`${e.message}: missing ${missing().map((n) => n.name).join(', ')}`); });
  const ids = events.map((e) => e.id).filter(Boolean);
  assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids.join(',')}`);
  const reconnect = streamRequests.find((r) => r.at >= restored) || streamRequests.filter((r) => r.at >= dropped)[0];
  console.log(`# last event before the drop: ${lastBefore ? `${lastBefore.name} id ${lastBefore.id}` : 'none'}; ` +
    `stream requests after the drop: ${streamRequests.filter((r) => r.at >= dropped).length}, ` +
    `the one that resumed sent Last-Event-ID ${reconnect ? reconnect.lastEventId : '(none seen)'}; ` +
    `events after it: ${events.filter((e) => e.at >= restored).map((e) => `${e.name} ${e.id}`).join(', ')}`);

  // The table shows all three, without a reload.
  await waitFor('the rows to show the three servers in maintenance', async () => {
    for (const n of nodes) if (!(await rowMaintenance(n.id))) return false;
    return true;
  }, { timeoutMs: 30_000 });
  assert.equal(await page.evaluate(() => window.__ironholdTestDocument), 'loaded once', 'the page was not reloaded');
  await page.locator(`tr[data-node-id="${nodes[0].id}"]`).scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(page, 'stream-resumed');
});

s.testStopsCleanly();
