// A node's sensor charts: temperatures, fans, power draw and GPU temperatures over the last hour
// or day, from GET /api/v1/nodes/{id}/sensors?since=&until=&kind= (keyset pages of up to 10,000
// readings, followed to the end). Redrawn every minute (every five for a day): readings come from
// the poller, not the stream.

import { api, allPages } from '../api.js';
import { h, setText } from '../dom.js';
import { lineChart } from '../chart.js';

// Power sensors named after a GPU have a chart of their own: beside a server's total they would
// sit flat on the axis.
const isGpu = (name) => /gpu/i.test(name);
const CHARTS = [
  { id: 'temperature', kind: 'temperature', title: 'Temperatures', unit: 'Cel' },
  { id: 'gpu_temperature', kind: 'gpu_temperature', title: 'GPU temperatures', unit: 'Cel' },
  { id: 'fan', kind: 'fan', title: 'Fans', unit: 'RPM' },
  { id: 'power', kind: 'power', title: 'Power draw', unit: 'W', accepts: (name) => !isGpu(name) },
  { id: 'gpu_power', kind: 'power', title: 'GPU power', unit: 'W', accepts: isGpu },
];
const KINDS = [...new Set(CHARTS.map((c) => c.kind))];
const RANGES = { hour: { ms: 3600e3, label: 'Last hour', every: 60e3 }, day: { ms: 86400e3, label: 'Last 24 hours', every: 300e3 } };

function prettyName(name) {
  return name.replace(/_/g, ' ');
}

// The critical threshold the sensors of a chart share, if they share one.
function sharedThreshold(latest, kind) {
  const values = new Set(latest.filter((r) => r.kind === kind && r.thresholds && r.thresholds.upper_critical !== undefined)
    .map((r) => r.thresholds.upper_critical));
  return values.size === 1 ? [...values][0] : null;
}

export function sensorCharts(nodeId) {
  let range = 'hour';
  let timer = null;
  let loadSeq = 0;
  let destroyed = false;
  const status = h('span', { class: 'muted', role: 'status' });
  const buttons = Object.entries(RANGES).map(([key, r]) => {
    const b = h('button', { type: 'button', class: 'button small', 'aria-pressed': String(key === range), 'data-range': key }, r.label);
    b.addEventListener('click', () => {
      range = key;
      for (const other of buttons) other.setAttribute('aria-pressed', String(other.dataset.range === range));
      load();
    });
    return b;
  });
  const now = Date.now();
  const charts = CHARTS.map((c) => lineChart({ ...c, kind: c.id, series: [], from: now - RANGES[range].ms, to: now, emptyText: 'Loading…' }));
  const element = h('section', { class: 'panel section', id: 'sensors', 'aria-labelledby': 'sensors-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'sensors-title' }, 'Sensors'), h('div', { class: 'chart-controls', role: 'group', 'aria-label': 'Period' }, buttons), h('span', { class: 'spacer' }), status),
    h('div', { class: 'charts' }, charts.map((c) => c.element)));

  async function load() {
    const seq = ++loadSeq;
    clearTimeout(timer);
    const to = Date.now();
    const from = to - RANGES[range].ms;
    setText(status, 'Loading readings…');
    try {
      const base = `/api/v1/nodes/${encodeURIComponent(nodeId)}/sensors`;
      const [latest, readings] = await Promise.all([
        api(base).then((r) => r.items),
        allPages(base, {
          since: new Date(from).toISOString(), until: new Date(to).toISOString(),
          kind: KINDS, limit: 10000,
        }),
      ]);
      if (seq !== loadSeq || destroyed) return;
      const byChart = new Map(CHARTS.map((c) => [c.id, new Map()]));
      for (const r of readings) {
        if (r.value === null) continue;
        const chart = CHARTS.find((c) => c.kind === r.kind && (!c.accepts || c.accepts(r.name)));
        if (!chart) continue;
        const series = byChart.get(chart.id);
        if (!series.has(r.name)) series.set(r.name, []);
        series.get(r.name).push([new Date(r.time).getTime(), r.value]);
      }
      CHARTS.forEach((c, i) => {
        const series = [...byChart.get(c.id).entries()]
          .sort((a, b) => a[0].localeCompare(b[0], undefined, { numeric: true }))
          .map(([name, points]) => ({ name: prettyName(name), points }));
        charts[i].update({
          series, from, to, threshold: sharedThreshold(latest, c.kind),
          emptyText: `No ${c.title.toLowerCase()} in this period`,
        });
      });
      setText(status, `${readings.length.toLocaleString()} readings`);
    } catch (e) {
      if (seq === loadSeq) setText(status, `Could not load the readings: ${e.message}`);
    }
    if (seq === loadSeq && !destroyed) timer = setTimeout(load, RANGES[range].every);
  }

  load();
  return {
    element,
    refresh: load,
    destroy() {
      destroyed = true;
      clearTimeout(timer);
      charts.forEach((c) => c.destroy());
    },
  };
}
