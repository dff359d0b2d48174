// An operator power-cycles a server from its page, through the confirmation dialog, and the power
// badge changes live, without a reload, on the operator's page and on a viewer's page open on the
// same node: away from on while the server cycles, then on again. The simulated servers take
// 6 s to power off and 6 s to power on, and the poller reads power every 2 s, so the inventory
// (and the stream) sees the cycle rather than only its end.
//
// Then the serial console of an IPMI server: the operator opens it from the node's page, types and
// sees the echo, power-cycles the server and watches it boot, and reads the boot in the output
// kept; what the simulated host received and printed (its control API) is the expected text. And
// a Redfish server's console, which is its BMC's SSH serial console: typed into, and its host key
// pinned on the node as the simulated BMC holds it.
import assert from 'node:assert/strict';
import { scenario, signIn, timed, waitFor } from './harness.mjs';

const s = scenario('power', { extraArgs: ['--sim-control', '--poll-status-interval', '2', '--sim-reset-delay', '6000'] });
let node;
let operator;  // page
let viewer;    // page

// Records every power state the node page shows (node-power's data-state), as it changes,
// whichever element holds it; and marks the document, so that a reload would show.
async function watchPower(page) {
  await page.evaluate(() => {
    window.__ironholdTestDocument = 'loaded once';
    window.__powerStates = [];
    const note = () => {
      const state = document.querySelector('[data-testid="node-power"]')?.dataset.state;
      const seen = window.__powerStates;
      if (state && seen[seen.length - 1]?.state !== state) seen.push({ state, at: Date.now() });
    };
    note();
    new MutationObserver(note).observe(document.body, {
      subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'],
    });
  });
}

const powerStates = (page) => page.evaluate(() => window.__powerStates);

// The states after `since`: did the badge leave "on" and come back?
function cycled(states, since) {
  const after = states.filter((s) => s.at >= since);
  const away = after.findIndex((s) => s.state !== 'on');
  const back = away < 0 ? -1 : after.findIndex((s, i) => i > away && s.state === 'on');
  return away >= 0 && back >= 0 ? { away: after[away], back: after[back], seen: after.map((s) => s.state) } : null;
}

s.test('an operator and a viewer open the same server', async () => {
  const candidates = await s.instance.nodes('?source=bmc&driver=redfish&power_state=on&health=ok');
  node = candidates.find((n) => n.reachable);
  assert.ok(node, 'the demo has a reachable Redfish server that is on');
  const pages = [];
  for (const role of ['operator', 'viewer']) {
    const { page } = await s.user(role);
    await signIn(page, await s.instance.createToken(role));
    await page.goto(`/#/nodes/${node.id}`);
    await page.getByTestId('node-name').filter({ hasText: node.name }).waitFor();
    assert.equal(await page.getByTestId('node-power').getAttribute('data-state'), 'on');
    await watchPower(page);
    pages.push(page);
  }
  [operator, viewer] = pages;
  assert.equal(await operator.locator('button[data-action="power-cycle"]').isEnabled(), true);
  assert.equal(await viewer.locator('button[data-action="power-cycle"]').isEnabled(), false);
});

s.test('power-cycle goes through a confirmation dialog that names the server', async () => {
  await operator.locator('button[data-action="power-cycle"]').click();
  const dialog = operator.getByTestId('confirm-dialog');
  await dialog.waitFor();
  assert.match(await dialog.textContent(), new RegExp(node.name));
  await s.artifacts.screenshot(operator, 'power-cycle-dialog');
  // Cancel sends nothing.
  await operator.getByTestId('confirm-cancel').click();
  await dialog.waitFor({ state: 'detached' });
  const tasks = await s.instance.apiOk('GET', `/api/v1/tasks?node=${node.id}`);
  assert.equal(tasks.items.filter((t) => t.kind === 'power').length, 0, 'a cancelled dialog starts no task');
});

