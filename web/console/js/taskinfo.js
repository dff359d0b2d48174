// What a task is and how far it got, for the task list, the node page and rollouts.

import { h, setText } from './dom.js';
import { label } from './format.js';

const ENDED = new Set(['succeeded', 'failed', 'cancelled']);
const STEP_DONE = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

export function taskEnded(task) {
  return ENDED.has(task.state);
}

// How many steps a task of each kind goes through: a task records each step as it starts, so its
// list is short until the end (inventory/tasks/*.cpp).
function expectedSteps(task) {
  const steps = task.steps || [];
  switch (task.kind) {
    case 'power':
    case 'clean': return 3;  // check, send, verify
    case 'firmware': return 5;  // prepare, transfer, update, activate, verify
    case 'reprovision': return steps.length && steps[0].name === 'prepare' ? 4 : 2;  // PXE, or a cloud rebuild
    default: return 1;  // boot, identify, inspect: one step
  }
}

// 0..1: the steps finished, plus the running step's own percentage where it reports one (a BMC's
// firmware update: "the BMC's task is running, 50 %").
export function taskProgress(task) {
  if (taskEnded(task)) return 1;
  if (task.state === 'queued') return 0;
  const steps = task.steps || [];
  const total = Math.max(expectedSteps(task), steps.length);
  const done = steps.filter((st) => STEP_DONE.has(st.state)).length;
  const active = steps.find((st) => st.state === 'running' || st.state === 'sending');
  let part = 0;
  if (active) {
    const m = /(\d{1,3})\s*%/.exec(active.detail || '');
    part = m ? Math.min(100, Number(m[1])) / 100 : 0.3;
  }
  return Math.max(0.02, Math.min(0.99, (done + part) / total));
}

// "power cycle", "boot pxe", "firmware BMC 2.1.0", "identify on"
export function taskTitle(task) {
  const p = task.parameters || {};
  switch (task.kind) {
    case 'power': return `power ${label(p.action)}`;
    case 'boot': return `boot ${p.device || ''}${p.persistent ? ' (persistent)' : ''}`;
    case 'identify': return `identify ${p.on ? 'on' : 'off'}`;
    case 'firmware': return `firmware ${p.component || ''} ${p.version || ''}`.trim();
    default: return label(task.kind);
  }
}

// The step running now (or the last one), for a one-line "where is it".
export function taskNow(task) {
  if (task.error) return task.error;
  const steps = task.steps || [];
  const active = steps.find((st) => st.state === 'running' || st.state === 'sending');
  const last = active || [...steps].reverse().find((st) => st.state !== 'pending');
  if (!last) return task.state === 'queued' ? 'waiting for its turn' : '';
  return `${last.name}: ${last.detail || label(last.state)}`;
}

// A progress bar with its percentage; update() rewrites it in place.
export function progressCell(task) {
  const bar = h('progress', { max: '100', value: '0' });
  const pct = h('span', { class: 'pct' });
  const el = h('span', { class: 'progress', 'data-testid': 'task-progress' }, bar, pct);
  const update = (t) => {
    const p = Math.round(taskProgress(t) * 100);
    bar.value = p;
    bar.classList.toggle('failed', t.state === 'failed');
    bar.classList.toggle('done', t.state === 'succeeded');
    bar.setAttribute('aria-label', `${taskTitle(t)}: ${p} %`);
    el.dataset.progress = String(p);
    setText(pct, `${p} %`);
  };
  update(task);
  return { el, update };
}
