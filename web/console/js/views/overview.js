// Fleet overview: counts by health, power state, source, lifecycle and GPU model (GET
// /api/v1/nodes/summary), each a filter; and every node in a table with search, filter chips,
// server-side sort and keyset pages (GET /api/v1/nodes). Only one page is in the DOM, so 10,000
// nodes read as smoothly as 10. Live: node.updated rewrites its row in place; counts follow
// within a couple of seconds. A Project column appears when the caller sees more than one project.
// Each node with open alerts has a badge with their count, coloured by the worst severity (GET
// /api/v1/alerts?state=firing,acknowledged, then alert.updated).

import { api, query } from '../api.js';
import { on } from '../bus.js';
import { h, fill, setText, setTone, throttle, debounce } from '../dom.js';
import { num, ago, dateTime, gpus, place, label, sourceName, plural } from '../format.js';
import { nodeHref, replaceParams, go } from '../router.js';
import { healthBadge, powerBadge, lifecycleBadge, updateBadge, alertCountBadge, updateAlertCountBadge } from '../badges.js';
import { openAlerts } from '../openalerts.js';

const FILTER_KEYS = ['project', 'health', 'power_state', 'source', 'driver', 'lifecycle', 'gpu_model', 'site', 'rack', 'maintenance', 'tag', 'q'];
const MULTI = new Set(['project', 'health', 'power_state', 'source', 'driver', 'lifecycle']);
const SORTS = ['name', 'health', 'power_state', 'last_seen'];
const PAGE_SIZES = [50, 100, 250, 500];
const HEALTH = ['critical', 'warning', 'unknown', 'ok'];
const POWER = ['on', 'off', 'transitioning', 'unknown'];
const LIFECYCLE = ['enrolled', 'inspecting', 'inspect_failed', 'available', 'provisioning', 'provision_failed', 'deployed', 'cleaning', 'clean_failed'];
const CLOUD_DRIVERS = ['ec2', 'openstack', 'bcc'];

const FILTER_NAMES = {
  project: 'project', health: 'health', power_state: 'power', source: 'source', driver: 'driver', lifecycle: 'lifecycle',
  gpu_model: 'GPU', site: 'site', rack: 'rack', maintenance: 'maintenance', tag: 'tag', q: 'name contains',
};

// The table's columns: key, header, width, sort field (if sortable). Project only when the caller
// sees several projects (see projectColumn()).
const COLUMNS = [
  ['name', 'Name', '11rem', 'name'],
  ['project', 'Project', '7rem', null],
  ['health', 'Health', '7.4rem', 'health'],
  ['alerts', 'Alerts', '4.4rem', null],
  ['power', 'Power', '8.8rem', 'power_state'],
  ['source', 'Source', '6.6rem', null],
  ['gpus', 'GPUs', '10.5rem', null],
  ['location', 'Location', '8rem', null],
  ['lifecycle', 'Lifecycle', '9.5rem', null],
  ['seen', 'Last seen', '6rem', 'last_seen'],
  ['reach', 'Reachable', '5.5rem', null],
  ['error', 'Last error', null, null],
];

function readState(params) {
  const filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value === null || value === '') continue;
    filters[key] = MULTI.has(key) ? value.split(',').filter(Boolean) : value;
  }
  let sort = params.get('sort') || 'name';
  if (!SORTS.includes(sort.replace(/^-/, ''))) sort = 'name';
  let limit = Number(params.get('limit')) || 100;
  if (!PAGE_SIZES.includes(limit)) limit = 100;
  return { filters, sort, limit };
}

function stateParams(state) {
  const out = {};
  for (const [key, value] of Object.entries(state.filters)) out[key] = Array.isArray(value) ? value.join(',') : value;
  if (state.sort !== 'name') out.sort = state.sort;
  if (state.limit !== 100) out.limit = String(state.limit);
  return out;
}

