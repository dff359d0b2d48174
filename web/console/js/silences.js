// Silences: the dialog that silences one node's alerts for a while (POST /api/v1/silences with
// the selector {"ids": [node id]}), and the list of silences in force with End for each (DELETE
// /api/v1/silences/{id}). A silence keeps notifications quiet; alerts still fire and are listed.

import { api, del, post, query } from './api.js';
import { h, fill, setText, toast } from './dom.js';
import { ago, dateTime } from './format.js';
import { stateBadge, updateBadge } from './badges.js';
import { canAct, actReason } from './session.js';
import { confirmAction } from './dialog.js';

const DURATIONS = [['1h', '1 hour', 3600], ['4h', '4 hours', 4 * 3600], ['1d', '1 day', 86400], ['custom', 'Until…', null]];

// Node names for selectors that name nodes by id: learnt from alerts, asked for when missing.
const nodeNames = new Map();

export function rememberNodeName(id, name) {
  if (id && name) nodeNames.set(id, name);
}

function pad(n) {
  return String(n).padStart(2, '0');
}

// A time as <input type="datetime-local"> takes it (local, to the minute).
function localInputValue(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function field(labelText, control, hint) {
  return h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

// Asks how long to silence the alert's node and why; resolves with the new silence, or null.
export function silenceDialog(alert) {
  const node = alert.node_name || alert.node_id;
  const duration = h('select', { id: 'silence-duration', name: 'duration', 'data-testid': 'silence-duration' },
    DURATIONS.map(([value, text]) => h('option', { value }, text)));
  const endsAt = h('input', {
    type: 'datetime-local', id: 'silence-ends-at', name: 'ends_at', 'data-testid': 'silence-ends-at',
    value: localInputValue(Date.now() + 3600e3),
  });
  const custom = field('Ends at', endsAt, 'Your local time.');
  custom.hidden = true;
  duration.addEventListener('change', () => { custom.hidden = duration.value !== 'custom'; });
  const comment = h('input', {
    type: 'text', id: 'silence-comment', name: 'comment', 'data-testid': 'silence-comment', maxlength: '1000',
    placeholder: 'e.g. replacing the PSU, ticket 4711',
  });
  return confirmAction({
    title: `Silence ${node}?`,
    body: h('p', {}, `No notification about ${node} is sent until the silence ends. Its alerts still fire and are listed here; a change during the silence is not sent later.`),
    confirmLabel: 'Silence',
    fields: [field('For', duration), custom, field('Comment', comment, 'Who is on it and why: shown with the silence.')],
    run: () => {
      let ends;
      if (duration.value === 'custom') {
        ends = new Date(endsAt.value).getTime();
        if (Number.isNaN(ends)) throw new Error('Give the time the silence ends.');
        if (ends <= Date.now()) throw new Error('The end must be in the future.');
      } else {
        ends = Date.now() + DURATIONS.find(([value]) => value === duration.value)[2] * 1000;
      }
      const body = { selector: { ids: [alert.node_id] }, ends_at: new Date(ends).toISOString(), comment: comment.value.trim() };
      if (alert.project) body.project = alert.project;
      return post('/api/v1/silences', body);
    },
  });
}

export function describeSelector(selector) {
  return Object.entries(selector || {}).map(([key, value]) => {
    const values = Array.isArray(value) ? value : [value];
    if (key === 'ids') return `${values.length === 1 ? 'node' : 'nodes'} ${values.map((id) => nodeNames.get(id) || String(id).slice(0, 8)).join(', ')}`;
    return `${key} ${values.join(', ')}`;
  }).join(' · ') || '—';
}

function silenceState(s, now = Date.now()) {
  if (s.expired_at || Date.parse(s.ends_at) <= now) return 'ended';
  if (Date.parse(s.starts_at) > now) return 'scheduled';
  return 'active';
}

const COLUMNS = [['Nodes', null], ['Comment', '24%'], ['By', '10rem'], ['Since', '7.5rem'], ['Until', '11rem'], ['State', '7rem'], ['', '5.5rem']];

// The silences list: {element, load(), tick()}; `withEnded` shows the ended ones too.
export function silenceList() {
  const rows = new Map();  // id → {tr, cells, badge, end, silence}
  let withEnded = false;
  let loadSeq = 0;
  const tbody = h('tbody');
  const status = h('span', { class: 'muted', role: 'status' });
  const showEnded = h('input', { type: 'checkbox', id: 'silences-ended', 'data-testid': 'silences-ended' });
  const colgroup = h('colgroup', {}, COLUMNS.map(([, w]) => { const c = h('col'); if (w) c.style.width = w; return c; }));
  const element = h('section', { class: 'panel section', 'aria-labelledby': 'silences-title' },
    h('div', { class: 'section-head' }, h('h2', { id: 'silences-title' }, 'Silences'),
      h('label', { class: 'check' }, showEnded, 'Show ended ones'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': 'silences' }, colgroup,
      h('thead', {}, h('tr', {}, COLUMNS.map(([t]) => h('th', { scope: 'col' }, t)))), tbody)));
  showEnded.addEventListener('change', () => {
    withEnded = showEnded.checked;
    load();
  });

  function makeRow(s) {
    const cells = COLUMNS.map(() => h('td'));
    const tr = h('tr', { 'data-silence-id': s.id }, cells);
    const badge = stateBadge('active');
    cells[5].appendChild(badge);
    const end = h('button', { type: 'button', class: 'button small', 'data-testid': 'silence-end', 'data-action': 'silence-end' }, 'End');
    end.addEventListener('click', () => endSilence(rows.get(s.id).silence));
    cells[6].appendChild(end);
    return { tr, cells, badge, end, silence: s };
  }

  function fillRow(entry, s) {
    entry.silence = s;
    const [nodes, comment, by, since, until] = entry.cells;
    const what = describeSelector(s.selector);
    setText(nodes, what);
    nodes.title = `${what}${s.project ? ` (project ${s.project})` : ''}`;
    setText(comment, s.comment || '—');
    comment.title = s.comment || '';
    setText(by, s.created_by || '—');
    by.title = s.created_by ? `${s.created_by}, ${dateTime(s.created_at)}` : '';
    setText(since, ago(s.starts_at));
    since.title = dateTime(s.starts_at);
    const state = silenceState(s);
    const endIso = s.expired_at || s.ends_at;
    setText(until, `${dateTime(endIso)}`);
    until.title = state === 'ended' ? `ended ${ago(endIso)}` : `ends ${ago(endIso)}`;
    updateBadge(entry.badge, 'state', state);
    entry.tr.dataset.state = state;
    entry.end.hidden = state === 'ended';
    const reason = canAct(s.project) ? null : actReason(s.project);
    entry.end.disabled = Boolean(reason);
    entry.end.title = reason || 'End the silence now';
    if (reason) entry.end.dataset.reason = reason;
    else delete entry.end.dataset.reason;
  }

  async function endSilence(s) {
    const what = describeSelector(s.selector);
    const ended = await confirmAction({
      title: `End the silence of ${what}?`,
      body: h('p', {}, 'Notifications about these nodes are sent again from their next change. What changed during the silence is not sent.'),
      confirmLabel: 'End the silence',
      run: () => del(`/api/v1/silences/${encodeURIComponent(s.id)}`),
    });
    if (!ended) return;
    toast(`The silence of ${what} has ended.`, { kind: 'ok' });
    load();
  }

  // Names for the node ids the selectors hold that no alert has named yet (at most 50 asked for).
  async function learnNames(silences) {
    const unknown = new Set();
    for (const s of silences) for (const id of [].concat(s.selector?.ids || [])) if (!nodeNames.has(id)) unknown.add(id);
    if (!unknown.size) return;
    await Promise.allSettled([...unknown].slice(0, 50).map(async (id) => {
      const node = await api(`/api/v1/nodes/${encodeURIComponent(id)}`);
      rememberNodeName(node.id, node.name);
    }));
    for (const entry of rows.values()) fillRow(entry, entry.silence);
  }

  async function load() {
    const seq = ++loadSeq;
    setText(status, 'Loading…');
    try {
      const { items } = await api(`/api/v1/silences${query({ include_ended: withEnded ? 'true' : null })}`);
      if (seq !== loadSeq) return;
      const ordered = [];
      const keep = new Set();
      for (const s of items) {
        keep.add(s.id);
        let entry = rows.get(s.id);
        if (!entry) rows.set(s.id, entry = makeRow(s));
        fillRow(entry, s);
        ordered.push(entry.tr);
      }
      for (const id of [...rows.keys()]) if (!keep.has(id)) rows.delete(id);
      fill(tbody, ordered.length ? ordered
        : h('tr', { class: 'empty-row' }, h('td', { colspan: COLUMNS.length, class: 'muted' }, withEnded ? 'No silences.' : 'No silence is in force.')));
      setText(status, '');
      learnNames(items).catch(() => {});
    } catch (e) {
      if (seq === loadSeq) setText(status, `Could not load the silences: ${e.message}`);
    }
  }

  // Times move on; a silence that has run out says so.
  function tick() {
    for (const entry of rows.values()) fillRow(entry, entry.silence);
  }

  return { element, load, tick };
}
