// What every browser scenario needs: a real `ironhold demo` (the built binary, $IRONHOLD_BIN) on a
// free loopback port with a fresh data directory, its API, tokens of each role, headless Chromium
// (Debian's /usr/bin/chromium driven by playwright-core), screenshots in an artifacts directory,
// and timings that are reported, never asserted. Only Node built-ins and playwright-core, and only
// APIs that Node 18 (Debian 12's) has as well as Node 20.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const STARTUP_LIMIT_MS = 180_000;  // initdb, migrations and 56 simulated BMCs on a loaded CI box
// SIGTERM → SIGKILL: systemd's default (TimeoutStopSec). The service's own bound is its
// --shutdown-grace (10 s) for requests, another for polls and task steps, then the database's
// stop; an ASan build on a loaded two-core box has taken over 20 s with 5,000 nodes polled.
const STOP_GRACE_MS = 90_000;
const RELOCATED_CLUSTERS = '/var/lib/ironhold/clusters/';  // where root's embedded clusters go
// The demo's fleet, smaller than its default 48 Redfish and 8 IPMI servers: no scenario's point is
// the fleet's size (fleet5000 enrolls 5,000 servers of its own), and every simulated server costs
// the demo's first minute inspections and polls. 12 still has GPU and compute servers, one in
// warning and one that does not answer.
const FLEET_ARGS = ['--sim-servers', '12', '--sim-ipmi-servers', '2'];

// Every instance still running, so that an interrupted run stops them too.
const running = new Set();
process.on('exit', () => {
  for (const instance of running) instance.killNow();
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    await Promise.allSettled([...running].map((i) => i.stop()));
    process.exit(128 + os.constants.signals[signal]);
  });
}

// A liveness bound, not a timed assertion: polls `check` until it returns something truthy and
// returns that; after `timeoutMs` throws with `what` and the last value seen.
export async function waitFor(what, check, { timeoutMs = 60_000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`gave up waiting (${timeoutMs / 1000} s) for ${what}; last seen: ${seen}`);
    }
    await sleep(intervalMs);
  }
}

// Runs `fn` and returns [its result, milliseconds it took].
export async function timed(fn) {
  const started = performance.now();
  const result = await fn();
  return [result, performance.now() - started];
}

// Where one scenario's screenshots, server log, browser log and timings go; emptied at the start so
// that nothing from an earlier run is mistaken for this one's.
export class Artifacts {
  constructor(scenario) {
    const root = process.env.IRONHOLD_BROWSER_ARTIFACTS || path.join(os.tmpdir(), 'ironhold-browser-artifacts');
    this.dir = path.resolve(root, scenario);
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { recursive: true });
    this.shots = 0;
    this.timings = [];
    console.log(`# artifacts (screenshots, logs, timings): ${this.dir}`);
  }

  file(name) {
    return path.join(this.dir, name);
  }

  // A numbered screenshot of what a page shows now (its viewport, or the whole page), or of one
  // element (a playwright Locator).
  async screenshot(target, name, { fullPage = false } = {}) {
    this.shots += 1;
    const file = this.file(`${String(this.shots).padStart(2, '0')}-${name}.png`);
    await target.screenshot(typeof target.goto === 'function' ? { path: file, fullPage } : { path: file });
    return file;
  }

  // Reported in the test output and timings.json; never compared with anything.
  time(label, ms, extra = {}) {
    const entry = { label, ms: Math.round(ms), ...extra };
    this.timings.push(entry);
    fs.writeFileSync(this.file('timings.json'), `${JSON.stringify(this.timings, null, 2)}\n`);
    console.log(`# time: ${label}: ${entry.ms} ms${Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : ''}`);
  }
}