export function mount(container, route) {
  let state = readState(route.params);
  let pages = [null];  // the cursor of each page visited; null: the first
  let pageIndex = 0;
  let nextCursor = null;
  let filteredTotal = null;
  let loadSeq = 0;
  const rows = new Map();  // node id → {tr, cells, node}
  let withProject = null;  // a Project column? null until GET /api/v1/projects has answered
  const columns = () => COLUMNS.filter(([key]) => key !== 'project' || withProject);
  const counters = new Map();  // "health:critical" → button
  const alerts = openAlerts();

  // Counts
  const totalN = h('span', { class: 'n', 'data-testid': 'count-total', 'data-count': '0' }, '—');
  const countGroups = h('div', { class: 'count-groups' });
  const groups = {
    health: countGroup('Health'),
    power: countGroup('Power'),
    source: countGroup('Source'),
    lifecycle: countGroup('Lifecycle', 'cols-3'),
    gpu: countGroup('GPU model', 'rows', 'grow'),
  };
  countGroups.append(...Object.values(groups).map((g) => g.section));

  // Toolbar
  const search = h('input', {
    type: 'search', id: 'node-search', placeholder: 'Search names…', 'data-testid': 'node-search',
    value: state.filters.q || '', 'aria-label': 'Search node names',
  });
  const chips = h('ul', { class: 'chips', 'aria-label': 'Active filters', 'data-testid': 'filter-chips' });
  const clearAll = h('button', { type: 'button', class: 'button subtle small', 'data-testid': 'clear-filters' }, 'Clear filters');
  const matching = h('span', { class: 'muted', 'data-testid': 'matching', role: 'status' });

  // Table
  const colgroup = h('colgroup');
  const headRow = h('tr');
  const sortButtons = new Map();
  const tbody = h('tbody');
  const table = h('table', { class: 'data nodes', 'data-testid': 'node-table', 'aria-busy': 'true' },
    h('caption', { class: 'visually-hidden' }, 'Nodes; select a row to open the node'), colgroup, h('thead', {}, headRow), tbody);
  buildHead();

  const prev = h('button', { type: 'button', class: 'button small', 'data-testid': 'page-prev' }, '← Previous');
  const next = h('button', { type: 'button', class: 'button small', 'data-testid': 'page-next' }, 'Next →');
  const range = h('span', { class: 'range', 'data-testid': 'page-range' });
  const sizeSelect = h('select', { id: 'page-size', 'aria-label': 'Rows per page' },
    PAGE_SIZES.map((n) => h('option', { value: n, selected: n === state.limit }, String(n))));
  const pager = h('div', { class: 'pager' },
    h('label', { for: 'page-size', class: 'muted' }, 'Rows per page'), sizeSelect,
    h('span', { class: 'spacer' }), range, prev, next);

  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Fleet'), h('div', { class: 'total-line' }, totalN, h('span', { class: 'muted' }, 'nodes in service'))),
    countGroups,
    h('div', { class: 'toolbar' }, search, chips, clearAll, h('span', { class: 'spacer' }), matching),
    h('div', { class: 'table-wrap' }, table),
    pager);

  function buildHead() {
    // Column widths through the CSSOM (no inline style attributes: the policy allows none).
    fill(colgroup, columns().map(([, , width]) => {
      const col = h('col');
      if (width) col.style.width = width;
      return col;
    }));
    sortButtons.clear();
    fill(headRow, columns().map(([key, title, , sortField]) => {
      const th = h('th', { scope: 'col', class: key === 'reach' || key === 'alerts' ? 'center' : null });
      if (sortField) {
        const arrow = h('span', { class: 'arrow', 'aria-hidden': 'true' });
        const button = h('button', { type: 'button', class: 'sort', 'data-sort': sortField }, title, arrow);
        button.addEventListener('click', () => toggleSort(sortField));
        sortButtons.set(sortField, { th, arrow });
        th.appendChild(button);
      } else {
        th.textContent = title;
      }
      return th;
    }));
  }

  // Shows or hides the Project column (before the first rows, or rebuilding them).
  function projectColumn(show) {
    if (withProject === show) return;
    withProject = show;
    buildHead();
    renderSort();
    for (const entry of rows.values()) entry.tr.remove();
    rows.clear();
  }

  function countGroup(title, layout = null, size = null) {
    const list = h('ul', { class: ['count-list', layout] });
    const section = h('section', { class: ['panel', 'count-group', size], 'aria-label': `${title} counts` }, h('h2', {}, title), list);
    return { section, list };
  }

  // One count button; reused (updated in place) on every summary.
  function counter(group, id, text, filterKey, filterValue, row = false) {
    const key = `${filterKey}:${filterValue}`;
    let button = counters.get(key);
    if (!button) {
      button = h('button', {
        type: 'button', class: ['count', row ? 'row' : null], 'data-testid': `count-${id}`,
        'data-filter': filterKey, 'data-value': filterValue, 'aria-pressed': 'false',
      }, h('span', { class: 'n' }, '—'), h('span', { class: 'k' }, text), row ? h('span', { class: 'g' }) : null);
      button.title = `Show only nodes with ${FILTER_NAMES[filterKey]} ${text}`;
      button.addEventListener('click', () => toggleFilter(filterKey, filterValue));
      counters.set(key, button);
      group.list.appendChild(h('li', {}, button));
    }
    return button;
  }

  function setCount(button, n, tone) {
    setText(button.querySelector('.n'), num(n ?? 0));
    button.dataset.count = String(n ?? 0);
    button.classList.toggle('zero', !n);
    setTone(button, 'tone-', tone);
  }

  function renderSummary(summary) {
    setText(totalN, num(summary.total));
    totalN.dataset.count = String(summary.total);
    for (const k of HEALTH) setCount(counter(groups.health, `health-${k}`, label(k), 'health', k), summary.health?.[k], k === 'ok' ? 'ok' : k === 'unknown' ? null : k);
    for (const k of POWER) setCount(counter(groups.power, `power-${k}`, label(k), 'power_state', k), summary.power_state?.[k]);
    setCount(counter(groups.source, 'source-owned', 'Owned', 'source', 'bmc'), summary.source?.bmc);
    const drivers = summary.driver || {};
    const clouds = [...new Set([...CLOUD_DRIVERS.filter((d) => d in drivers), ...Object.keys(drivers).filter((d) => d !== 'redfish' && d !== 'ipmi')])];
    for (const d of clouds) setCount(counter(groups.source, `source-${d}`, sourceName(d), 'driver', d), drivers[d]);
    for (const k of LIFECYCLE) setCount(counter(groups.lifecycle, `lifecycle-${k}`, label(k), 'lifecycle', k), summary.lifecycle?.[k], k.endsWith('_failed') ? 'critical' : null);
    const models = Object.entries(summary.gpu_model || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    for (const [model, n] of models) {
      const button = counter(groups.gpu, `gpu-${model}`, model, 'gpu_model', model, true);
      setCount(button, n);
      const total = summary.gpus?.[model];
      button.title = `${model}: ${plural(n, 'node')}${total ? `, ${plural(total, 'GPU')}` : ''}; show only these`;
      setText(button.querySelector('.g'), total ? plural(total, 'GPU') : '');
    }
    // A model no longer present keeps its place at zero (nothing jumps).
    for (const [key, button] of counters)
      if (key.startsWith('gpu_model:') && !(button.dataset.value in (summary.gpu_model || {}))) setCount(button, 0);
    if (!models.length && !groups.gpu.list.children.length)
      groups.gpu.list.appendChild(h('li', { class: 'muted' }, 'No GPUs inspected yet'));
    else for (const li of [...groups.gpu.list.children]) if (li.classList.contains('muted') && models.length) li.remove();
    syncPressed();
  }

  function syncPressed() {
    for (const [key, button] of counters) {
      const [filterKey, ...rest] = key.split(':');
      const value = rest.join(':');
      const current = state.filters[filterKey];
      const pressed = Array.isArray(current) ? current.includes(value) : current === value;
      button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
    }
  }

  function renderChips() {
    const items = [];
    for (const [key, value] of Object.entries(state.filters)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        const text = key === 'source' ? sourceName(v) : key === 'driver' ? sourceName(v) : label(v);
        const chip = h('button', {
          type: 'button', class: 'chip', 'data-testid': 'filter-chip', 'data-filter': key, 'data-value': v,
          'aria-label': `Remove filter ${FILTER_NAMES[key]} ${text}`,
        }, `${FILTER_NAMES[key]}: ${text}`, h('span', { class: 'x', 'aria-hidden': 'true' }, '×'));
        chip.addEventListener('click', () => removeFilter(key, v));
        items.push(h('li', {}, chip));
      }
    }
    fill(chips, items);
    clearAll.hidden = items.length === 0;
  }

  function renderSort() {
    const field = state.sort.replace(/^-/, '');
    const descending = state.sort.startsWith('-');
    for (const [f, { th, arrow }] of sortButtons) {
      if (f === field) {
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        arrow.textContent = descending ? '↓' : '↑';
      } else {
        th.removeAttribute('aria-sort');
        arrow.textContent = '';
      }
    }
  }

  // Row building and in-place updates.
  function makeRow(node) {
    const cells = {};
    const tr = h('tr', { class: 'clickable', 'data-node-id': node.id, tabindex: '0' });
    for (const [key] of columns()) {
      cells[key] = h('td', { class: key === 'name' ? 'name-cell' : key === 'reach' || key === 'alerts' ? 'center' : null });
      tr.appendChild(cells[key]);
    }
    cells.name.appendChild(h('a', { href: nodeHref(node.id), tabindex: '-1' }, node.name));
    cells.health.appendChild(healthBadge(node.health));
    cells.power.appendChild(powerBadge(node.power_state));
    cells.lifecycle.appendChild(lifecycleBadge(node.lifecycle, node.maintenance));
    cells.alerts.appendChild(alertCountBadge(node.id));
    const entry = { tr, cells, node };
    fillRow(entry, node);
    return entry;
  }

  function fillRow(entry, node) {
    const { cells } = entry;
    entry.node = node;
    const link = cells.name.firstChild;
    setText(link, node.name);
    link.title = node.name;
    updateBadge(cells.health.firstChild, 'health', node.health);
    updateBadge(cells.power.firstChild, 'power', node.power_state);
    updateBadge(cells.lifecycle.firstChild, 'lifecycle', node.lifecycle, node.maintenance);
    if (cells.project) setText(cells.project, node.project || '—');
    setText(cells.source, node.source === 'cloud' ? sourceName(node.driver) : 'Owned');
    cells.source.title = node.source === 'cloud' ? `${sourceName(node.driver)} instance` : `Owned server (${sourceName(node.driver)})`;
    setText(cells.gpus, gpus(node.hardware));
    cells.gpus.title = gpus(node.hardware);
    setText(cells.location, place(node));
    setText(cells.seen, ago(node.last_seen));
    cells.seen.title = node.last_seen ? dateTime(node.last_seen) : 'never seen';
    setText(cells.reach, node.reachable === null || node.reachable === undefined ? '—' : node.reachable ? 'yes' : 'no');
    setTone(cells.reach, 'reach-', node.reachable === false ? 'no' : node.reachable ? 'yes' : null);
    const error = node.last_error ? `${node.last_error}${node.last_error_message ? `: ${node.last_error_message}` : ''}` : '';
    setText(cells.error, error || '—');
    cells.error.title = error;
    cells.error.classList.toggle('err', Boolean(error));
    paintAlerts(entry);
  }

  function paintAlerts(entry) {
    updateAlertCountBadge(entry.cells.alerts.firstChild, alerts.of(entry.node.id));
  }

  // The open alerts again (at load, and when the stream was reset or reconnected).
  async function loadAlerts() {
    try {
      for (const id of await alerts.load()) {
        const entry = rows.get(id);
        if (entry) paintAlerts(entry);
      }
    } catch {
      // The badges stay as they are; the next refresh tries again.
    }
  }

  function renderRows(items) {
    const seen = new Set();
    const ordered = [];
    for (const node of items) {
      seen.add(node.id);
      let entry = rows.get(node.id);
      if (entry) {
        entry.tr.classList.remove('gone');
        fillRow(entry, node);
      } else {
        entry = makeRow(node);
        rows.set(node.id, entry);
      }
      ordered.push(entry.tr);
    }
    for (const [id, entry] of rows) if (!seen.has(id)) { entry.tr.remove(); rows.delete(id); }
    // Reorder only when the order changed (a refresh of an unchanged page touches nothing).
    const current = [...tbody.children];
    if (current.length !== ordered.length || current.some((tr, i) => tr !== ordered[i])) fill(tbody, ordered);
    if (!items.length) {
      const anyFilter = Object.keys(state.filters).length > 0;
      tbody.appendChild(h('tr', { class: 'empty-row' }, h('td', { colspan: columns().length, class: 'muted' },
        anyFilter ? 'No node matches these filters.' : 'No nodes yet: enroll one with POST /api/v1/nodes or ironhold node enroll.')));
    }
  }

  function renderPager(count) {
    const from = pageIndex * state.limit + (count ? 1 : 0);
    const to = pageIndex * state.limit + count;
    const total = filteredTotal;
    setText(range, total === null ? `${num(from)}–${num(to)}` : `${num(from)}–${num(to)} of ${num(total)}`);
    prev.disabled = pageIndex === 0;
    next.disabled = !nextCursor;
  }

  function listParams() {
    return { ...state.filters, sort: state.sort, limit: state.limit };
  }

  // Loads the current page (and the counts); keeps the rows on screen until the answer is in.
  async function loadPage() {
    const seq = ++loadSeq;
    table.setAttribute('aria-busy', 'true');
    const cursor = pages[pageIndex];
    const path = cursor ? `/api/v1/nodes?cursor=${encodeURIComponent(cursor)}` : `/api/v1/nodes${query(listParams())}`;
    const filtered = Object.keys(state.filters).length > 0;
    try {
      const [page, all, subset, projects] = await Promise.all([
        api(path),
        api('/api/v1/nodes/summary'),
        filtered ? api(`/api/v1/nodes/summary${query(state.filters)}`) : null,
        // Once per visit; a server without projects (or refusing the list) means no column.
        withProject === null ? api('/api/v1/projects').catch(() => null) : null,
      ]);
      if (seq !== loadSeq) return;
      if (withProject === null) projectColumn((projects?.items?.length || 0) > 1);
      nextCursor = page.next;
      renderSummary(all);
      filteredTotal = filtered ? subset.total : all.total;
      setText(matching, filtered ? `${plural(filteredTotal, 'node')} match${filteredTotal === 1 ? 'es' : ''}` : '');
      renderRows(page.items);
      renderPager(page.items.length);
    } catch (e) {
      if (seq !== loadSeq) return;
      fill(tbody, h('tr', {}, h('td', { colspan: columns().length, class: 'error-text' }, `Could not load the nodes: ${e.message}`)));
    } finally {
      if (seq === loadSeq) table.setAttribute('aria-busy', 'false');
    }
  }

  const refreshCounts = throttle(async () => {
    try {
      const filtered = Object.keys(state.filters).length > 0;
      const [all, subset] = await Promise.all([
        api('/api/v1/nodes/summary'),
        filtered ? api(`/api/v1/nodes/summary${query(state.filters)}`) : null,
      ]);
      renderSummary(all);
      filteredTotal = filtered ? subset.total : all.total;
      setText(matching, filtered ? `${plural(filteredTotal, 'node')} match${filteredTotal === 1 ? 'es' : ''}` : '');
      renderPager(tbody.querySelectorAll('tr[data-node-id]').length);
    } catch {
      // The next event or refresh tries again.
    }
  }, 2000);

  function applyState({ push = true } = {}) {
    pages = [null];
    pageIndex = 0;
    renderChips();
    renderSort();
    syncPressed();
    if (push) go('/', stateParams(state));
    else replaceParams('/', stateParams(state));
    loadPage();
  }

  function toggleFilter(key, value) {
    if (MULTI.has(key)) {
      const values = new Set(state.filters[key] || []);
      if (values.has(value)) values.delete(value);
      else values.add(value);
      if (values.size) state.filters[key] = [...values];
      else delete state.filters[key];
    } else if (state.filters[key] === value) {
      delete state.filters[key];
    } else {
      state.filters[key] = value;
    }
    applyState();
  }

  function removeFilter(key, value) {
    if (MULTI.has(key)) {
      const values = (state.filters[key] || []).filter((v) => v !== value);
      if (values.length) state.filters[key] = values;
      else delete state.filters[key];
    } else {
      delete state.filters[key];
      if (key === 'q') search.value = '';
    }
    applyState();
  }

  function toggleSort(field) {
    const current = state.sort.replace(/^-/, '');
    state.sort = current === field && !state.sort.startsWith('-') ? `-${field}` : field;
    applyState();
  }

  const onSearch = debounce(() => {
    const q = search.value.trim();
    if (q) state.filters.q = q;
    else delete state.filters.q;
    applyState({ push: false });
  }, 300);
  search.addEventListener('input', onSearch);
  clearAll.addEventListener('click', () => {
    state.filters = {};
    search.value = '';
    applyState();
  });
  prev.addEventListener('click', () => {
    if (pageIndex === 0) return;
    pageIndex -= 1;
    loadPage();
  });
  next.addEventListener('click', () => {
    if (!nextCursor) return;
    pages[pageIndex + 1] = nextCursor;
    pageIndex += 1;
    loadPage();
  });
  sizeSelect.addEventListener('change', () => {
    state.limit = Number(sizeSelect.value);
    applyState({ push: false });
  });

  // Rows: click or Enter opens the node; arrow keys move between rows.
  tbody.addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-node-id]');
    if (!tr || e.target.closest('a')) return;
    location.hash = nodeHref(tr.dataset.nodeId);
  });
  tbody.addEventListener('keydown', (e) => {
    const tr = e.target.closest('tr[data-node-id]');
    if (!tr) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      location.hash = nodeHref(tr.dataset.nodeId);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const sibling = e.key === 'ArrowDown' ? tr.nextElementSibling : tr.previousElementSibling;
      if (sibling && sibling.matches('tr[data-node-id]')) sibling.focus();
    }
  });

  const offs = [
    on('node.updated', (node) => {
      const entry = rows.get(node.id);
      if (entry) {
        const changed = entry.node.health !== node.health || entry.node.power_state !== node.power_state;
        fillRow(entry, node);
        if (changed) {
          entry.tr.classList.remove('flash');
          void entry.tr.offsetWidth;  // restart the highlight
          entry.tr.classList.add('flash');
        }
      }
      refreshCounts();
    }),
    on('alert.updated', (alert) => {
      const entry = rows.get(alerts.apply(alert));
      if (entry) paintAlerts(entry);
    }),
    on('node.deleted', ({ id }) => {
      const entry = rows.get(id);
      if (entry) entry.tr.classList.add('gone');  // struck through, not removed: nothing moves
      refreshCounts();
    }),
  ];
  // "Last seen 12 s ago" keeps counting.
  const ticker = setInterval(() => {
    for (const entry of rows.values()) setText(entry.cells.seen, ago(entry.node.last_seen));
  }, 15000);

  renderChips();
  renderSort();
  loadPage();
  loadAlerts();

  return {
    refresh() {
      loadPage();
      loadAlerts();
    },
    // The same view with other parameters (back/forward through filters).
    update(nextRoute) {
      const nextState = readState(nextRoute.params);
      if (JSON.stringify(stateParams(nextState)) === JSON.stringify(stateParams(state))) return;
      state = nextState;
      search.value = state.filters.q || '';
      sizeSelect.value = String(state.limit);
      pages = [null];
      pageIndex = 0;
      renderChips();
      renderSort();
      syncPressed();
      loadPage();
    },
    destroy() {
      offs.forEach((off) => off());
      clearInterval(ticker);
      refreshCounts.cancel();
      onSearch.cancel();
    },
  };
}
