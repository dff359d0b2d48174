// Which nodes have open (firing or acknowledged) alerts, and the worst severity of each: read from
// GET /api/v1/alerts?state=firing,acknowledged (every page, up to a cap) and kept current by
// alert.updated. Events that arrive while the list loads are applied again once it is in, so that
// an answer older than an event cannot undo it.

import { api, query } from './api.js';

const PAGE = 1000;
const MAX_PAGES = 20;  // 20,000 open alerts; past that the badges undercount rather than stall
const OPEN = new Set(['firing', 'acknowledged']);
const RANK = { warning: 1, critical: 2 };

export function openAlerts() {
  let byNode = new Map();  // node id → Map(alert id → severity)
  let loading = null;      // events seen while a load is on its way
  let seq = 0;

  function put(index, alert) {
    if (!alert || !alert.node_id) return;  // an account's or a rollout's: no node to mark
    const alerts = index.get(alert.node_id);
    if (OPEN.has(alert.state)) {
      if (alerts) alerts.set(alert.id, alert.severity);
      else index.set(alert.node_id, new Map([[alert.id, alert.severity]]));
    } else if (alerts && alerts.delete(alert.id) && alerts.size === 0) {
      index.delete(alert.node_id);
    }
  }

  // Reads the open alerts again; resolves with the ids of nodes whose badge may have changed.
  async function load() {
    const mine = ++seq;
    loading = [];
    const next = new Map();
    try {
      let before = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await api(`/api/v1/alerts${query({ state: [...OPEN], limit: PAGE, before })}`);
        if (mine !== seq) return [];
        for (const a of answer.items) put(next, a);
        before = answer.next_before;
        if (!before) break;
      }
    } catch (e) {
      // A server without alerts (404) shows no badges; anything else is tried at the next refresh.
      if (mine === seq) loading = null;
      if (e.status === 404 || e.status === 403) return [];
      throw e;
    }
    for (const a of loading) put(next, a);
    loading = null;
    const changed = new Set([...byNode.keys(), ...next.keys()]);
    byNode = next;
    return [...changed];
  }

  // An alert.updated event; returns the node id whose badge may have changed (or null).
  function apply(alert) {
    if (!alert || alert.id === undefined) return null;
    if (loading) loading.push(alert);
    put(byNode, alert);
    return alert.node_id || null;
  }

  // {count, worst} for a node, or null when it has no open alert.
  function of(nodeId) {
    const alerts = byNode.get(nodeId);
    if (!alerts || alerts.size === 0) return null;
    let worst = 'warning';
    for (const severity of alerts.values()) if ((RANK[severity] || 0) > (RANK[worst] || 0)) worst = severity;
    return { count: alerts.size, worst };
  }

  return { load, apply, of };
}
