// A small SVG line chart for sensor readings: several series over one time range, axes with
// round ticks, a dashed critical threshold where the sensors share one, a legend with the latest
// values, and a cursor (mouse, or arrow keys when the chart has focus) that reads every series at
// one moment. Drawn at the width it is given (a ResizeObserver redraws it), so text never scales.
//
// The figure carries data-testid="sensor-chart" and data-points="N": how many readings it plots
// (after thinning a long series to at most MAX_POINTS).

import { h, s, fill } from './dom.js';
import { clock, dateTime, unitName, unitValue } from './format.js';

const HEIGHT = 220;
const MARGIN = { left: 58, right: 14, top: 12, bottom: 26 };
const MAX_POINTS = 360;
const PALETTE = 10;

// Averages a long series into at most `max` time buckets (the shape survives; the DOM stays small).
function thin(points, from, to, max) {
  if (points.length <= max) return points;
  const span = Math.max(1, to - from);
  const buckets = new Map();
  for (const [t, v] of points) {
    if (v === null) continue;
    const b = Math.min(max - 1, Math.floor(((t - from) / span) * max));
    const acc = buckets.get(b) || { t: 0, v: 0, n: 0 };
    acc.t += t;
    acc.v += v;
    acc.n += 1;
    buckets.set(b, acc);
  }
  return [...buckets.keys()].sort((a, b) => a - b).map((b) => {
    const acc = buckets.get(b);
    return [acc.t / acc.n, acc.v / acc.n];
  });
}

function niceStep(range, count) {
  const raw = range / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

const TIME_STEPS = [60e3, 5 * 60e3, 10 * 60e3, 15 * 60e3, 30 * 60e3, 3600e3, 2 * 3600e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3];

// Axis labels stay short: 10.5k RPM rather than 10,500 RPM.
function axisLabel(v, unit) {
  const rounded = Math.round(v * 100) / 100;
  if (Math.abs(rounded) >= 10000) return `${Math.round(rounded / 100) / 10}k ${unitName(unit)}`;
  return unitValue(rounded, unit);
}

function nearestIndex(points, t) {
  let lo = 0;
  let hi = points.length - 1;
  if (hi < 0) return -1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(points[lo - 1][0] - t) < Math.abs(points[lo][0] - t)) return lo - 1;
  return lo;
}