// An API answer: status, parsed JSON body (or null), headers.
async function request(base, method, urlPath, { token, body, headers = {} } = {}) {
  const init = { method, headers: { Accept: 'application/json', ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(base + urlPath, init);
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, text, headers: res.headers };
}

// The environment the service runs with: the caller's, minus every IRONHOLD_* setting (a developer's
// IRONHOLD_DATABASE_URL or IRONHOLD_LISTEN must not leak into the test) except the mockups' place.
function serviceEnvironment() {
  const env = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('IRONHOLD_') || key === 'IRONHOLD_MOCKUPS') env[key] = value;
  return env;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// One `ironhold demo` process and what it printed.
export class Instance {
  // Starts `ironhold demo` and returns once it serves and its fleet has been read (see ready()).
  static async start(artifacts, { extraArgs = [] } = {}) {
    const bin = process.env.IRONHOLD_BIN;
    if (!bin) throw new Error('IRONHOLD_BIN is not set: ctest passes the built ironhold executable');
    if (!fs.existsSync(bin)) throw new Error(`IRONHOLD_BIN=${bin} does not exist: build the ironhold target`);
    const instance = new Instance(bin, artifacts);
    running.add(instance);
    try {
      await instance.launch(extraArgs);
      await instance.ready();
    } catch (e) {
      await instance.stop();
      throw e;
    }
    return instance;
  }

  constructor(bin, artifacts) {
    this.bin = bin;
    this.artifacts = artifacts;
    this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'ironhold-browser-'));
    this.dataDir = path.join(this.home, 'data');
    this.stderrTail = '';
    this.sanitizerReport = '';
    this.tokens = 0;
  }

  async launch(extraArgs) {
    // A scenario may choose the address (one that must be known before the start, such as an
    // identity provider's redirect URI); otherwise any free port.
    const listen = extraArgs.includes('--listen') ? [] : ['--listen', '127.0.0.1:0'];
    const args = ['demo', ...listen, '--data-dir', this.dataDir,
      '--shutdown-grace', '2000', ...FLEET_ARGS, ...extraArgs];
    const log = fs.createWriteStream(this.artifacts.file('ironhold.log'));
    this.child = spawn(this.bin, args, { env: serviceEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        running.delete(this);
        resolve({ code, signal });
      });
      // Not started at all (a missing or half-linked binary): no 'exit' follows.
      this.child.on('error', (error) => {
        running.delete(this);
        this.spawnError = error;
        resolve({ code: null, signal: null, error });
      });
    });
    this.child.stderr.on('data', (chunk) => {
      log.write(chunk);
      const text = chunk.toString();
      // An ASan/UBSan report anywhere fails the scenario (see stop()); it may straddle two chunks.
      const recent = this.stderrTail.slice(-200) + text;
      if (this.sanitizerReport) this.sanitizerReport = (this.sanitizerReport + text).slice(0, 8000);
      else if (/ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:/.test(recent)) this.sanitizerReport = recent;
      this.stderrTail = (this.stderrTail + text).slice(-4000);
    });
    let stdout = '';
    const printed = new Promise((resolve, reject) => {
      this.child.stdout.on('data', (chunk) => {
        stdout += chunk.toString();
        log.write(chunk);
        if (!stdout.includes('Press Ctrl-C to stop.')) return;  // the last line it prints
        const url = /console: (http:\/\/\S+?)\/?\s/.exec(stdout);
        const token = /admin token: (\S+)/.exec(stdout);
        // With --sim-control: "simulator control (redfish-gpu): http://127.0.0.1:PORT".
        const controls = {};
        for (const m of stdout.matchAll(/simulator control \(([^)]+)\): (http:\/\/\S+)/g)) controls[m[1]] = m[2];
        if (url && token) resolve({ url: url[1], token: token[1], controls });
        else reject(new Error(`ironhold demo printed no URL or admin token:\n${stdout}`));
      });
      this.child.on('error', reject);
      this.exited.then(({ code, signal, error }) =>
        reject(error ? new Error(`ironhold demo did not start (${this.bin}): ${error.message}`)
          : new Error(`ironhold demo exited (${code ?? signal}) before printing its URL and token:\n${this.stderrTail}`)));
    });
    let timer;
    const limit = new Promise((_, reject) => {
      const why = () => `ironhold demo printed no URL and token within ${STARTUP_LIMIT_MS / 1000} s`;
      timer = setTimeout(() => reject(new Error(`${why()}:\n${this.stderrTail}`)), STARTUP_LIMIT_MS);
    });
    try {
      const { url, token, controls } = await Promise.race([printed, limit]);
      this.url = url;
      this.adminToken = token;
      this.controls = controls;
    } finally {
      clearTimeout(timer);
    }
    console.log(`# ironhold demo (pid ${this.child.pid}) serves ${this.url}; data dir ${this.dataDir}`);
  }

  // Serving, and the demo fleet read: every owned server's first inspection has ended (no node is
  // still enrolled or inspecting) and some have a power state; the clouds have been listed.
  async ready() {
    await waitFor('GET /healthz to answer 200', async () => (await request(this.url, 'GET', '/healthz')).status === 200,
      { timeoutMs: STARTUP_LIMIT_MS });
    this.readySummary = await waitFor('the demo fleet to be inspected', async () => {
      const s = (await this.api('GET', '/api/v1/nodes/summary')).json;
      const settling = (s.lifecycle.enrolled || 0) + (s.lifecycle.inspecting || 0);
      const powered = (s.power_state.on || 0) + (s.power_state.off || 0);
      return s.source.bmc > 0 && s.source.cloud > 0 && settling === 0 && powered > 0 ? s : false;
    }, { timeoutMs: STARTUP_LIMIT_MS, intervalMs: 500 });
  }

  // api('GET', '/api/v1/nodes') as the admin, or {token} as another; the answer ({status, json}).
  api(method, urlPath, options = {}) {
    return request(this.url, method, urlPath, { token: this.adminToken, ...options });
  }

  // The JSON of an answer that must have `status`; otherwise an error naming both.
  async apiOk(method, urlPath, options = {}, status = 200) {
    const res = await this.api(method, urlPath, options);
    if (res.status !== status)
      throw new Error(`${method} ${urlPath}: ${res.status} (wanted ${status}): ${res.text.slice(0, 500)}`);
    return res.json;
  }

  // Every node a filter matches ("?health=critical"), following the keyset pages.
  async nodes(filter = '') {
    const items = [];
    let res = await this.apiOk('GET', `/api/v1/nodes${filter ? `${filter}&` : '?'}limit=1000`);
    for (;;) {
      items.push(...res.items);
      if (!res.next) return items;
      res = await this.apiOk('GET', `/api/v1/nodes?cursor=${encodeURIComponent(res.next)}`);
    }
  }

  // A new user who signs in with `password`, holding `roles` ([{project: null (every project) or a
  // name, role}]), made by the admin; the user as the API answers it.
  createUser(name, password, roles) {
    return this.apiOk('POST', '/api/v1/users', { body: { name, password, roles } }, 201);
  }

  // A new API token with `role` (viewer, operator, admin, auditor), made by the admin.
  async createToken(role) {
    this.tokens += 1;
    const created = await this.apiOk('POST', '/api/v1/tokens',
      { body: { name: `browser-test-${role}-${this.tokens}`, role } }, 201);
    return created.token;
  }

  // The control API of the simulated BMC behind `node` (demo started with --sim-control):
  // "http://127.0.0.1:PORT/bmcs/I", found by the node's endpoint in each fleet's GET /bmcs.
  async bmcControl(node) {
    for (const base of Object.values(this.controls || {})) {
      const { bmcs } = await (await fetch(`${base}/bmcs`)).json();
      const bmc = bmcs.find((b) => b.endpoint === node.endpoint);
      if (bmc) return `${base}/bmcs/${bmc.index}`;
    }
    throw new Error(`no simulated BMC serves ${node.name} (${node.endpoint}); was the demo started with --sim-control?`);
  }

  // The last resort when the test process itself is exiting and cannot wait: SIGKILL to the
  // service and its PostgreSQL, and the files removed.
  killNow() {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    const pid = this.postmasterPid();
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    this.removeFiles();
  }

  // Stops the service (SIGTERM, SIGKILL after a grace period), then the embedded PostgreSQL if a
  // killed service left it running, and removes the data directory and a relocated cluster.
  // Returns {code, signal, sanitizerReport}.
  async stop() {
    let outcome = { code: null, signal: null };
    if (this.child && !this.spawnError && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      // An unreferenced timer: once the service has exited, nothing is left waiting on it.
      const graceful = await Promise.race([this.exited, sleep(STOP_GRACE_MS, null, { ref: false })]);
      if (graceful) {
        outcome = graceful;
      } else {
        console.log(`# ironhold demo did not stop within ${STOP_GRACE_MS / 1000} s of SIGTERM: SIGKILL`);
        this.child.kill('SIGKILL');
        outcome = await this.exited;
      }
    } else if (this.child) {
      outcome = await this.exited;
    }
    running.delete(this);
    await this.stopOrphanedDatabase();
    this.removeFiles();
    return { ...outcome, sanitizerReport: this.sanitizerReport };
  }

  // Where the embedded cluster's files are: beside the data, or (as root, when the database user
  // cannot enter the data directory) where the pointer file says.
  clusterBase() {
    try {
      const pointer = fs.readFileSync(path.join(this.dataDir, 'postgres.location'), 'utf8').split('\n')[0];
      if (pointer) return pointer;
    } catch {
      // No pointer: the natural place.
    }
    return path.join(this.dataDir, 'postgres');
  }

  // The embedded PostgreSQL's pid while its pid file is there (PostgreSQL removes it when it stops).
  postmasterPid() {
    try {
      return Number(fs.readFileSync(path.join(this.clusterBase(), 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
    } catch {
      return null;
    }
  }

  async stopOrphanedDatabase() {
    const pid = this.postmasterPid();
    if (!pid || !alive(pid)) return;
    console.log(`# stopping the embedded PostgreSQL (pid ${pid}) the service left running`);
    process.kill(pid, 'SIGINT');  // fast shutdown
    const deadline = Date.now() + STOP_GRACE_MS;
    while (alive(pid) && Date.now() < deadline) await sleep(200);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }

  removeFiles() {
    const base = this.clusterBase();
    if (base.startsWith(RELOCATED_CLUSTERS)) fs.rmSync(base, { recursive: true, force: true });
    // A socket directory moved to /tmp when the natural path would be too long for sun_path.
    try {
      const hash = createHash('sha256').update(fs.realpathSync(this.dataDir)).digest('hex').slice(0, 16);
      fs.rmSync(path.join('/tmp', `ironhold-${hash}`), { recursive: true, force: true });
    } catch {
      // The data directory was never made.
    }
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

// A TCP proxy in front of the instance that can cut every connection through it and refuse new
// ones for a while: a real network drop, which the browser's EventSource must recover from.
// (Chromium's offline emulation leaves an open event stream alone.)
export class DroppableProxy {
  static async start(targetUrl) {
    const proxy = new DroppableProxy(new URL(targetUrl));
    await new Promise((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', resolve);
    });
    proxy.url = `http://127.0.0.1:${proxy.server.address().port}`;
    return proxy;
  }

  constructor(target) {
    this.target = target;
    this.sockets = new Set();
    this.refusing = false;
    this.server = net.createServer((client) => this.accept(client));
  }

  accept(client) {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(this.target.port), this.target.hostname);
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      this.sockets.add(a);
      a.pipe(b);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
    }
  }

  // Cuts every open connection and refuses new ones until restore().
  drop() {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore() {
    this.refusing = false;
  }

  async close() {
    this.drop();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// Headless Chromium: Debian's (playwright-core downloads no browser). --no-sandbox because CI runs
// as root, where Chromium's sandbox refuses to start.
export async function launchBrowser() {
  const executablePath = process.env.IRONHOLD_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(executablePath))
    throw new Error(`${executablePath} is missing: scripts/install-deps.sh installs Debian's chromium`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

// A browser context on the instance (its own cookie jar: one signed-in user), with the page's
// console errors and failed requests written to the scenario's browser log.
export async function newUser(browser, instance, artifacts, name, { baseURL = instance.url } = {}) {
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const log = fs.createWriteStream(artifacts.file(`browser-${name}.log`), { flags: 'a' });
  page.on('console', (m) => log.write(`[console.${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => log.write(`[pageerror] ${e.stack || e.message}\n`));
  page.on('requestfailed', (r) => log.write(`[requestfailed] ${r.method()} ${r.url()}: ${r.failure()?.errorText}\n`));
  context.on('close', () => log.end());
  return { context, page };
}

// A real OpenLDAP server for a scenario ($IRONHOLD_TEST_SLAPD, tests/support/test_slapd_main.cpp)
// with tests/data/ldap/directory.ldif loaded: {ldapsUrl, ldapUrl, caFile, stop()}. It stops when
// stop() closes its standard input, or with this process.
// The one JSON line a helper process prints once it is ready (`what` and `log` name it and where
// it wrote what went wrong).
function firstJsonLine(child, exited, what, log) {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    exited.then((code) => reject(new Error(`${what} exited (${code}) before it was ready: see ${log}`)));
  });
}

export async function startDirectory(artifacts) {
  const bin = process.env.IRONHOLD_TEST_SLAPD;
  if (!bin || !fs.existsSync(bin)) throw new Error(`IRONHOLD_TEST_SLAPD=${bin} does not exist: build the test_slapd target`);
  const ldif = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'data', 'ldap', 'directory.ldif');
  const child = spawn(bin, [ldif], { stdio: ['pipe', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(artifacts.file('slapd.log'));
  child.stderr.on('data', (chunk) => log.write(chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = await firstJsonLine(child, exited, 'test_slapd', 'slapd.log');
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    ldapsUrl: ready.ldaps_url,
    ldapUrl: ready.ldap_url,
    caFile: ready.ca_file,
    async stop() {
      child.stdin.end();
      await exited;
      log.end();
    },
  };
}

// A free loopback port, for an address that must be known before the service starts.
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => server.listen(0, '127.0.0.1', resolve).on('error', reject));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// `ironhold sim oidc` with `args`: an OpenID Connect provider on loopback. Returns what it printed
// (issuer, client_id, users) and stop().
export async function startIssuer(artifacts, args) {
  const bin = process.env.IRONHOLD_BIN;
  const child = spawn(bin, ['sim', 'oidc', '--listen', '127.0.0.1:0', ...args], { env: serviceEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
  const log = fs.createWriteStream(artifacts.file('oidc-issuer.log'));
  child.stderr.on('data', (chunk) => log.write(chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = await firstJsonLine(child, exited, 'ironhold sim oidc', 'oidc-issuer.log');
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    ...ready,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      log.end();
    },
  };
}

// Switches the sign-in page from its user name and password to its API token field.
export async function useTokenForm(page) {
  await page.getByTestId('signin-use-token').click();
  await page.getByTestId('signin-token').waitFor();
}

// Signs in with an API token through the console's sign-in page; returns once the console shows a
// signed-in page (the top bar with the session's role).
export async function signIn(page, token) {
  await page.goto('/');
  await useTokenForm(page);
  await page.getByTestId('signin-token').fill(token);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/v1/session') && r.request().method() === 'POST'),
    page.getByTestId('signin-submit').click(),
  ]);
  if (answer.status() !== 201) throw new Error(`POST /api/v1/session answered ${answer.status()}`);
  await page.getByTestId('session-role').waitFor();
}

// The stream's status indicator's state: live, reconnecting or polling.
export function streamState(page) {
  return page.getByTestId('stream-status').getAttribute('data-state');
}

// One scenario file's fixture: before its tests, an instance and a browser; after them, both gone.
// Its `test` takes a screenshot of every open page when a test fails, and its last test checks
// that the service stopped cleanly (exit status 0, no sanitizer report).
// `extraArgs`: the demo's extra arguments, or an async function of the scenario that returns
// them (to start what they name first, such as a directory).
export function scenario(name, { extraArgs = [] } = {}) {
  const s = { name, pages: new Map() };
  before(async () => {
    s.artifacts = new Artifacts(name);
    const args = typeof extraArgs === 'function' ? await extraArgs(s) : extraArgs;
    const [instance, ms] = await timed(() => Instance.start(s.artifacts, { extraArgs: args }));
    s.instance = instance;
    s.artifacts.time('ironhold demo: start until its fleet was inspected', ms);
    s.browser = await launchBrowser();
  });
  after(async () => {
    await s.browser?.close().catch(() => {});
    if (s.instance) await s.instance.stop();
    if (s.directory) await s.directory.stop();
    if (s.issuer) await s.issuer.stop();
  });
  // A signed-out browser user (own cookies) named `who`: {context, page}.
  s.user = async (who, options) => {
    const user = await newUser(s.browser, s.instance, s.artifacts, who, options);
    s.pages.set(who, user.page);
    return user;
  };
  s.test = (title, fn) => test(title, async (t) => {
    try {
      await fn(t);
    } catch (e) {
      for (const [who, page] of s.pages) {
        if (page.isClosed()) continue;
        const slug = title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
        await s.artifacts.screenshot(page, `FAILED-${slug}-${who}`).catch(() => {});
      }
      throw e;
    }
  });
  s.testStopsCleanly = () => test('the service stops cleanly (SIGTERM: exit status 0, no sanitizer report)', async () => {
    assert.ok(s.instance, 'the service was started');
    await s.browser?.close();
    s.browser = null;
    const began = Date.now();
    const stopped = await s.instance.stop();
    s.artifacts.time('stopping: SIGTERM until the service exited and its files were removed',
      Date.now() - began);
    s.instance = null;
    assert.equal(stopped.sanitizerReport, '', 'a sanitizer reported an error: see ironhold.log');
    assert.deepEqual([stopped.code, stopped.signal], [0, null], 'exit status after SIGTERM');
  });
  return s;
}
