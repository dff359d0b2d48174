// A table of tasks, used by the Tasks page and a node's page: state, live progress, the step it is
// on, and Cancel for operators. Rows are updated in place from task.updated; a task that is new
// to the table waits behind a "show N new" button unless the caller inserts it at once.

import { post } from './api.js';
import { h, fill, setText, toast } from './dom.js';
import { ago, dateTime, duration } from './format.js';
import { nodeHref } from './router.js';
import { stateBadge, updateBadge } from './badges.js';
import { canAct, actReason } from './session.js';
import { confirmAction } from './dialog.js';
import { taskTitle, taskNow, taskEnded, progressCell } from './taskinfo.js';

function columns(showNode) {
  return [
    ['task', 'Task', '12rem'],
    showNode ? ['node', 'Node', '11rem'] : null,
    ['state', 'State', '8.5rem'],
    ['progress', 'Progress', '10.5rem'],
    ['now', 'Now', 'auto'],
    ['by', 'Requested by', '10rem'],
    ['created', 'Created', '7rem'],
    ['took', 'Took', '6.5rem'],
    ['act', '', '6rem'],
  ].filter(Boolean);
}

export function taskTable({ showNode = true, testid = 'task-table', emptyText = 'No tasks.' } = {}) {
  const cols = columns(showNode);
  const rows = new Map();  // id → {tr, cells, task, details, progress}
  const tbody = h('tbody');
  const colgroup = h('colgroup', {}, cols.map(([, , w]) => {
    const col = h('col');
    if (w !== 'auto') col.style.width = w;
    return col;
  }));
  const table = h('table', { class: 'data tasks', 'data-testid': testid },
    colgroup, h('thead', {}, h('tr', {}, cols.map(([, title]) => h('th', { scope: 'col' }, title)))), tbody);
  const empty = h('tr', { class: 'empty-row' }, h('td', { colspan: cols.length, class: 'muted' }, emptyText));

  function makeRow(task) {
    const cells = {};
    const tr = h('tr', { 'data-task-id': task.id });
    for (const [key] of cols) tr.appendChild(cells[key] = h('td'));
    const toggle = h('button', { type: 'button', class: 'sort', 'aria-expanded': 'false', title: 'Show the steps' },
      h('span', { class: 'arrow', 'aria-hidden': 'true' }, '▸'), h('span', { class: 'title' }));
    cells.task.appendChild(toggle);
    if (showNode) cells.node.appendChild(h('a'));
    const badge = stateBadge(task.state);
    cells.state.appendChild(badge);
    const progress = progressCell(task);
    cells.progress.appendChild(progress.el);
    const cancel = h('button', { type: 'button', class: 'button small danger', 'data-action': 'task-cancel' }, 'Cancel');
    cells.act.appendChild(cancel);
    const details = h('tr', { class: 'details-row', hidden: true }, h('td', { colspan: cols.length }));
    const entry = { tr, cells, task, details, progress, badge, toggle, cancel };
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      setText(toggle.querySelector('.arrow'), open ? '▾' : '▸');
      details.hidden = !open;
      if (open) fillDetails(entry);
    });
    cancel.addEventListener('click', () => cancelTask(entry.task));
    fillRow(entry, task);
    return entry;
  }

  function fillDetails(entry) {
    const t = entry.task;
    fill(entry.details.firstChild,
      h('ol', { class: 'steps' }, (t.steps || []).map((st) => h('li', {},
        h('span', {}, st.name), stateBadge(st.state),
        h('span', { class: 'detail' }, st.detail || '', st.in_doubt ? ` (in doubt: ${st.in_doubt})` : '')))),
      h('p', { class: 'muted' }, `Task ${t.id} · attempts ${t.attempts ?? 0}`,
        t.bulk_id ? ` · bulk ${t.bulk_id}` : '', t.automatic ? ' · automatic' : '',
        t.cancelled_by ? ` · cancelled by ${t.cancelled_by}` : ''),
      t.error ? h('p', { class: 'error-text' }, t.error) : null);
  }

  function fillRow(entry, task) {
    entry.task = task;
    const { cells } = entry;
    setText(entry.toggle.querySelector('.title'), taskTitle(task));
    if (showNode) {
      const a = cells.node.firstChild;
      setText(a, task.node_name || '—');
      if (task.node_id) a.href = nodeHref(task.node_id);
    }
    updateBadge(entry.badge, 'state', task.state);
    entry.progress.update(task);
    const now = taskNow(task);
    setText(cells.now, now);
    cells.now.title = now;
    cells.now.classList.toggle('err', task.state === 'failed');
    setText(cells.by, task.requested_by || '—');
    cells.by.title = task.requested_by || '';
    setText(cells.created, ago(task.created_at));
    cells.created.title = dateTime(task.created_at);
    setText(cells.took, task.started_at ? duration(task.started_at, task.finished_at) : '—');
    const ended = taskEnded(task);
    entry.cancel.hidden = ended;
    entry.cancel.disabled = !canAct() || task.cancel_requested;
    entry.cancel.title = !canAct() ? actReason() : task.cancel_requested ? 'Cancellation asked for; the task stops at its next step' : `Cancel ${taskTitle(task)}`;
    if (!entry.details.hidden) fillDetails(entry);
  }

  async function cancelTask(task) {
    const what = `${taskTitle(task)}${task.node_name ? ` on ${task.node_name}` : ''}`;
    const outcome = await confirmAction({
      title: `Cancel ${what}?`,
      body: h('p', {}, task.state === 'queued'
        ? 'The task has not started: it will never run.'
        : 'The task is running: it stops at its next step or wait. What was already sent to the node is not undone.'),
      confirmLabel: 'Cancel the task',
      danger: true,
      run: () => post(`/api/v1/tasks/${encodeURIComponent(task.id)}/cancel`),
    });
    if (outcome) {
      toast(`Cancellation of ${what} asked for.`, { kind: 'ok' });
      if (outcome && outcome.id) upsert(outcome);
    }
  }

  // Replaces the whole list (a load or a refresh); rows already shown are reused.
  function setTasks(tasks) {
    const keep = new Set();
    const ordered = [];
    for (const t of tasks) {
      keep.add(t.id);
      let entry = rows.get(t.id);
      if (entry) fillRow(entry, t);
      else rows.set(t.id, entry = makeRow(t));
      ordered.push(entry.tr, entry.details);
    }
    for (const [id, entry] of rows) if (!keep.has(id)) rows.delete(id);
    fill(tbody, ordered.length ? ordered : empty);
  }

  function append(tasks) {
    empty.remove();
    for (const t of tasks) {
      if (rows.has(t.id)) continue;
      const entry = makeRow(t);
      rows.set(t.id, entry);
      tbody.append(entry.tr, entry.details);
    }
  }

  // An update of a task in the table; false when the table does not hold it.
  function update(task) {
    const entry = rows.get(task.id);
    if (!entry) return false;
    // An answer older than what is shown (a page loaded while events arrived) changes nothing.
    if (entry.task.updated_at && task.updated_at && task.updated_at < entry.task.updated_at) return true;
    fillRow(entry, task);
    return true;
  }

  // Updates, or inserts at the top.
  function upsert(task) {
    if (update(task)) return;
    empty.remove();
    const entry = makeRow(task);
    rows.set(task.id, entry);
    tbody.prepend(entry.tr, entry.details);
  }

  function tick() {
    for (const entry of rows.values()) {
      setText(entry.cells.created, ago(entry.task.created_at));
      if (entry.task.started_at && !entry.task.finished_at) setText(entry.cells.took, duration(entry.task.started_at, null));
    }
  }

  return { element: h('div', { class: 'table-wrap' }, table), setTasks, append, update, upsert, has: (id) => rows.has(id), tick };
}