s.test('the power state changes live on both pages, without a reload', async () => {
  await operator.locator('button[data-action="power-cycle"]').click();
  await operator.getByTestId('confirm-dialog').waitFor();
  const confirmed = Date.now();
  const [answer] = await Promise.all([
    operator.waitForResponse((r) => r.url().endsWith(`/api/v1/nodes/${node.id}/power`) && r.request().method() === 'POST'),
    operator.getByTestId('confirm-action').click(),
  ]);
  assert.equal(answer.status(), 202);
  const task = await answer.json();
  assert.ok(task.id, 'the answer is the task');

  // Leaving "on": caught on the operator's page for a screenshot of the server mid-cycle.
  await operator.waitForFunction(() => document.querySelector('[data-testid="node-power"]')?.dataset.state !== 'on',
    null, { timeout: 120_000 });
  await s.artifacts.screenshot(operator, 'power-cycling-operator');
  for (const [who, page] of [['operator', operator], ['viewer', viewer]]) {
    const seen = await waitFor(`${who}'s page to show the power leave on and come back`,
      async () => cycled(await powerStates(page), confirmed), { timeoutMs: 120_000, intervalMs: 200 });
    s.artifacts.time(`${who}: confirm until the power badge left on (${seen.away.state})`, seen.away.at - confirmed);
    s.artifacts.time(`${who}: confirm until the power badge was on again`, seen.back.at - confirmed, { states: seen.seen });
    assert.equal(await page.evaluate(() => window.__ironholdTestDocument), 'loaded once', `${who}'s page was not reloaded`);
  }
  await s.artifacts.screenshot(viewer, 'power-cycled-viewer');

  // The API agrees: the task succeeded and the server is on.
  const done = await waitFor('the task to end', async () => {
    const t = await s.instance.apiOk('GET', `/api/v1/tasks/${task.id}`);
    return ['succeeded', 'failed', 'cancelled'].includes(t.state) ? t : null;
  }, { timeoutMs: 120_000 });
  assert.equal(done.state, 'succeeded', JSON.stringify(done));
  assert.equal((await s.instance.apiOk('GET', `/api/v1/nodes/${node.id}`)).power_state, 'on');
  // The node's task list on the operator's page shows the task, and it ends there too.
  const row = operator.locator(`[data-testid="node-tasks"] tr[data-task-id="${task.id}"]`);
  await row.waitFor();
  await waitFor('the task row to show the task succeeded',
    async () => (await row.locator('.badge').first().getAttribute('data-state')) === 'succeeded', { timeoutMs: 30_000 });
  await row.scrollIntoViewIfNeeded();
  await s.artifacts.screenshot(operator, 'power-cycled-operator-task');
});

// The text xterm.js shows, row after row.
const terminalText = (page) => page.evaluate(() =>
  [...document.querySelectorAll('#terminal .xterm-rows > div')].map((row) => row.textContent).join('\n'));

let consoleServer;  // the IPMI server whose console is opened
let serverBmc;  // its simulated BMC's control API
let serial;     // the operator's serial console page

s.test('an operator opens an IPMI server\'s serial console from its page and types into it', async () => {
  const candidates = await s.instance.nodes('?source=bmc&driver=ipmi&power_state=on');
  const server = candidates.find((n) => n.reachable);
  assert.ok(server, 'the demo has a reachable IPMI server that is on');
  consoleServer = server;
  serverBmc = await s.instance.bmcControl(server);
  await operator.goto(`/#/nodes/${server.id}`);
  await operator.getByTestId('node-name').filter({ hasText: server.name }).waitFor();
  // A viewer has no console to open.
  await viewer.goto(`/#/nodes/${server.id}`);
  await viewer.getByTestId('node-name').filter({ hasText: server.name }).waitFor();
  assert.equal(await viewer.getByTestId('open-serial-console').count(), 0);

  const link = operator.getByTestId('open-serial-console');
  const [page] = await Promise.all([operator.context().waitForEvent('page'), link.click()]);
  serial = page;
  s.pages.set('serial console', serial);
  await serial.waitForFunction(() => document.querySelector('[data-testid="serial-status"]')?.dataset.state === 'writer',
    null, { timeout: 60_000 });
  assert.equal(await serial.getByTestId('node-link').textContent(), server.name);

  await serial.locator('#terminal').click();
  await serial.keyboard.type('echo from the browser');
  await serial.keyboard.press('Enter');
  await waitFor('the echo in the terminal', async () => (await terminalText(serial)).includes('echo from the browser'));
  // The host got exactly what was typed (Enter is a carriage return on a serial line). The echo
  // shows once the text is there; the Enter may reach the host a moment later.
  let received = '';
  await waitFor('the Enter at the host', async () => {
    received = (await (await fetch(`${serverBmc}/console`)).json()).received;
    return received.endsWith('\r');
  }, { timeoutMs: 10_000 });
  assert.ok(received.endsWith('echo from the browser\r'), JSON.stringify(received));
  await s.artifacts.screenshot(serial, 'serial-console-echo');
});