// lineChart({title, kind, unit, from, to, series: [{name, points: [[ms, value], ...]}],
//            threshold, emptyText}) → {element, update(options)}
export function lineChart(initial) {
  let options = initial;
  let plotted = [];
  let width = 0;
  let cursor = null;  // the time the cursor reads, or null

  const svgHost = h('div', { class: 'plot' });
  const tip = h('div', { class: 'tip', hidden: true, 'aria-hidden': 'true' });
  svgHost.appendChild(tip);
  const legend = h('ul', { class: 'chart-legend' });
  const titleEl = h('span', { class: 'title' });
  const noteEl = h('span', { class: 'muted' });
  const figure = h('figure', {
    class: 'chart', 'data-testid': 'sensor-chart', 'data-kind': initial.kind || '', 'data-points': '0',
  }, h('figcaption', {}, titleEl, noteEl), svgHost, legend);

  function prepare() {
    const { series = [], from, to } = options;
    plotted = series
      .map((one, i) => ({ ...one, index: i, points: thin(one.points.filter((p) => p[1] !== null), from, to, MAX_POINTS) }))
      .filter((one) => one.points.length > 0);
    figure.dataset.points = String(plotted.reduce((n, one) => n + one.points.length, 0));
    figure.dataset.kind = options.kind || '';
    titleEl.textContent = options.title || '';
    noteEl.textContent = plotted.length ? `${plotted.length} sensor${plotted.length === 1 ? '' : 's'}` : '';
  }

  function scales() {
    const { from, to, threshold } = options;
    let min = Infinity;
    let max = -Infinity;
    for (const one of plotted) for (const [, v] of one.points) { if (v < min) min = v; if (v > max) max = v; }
    if (!Number.isFinite(min)) { min = 0; max = 1; }
    if (threshold !== undefined && threshold !== null && threshold <= max * 1.25) max = Math.max(max, threshold);
    if (min >= 0 && min < (max - min) * 0.6) min = 0;  // counts and temperatures read best from zero
    if (max === min) { max += 1; min = Math.max(0, min - 1); }
    const step = niceStep(max - min, 4);
    const lo = Math.floor(min / step) * step;
    const hi = Math.ceil(max / step) * step;
    const innerW = Math.max(10, width - MARGIN.left - MARGIN.right);
    const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
    return {
      lo, hi, step, innerW, innerH,
      x: (t) => MARGIN.left + ((t - from) / Math.max(1, to - from)) * innerW,
      y: (v) => MARGIN.top + innerH - ((v - lo) / (hi - lo)) * innerH,
      t: (px) => from + ((px - MARGIN.left) / innerW) * (to - from),
    };
  }

  function draw() {
    if (width <= 0) return;
    const { from, to, unit, threshold, emptyText } = options;
    const sc = scales();
    const svg = s('svg', {
      viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: 'img', tabindex: '0',
      'aria-label': `${options.title || 'Chart'}: ${plotted.length} series from ${dateTime(from)} to ${dateTime(to)}`,
    });
    const grid = s('g', { class: 'grid' });
    const axis = s('g', { class: 'axis' });
    for (let v = sc.lo; v <= sc.hi + sc.step / 2; v += sc.step) {
      const y = sc.y(v);
      grid.appendChild(s('line', { x1: MARGIN.left, x2: width - MARGIN.right, y1: y, y2: y }));
      axis.appendChild(s('text', { x: MARGIN.left - 6, y: y + 4, 'text-anchor': 'end' }, axisLabel(v, unit)));
    }
    const span = to - from;
    const tStep = TIME_STEPS.find((st) => span / st <= Math.max(2, Math.floor(sc.innerW / 90))) || TIME_STEPS[TIME_STEPS.length - 1];
    for (let t = Math.ceil(from / tStep) * tStep; t <= to; t += tStep) {
      const x = sc.x(t);
      axis.appendChild(s('line', { x1: x, x2: x, y1: HEIGHT - MARGIN.bottom, y2: HEIGHT - MARGIN.bottom + 4 }));
      axis.appendChild(s('text', { x, y: HEIGHT - 8, 'text-anchor': 'middle' }, clock(t)));
    }
    axis.appendChild(s('line', { x1: MARGIN.left, x2: width - MARGIN.right, y1: HEIGHT - MARGIN.bottom, y2: HEIGHT - MARGIN.bottom }));
    svg.append(grid, axis);
    if (threshold !== undefined && threshold !== null && threshold >= sc.lo && threshold <= sc.hi) {
      svg.appendChild(s('line', { class: 'threshold', x1: MARGIN.left, x2: width - MARGIN.right, y1: sc.y(threshold), y2: sc.y(threshold) },
        s('title', {}, `critical at ${unitValue(threshold, unit)}`)));
    }
    for (const one of plotted) {
      let d = '';
      let previous = null;
      // A gap of more than ten minutes (the node was unreachable) breaks the line.
      for (const [t, v] of one.points) {
        const cmd = previous !== null && t - previous < 10 * 60e3 ? 'L' : 'M';
        d += `${cmd}${sc.x(t).toFixed(1)},${sc.y(v).toFixed(1)}`;
        previous = t;
      }
      svg.appendChild(s('path', { class: `line s${one.index % PALETTE}`, d }, s('title', {}, one.name)));
    }
    if (!plotted.length) {
      svg.appendChild(s('text', { class: 'empty-note', x: MARGIN.left + sc.innerW / 2, y: MARGIN.top + sc.innerH / 2, 'text-anchor': 'middle' },
        emptyText || 'No readings in this period'));
    }
    const rule = s('line', { class: 'hover-rule', y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom, visibility: 'hidden' });
    svg.appendChild(rule);
    svg.addEventListener('pointermove', (e) => {
      const box = svg.getBoundingClientRect();
      const px = ((e.clientX - box.left) / box.width) * width;
      if (px < MARGIN.left || px > width - MARGIN.right) return;
      cursor = sc.t(px);
      showCursor(sc, rule);
    });
    svg.addEventListener('pointerleave', () => { cursor = null; showCursor(sc, rule); });
    svg.addEventListener('blur', () => { cursor = null; showCursor(sc, rule); });
    svg.addEventListener('keydown', (e) => {
      if (!plotted.length || !['ArrowLeft', 'ArrowRight', 'Home', 'End', 'Escape'].includes(e.key)) return;
      e.preventDefault();
      const times = plotted[0].points.map((p) => p[0]);
      let i = cursor === null ? times.length - 1 : nearestIndex(plotted[0].points, cursor);
      if (e.key === 'ArrowLeft') i = Math.max(0, i - 1);
      if (e.key === 'ArrowRight') i = Math.min(times.length - 1, i + 1);
      if (e.key === 'Home') i = 0;
      if (e.key === 'End') i = times.length - 1;
      cursor = e.key === 'Escape' ? null : times[i];
      showCursor(sc, rule);
    });
    const old = svgHost.querySelector('svg');
    if (old) old.replaceWith(svg);
    else svgHost.insertBefore(svg, tip);
    showCursor(sc, rule);
  }

  function showCursor(sc, rule) {
    if (cursor === null || !plotted.length) {
      rule.setAttribute('visibility', 'hidden');
      tip.hidden = true;
      return;
    }
    const x = sc.x(cursor);
    rule.setAttribute('x1', x);
    rule.setAttribute('x2', x);
    rule.setAttribute('visibility', 'visible');
    const rows = plotted.map((one) => {
      const p = one.points[nearestIndex(one.points, cursor)];
      return { one, v: p[1] };
    }).sort((a, b) => b.v - a.v).slice(0, 8);
    fill(tip, h('div', { class: 't' }, dateTime(cursor)),
      rows.map(({ one, v }) => h('div', { class: 'row' }, h('span', { class: `sw s${one.index % PALETTE}` }), `${one.name}: ${unitValue(v, options.unit)}`)),
      plotted.length > rows.length ? h('div', { class: 't' }, `+${plotted.length - rows.length} more`) : null);
    tip.hidden = false;
    // Keep the tip on the side away from the cursor.
    const onRight = x < width / 2;
    tip.classList.toggle('right', onRight);
    tip.style.left = onRight ? `${x + 12}px` : '';
    tip.style.right = onRight ? '' : `${width - x + 12}px`;
  }

  function drawLegend() {
    const items = plotted.map((one) => {
      const last = one.points[one.points.length - 1];
      return h('li', {}, h('span', { class: `sw s${one.index % PALETTE}` }), one.name, ' ',
        h('span', { class: 'v' }, unitValue(last[1], options.unit)));
    });
    fill(legend, items);
  }

  const observer = new ResizeObserver((entries) => {
    const w = Math.floor(entries[0].contentRect.width);
    if (w > 0 && w !== width) {
      width = w;
      draw();
    }
  });
  observer.observe(svgHost);

  prepare();
  drawLegend();

  return {
    element: figure,
    update(next) {
      options = { ...options, ...next };
      prepare();
      drawLegend();
      draw();
    },
    destroy() {
      observer.disconnect();
    },
  };
}
