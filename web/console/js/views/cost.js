// GPU cost, owned against rented, per GPU model: what a used GPU-hour cost each way over the
// period, the owned servers' capital, hosting and energy (flagged where the energy is estimated
// from the rated draw), the rented instances' hours, and the utilisation at which owning breaks
// even. The same report as GET /api/v1/cost; the CSV link downloads the lines every figure is
// made of, for an auditor to recompute.
//
// Test hooks: data-testid="cost-table" (rows data-group), "cost-chart", "cost-csv",
// "cost-missing", cells data-field="owned-per-gpu-hour|rented-per-gpu-hour|break-even".

import { api } from '../api.js';
import { h, s, fill, setText } from '../dom.js';
import { dateTime, num } from '../format.js';
import { replaceParams } from '../router.js';

const PERIODS = [['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days'], ['365', 'Last year']];
const WIDTH = 720;
const ROW = 34;

function money(v, currency) {
  if (v === null || v === undefined) return '—';
  const digits = Math.abs(v) < 100 ? 2 : 0;
  return `${v.toLocaleString(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${currency || ''}`.trim();
}

function hours(v) {
  return v >= 100 ? num(Math.round(v)) : num(Math.round(v * 100) / 100);
}

function percent(v) {
  return v === null || v === undefined ? '—' : `${Math.round(v * 1000) / 10} %`;
}

