// Racks: the owned servers by site → rack → unit (the node's location), each unit coloured by
// health with a power dot; a unit opens its node. Cloud instances have no racks and are left out.

import { allPages } from '../api.js';
import { on } from '../bus.js';
import { h, fill, setText, setTone } from '../dom.js';
import { label, num, plural } from '../format.js';
import { nodeHref, replaceParams } from '../router.js';

const MIN_UNITS = 42;

function naturalCompare(a, b) {
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

function unitLabel(node) {
  return `U${node.location.unit} ${node.name}: health ${label(node.health)}, power ${label(node.power_state)}`;
}

export function mount(container, route) {
  let site = route.params.get('site') || '';
  let nodes = new Map();  // id → node
  const cells = new Map();  // id → the unit's <a>
  let loadSeq = 0;

  const siteSelect = h('select', { id: 'rack-site', 'data-testid': 'rack-site' });
  const status = h('span', { class: 'muted', role: 'status' });
  const body = h('div', { 'data-testid': 'racks' });
  const legend = h('ul', { class: 'legend', 'aria-label': 'Colours' },
    ['ok', 'warning', 'critical', 'unknown'].map((k) => h('li', {}, h('span', { class: `swatch health-${k}` }), label(k))),
    h('li', {}, h('span', { class: 'swatch empty' }), 'empty'),
    h('li', {}, '● on  ○ off'));
  container.append(
    h('div', { class: 'page-head' }, h('h1', {}, 'Racks'), h('span', { class: 'spacer' }), status),
    h('div', { class: 'rack-controls' },
      h('label', { for: 'rack-site' }, 'Site'), siteSelect, legend),
    body);

  siteSelect.addEventListener('change', () => {
    site = siteSelect.value;
    replaceParams('/racks', site ? { site } : null);
    draw();
  });

  function unitCell(node) {
    const a = h('a', { class: 'unit', href: nodeHref(node.id), 'data-node-id': node.id },
      h('span', { class: 'u', 'aria-hidden': 'true' }, `U${node.location.unit}`),
      h('span', { class: 'nm', 'aria-hidden': 'true' }, node.name),
      h('span', { class: 'pw', 'aria-hidden': 'true' }));
    paint(a, node);
    cells.set(node.id, a);
    return a;
  }

  function paint(a, node) {
    setTone(a, 'health-', node.health || 'unknown');
    a.dataset.health = node.health || 'unknown';
    a.setAttribute('aria-label', unitLabel(node));
    a.title = unitLabel(node);
    a.querySelector('.pw').classList.toggle('off', node.power_state !== 'on');
    setText(a.querySelector('.nm'), node.name);
  }

  function draw() {
    cells.clear();
    const bySite = new Map();
    const unplaced = [];
    for (const node of nodes.values()) {
      const loc = node.location || {};
      if (!loc.site || !loc.rack || loc.unit === null || loc.unit === undefined) {
        unplaced.push(node);
        continue;
      }
      if (!bySite.has(loc.site)) bySite.set(loc.site, new Map());
      const racks = bySite.get(loc.site);
      if (!racks.has(loc.rack)) racks.set(loc.rack, []);
      racks.get(loc.rack).push(node);
    }
    const sites = [...bySite.keys()].sort(naturalCompare);
    fill(siteSelect, h('option', { value: '' }, 'All sites'),
      sites.map((name) => h('option', { value: name, selected: name === site }, name)));
    if (site && !bySite.has(site)) site = '';
    const shown = site ? [site] : sites;
    const sections = shown.map((siteName) => {
      const racks = bySite.get(siteName);
      const figures = [...racks.keys()].sort(naturalCompare).map((rackName) => {
        const members = racks.get(rackName);
        const byUnit = new Map();
        for (const n of members) {
          const list = byUnit.get(n.location.unit) || [];
          list.push(n);
          byUnit.set(n.location.unit, list);
        }
        const height = Math.max(MIN_UNITS, ...members.map((n) => n.location.unit));
        const items = [];
        for (let u = 1; u <= height; u++) {
          const here = (byUnit.get(u) || []).sort((a, b) => naturalCompare(a.name, b.name));
          items.push(h('li', {}, here.length
            ? here.map(unitCell)
            : h('span', { class: 'unit empty', 'aria-hidden': 'true' }, h('span', { class: 'u' }, `U${u}`))));
        }
        const bad = members.filter((n) => n.health === 'critical' || n.health === 'warning').length;
        const unknown = members.filter((n) => !n.health || n.health === 'unknown').length;
        return h('figure', { class: 'rack', 'data-rack': rackName },
          h('figcaption', {}, h('span', {}, rackName), h('span', { class: 'muted' }, plural(members.length, 'server')),
            h('span', { class: ['attention', bad ? 'bad' : null] }, bad ? `${bad} need${bad === 1 ? 's' : ''} attention` : unknown ? `${unknown} of unknown health` : 'all healthy')),
          h('ol', { class: 'units', 'aria-label': `Rack ${rackName} at ${siteName}, unit 1 at the bottom` }, items));
      });
      return h('section', { class: 'site', 'data-site': siteName, 'aria-labelledby': `site-${siteName}` },
        h('h2', { id: `site-${siteName}` }, siteName), h('div', { class: 'racks' }, figures));
    });
    const extra = unplaced.length
      ? h('section', { class: 'section' }, h('h2', {}, `Without a rack position (${num(unplaced.length)})`),
        h('p', { class: 'muted' }, 'Owned servers whose location has no site, rack or unit: set it with PATCH /api/v1/nodes/{id}.'),
        h('ul', {}, unplaced.sort((a, b) => naturalCompare(a.name, b.name)).map((n) => h('li', {}, h('a', { href: nodeHref(n.id) }, n.name)))))
      : null;
    fill(body, sections.length ? sections : h('p', { class: 'empty' }, 'No owned servers with a rack position yet.'), extra);
  }

  async function load() {
    const seq = ++loadSeq;
    setText(status, 'Loading…');
    const fresh = new Map();
    try {
      await allPages('/api/v1/nodes', { source: 'bmc', limit: 1000 }, {
        onPage: (items, total) => {
          for (const n of items) fresh.set(n.id, n);
          if (seq === loadSeq) setText(status, `Loading… ${num(total)} servers`);
        },
      });
      if (seq !== loadSeq) return;
      nodes = fresh;
      draw();
      setText(status, plural(nodes.size, 'owned server'));
    } catch (e) {
      if (seq === loadSeq) setText(status, `Could not load the racks: ${e.message}`);
    }
  }

  const offs = [
    on('node.updated', (node) => {
      if (node.source !== 'bmc') return;
      if (node.retired_at) {
        if (nodes.delete(node.id)) draw();
        return;
      }
      const before = nodes.get(node.id);
      nodes.set(node.id, node);
      const moved = !before || JSON.stringify(before.location) !== JSON.stringify(node.location);
      if (moved) draw();
      else if (cells.has(node.id)) paint(cells.get(node.id), node);
    }),
    on('node.deleted', ({ id }) => {
      if (nodes.delete(id)) draw();
    }),
  ];

  load();
  return {
    refresh: load,
    update(next) {
      const wanted = next.params.get('site') || '';
      if (wanted !== site) {
        site = wanted;
        draw();
      }
    },
    destroy() {
      offs.forEach((off) => off());
    },
  };
}