s.test('the console shows the server boot after a power cycle, and its output is kept', async () => {
  const cycled = await s.instance.apiOk('POST', `/api/v1/nodes/${consoleServer.id}/power`, { body: { action: 'cycle' } }, 202);
  assert.ok(cycled.id);
  await waitFor('the boot to reach the login prompt in the terminal',
    async () => (await terminalText(serial)).includes('Reached target multi-user.target'), { timeoutMs: 120_000 });
  await s.artifacts.screenshot(serial, 'serial-console-boot');

  // The output kept, read back on the page: the host's own record of the boot is in it.
  const host = await (await fetch(`${serverBmc}/console`)).json();
  const boot = host.history.slice(host.history.lastIndexOf('reboot: Power down'));
  const bootLines = boot.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  assert.ok(bootLines.length > 5, `the simulated host printed a boot: ${boot}`);
  await serial.getByTestId('show-log').click();
  await waitFor('the kept output to show the whole boot', async () => {
    const kept = await serial.getByTestId('console-log').textContent();
    return bootLines.every((line) => kept.includes(line));
  }, { timeoutMs: 30_000 });
  await s.artifacts.screenshot(serial, 'serial-console-log');
  await serial.close();
  s.pages.delete('serial console');
});

s.test('a Redfish server\'s serial console is its BMC\'s SSH console, host key pinned', async () => {
  const candidates = await s.instance.nodes('?source=bmc&driver=redfish&power_state=on');
  const server = candidates.find((n) => n.reachable && !n.parent_id);
  assert.ok(server, 'the demo has a reachable Redfish server that is on');
  const bmc = await s.instance.bmcControl(server);
  await operator.goto(`/#/nodes/${server.id}`);
  await operator.getByTestId('node-name').filter({ hasText: server.name }).waitFor();
  const link = operator.getByTestId('open-serial-console');
  const [page] = await Promise.all([operator.context().waitForEvent('page'), link.click()]);
  s.pages.set('ssh console', page);
  await page.waitForFunction(() => document.querySelector('[data-testid="serial-status"]')?.dataset.state === 'writer',
    null, { timeout: 60_000 });
  await page.locator('#terminal').click();
  await page.keyboard.type('over ssh');
  await page.keyboard.press('Enter');
  await waitFor('the echo in the terminal', async () => (await terminalText(page)).includes('over ssh'));
  const host = await (await fetch(`${bmc}/console`)).json();
  assert.ok(host.received.endsWith('over ssh\r'), JSON.stringify(host.received));
  await s.artifacts.screenshot(page, 'serial-console-ssh');
  // The key the simulated BMC holds is now the node's pin.
  const { ssh_console: ssh } = await (await fetch(bmc)).json();
  await waitFor('the host key to be pinned', async () =>
    (await s.instance.apiOk('GET', `/api/v1/nodes/${server.id}`)).ssh_host_key === ssh.host_key_sha256);
  await page.close();
  s.pages.delete('ssh console');
});

s.testStopsCleanly();
