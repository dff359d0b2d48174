// Cloud accounts: each account's provider, region, instances and sync status (last sync, next,
// errors), live from cloud_account.updated; operators ask for a sync now.

import { api, post } from '../api.js';
import { on } from '../bus.js';
import { h, fill, setText, toast } from '../dom.js';
import { ago, dateTime, num, sourceName } from '../format.js';
import { stateBadge, updateBadge } from '../badges.js';
import { canAct, actReason } from '../session.js';

const COLUMNS = [['Account', '16%'], ['Provider', '8rem'], ['Region', '9rem'], ['Instances', '6.5rem'], ['Sync', '8.5rem'],
  ['Last sync', '8rem'], ['Next', '7rem'], ['Last error', null], ['', '7.5rem']];

function syncState(a) {
  const s = a.sync || {};
  if (s.syncing) return 'syncing';
  if (s.last_error) return 'failed';
  if (s.last_sync_at) return 'succeeded';
  return 'pending';
}

export function mount(container) {
  const rows = new Map();  // id → {tr, cells, badge, button, account}
  const tbody = h('tbody');
  const status = h('span', { class: 'muted', role: 'status' });
  const colgroup = h('colgroup', {}, COLUMNS.map(([, w]) => { const c = h('col'); if (w) c.style.width = w; return c; }));
  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Cloud accounts'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': 'cloud-table' }, colgroup,
      h('thead', {}, h('tr', {}, COLUMNS.map(([t]) => h('th', { scope: 'col' }, t)))), tbody)),
    h('p', { class: 'muted section' }, 'Accounts are enrolled by an admin (POST /api/v1/cloud-accounts); each is listed every sync interval and right after an action. Credentials are write-only and never shown.'));

  function makeRow(a) {
    const cells = COLUMNS.map(() => h('td'));
    const tr = h('tr', { 'data-account-id': a.id }, cells);
    const badge = stateBadge(syncState(a));
    cells[4].appendChild(badge);
    const button = h('button', { type: 'button', class: 'button small', 'data-action': 'cloud-sync' }, 'Sync now');
    button.addEventListener('click', () => sync(rows.get(a.id).account, button));
    cells[8].appendChild(button);
    cells[3].appendChild(h('a'));
    return { tr, cells, badge, button, account: a };
  }

  function fillRow(entry, a) {
    entry.account = a;
    const s = a.sync || {};
    const [name, provider, region, count, , last, next, error] = entry.cells;
    setText(name, a.name);
    name.title = a.name;
    setText(provider, sourceName(a.provider));
    setText(region, a.region || '—');
    const link = count.firstChild;
    setText(link, num(a.node_count ?? 0));
    link.href = `#/?driver=${encodeURIComponent(a.provider)}`;
    link.title = `The fleet's ${sourceName(a.provider)} instances`;
    updateBadge(entry.badge, 'state', syncState(a));
    setText(last, s.last_sync_at ? ago(s.last_sync_at) : 'never');
    last.title = s.last_sync_at ? `${dateTime(s.last_sync_at)}${s.duration_ms ? `, took ${num(Math.round(s.duration_ms))} ms` : ''}` : '';
    setText(next, s.next_sync_at ? ago(s.next_sync_at) : '—');
    next.title = s.next_sync_at ? dateTime(s.next_sync_at) : '';
    const err = s.last_error ? `${s.last_error}${s.last_error_message ? `: ${s.last_error_message}` : ''}${s.failures ? ` (${s.failures} failures)` : ''}` : '';
    setText(error, err || '—');
    error.title = err;
    error.classList.toggle('err', Boolean(err));
    entry.button.disabled = !canAct() || Boolean(s.syncing);
    entry.button.title = !canAct() ? actReason() : s.syncing ? 'Syncing now' : `List ${a.name}'s instances now`;
  }

  async function sync(a, button) {
    button.disabled = true;
    try {
      await post(`/api/v1/cloud-accounts/${encodeURIComponent(a.id)}/sync`);
      toast(`Sync of ${a.name} asked for.`, { kind: 'ok' });
    } catch (e) {
      toast(`Could not sync ${a.name}: ${e.message}`, { kind: 'error' });
    } finally {
      button.disabled = !canAct();
    }
  }

  function apply(a) {
    let entry = rows.get(a.id);
    if (!entry) {
      entry = makeRow(a);
      rows.set(a.id, entry);
      tbody.querySelector('.empty-row')?.remove();
      tbody.appendChild(entry.tr);
    }
    fillRow(entry, a);
  }

  async function load() {
    setText(status, 'Loading…');
    try {
      const { items } = await api('/api/v1/cloud-accounts');
      const keep = new Set(items.map((a) => a.id));
      for (const [id, entry] of rows) if (!keep.has(id)) { entry.tr.remove(); rows.delete(id); }
      for (const a of items) apply(a);
      if (!items.length) fill(tbody, h('tr', { class: 'empty-row' }, h('td', { colspan: COLUMNS.length, class: 'muted' }, 'No cloud accounts.')));
      setText(status, '');
    } catch (e) {
      setText(status, `Could not load the accounts: ${e.message}`);
    }
  }

  const offs = [
    on('cloud_account.updated', (a) => { if (a && a.id) apply(a); }),
    // A deleted account leaves the list; its nodes were retired with it.
    on('cloud_account.deleted', (a) => {
      const entry = a && rows.get(a.id);
      if (entry) { entry.tr.remove(); rows.delete(a.id); }
    }),
  ];
  const ticker = setInterval(() => { for (const entry of rows.values()) fillRow(entry, entry.account); }, 15000);
  load();
  return {
    refresh: load,
    destroy() {
      offs.forEach((off) => off());
      clearInterval(ticker);
    },
  };
}
