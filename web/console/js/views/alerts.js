// Alerts: what is wrong now, newest first (GET /api/v1/alerts), filtered by state (firing and
// acknowledged unless asked otherwise), severity and node; Acknowledge and Silence… for
// operators; the silences in force below, with End. Live: alert.updated rewrites its row in place
// or inserts a new one where it belongs.

import { api, query } from '../api.js';
import { on } from '../bus.js';
import { h, fill, setText } from '../dom.js';
import { label } from '../format.js';
import { replaceParams } from '../router.js';
import { alertTable } from '../alerttable.js';
import { silenceList } from '../silences.js';

const STATES = ['firing', 'acknowledged', 'resolved'];
const DEFAULT_STATES = ['firing', 'acknowledged'];
const SEVERITIES = ['critical', 'warning'];
const PAGE = 100;

function list(params, key, fallback) {
  const value = params.get(key);
  if (value === null) return fallback;
  return value.split(',').filter(Boolean);
}

function readFilters(params) {
  return {
    state: list(params, 'state', DEFAULT_STATES).filter((v) => STATES.includes(v)),
    severity: list(params, 'severity', []).filter((v) => SEVERITIES.includes(v)),
    node: params.get('node') || '',
  };
}

// The address keeps what differs from the defaults ("state=" when every state box is cleared).
function filterParams(filters) {
  const out = {};
  if (filters.state.join(',') !== DEFAULT_STATES.join(',')) out.state = filters.state.join(',');
  if (filters.severity.length) out.severity = filters.severity.join(',');
  if (filters.node) out.node = filters.node;
  return out;
}

export function mount(container, route) {
  let filters = readFilters(route.params);
  let nextBefore = null;
  let loadSeq = 0;
  let nodeName = '';

  const silences = silenceList();
  const table = alertTable({
    showNode: true,
    testid: 'alerts-table',
    emptyText: 'No alert matches these filters.',
    onSilenced: () => silences.load(),
  });
  const status = h('span', { class: 'muted', role: 'status', 'data-testid': 'alerts-status' });
  const more = h('button', { type: 'button', class: 'button', 'data-testid': 'alerts-more', hidden: true }, 'Load older alerts');

  function checkbox(group, value) {
    const input = h('input', { type: 'checkbox', value, 'data-testid': `alert-filter-${group}` });
    input.addEventListener('change', () => {
      filters[group] = [...container.querySelectorAll(`input[data-testid="alert-filter-${group}"]:checked`)].map((i) => i.value);
      applyFilters();
    });
    return h('label', { class: 'check' }, input, label(value));
  }
  const stateBoxes = h('fieldset', { class: 'filter-group' }, h('legend', {}, 'State'), STATES.map((v) => checkbox('state', v)));
  const severityBoxes = h('fieldset', { class: 'filter-group' }, h('legend', {}, 'Severity'), SEVERITIES.map((v) => checkbox('severity', v)));
  const nodeChip = h('button', { type: 'button', class: 'chip', 'data-testid': 'filter-chip', 'data-filter': 'node', hidden: true });
  nodeChip.addEventListener('click', () => {
    filters.node = '';
    applyFilters();
  });

  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Alerts'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'toolbar' }, stateBoxes, severityBoxes, nodeChip),
    table.element,
    h('div', { class: 'pager' }, more),
    silences.element);

  function syncControls() {
    for (const input of container.querySelectorAll('input[data-testid^="alert-filter-"]')) {
      const group = input.dataset.testid.replace('alert-filter-', '');
      input.checked = filters[group].includes(input.value);
    }
    nodeChip.hidden = !filters.node;
    nodeChip.dataset.value = filters.node;
    const name = nodeName || filters.node;
    fill(nodeChip, `node: ${name}`, h('span', { class: 'x', 'aria-hidden': 'true' }, '×'));
    nodeChip.setAttribute('aria-label', `Remove filter node ${name}`);
  }

  // The API's filters; no state box ticked means every state, as no severity box means both.
  function params(before = null) {
    return { state: filters.state, severity: filters.severity, node: filters.node, limit: PAGE, before };
  }

  function matches(alert) {
    return (!filters.state.length || filters.state.includes(alert.state)) &&
      (!filters.severity.length || filters.severity.includes(alert.severity)) &&
      (!filters.node || alert.node_id === filters.node || alert.node_name === filters.node);
  }

  async function load() {
    const seq = ++loadSeq;
    setText(status, 'Loading…');
    try {
      const page = await api(`/api/v1/alerts${query(params())}`);
      if (seq !== loadSeq) return;
      table.setAlerts(page.items);
      nextBefore = page.next_before;
      more.hidden = !nextBefore;
      const named = page.items.find((a) => a.node_id === filters.node || a.node_name === filters.node);
      nodeName = named ? named.node_name : '';
      syncControls();
      setText(status, '');
    } catch (e) {
      if (seq === loadSeq) setText(status, `Could not load the alerts: ${e.message}`);
    }
  }

  function applyFilters() {
    replaceParams('/alerts', filterParams(filters));
    nodeName = '';
    syncControls();
    load();
  }

  more.addEventListener('click', async () => {
    if (!nextBefore) return;
    more.disabled = true;
    try {
      const page = await api(`/api/v1/alerts${query(params(nextBefore))}`);
      table.append(page.items);
      nextBefore = page.next_before;
      more.hidden = !nextBefore;
    } catch (e) {
      setText(status, `Could not load older alerts: ${e.message}`);
    } finally {
      more.disabled = false;
    }
  });

  const offs = [
    on('alert.updated', (alert) => {
      if (!alert || alert.id === undefined || alert.summary === undefined) return;
      // A row shown is updated even when it no longer matches (a resolved alert says so in place).
      if (table.update(alert) || !matches(alert)) return;
      // Older than the last row while older pages remain: it turns up on those pages.
      const oldest = table.oldest();
      if (nextBefore && oldest !== null && alert.id < oldest) return;
      table.upsert(alert);
    }),
  ];
  const ticker = setInterval(() => {
    table.tick();
    silences.tick();
  }, 15000);

  syncControls();
  load();
  silences.load();
  return {
    refresh() {
      load();
      silences.load();
    },
    update(nextRoute) {
      const next = readFilters(nextRoute.params);
      if (JSON.stringify(filterParams(next)) === JSON.stringify(filterParams(filters))) return;
      filters = next;
      nodeName = '';
      syncControls();
      load();
    },
    destroy() {
      offs.forEach((off) => off());
      clearInterval(ticker);
    },
  };
}
