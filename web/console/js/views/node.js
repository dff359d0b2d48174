// One node: its open alerts, identity and hardware, actions, sensor charts, components, firmware
// with its history, hardware events, its tasks and (for auditors and admins) its audit entries.
// Health, power, alerts and task progress follow the stream in place.

import { api, query } from '../api.js';
import { on } from '../bus.js';
import { h, add, fill, setText, throttle, toast } from '../dom.js';
import { ago, bytes, dateTime, label, num, place, sourceName } from '../format.js';
import { healthBadge, powerBadge, lifecycleBadge, updateBadge, severityBadge } from '../badges.js';
import { canAct, canReadAudit } from '../session.js';
import { taskTable } from '../tasktable.js';
import { alertTable } from '../alerttable.js';
import { actionsPanel } from './node_actions.js';
import { sensorCharts } from './node_sensors.js';

const KIND_TITLES = { cpu: 'CPUs', gpu: 'GPUs', memory: 'Memory', drive: 'Drives', nic: 'Network interfaces', psu: 'Power supplies', fan: 'Fans', other: 'Other' };
const KIND_ORDER = ['cpu', 'gpu', 'memory', 'drive', 'nic', 'psu', 'fan', 'other'];

function kv(pairs) {
  return h('dl', { class: 'kv' }, pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === '' ? '—' : v)]));
}

function section(id, title, ...content) {
  return h('section', { class: 'panel section', id, 'aria-labelledby': `${id}-title` },
    h('div', { class: 'section-head' }, h('h2', { id: `${id}-title` }, title)), ...content);
}

function dataTable(columns, rows, { testid, empty = 'Nothing recorded.' } = {}) {
  const colgroup = h('colgroup', {}, columns.map(([, , w]) => {
    const col = h('col');
    if (w) col.style.width = w;
    return col;
  }));
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': testid || null },
    colgroup,
    h('thead', {}, h('tr', {}, columns.map(([title]) => h('th', { scope: 'col' }, title)))),
    h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: columns.length, class: 'muted' }, empty)))));
}

function componentFacts(c) {
  const d = c.details || {};
  const facts = [];
  if (d.cores) facts.push(`${d.cores} cores`);
  if (d.threads) facts.push(`${d.threads} threads`);
  if (d.memory_gib) facts.push(`${Math.round(d.memory_gib * 10) / 10} GiB`);
  if (d.capacity_mib) facts.push(bytes(d.capacity_mib * 1024 * 1024));
  if (d.capacity_bytes) facts.push(`${(d.capacity_bytes / 1e12).toFixed(2)} TB`);
  if (d.media) facts.push(d.media);
  if (d.type) facts.push(d.type);
  if (d.speed_mbps) facts.push(`${num(d.speed_mbps / 1000)} Gb/s`);
  if (d.link_status) facts.push(d.link_status);
  if (d.macs && d.macs.length) facts.push(d.macs.join(', '));
  if (d.capacity_watts) facts.push(`${num(d.capacity_watts)} W`);
  return facts.join(' · ');
}

