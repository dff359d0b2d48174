// Tasks: every action's task, newest first (GET /api/v1/tasks), with live progress from
// task.updated and Cancel for operators. New tasks wait behind a button instead of pushing the
// rows down while someone reads them.

import { api, query } from '../api.js';
import { on } from '../bus.js';
import { h, setText } from '../dom.js';
import { plural } from '../format.js';
import { replaceParams } from '../router.js';
import { taskTable } from '../tasktable.js';

const STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
const KINDS = ['power', 'boot', 'identify', 'reprovision', 'inspect', 'clean', 'firmware'];

export function mount(container, route) {
  let filters = { state: route.params.get('state') || '', kind: route.params.get('kind') || '' };
  let nextCursor = null;
  let pending = new Map();  // new tasks not shown yet
  let loadSeq = 0;

  const table = taskTable({ showNode: true, emptyText: 'No tasks match.' });
  const stateSelect = h('select', { id: 'task-state', 'data-testid': 'task-state-filter' },
    h('option', { value: '' }, 'Any state'), STATES.map((v) => h('option', { value: v, selected: v === filters.state }, v)));
  const kindSelect = h('select', { id: 'task-kind', 'data-testid': 'task-kind-filter' },
    h('option', { value: '' }, 'Any kind'), KINDS.map((v) => h('option', { value: v, selected: v === filters.kind }, v)));
  const more = h('button', { type: 'button', class: 'button', 'data-testid': 'tasks-more' }, 'Load older tasks');
  const newer = h('button', { type: 'button', class: 'button small', hidden: true, 'data-testid': 'tasks-new' });
  const status = h('span', { class: 'muted', role: 'status' });

  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Tasks'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'toolbar' },
      h('label', { for: 'task-state' }, 'State'), stateSelect,
      h('label', { for: 'task-kind' }, 'Kind'), kindSelect),
    h('div', { class: 'new-items' }, newer),
    table.element,
    h('div', { class: 'pager' }, more));

  function params() {
    return { state: filters.state, kind: filters.kind, limit: 50 };
  }

  function matches(task) {
    return (!filters.state || task.state === filters.state) && (!filters.kind || task.kind === filters.kind);
  }

  async function load() {
    const seq = ++loadSeq;
    setText(status, 'Loading…');
    try {
      const page = await api(`/api/v1/tasks${query(params())}`);
      if (seq !== loadSeq) return;
      table.setTasks(page.items);
      nextCursor = page.next;
      more.hidden = !nextCursor;
      pending = new Map();
      showPending();
      setText(status, '');
    } catch (e) {
      if (seq === loadSeq) setText(status, `Could not load the tasks: ${e.message}`);
    }
  }

  function showPending() {
    newer.hidden = pending.size === 0;
    setText(newer, `Show ${plural(pending.size, 'new task')}`);
  }

  newer.addEventListener('click', () => {
    const list = [...pending.values()].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
    for (const t of list) table.upsert(t);
    pending = new Map();
    showPending();
  });
  more.addEventListener('click', async () => {
    if (!nextCursor) return;
    more.disabled = true;
    try {
      const page = await api(`/api/v1/tasks?cursor=${encodeURIComponent(nextCursor)}`);
      table.append(page.items);
      nextCursor = page.next;
      more.hidden = !nextCursor;
    } finally {
      more.disabled = false;
    }
  });
  for (const select of [stateSelect, kindSelect]) {
    select.addEventListener('change', () => {
      filters = { state: stateSelect.value, kind: kindSelect.value };
      const p = {};
      if (filters.state) p.state = filters.state;
      if (filters.kind) p.kind = filters.kind;
      replaceParams('/tasks', p);
      load();
    });
  }

  const offs = [
    on('task.updated', (task) => {
      if (table.update(task)) return;
      if (pending.has(task.id) || matches(task)) {
        if (matches(task)) pending.set(task.id, task);
        else pending.delete(task.id);
        showPending();
      }
    }),
  ];
  const ticker = setInterval(() => table.tick(), 5000);

  load();
  return {
    refresh: load,
    destroy() {
      offs.forEach((off) => off());
      clearInterval(ticker);
    },
  };
}
