// GPU capacity: GPU-hours per state over a period as a stacked chart (on, off, unknown,
// maintenance, failed; one bar per step), and a table per group (GPU model, owned or rented, site,
// project, ...) with GPUs installed and powered on at the period's end, GPU-hours and utilisation.
// The same report as GET /api/v1/capacity; the CSV link downloads its table.
//
// Test hooks: data-testid="capacity-chart" (data-buckets="N"), "capacity-table", "capacity-csv".

import { api } from '../api.js';
import { h, s, fill, setText } from '../dom.js';
import { dateTime, label, num } from '../format.js';
import { replaceParams } from '../router.js';

const STATES = ['on', 'off', 'unknown', 'maintenance', 'failed'];
const PERIODS = [['1', 'Last 24 hours'], ['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days'], ['365', 'Last year']];
const GROUPINGS = [['gpu_model,source', 'GPU model, owned or rented'], ['gpu_model', 'GPU model'], ['source', 'Owned or rented'],
  ['site', 'Site'], ['project', 'Project'], ['provider', 'Cloud provider'], ['model', 'Server model or instance type']];
const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { left: 64, right: 12, top: 10, bottom: 24 };

function hours(v) {
  return v >= 100 ? num(Math.round(v)) : num(Math.round(v * 10) / 10);
}

function percent(v) {
  return v === null || v === undefined ? '—' : `${Math.round(v * 1000) / 10} %`;
}

function keyText(key, dims) {
  return dims.map((d) => {
    const v = key[d];
    if (v === null || v === undefined) return d === 'site' ? 'no site' : d === 'gpu_model' ? 'unknown model' : '—';
    return d === 'source' ? (v === 'bmc' ? 'owned' : 'rented') : v;
  }).join(' · ');
}