// The report takes whole hours; the period ends at the next one, so that this hour (so far)
// counts.
function wholeHour(date, { up = false } = {}) {
  const d = new Date(date);
  if (up && (d.getUTCMinutes() || d.getUTCSeconds() || d.getUTCMilliseconds())) d.setUTCHours(d.getUTCHours() + 1);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

// Owned against rented cost per used GPU-hour, a pair of bars per GPU model.
function chart(groups, currency) {
  const rows = groups.filter((g) => g.owned.cost_per_gpu_hour_used !== null || g.rented.cost_per_gpu_hour_used !== null);
  const max = Math.max(1e-9, ...rows.flatMap((g) => [g.owned.cost_per_gpu_hour_used || 0, g.rented.cost_per_gpu_hour_used || 0]));
  const left = 230;
  const barW = (v) => ((v || 0) / max) * (WIDTH - left - 90);
  const bars = rows.map((g, i) => {
    const y = 8 + i * ROW;
    const name = g.key.gpu_model || 'unknown model';
    return s('g', {},
      s('text', { x: left - 8, y: y + 15, 'text-anchor': 'end', class: 'axis' }, name),
      s('rect', { x: left, y, width: Math.max(1, barW(g.owned.cost_per_gpu_hour_used)), height: 12, class: 'cost-owned' },
        s('title', {}, `owned: ${money(g.owned.cost_per_gpu_hour_used, currency)} per GPU-hour used`)),
      s('text', { x: left + barW(g.owned.cost_per_gpu_hour_used) + 6, y: y + 10, class: 'axis' }, money(g.owned.cost_per_gpu_hour_used, currency)),
      s('rect', { x: left, y: y + 14, width: Math.max(1, barW(g.rented.cost_per_gpu_hour_used)), height: 12, class: 'cost-rented' },
        s('title', {}, `rented: ${money(g.rented.cost_per_gpu_hour_used, currency)} per GPU-hour used`)),
      s('text', { x: left + barW(g.rented.cost_per_gpu_hour_used) + 6, y: y + 24, class: 'axis' }, money(g.rented.cost_per_gpu_hour_used, currency)));
  });
  return h('figure', { class: 'capacity-chart', 'data-testid': 'cost-chart', 'data-rows': String(rows.length) },
    s('svg', { viewBox: `0 0 ${WIDTH} ${Math.max(40, rows.length * ROW + 12)}`, role: 'img', 'aria-label': 'Cost per GPU-hour used, owned and rented, per GPU model' }, bars),
    h('figcaption', { class: 'legend' },
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch cost-owned' }), 'Owned, per GPU-hour used'),
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch cost-rented' }), 'Rented, per GPU-hour used')));
}

export function mount(container, route) {
  const period = h('select', { 'aria-label': 'Period', 'data-testid': 'cost-period' },
    PERIODS.map(([v, t]) => h('option', { value: v }, t)));
  period.value = route.params.get('days') || '30';
  const csv = h('a', { class: 'button small', 'data-testid': 'cost-csv', download: 'gpu-cost.csv' }, 'Download the lines (CSV)');
  const status = h('span', { class: 'muted', role: 'status' });
  const chartBox = h('div', { class: 'section' });
  const missing = h('div', { 'data-testid': 'cost-missing' });
  const tbody = h('tbody');
  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'GPU cost: owned and rented'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'toolbar' }, period, csv),
    chartBox, missing,
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': 'cost-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'GPU model'),
        ['Owned GPU-hours used', 'Utilisation', 'Capital', 'Hosting', 'Energy', 'Owned per GPU-hour', 'Rented GPU-hours', 'Rented per GPU-hour', 'Break-even utilisation']
          .map((c) => h('th', { scope: 'col', class: 'num' }, c)))), tbody)),
    h('p', { class: 'muted section' }, 'Owned: capital written off over the model\'s depreciation months, hosting per month, and energy from the BMCs\' input power (or the rated draw, marked estimated, for a server with no readings) at the site\'s price. Rented: the instance type\'s price for each hour it ran. Break-even: the utilisation at which an owned GPU-hour costs what a rented one does. Prices: GET /api/v1/prices.'));

  let controller = null;

  async function load() {
    replaceParams('/cost', { days: period.value });
    const to = new Date();
    const from = new Date(to.getTime() - Number(period.value) * 86400e3);
    const q = new URLSearchParams({ from: wholeHour(from, { up: true }), to: wholeHour(to, { up: true }), group_by: 'gpu_model' });
    csv.href = `/api/v1/cost?${q}&format=csv`;
    controller?.abort();
    controller = new AbortController();
    setText(status, 'Loading…');
    try {
      const report = await api(`/api/v1/cost?${q}&inputs=false`, { signal: controller.signal });
      const cur = report.currency;
      fill(chartBox, chart(report.groups, cur));
      fill(missing, report.missing_prices.length
        ? h('p', { class: 'error-text' }, `Not costed, for want of a price: ${report.missing_prices.map((m) => `${m.kind} ${m.what} (${num(Math.round(m.hours))} h)`).join('; ')}.`)
        : null);
      fill(tbody, report.groups.length ? report.groups.map((g) => {
        const o = g.owned;
        const r = g.rented;
        const name = g.key.gpu_model || 'unknown model';
        return h('tr', { 'data-group': name },
          h('th', { scope: 'row' }, name),
          h('td', { class: 'num' }, hours(o.gpu_hours_used)),
          h('td', { class: 'num' }, percent(o.utilisation)),
          h('td', { class: 'num' }, money(o.capital, cur)),
          h('td', { class: 'num' }, money(o.hosting, cur)),
          h('td', { class: 'num', title: o.estimated ? `${num(Math.round(o.energy_kwh_estimated))} kWh estimated from the rated draw` : '' },
            money(o.energy, cur), o.estimated ? h('span', { class: 'muted', 'data-testid': 'cost-estimated' }, ' (estimated)') : null),
          h('td', { class: 'num', 'data-field': 'owned-per-gpu-hour' }, money(o.cost_per_gpu_hour_used, cur)),
          h('td', { class: 'num' }, hours(r.gpu_hours_used)),
          h('td', { class: 'num', 'data-field': 'rented-per-gpu-hour' }, money(r.cost_per_gpu_hour_used, cur)),
          h('td', { class: 'num', 'data-field': 'break-even' }, percent(g.break_even_utilisation)));
      }) : h('tr', { class: 'empty-row' }, h('td', { colspan: 10, class: 'muted' }, 'No GPUs in service in this period.')));
      setText(status, `${dateTime(report.from)} to ${dateTime(report.to)}${cur ? ` · ${cur}` : ' · no prices yet'}`);
    } catch (e) {
      if (e.name === 'AbortError') return;
      setText(status, `Could not load the cost report: ${e.message}`);
    }
  }

  period.addEventListener('change', load);
  load();
  return {
    refresh: load,
    destroy() {
      controller?.abort();
    },
  };
}
