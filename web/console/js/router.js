// Hash routes: #/ (fleet), #/racks, #/nodes/<id>, #/alerts, #/tasks, #/firmware, #/cloud, #/capacity, #/cost, #/signin; a
// view's own state follows a '?' (#/?health=critical&sort=-last_seen).

const ROUTES = [
  [/^\/?$/, 'overview'],
  [/^\/racks$/, 'racks'],
  [/^\/nodes\/([^/]+)$/, 'node'],
  [/^\/alerts$/, 'alerts'],
  [/^\/tasks$/, 'tasks'],
  [/^\/firmware$/, 'firmware'],
  [/^\/cloud$/, 'cloud'],
  [/^\/capacity$/, 'capacity'],
  [/^\/cost$/, 'cost'],
  [/^\/signin$/, 'signin'],
];

export function currentRoute() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  for (const [pattern, name] of ROUTES) {
    const m = pattern.exec(path);
    if (m) return { name, path, params, args: m.slice(1).map(decodeURIComponent) };
  }
  return { name: 'notfound', path, params, args: [] };
}

export function href(path, params) {
  const text = params ? new URLSearchParams(params).toString() : '';
  return `#${path}${text ? `?${text}` : ''}`;
}

export function nodeHref(id) {
  return `#/nodes/${encodeURIComponent(id)}`;
}

export function go(path, params) {
  location.hash = href(path, params);
}

// Changes the view's state in the address without a new history entry (typing in a search box).
export function replaceParams(path, params) {
  history.replaceState(null, '', href(path, params));
}