export function mount(container, route) {
  const key = route.args[0];
  let node = null;
  let destroyed = false;
  const offs = [];
  const parts = {};  // the pieces that refresh

  const header = h('div', {});
  container.appendChild(header);
  header.appendChild(h('p', { class: 'muted' }, 'Loading the node…'));

  async function loadNode() {
    node = await api(`/api/v1/nodes/${encodeURIComponent(key)}`);
    return node;
  }

  function buildHeader() {
    parts.health = healthBadge(node.health);
    parts.health.dataset.testid = 'node-health';
    parts.power = powerBadge(node.power_state);
    parts.power.dataset.testid = 'node-power';
    parts.lifecycle = lifecycleBadge(node.lifecycle, node.maintenance);
    parts.lifecycle.dataset.testid = 'node-lifecycle';
    parts.reach = h('span', { class: 'badge plain', 'data-testid': 'node-reachable' });
    parts.sub = h('p', { class: 'node-sub' });
    parts.project = h('p', { class: 'node-sub', 'data-testid': 'node-project' });
    parts.error = h('p', { class: 'node-error', role: 'status', 'data-testid': 'node-error' });
    parts.gone = h('p', { class: 'node-error', hidden: true }, 'This node has been removed.');
    // The serial console opens in a page of its own (serial.html explains why), in a new tab so
    // that the node's page stays at hand.
    const serial = node.source !== 'cloud' && canAct(node.project)
      ? h('a', { class: 'button subtle small', href: `/serial-console#${encodeURIComponent(node.id)}`, target: '_blank', rel: 'noopener', 'data-testid': 'open-serial-console' }, 'Serial console')
      : null;
    fill(header,
      h('nav', { class: 'muted', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/' }, 'Fleet'), ' / ', node.name),
      h('div', { class: 'node-head' },
        h('div', { class: 'title-row' }, h('h1', { 'data-testid': 'node-name' }, node.name),
          h('div', { class: 'badges' }, parts.health, parts.power, parts.lifecycle, parts.reach), serial),
        parts.sub, parts.project),
      parts.error, parts.gone);
    paintHeader();
  }

  function paintHeader() {
    updateBadge(parts.health, 'health', node.health);
    updateBadge(parts.power, 'power', node.power_state);
    updateBadge(parts.lifecycle, 'lifecycle', node.lifecycle, node.maintenance);
    const reach = node.reachable === null || node.reachable === undefined ? 'not contacted yet' : node.reachable ? 'reachable' : 'unreachable';
    setText(parts.reach, reach);
    parts.reach.classList.toggle('health-critical', node.reachable === false);
    parts.reach.dataset.state = String(node.reachable);
    // No project from a server that predates projects.
    setText(parts.project, node.project ? `Project: ${node.project}` : '');
    parts.project.hidden = !node.project;
    setText(parts.sub, [
      node.source === 'cloud' ? `${sourceName(node.driver)} instance` : `Owned · ${sourceName(node.driver)}`,
      place(node),
      `last seen ${ago(node.last_seen)}`,
      node.maintenance ? `in maintenance${node.maintenance_reason ? `: ${node.maintenance_reason}` : ''}` : null,
      node.retired_at ? `retired ${dateTime(node.retired_at)}` : null,
    ].filter(Boolean).join(' · '));
    const error = node.last_error ? `${node.last_error}${node.last_error_message ? `: ${node.last_error_message}` : ''}` : '';
    setText(parts.error, error);
    parts.error.hidden = !error;
    document.title = `${node.name} · Ironhold`;
  }

  function facts() {
    const hw = node.hardware || {};
    const id = node.identity || {};
    const identity = kv([
      ['Manufacturer', node.manufacturer], ['Model', node.model], ['Serial', node.serial],
      ['Asset tag', node.asset_tag], ['UUID', id.uuid], ['SKU', id.sku], ['BIOS', id.bios_version],
      ['BMC firmware', id.bmc_firmware], ['Node id', h('code', {}, node.id)],
      node.source === 'cloud' ? ['Instance', node.provider_id] : undefined,
      node.source === 'cloud' ? ['Instance type', id.instance_type] : undefined,
      node.source === 'cloud' ? ['Image', id.image_id] : undefined,
    ].filter(Boolean));
    const hardware = kv([
      ['CPUs', hw.cpu_count ? `${hw.cpu_count} × ${hw.cpu_model || 'CPU'}` : null],
      ['GPUs', hw.gpu_count ? `${hw.gpu_count} × ${hw.gpu_model || 'GPU'}` : 'none'],
      ['Memory', hw.memory_gib ? `${num(hw.memory_gib)} GiB` : null],
      ['Drives', hw.drive_count ? `${hw.drive_count} (${num(Math.round(hw.drive_capacity_gb || 0))} GB)` : null],
      ['Last inspected', node.last_inspected ? `${dateTime(node.last_inspected)} (${ago(node.last_inspected)})` : 'never'],
    ]);
    const tags = Object.entries(node.tags || {});
    const connection = kv([
      ['Driver', node.driver], ['Endpoint', node.endpoint ? h('code', {}, node.endpoint) : null],
      ['Location', place(node)],
      ['Credentials', node.source === 'cloud' ? 'from the cloud account' : node.credentials_set ? 'set (write-only)' : 'not set'],
      node.tls_fingerprint ? ['TLS pin', h('code', { title: node.tls_fingerprint }, `${node.tls_fingerprint.slice(0, 16)}…`)] : undefined,
      node.driver === 'redfish' ? ['Pushed events', pushed] : undefined,
      ['Tags', tags.length ? tags.map(([k, v]) => `${k}=${v}`).join(', ') : null],
      ['Enrolled', dateTime(node.created_at)],
    ].filter(Boolean));
    return h('section', { class: 'facts section', 'aria-label': 'Identity and hardware' },
      h('div', { class: 'panel' }, h('h2', {}, 'Identity'), identity),
      h('div', { class: 'panel' }, h('h2', {}, 'Hardware'), hardware),
      h('div', { class: 'panel' }, h('h2', {}, 'Connection'), connection));
  }

  // How the BMC's event subscription stands (docs/events.md): Redfish BMCs only.
  const pushed = h('span', { 'data-testid': 'event-subscription', 'data-state': '' }, 'Loading…');
  async function loadSubscription() {
    if (node.driver !== 'redfish') return;
    let text;
    let state;
    try {
      const sub = await api(`/api/v1/nodes/${encodeURIComponent(node.id)}/event-subscription`);
      state = sub.state;
      text = {
        active: `subscribed${sub.subscribed_at ? ` since ${dateTime(sub.subscribed_at)}` : ''} · ${num(sub.events_received)} received${sub.last_event_at ? `, last ${ago(sub.last_event_at)}` : ''}`,
        pending: 'subscribing…',
        unsupported: `not offered by the BMC${sub.last_error ? ` (${sub.last_error})` : ''}; polled only`,
        failing: `failing (${sub.failures}×): ${sub.last_error || 'unknown error'}; polled meanwhile`,
        removing: 'being removed from the BMC',
      }[sub.state] || sub.state;
    } catch (e) {
      if (e.status !== 404) throw e;
      state = 'none';
      text = 'none (polled only)';
    }
    pushed.dataset.state = state;
    setText(pushed, text);
  }

  // Components, grouped by kind.
  const components = section('components', 'Components', h('p', { class: 'muted' }, 'Loading…'));
  async function loadComponents() {
    const { items } = await api(`/api/v1/nodes/${encodeURIComponent(node.id)}/components`);
    const byKind = new Map();
    for (const c of items) {
      if (!byKind.has(c.kind)) byKind.set(c.kind, []);
      byKind.get(c.kind).push(c);
    }
    const kinds = KIND_ORDER.filter((k) => byKind.has(k));
    const body = kinds.map((kind) => {
      const list = byKind.get(kind);
      const bad = list.filter((c) => c.status === 'warning' || c.status === 'critical').length;
      return h('div', { class: 'components', 'data-kind': kind },
        h('h3', {}, `${KIND_TITLES[kind]} (${list.length})`, bad ? h('span', { class: 'error-text' }, ` · ${bad} not ok`) : null),
        dataTable([['Slot', '9rem'], ['Name', '14%'], ['Model', '18%'], ['Status', '7.5rem'], ['Serial', '11rem'], ['Firmware', '7rem'], ['Details', null]],
          list.map((c) => h('tr', { 'data-slot': c.slot },
            h('td', { title: c.slot }, c.slot), h('td', { title: c.name }, c.name || '—'),
            h('td', { title: [c.manufacturer, c.model].filter(Boolean).join(' ') }, c.model || c.manufacturer || '—'),
            h('td', {}, healthBadge(c.status)), h('td', { class: 'mono', title: c.serial || '' }, c.serial || '—'),
            h('td', {}, c.firmware_version || '—'), h('td', { title: componentFacts(c) }, componentFacts(c) || '—'))),
          { testid: `components-${kind}` }));
    });
    fill(components, components.firstChild, body.length ? body : h('p', { class: 'empty' }, 'No components recorded yet (the first inspection reads them).'));
  }

  // Firmware, with the versions before.
  const firmware = section('firmware', 'Firmware', h('p', { class: 'muted' }, 'Loading…'));
  async function loadFirmware() {
    const { items } = await api(`/api/v1/nodes/${encodeURIComponent(node.id)}/firmware?history=true`);
    const current = items.filter((f) => !f.until);
    const past = new Map();
    for (const f of items.filter((f) => f.until)) {
      if (!past.has(f.component)) past.set(f.component, []);
      past.get(f.component).push(f);
    }
    const rows = [];
    for (const f of current.sort((a, b) => a.component.localeCompare(b.component, undefined, { numeric: true }))) {
      const history = past.get(f.component) || [];
      rows.push(h('tr', { 'data-component': f.component },
        h('td', { title: f.component }, f.component), h('td', { title: f.name }, f.name), h('td', { class: 'mono' }, f.version),
        h('td', {}, f.updateable ? 'yes' : 'no'), h('td', { title: dateTime(f.since) }, dateTime(f.since)),
        h('td', { class: 'wrap muted' }, history.length ? history.map((p) => `${p.version} (${dateTime(p.since)} – ${dateTime(p.until)})`).join('; ') : '—')));
    }
    fill(firmware, firmware.firstChild, dataTable([['Component', '10rem'], ['Name', '18%'], ['Version', '9rem'], ['Updateable', '6.5rem'], ['Since', '11rem'], ['Before', null]],
      rows, { testid: 'firmware-table', empty: 'No firmware recorded yet.' }));
  }

  // Hardware events, newest first, older ones on demand.
  const eventsBody = h('tbody');
  const eventsMore = h('button', { type: 'button', class: 'button small', hidden: true }, 'Load older events');
  let eventsNext = null;
  const events = section('events', 'Hardware events',
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': 'events-table' },
      h('colgroup', {}, [['11rem'], ['6rem'], ['9rem'], [null]].map(([w]) => { const c = h('col'); if (w) c.style.width = w; return c; })),
      h('thead', {}, h('tr', {}, ['Time', 'Severity', 'Kind', 'Message'].map((t) => h('th', { scope: 'col' }, t)))), eventsBody)),
    h('div', { class: 'pager' }, eventsMore));
  function eventRow(e) {
    return h('tr', { 'data-event-id': e.id }, h('td', { title: e.time }, dateTime(e.time)), h('td', {}, severityBadge(e.severity)),
      h('td', {}, label(e.kind)), h('td', { class: 'wrap' }, e.message));
  }
  async function loadEvents() {
    const page = await api(`/api/v1/nodes/${encodeURIComponent(node.id)}/events${query({ limit: 50 })}`);
    fill(eventsBody, page.items.length ? page.items.map(eventRow) : h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No events.')));
    eventsNext = page.next;
    eventsMore.hidden = !eventsNext;
  }
  eventsMore.addEventListener('click', async () => {
    const page = await api(`/api/v1/nodes/${encodeURIComponent(node.id)}/events?cursor=${encodeURIComponent(eventsNext)}`);
    eventsBody.append(...page.items.map(eventRow));
    eventsNext = page.next;
    eventsMore.hidden = !eventsNext;
  });

  // Tasks of this node, live.
  const tasks = taskTable({ showNode: false, testid: 'node-tasks', emptyText: 'No tasks for this node yet.' });
  const tasksSection = section('tasks', 'Tasks', tasks.element);
  async function loadTasks() {
    const page = await api(`/api/v1/tasks${query({ node: node.id, limit: 20 })}`);
    tasks.setTasks(page.items);
  }

  // Open alerts of this node, live; the Alerts page has the resolved ones too.
  const alerts = alertTable({ showNode: false, testid: 'node-alerts', emptyText: 'No open alerts.' });
  const allAlerts = h('a', { class: 'muted' }, 'All of its alerts →');
  const alertsSection = section('alerts', 'Open alerts', alerts.element);
  alertsSection.firstChild.append(h('span', { class: 'spacer' }), allAlerts);
  async function loadAlerts() {
    allAlerts.href = `#/alerts${query({ node: node.id, state: 'firing,acknowledged,resolved' })}`;
    const page = await api(`/api/v1/alerts${query({ node: node.id, state: 'firing,acknowledged', limit: 100 })}`);
    alerts.setAlerts(page.items);
  }

  // Audit entries about this node.
  const audit = section('audit', 'Audit trail', h('p', { class: 'muted' }, 'Loading…'));
  async function loadAudit() {
    const { items } = await api(`/api/v1/audit${query({ target: node.id, limit: 50 })}`);
    fill(audit, audit.firstChild, dataTable([['Time', '11rem'], ['Actor', '12rem'], ['Action', '18rem'], ['Outcome', '6rem'], ['Details', null]],
      items.map((a) => h('tr', {}, h('td', {}, dateTime(a.at || a.time)), h('td', { title: a.actor }, a.actor),
        h('td', { title: a.action }, a.action), h('td', { class: Number(a.outcome) >= 400 ? 'err' : null }, a.outcome),
        h('td', { class: 'wrap mono' }, a.details && Object.keys(a.details).length ? JSON.stringify(a.details) : '—'))),
      { testid: 'audit-table', empty: 'No audit entries name this node.' }));
  }

  let actions = null;
  let charts = null;

  function settle(promise, where) {
    return promise.catch((e) => {
      if (!destroyed && e.status !== 401) fill(where, where.firstChild, h('p', { class: 'error-text' }, `Could not load: ${e.message}`));
    });
  }

  async function start() {
    try {
      await loadNode();
    } catch (e) {
      if (destroyed) return;
      fill(header, h('nav', { class: 'muted' }, h('a', { href: '#/' }, 'Fleet')),
        h('h1', {}, e.status === 404 ? 'No such node' : 'The node cannot be shown'), h('p', { class: 'error-text' }, e.message));
      return;
    }
    if (destroyed) return;
    buildHeader();
    actions = actionsPanel(node, {
      onTask: (task) => tasks.upsert(task),
      onNode: (changed) => applyNode(changed),
    });
    charts = sensorCharts(node.id);
    const jump = h('ul', { class: 'local-nav', 'aria-label': 'On this page' },
      [['alerts', 'Alerts'], ['sensors', 'Sensors'], ['components', 'Components'], ['firmware', 'Firmware'], ['events', 'Events'], ['tasks', 'Tasks'],
        canReadAudit(node.project) ? ['audit', 'Audit'] : null].filter(Boolean).map(([id, text]) => h('li', {},
        h('button', { type: 'button', class: 'button subtle small', onclick: () => document.getElementById(id)?.scrollIntoView({ block: 'start' }) }, text))));
    add(container, jump, alertsSection, actions.element, facts(), charts.element, tasksSection, components, firmware, events, canReadAudit(node.project) ? audit : null);
    loadRest();
  }

  function loadRest() {
    settle(loadAlerts(), alertsSection);
    settle(loadComponents(), components);
    settle(loadFirmware(), firmware);
    loadSubscription().catch((e) => { if (!destroyed) setText(pushed, `could not load: ${e.message}`); });
    settle(loadEvents(), events);
    settle(loadTasks(), tasksSection);
    if (canReadAudit(node.project)) settle(loadAudit(), audit);
  }

  function applyNode(changed) {
    if (!node || changed.id !== node.id) return;
    const inspected = changed.last_inspected !== node.last_inspected;
    node = changed;
    paintHeader();
    actions.update(node);
    if (inspected) {
      settle(loadComponents(), components);
      settle(loadFirmware(), firmware);
    }
  }

  // A change of health or power leaves an event: the log follows, at most every 5 s.
  const refreshEvents = throttle(() => settle(loadEvents(), events), 5000);
  offs.push(
    on('node.updated', (changed) => {
      const before = node;
      applyNode(changed);
      if (before && changed.id === before.id && (changed.health !== before.health || changed.power_state !== before.power_state)) refreshEvents();
    }),
    on('node.deleted', ({ id }) => {
      if (node && id === node.id && parts.gone) parts.gone.hidden = false;
    }),
    on('alert.updated', (alert) => {
      if (!node || !alert || alert.node_id !== node.id || alert.summary === undefined) return;
      // A new open alert is added; one shown that resolves says so in place.
      if (!alerts.update(alert) && alert.state !== 'resolved') alerts.upsert(alert);
    }),
    on('task.updated', (task) => {
      if (!node || task.node_id !== node.id) return;
      tasks.upsert(task);
      // A task that ends may have changed what the node reports (events, lifecycle).
      if (['succeeded', 'failed', 'cancelled'].includes(task.state)) settle(loadEvents(), events);
    }),
  );
  const ticker = setInterval(() => { if (node) { paintHeader(); tasks.tick(); alerts.tick(); } }, 15000);

  start();
  return {
    async refresh() {
      if (!node) return;
      try {
        applyNode(await api(`/api/v1/nodes/${encodeURIComponent(node.id)}`));
      } catch (e) {
        if (e.status === 404) toast('This node no longer exists.', { kind: 'error' });
        return;
      }
      settle(loadAlerts(), alertsSection);
      settle(loadEvents(), events);
      settle(loadTasks(), tasksSection);
      if (canReadAudit(node.project)) settle(loadAudit(), audit);
    },
    destroy() {
      destroyed = true;
      refreshEvents.cancel();
      offs.forEach((off) => off());
      clearInterval(ticker);
      if (charts) charts.destroy();
    },
  };
}
