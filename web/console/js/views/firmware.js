// Firmware: staged rollouts with per-node progress and pause/resume/abort (live from
// rollout.updated and task.updated), compliance against the baselines, and the images.

import { api, post } from '../api.js';
import { on } from '../bus.js';
import { h, add, fill, setText, toast } from '../dom.js';
import { ago, bytes, dateTime, num, plural } from '../format.js';
import { nodeHref, replaceParams } from '../router.js';
import { stateBadge } from '../badges.js';
import { canAct, actReason } from '../session.js';
import { confirmAction } from '../dialog.js';
import { taskProgress } from '../taskinfo.js';

const TABS = [['rollouts', 'Rollouts'], ['compliance', 'Compliance'], ['images', 'Images']];
const FINISHED = new Set(['succeeded', 'aborted']);
const NODE_DONE = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

function cols(widths) {
  return h('colgroup', {}, widths.map((w) => {
    const c = h('col');
    if (w) c.style.width = w;
    return c;
  }));
}

function table(testid, widths, headers, body) {
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data', 'data-testid': testid }, cols(widths),
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', { scope: 'col' }, t)))), body));
}

function rolloutName(r) {
  return `${r.image?.name || 'image'} ${r.image?.version || ''} (${r.image?.component || 'component'})`.trim();
}

function rolloutDone(r) {
  const c = r.counts || {};
  return ['succeeded', 'failed', 'skipped', 'cancelled'].reduce((n, k) => n + (c[k] || 0), 0);
}

