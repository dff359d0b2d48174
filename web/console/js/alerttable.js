// A table of alerts, used by the Alerts page and a node's page: severity, summary, node, state,
// first and last seen, who acknowledged it; Acknowledge on a firing alert and Silence… on an
// alert of a node, for operators. Rows are updated in place from alert.updated and kept newest
// first (by id).

import { post } from './api.js';
import { h, fill, setText, toast } from './dom.js';
import { ago, dateTime, label, plural } from './format.js';
import { nodeHref } from './router.js';
import { severityBadge, stateBadge, updateBadge } from './badges.js';
import { canAct, actReason } from './session.js';
import { rememberNodeName, silenceDialog } from './silences.js';

const STATE_RANK = { firing: 0, acknowledged: 1, resolved: 2 };

function columns(showNode) {
  return [
    ['severity', 'Severity', '6.4rem'],
    ['summary', 'Summary', null],
    showNode ? ['node', 'Node', '10rem'] : null,
    ['state', 'State', '8.4rem'],
    ['first', 'First seen', '7rem'],
    ['last', 'Last seen', '7rem'],
    ['ack', 'Acknowledged by', '11rem'],
    ['act', '', '16rem'],
  ].filter(Boolean);
}

// Whether `next` is older than what a row shows (a page that loaded while events arrived).
function older(next, shown) {
  const a = Date.parse(next.last_seen);
  const b = Date.parse(shown.last_seen);
  if (a !== b) return a < b;
  return (STATE_RANK[next.state] ?? 0) < (STATE_RANK[shown.state] ?? 0);
}

