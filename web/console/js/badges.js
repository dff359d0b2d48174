// Badges for health, power, lifecycle, task/rollout/alert states and open-alert counts: fixed widths (see console.css), a
// colour and a word (never colour alone), and data-state for scripts and tests.

import { h, setText, setTone } from './dom.js';
import { label } from './format.js';

function badge(kind, value, text) {
  const el = h('span', { class: 'badge' });
  updateBadge(el, kind, value, text);
  return el;
}

export function healthBadge(value) {
  return badge('health', value);
}

export function powerBadge(value) {
  return badge('power', value);
}

export function lifecycleBadge(value, maintenance) {
  return badge('lifecycle', value, maintenance);
}

export function stateBadge(value) {
  return badge('state', value);
}

export function severityBadge(value) {
  return badge('sev', value);
}

// A node's open alerts: the count, coloured by the worst severity; hidden when there are none.
// A link to the Alerts page filtered to the node. `open`: {count, worst} (see openalerts.js).
export function alertCountBadge(nodeId) {
  const el = h('a', { class: 'badge alert-count', 'data-testid': 'node-alert-badge', href: `#/alerts?node=${encodeURIComponent(nodeId)}`, hidden: true });
  return el;
}

export function updateAlertCountBadge(el, open) {
  const count = open ? open.count : 0;
  el.hidden = count === 0;
  el.dataset.count = String(count);
  el.dataset.severity = count ? open.worst : '';
  setTone(el, 'sev-', count ? open.worst : null);
  setText(el, count ? String(count) : '');
  el.title = count ? `${count} open alert${count === 1 ? '' : 's'} (worst: ${open.worst}): show them` : '';
  el.setAttribute('aria-label', el.title || 'No open alerts');
}

// Rewrites a badge in place: a new value changes its word and colour, not its size.
export function updateBadge(el, kind, value, extra) {
  const v = value || 'unknown';
  el.dataset.state = v;
  if (kind === 'lifecycle') {
    el.classList.add('lifecycle');
    el.classList.toggle('failed', v.endsWith('_failed'));
    el.classList.add('plain');
    setText(el, extra ? `${label(v)} · maint.` : label(v));
    el.title = extra ? `${label(v)}, in maintenance (no automatic actions)` : label(v);
    return;
  }
  setTone(el, `${kind}-`, v);
  const prefix = kind === 'power' ? 'power ' : kind === 'health' ? 'health ' : '';
  el.title = `${prefix}${label(v)}`;
  setText(el, label(v));
}