// Rollouts: a list, and the one selected with its nodes.
function rolloutsTab(params) {
  let selected = params.get('rollout') || null;
  let list = [];
  let detail = null;
  const taskCache = new Map();  // task id → task, from task.updated
  const listBody = h('tbody');
  const detailHost = h('div', { class: 'section', 'data-testid': 'rollout-detail' });
  const element = h('div', {},
    table('rollout-table', ['24%', '8.5rem', '12rem', '9rem', '10rem', null], ['Image', 'State', 'Progress', 'Nodes', 'Started', 'Requested by'], listBody),
    detailHost);

  function listRow(r) {
    const bar = h('progress', { max: String(Math.max(1, r.matched)), value: String(rolloutDone(r)) });
    const tr = h('tr', { class: 'clickable', tabindex: '0', 'data-rollout-id': r.id, 'aria-current': r.id === selected ? 'true' : null },
      h('td', { title: rolloutName(r) }, h('a', { href: `#/firmware?rollout=${encodeURIComponent(r.id)}`, tabindex: '-1' }, rolloutName(r))),
      h('td', {}, stateBadge(r.state)),
      h('td', {}, h('span', { class: 'progress' }, bar, h('span', { class: 'pct' }, `${rolloutDone(r)}/${r.matched}`))),
      h('td', {}, `${r.counts?.failed ? `${r.counts.failed} failed · ` : ''}${plural(r.matched, 'node')}`),
      h('td', { title: dateTime(r.created_at) }, ago(r.created_at)),
      h('td', {}, r.requested_by || '—'));
    const open = () => select(r.id);
    tr.addEventListener('click', (e) => { if (!e.target.closest('a')) open(); });
    tr.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
    return tr;
  }

  function drawList() {
    fill(listBody, list.length ? list.map(listRow)
      : h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No rollouts yet: start one with POST /api/v1/firmware/rollouts or ironhold rollout start.')));
  }

  function select(id) {
    selected = id;
    replaceParams('/firmware', { tab: 'rollouts', rollout: id });
    for (const tr of listBody.querySelectorAll('tr[data-rollout-id]')) { if (tr.dataset.rolloutId === id) tr.setAttribute('aria-current', 'true'); else tr.removeAttribute('aria-current'); };
    loadDetail();
  }

  async function steer(r, verb) {
    const text = {
      pause: 'No new node starts; updates under way end as they end.',
      resume: 'The rollout carries on; the failures so far are accepted.',
      abort: 'Pending nodes are cancelled with the updates still queued; running ones end, then the rollout is finished.',
    }[verb];
    const result = await confirmAction({
      title: `${verb.replace(/^./, (c) => c.toUpperCase())} the rollout of ${rolloutName(r)}?`,
      body: h('p', {}, text, ' ', h('span', { class: 'muted' }, `${plural(r.matched, 'node')}, ${rolloutDone(r)} done.`)),
      confirmLabel: verb.replace(/^./, (c) => c.toUpperCase()),
      danger: verb === 'abort',
      run: () => post(`/api/v1/firmware/rollouts/${encodeURIComponent(r.id)}/${verb}`),
    });
    if (result) {
      toast(`Rollout ${verb}${verb.endsWith('e') ? 'd' : 'ed'}.`, { kind: 'ok' });
      if (result.id) applyRollout(result);
    }
  }

  function drawDetail() {
    const r = detail;
    if (!r) {
      fill(detailHost);
      return;
    }
    // Redrawn on every update: the button that had focus gets it back.
    const focused = detailHost.contains(document.activeElement) ? document.activeElement.dataset.action : null;
    const acting = canAct();
    const steerButton = (verb, allowed, why) => {
      const b = h('button', { type: 'button', class: ['button', 'small', verb === 'abort' ? 'danger' : null], 'data-action': `rollout-${verb}` },
        verb.replace(/^./, (c) => c.toUpperCase()));
      const reason = !acting ? actReason() : allowed ? null : why;
      b.disabled = Boolean(reason);
      b.title = reason || '';
      b.addEventListener('click', () => steer(r, verb));
      return b;
    };
    const counts = r.counts || {};
    const nodeRows = (r.nodes || []).map((n) => {
      const task = n.task_id ? taskCache.get(n.task_id) : null;
      const pct = NODE_DONE.has(n.state) ? 100 : task ? Math.round(taskProgress(task) * 100) : n.state === 'gating' ? 100 : 0;
      const bar = h('progress', { max: '100', value: String(pct), class: n.state === 'failed' ? 'failed' : n.state === 'succeeded' ? 'done' : null });
      return h('tr', { 'data-node-id': n.node_id },
        h('td', { title: n.node_name }, h('a', { href: nodeHref(n.node_id) }, n.node_name)),
        h('td', {}, n.canary ? `${n.batch} (canary)` : String(n.batch)),
        h('td', {}, n.rack || '—'),
        h('td', {}, stateBadge(n.state)),
        h('td', {}, h('span', { class: 'progress' }, bar, h('span', { class: 'pct' }, `${pct} %`))),
        h('td', {}, `${n.from_version || '?'} → ${r.image?.version || '?'}`),
        h('td', { class: n.error ? 'err' : 'muted', title: n.error || '' }, n.error || (n.gate_until && n.state === 'gating' ? `health gate until ${dateTime(n.gate_until)}` : '—')));
    });
    fill(detailHost, h('section', { class: 'panel', 'aria-labelledby': 'rollout-title' },
      h('div', { class: 'section-head' },
        h('h2', { id: 'rollout-title' }, `Rollout of ${rolloutName(r)}`), stateBadge(r.state), h('span', { class: 'spacer' }),
        steerButton('pause', r.state === 'running', 'Only a running rollout can be paused'),
        steerButton('resume', r.state === 'paused' || r.state === 'halted', 'Only a paused or halted rollout can be resumed'),
        steerButton('abort', !FINISHED.has(r.state), 'The rollout has finished')),
      r.halt_reason ? h('p', { class: 'node-error' }, `Halted: ${r.halt_reason}`) : null,
      h('p', { class: 'muted' },
        `${plural(r.matched, 'node')} in ${plural(r.batches, 'batch', 'batches')} · canary ${r.canary} · batch size ${r.batch_size} · at most ${r.max_parallel_per_rack} per rack · `,
        `max failures ${r.max_failures} · health gate ${r.health_gate_seconds} s · `,
        Object.entries(counts).filter(([, n]) => n).map(([k, n]) => `${n} ${k}`).join(', ')),
      table('rollout-nodes', ['16%', '7rem', '6rem', '8.5rem', '10.5rem', '11rem', null],
        ['Node', 'Batch', 'Rack', 'State', 'Progress', 'Version', 'Note'], h('tbody', {}, nodeRows))));
    if (focused) detailHost.querySelector(`[data-action="${focused}"]`)?.focus();
  }

  async function loadDetail() {
    if (!selected) {
      detail = null;
      drawDetail();
      return;
    }
    try {
      detail = await api(`/api/v1/firmware/rollouts/${encodeURIComponent(selected)}`);
    } catch (e) {
      fill(detailHost, h('p', { class: 'error-text' }, `Could not load the rollout: ${e.message}`));
      return;
    }
    drawDetail();
  }

  async function load() {
    const page = await api('/api/v1/firmware/rollouts?limit=100');
    list = page.items;
    if (!selected && list.length) selected = (list.find((r) => !FINISHED.has(r.state)) || list[0]).id;
    drawList();
    await loadDetail();
  }

  function applyRollout(r) {
    const i = list.findIndex((x) => x.id === r.id);
    if (i >= 0) list[i] = r;
    else list.unshift(r);
    drawList();
    if (r.id === selected) {
      if (r.nodes) {
        detail = r;
        drawDetail();
      } else {
        loadDetail();
      }
    }
  }

  const offs = [
    on('rollout.updated', applyRollout),
    on('task.updated', (task) => {
      if (task.kind !== 'firmware' || !detail) return;
      if ((detail.nodes || []).some((n) => n.task_id === task.id)) {
        taskCache.set(task.id, task);
        drawDetail();
      }
    }),
  ];
  return { element, load, destroy: () => offs.forEach((off) => off()) };
}

function complianceTab() {
  const host = h('div', {});
  async function load() {
    const [baselines, report] = await Promise.all([api('/api/v1/firmware/baselines'), api('/api/v1/firmware/compliance')]);
    const baselineRows = baselines.items.map((b) => h('tr', {},
      h('td', { title: b.model }, b.model),
      h('td', { class: 'wrap' }, Object.entries(b.components || {}).map(([c, v]) => `${c} ${v}`).join(', ')),
      h('td', {}, b.updated_by || '—'), h('td', { title: dateTime(b.updated_at) }, ago(b.updated_at))));
    const issueRows = report.items.map((i) => h('tr', { 'data-node-id': i.node_id },
      h('td', {}, h('a', { href: nodeHref(i.node_id) }, i.node_name)), h('td', { title: i.model }, i.model),
      h('td', {}, i.component), h('td', { class: 'mono' }, i.expected), h('td', { class: 'mono' }, i.actual ?? '—'),
      h('td', {}, h('span', { class: ['badge', i.status === 'missing' ? 'health-critical' : 'health-warning'] }, i.status))));
    const compliant = report.nodes_checked ? Math.round((report.nodes_compliant / report.nodes_checked) * 100) : 100;
    fill(host,
      h('section', { class: 'panel' },
        h('div', { class: 'section-head' }, h('h2', {}, 'Compliance'), h('span', { class: 'spacer' }),
          h('a', { class: 'button small', href: '/api/v1/firmware/compliance?format=csv', download: 'firmware-compliance.csv' }, 'Download CSV')),
        h('p', { 'data-testid': 'compliance-summary' },
          report.nodes_checked ? `${num(report.nodes_compliant)} of ${plural(report.nodes_checked, 'node')} with a baseline comply (${compliant} %).`
            : 'No node has a baseline for its model yet.'),
        table('compliance-table', ['16%', '18%', '10rem', '9rem', '9rem', '7.5rem'], ['Node', 'Model', 'Component', 'Expected', 'Actual', 'Status'],
          h('tbody', {}, issueRows.length ? issueRows : h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Every node with a baseline complies.'))))),
      h('section', { class: 'panel section' }, h('h2', {}, 'Baselines'),
        table('baseline-table', ['22%', null, '11rem', '8rem'], ['Model', 'Versions', 'Set by', 'Updated'],
          h('tbody', {}, baselineRows.length ? baselineRows : h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No baselines: an admin sets them with PUT /api/v1/firmware/baselines/{model}.'))))));
  }
  return { element: host, load, destroy() {} };
}

function imagesTab() {
  const body = h('tbody');
  const element = table('image-table', ['18%', '8rem', '8rem', '16%', '7rem', '12rem', '9rem', '8rem'],
    ['Name', 'Version', 'Component', 'Model', 'Size', 'SHA-256', 'Uploaded by', 'Uploaded'], body);
  async function load() {
    const { items } = await api('/api/v1/firmware/images');
    fill(body, items.length ? items.map((i) => h('tr', { 'data-image-id': i.id },
      h('td', { title: i.name }, i.name), h('td', { class: 'mono' }, i.version), h('td', {}, i.component),
      h('td', { title: i.model || 'any' }, i.model || 'any'), h('td', {}, bytes(i.size)),
      h('td', { class: 'mono', title: i.sha256 }, `${(i.sha256 || '').slice(0, 16)}…`), h('td', {}, i.uploaded_by || '—'),
      h('td', { title: dateTime(i.created_at) }, ago(i.created_at))))
      : h('tr', {}, h('td', { colspan: 8, class: 'muted' }, 'No images: an admin uploads them with ironhold firmware upload.')));
  }
  return { element, load, destroy() {} };
}

export function mount(container, route) {
  let tab = TABS.some(([k]) => k === route.params.get('tab')) ? route.params.get('tab') : 'rollouts';
  const status = h('span', { class: 'muted', role: 'status' });
  const panels = { rollouts: rolloutsTab(route.params), compliance: complianceTab(), images: imagesTab() };
  const tabButtons = TABS.map(([key, text]) => h('button', {
    type: 'button', role: 'tab', id: `tab-${key}`, 'aria-controls': `panel-${key}`, 'data-tab': key,
  }, text));
  const tabList = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Firmware' }, tabButtons);
  const panelHosts = TABS.map(([key]) => h('div', { role: 'tabpanel', id: `panel-${key}`, 'aria-labelledby': `tab-${key}` }, panels[key].element));
  add(container, h('div', { class: 'page-head' }, h('h1', {}, 'Firmware'), h('span', { class: 'spacer' }), status), tabList, panelHosts);

  function show(key, focus = false) {
    tab = key;
    tabButtons.forEach((b, i) => {
      const on = b.dataset.tab === key;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      panelHosts[i].hidden = !on;
      if (on && focus) b.focus();
    });
    load();
  }

  async function load() {
    setText(status, 'Loading…');
    try {
      await panels[tab].load();
      setText(status, '');
    } catch (e) {
      setText(status, `Could not load: ${e.message}`);
    }
  }

  tabButtons.forEach((b, i) => {
    b.addEventListener('click', () => {
      replaceParams('/firmware', { tab: b.dataset.tab });
      show(b.dataset.tab);
    });
    b.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const next = tabButtons[(i + (e.key === 'ArrowRight' ? 1 : tabButtons.length - 1)) % tabButtons.length];
      replaceParams('/firmware', { tab: next.dataset.tab });
      show(next.dataset.tab, true);
    });
  });

  show(tab);
  return {
    refresh: load,
    destroy() {
      Object.values(panels).forEach((p) => p.destroy());
    },
  };
}