// alertTable({showNode, testid, emptyText, onSilenced}) → {element, setAlerts, append, update,
// upsert, has, tick}. `onSilenced(silence)` hears of each silence made from a row.
export function alertTable({ showNode = true, testid = 'alerts-table', emptyText = 'No alerts.', onSilenced = null } = {}) {
  const cols = columns(showNode);
  const rows = new Map();  // id → {tr, cells, alert, severity, state, ackButton, silenceButton}
  const tbody = h('tbody');
  const colgroup = h('colgroup', {}, cols.map(([, , w]) => {
    const col = h('col');
    if (w) col.style.width = w;
    return col;
  }));
  const table = h('table', { class: 'data alerts', 'data-testid': testid },
    h('caption', { class: 'visually-hidden' }, 'Alerts, newest first'),
    colgroup, h('thead', {}, h('tr', {}, cols.map(([, title]) => h('th', { scope: 'col' }, title)))), tbody);
  const empty = h('tr', { class: 'empty-row' }, h('td', { colspan: cols.length, class: 'muted' }, emptyText));

  function makeRow(alert) {
    const cells = {};
    const tr = h('tr', { 'data-testid': 'alert-row', 'data-alert-id': alert.id });
    for (const [key] of cols) tr.appendChild(cells[key] = h('td'));
    const severity = severityBadge(alert.severity);
    cells.severity.appendChild(severity);
    cells.summary.classList.add('alert-summary');
    cells.summary.append(h('span', { class: 'text' }), h('span', { class: 'source muted' }));
    if (showNode) cells.node.appendChild(h('a'));
    const state = stateBadge(alert.state);
    cells.state.appendChild(state);
    const ackButton = h('button', { type: 'button', class: 'button small', 'data-testid': 'alert-ack', 'data-action': 'alert-ack' }, 'Acknowledge');
    const silenceButton = h('button', { type: 'button', class: 'button small', 'data-testid': 'alert-silence', 'data-action': 'alert-silence' }, 'Silence…');
    cells.act.classList.add('row-actions');
    cells.act.append(ackButton, silenceButton);
    const entry = { tr, cells, alert, severity, state, ackButton, silenceButton, busy: false };
    ackButton.addEventListener('click', () => acknowledge(entry));
    silenceButton.addEventListener('click', () => silence(entry));
    fillRow(entry, alert);
    return entry;
  }

  function enable(button, reason, title) {
    button.disabled = Boolean(reason);
    button.title = reason || title;
    if (reason) button.dataset.reason = reason;
    else delete button.dataset.reason;
  }

  function fillRow(entry, alert) {
    entry.alert = alert;
    rememberNodeName(alert.node_id, alert.node_name);
    const { cells, tr } = entry;
    tr.dataset.state = alert.state;
    tr.dataset.severity = alert.severity;
    tr.dataset.source = alert.source;
    if (alert.node_id) tr.dataset.nodeId = alert.node_id;
    updateBadge(entry.severity, 'sev', alert.severity);
    const details = alert.details && Object.keys(alert.details).length ? `\n${JSON.stringify(alert.details)}` : '';
    setText(cells.summary.firstChild, alert.summary);
    setText(cells.summary.lastChild, ` · ${label(alert.source)}${alert.occurrences > 1 ? ` · ${plural(alert.occurrences, 'time')}` : ''}${alert.flapping ? ' · flapping' : ''}`);
    cells.summary.title = `${alert.summary} (${alert.source}, ${alert.fingerprint})${details}`;
    if (showNode) {
      const a = cells.node.firstChild;
      setText(a, alert.node_name || '—');
      if (alert.node_id) a.href = nodeHref(alert.node_id);
      else a.removeAttribute('href');
      a.title = alert.node_name ? `Open ${alert.node_name}` : '';
    }
    updateBadge(entry.state, 'state', alert.state);
    entry.state.title = alert.state === 'resolved' ? `resolved ${dateTime(alert.resolved_at)}` : label(alert.state);
    setText(cells.first, ago(alert.first_seen));
    cells.first.title = dateTime(alert.first_seen);
    setText(cells.last, ago(alert.last_seen));
    cells.last.title = dateTime(alert.last_seen);
    setText(cells.ack, alert.acknowledged_by || '—');
    cells.ack.title = alert.acknowledged_by ? `${alert.acknowledged_by}, ${dateTime(alert.acknowledged_at)}` : '';
    const role = canAct(alert.project) ? null : actReason(alert.project);
    entry.ackButton.hidden = alert.state !== 'firing';
    enable(entry.ackButton, role || (entry.busy ? 'Acknowledging…' : null), 'Say that someone is on it (the alert keeps firing until its cause ends)');
    entry.silenceButton.hidden = !alert.node_id;
    enable(entry.silenceButton, role, `Silence the notifications about ${alert.node_name || 'this node'} for a while`);
  }

  async function acknowledge(entry) {
    const { alert } = entry;
    entry.busy = true;
    fillRow(entry, alert);
    try {
      const acknowledged = await post(`/api/v1/alerts/${encodeURIComponent(alert.id)}/ack`);
      entry.busy = false;
      update(acknowledged);
      fillRow(entry, entry.alert);  // the button too, when an event got there first
    } catch (e) {
      entry.busy = false;
      fillRow(entry, entry.alert);
      toast(`Could not acknowledge “${alert.summary}”: ${e.message}`, { kind: 'error' });
    }
  }

  async function silence(entry) {
    const made = await silenceDialog(entry.alert);
    if (!made) return;
    toast(`${entry.alert.node_name || 'The node'} is silenced until ${dateTime(made.ends_at)}.`, { kind: 'ok' });
    if (onSilenced) onSilenced(made);
  }

  // Where a row of this id goes: before the first row with a smaller id (newest first).
  function placeOf(id) {
    for (const tr of tbody.children) if (tr.dataset.alertId && Number(tr.dataset.alertId) < id) return tr;
    return null;
  }

  // Replaces the whole list (a load or a refresh); rows already shown are reused.
  function setAlerts(alerts) {
    const keep = new Set();
    const ordered = [];
    for (const a of alerts) {
      keep.add(a.id);
      let entry = rows.get(a.id);
      if (entry) fillRow(entry, a);
      else rows.set(a.id, entry = makeRow(a));
      ordered.push(entry.tr);
    }
    for (const id of [...rows.keys()]) if (!keep.has(id)) rows.delete(id);
    fill(tbody, ordered.length ? ordered : empty);
  }

  // Older alerts below (the next page).
  function append(alerts) {
    empty.remove();
    for (const a of alerts) {
      if (rows.has(a.id)) continue;
      const entry = makeRow(a);
      rows.set(a.id, entry);
      tbody.appendChild(entry.tr);
    }
  }

  // An update of an alert in the table; false when the table does not hold it.
  function update(alert) {
    const entry = rows.get(alert.id);
    if (!entry) return false;
    if (older(alert, entry.alert)) return true;
    const changed = alert.state !== entry.alert.state || alert.severity !== entry.alert.severity;
    fillRow(entry, alert);
    if (changed) flash(entry.tr);
    return true;
  }

  // Updates, or inserts in its place (newest first), highlighted.
  function upsert(alert) {
    if (update(alert)) return;
    empty.remove();
    const entry = makeRow(alert);
    const before = placeOf(alert.id);
    rows.set(alert.id, entry);
    tbody.insertBefore(entry.tr, before);
    flash(entry.tr);
  }

  function flash(tr) {
    tr.classList.remove('flash');
    void tr.offsetWidth;  // restart the highlight
    tr.classList.add('flash');
  }

  // The oldest id shown (rows are newest first), or null.
  function oldest() {
    let min = null;
    for (const id of rows.keys()) if (min === null || id < min) min = id;
    return min;
  }

  function tick() {
    for (const entry of rows.values()) {
      setText(entry.cells.first, ago(entry.alert.first_seen));
      setText(entry.cells.last, ago(entry.alert.last_seen));
    }
  }

  return {
    element: h('div', { class: 'table-wrap' }, table),
    setAlerts, append, update, upsert, oldest, tick,
    has: (id) => rows.has(id),
    size: () => rows.size,
  };
}
