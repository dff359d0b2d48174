// Badges for health, power, lifecycle and task/rollout states: fixed widths (see console.css), a
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