// A stacked bar per bucket: GPU-hours per state.
function chart(series, step) {
  const max = Math.max(1, ...series.map((p) => STATES.reduce((sum, st) => sum + p[st], 0)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const barW = plotW / Math.max(1, series.length);
  const y = (v) => MARGIN.top + plotH - (v / max) * plotH;
  const bars = [];
  series.forEach((p, i) => {
    let base = 0;
    for (const st of STATES) {
      if (!p[st]) continue;
      const top = base + p[st];
      bars.push(s('rect', { x: MARGIN.left + i * barW + 0.5, width: Math.max(1, barW - 1), y: y(top), height: Math.max(0.5, y(base) - y(top)), class: `state-${st}` },
        s('title', {}, `${dateTime(p.start)}: ${hours(p[st])} GPU-hours ${st}`)));
      base = top;
    }
  });
  const ticks = [0, max / 2, max].map((v) => s('g', {},
    s('line', { x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(v), y2: y(v), class: 'grid' }),
    s('text', { x: MARGIN.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, hours(v))));
  const first = series[0]?.start;
  const last = series[series.length - 1]?.start;
  return h('figure', { class: 'capacity-chart', 'data-testid': 'capacity-chart', 'data-buckets': String(series.length) },
    s('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': `GPU-hours per ${step}, stacked by state` }, ticks, bars,
      first ? s('text', { x: MARGIN.left, y: HEIGHT - 6, class: 'axis' }, dateTime(first)) : null,
      last ? s('text', { x: WIDTH - MARGIN.right, y: HEIGHT - 6, 'text-anchor': 'end', class: 'axis' }, dateTime(last)) : null),
    h('figcaption', { class: 'legend' }, STATES.map((st) => h('span', { class: 'legend-item' },
      h('span', { class: `swatch state-${st}` }), label(st)))));
}

export function mount(container, route) {
  const params = route.params;
  const period = h('select', { 'aria-label': 'Period', 'data-testid': 'capacity-period' },
    PERIODS.map(([v, t]) => h('option', { value: v }, t)));
  period.value = params.get('days') || '7';
  const grouping = h('select', { 'aria-label': 'Group by', 'data-testid': 'capacity-group' },
    GROUPINGS.map(([v, t]) => h('option', { value: v }, t)));
  grouping.value = params.get('group_by') || 'gpu_model,source';
  const csv = h('a', { class: 'button small', 'data-testid': 'capacity-csv', download: 'gpu-capacity.csv' }, 'Download CSV');
  const status = h('span', { class: 'muted', role: 'status' });
  const summary = h('div', { class: 'summary-cards', 'data-testid': 'capacity-summary' });
  const chartBox = h('div', { class: 'section' });
  const tbody = h('tbody');
  const thead = h('thead');
  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'GPU capacity'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'toolbar' }, period, grouping, csv),
    summary, chartBox,
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': 'capacity-table' }, thead, tbody)),
    h('p', { class: 'muted section' }, 'From the node history: a GPU counts while its node is in service. Its hours are in maintenance (the node\'s flag), failed (a failed lifecycle state), or else on, off or unknown by its power state. Powered on counts every hour its node was on.'));

  let controller = null;

  function query() {
    const days = Number(period.value);
    const to = new Date();
    const from = new Date(to.getTime() - days * 86400e3);
    const q = new URLSearchParams({ from: from.toISOString().replace(/\.\d+Z$/, 'Z'), to: to.toISOString().replace(/\.\d+Z$/, 'Z'), group_by: grouping.value });
    return q;
  }

  function card(title, value, testid) {
    return h('div', { class: 'summary-card', 'data-testid': testid }, h('div', { class: 'muted' }, title), h('div', { class: 'big' }, value));
  }

  async function load() {
    replaceParams('/capacity', { days: period.value, group_by: grouping.value });
    const q = query();
    csv.href = `/api/v1/capacity?${q}&format=csv`;
    controller?.abort();
    controller = new AbortController();
    setText(status, 'Loading…');
    try {
      const report = await api(`/api/v1/capacity?${q}`, { signal: controller.signal });
      const t = report.totals;
      fill(summary,
        card('GPUs installed', num(t.gpus_installed), 'capacity-gpus-installed'),
        card('GPUs powered on', num(t.gpus_powered_on), 'capacity-gpus-on'),
        card('GPU-hours powered on', hours(t.gpu_hours_powered_on), 'capacity-hours-on'),
        card('Utilisation', percent(t.utilisation), 'capacity-utilisation'),
        card('GPU-hours in maintenance or failed', hours(t.gpu_hours_maintenance + t.gpu_hours_failed), 'capacity-hours-down'));
      fill(chartBox, chart(t.series, report.step));
      const dims = report.group_by;
      fill(thead, h('tr', {}, h('th', { scope: 'col' }, dims.map(label).join(' · ') || 'Fleet'),
        ['GPUs', 'On now', 'GPU-hours', 'Powered on', 'Utilisation', 'Maintenance', 'Failed'].map((c) => h('th', { scope: 'col', class: 'num' }, c))));
      fill(tbody, report.groups.length ? report.groups.map((g) => h('tr', { 'data-group': keyText(g.key, dims) },
        h('th', { scope: 'row' }, keyText(g.key, dims)),
        [num(g.gpus_installed), num(g.gpus_powered_on), hours(g.gpu_hours_installed), hours(g.gpu_hours_powered_on), percent(g.utilisation),
          hours(g.gpu_hours_maintenance), hours(g.gpu_hours_failed)].map((v) => h('td', { class: 'num' }, v))))
        : h('tr', { class: 'empty-row' }, h('td', { colspan: 8, class: 'muted' }, 'No GPUs in service in this period.')));
      setText(status, `${dateTime(report.from)} to ${dateTime(report.to)}`);
    } catch (e) {
      if (e.name === 'AbortError') return;
      setText(status, `Could not load the capacity report: ${e.message}`);
    }
  }

  period.addEventListener('change', load);
  grouping.addEventListener('change', load);
  load();
  return {
    refresh: load,
    destroy() {
      controller?.abort();
    },
  };
}
