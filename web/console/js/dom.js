// Small DOM helpers: elements are built with h() and updated in place; nothing is parsed from
// HTML strings, so text from the API can never become markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function append(parent, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(parent, c);
  } else if (child instanceof Node) {
    parent.appendChild(child);
  } else {
    parent.appendChild(document.createTextNode(String(child)));
  }
}

function setAttributes(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') {
      el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (key === 'text') {
      el.textContent = value;
    } else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'value' && 'value' in el) {
      el.value = value;
    } else if (key === 'checked' || key === 'selected') {
      el[key] = Boolean(value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
}

// h('button', {class: 'button', onclick: fn, 'data-action': 'power-on'}, 'Power on')
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttributes(el, attrs);
  append(el, children);
  return el;
}

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttributes(el, attrs);
  append(el, children);
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function fill(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

// Sets an element's text only when it changed (no needless layout work while data streams in).
export function setText(el, text) {
  const value = text === null || text === undefined ? '' : String(text);
  if (el.textContent !== value) el.textContent = value;
}

// Replaces the classes that start with `prefix` by `prefix + value`.
export function setTone(el, prefix, value) {
  for (const c of [...el.classList]) if (c.startsWith(prefix)) el.classList.remove(c);
  if (value) el.classList.add(prefix + value);
}

export function debounce(fn, ms) {
  let timer = null;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

// At most one call per `ms`, the last one always made.
export function throttle(fn, ms) {
  let last = 0;
  let timer = null;
  const wrapped = () => {
    const now = Date.now();
    clearTimeout(timer);
    if (now - last >= ms) {
      last = now;
      fn();
    } else {
      timer = setTimeout(() => { last = Date.now(); fn(); }, ms - (now - last));
    }
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

let toastHost = null;

export function toast(message, { kind = 'info', link = null, timeout = 6000 } = {}) {
  toastHost = toastHost || document.getElementById('toasts');
  if (!toastHost) return;
  const el = h('div', { class: ['toast', kind], role: kind === 'error' ? 'alert' : null },
    message, link ? [' ', h('a', { href: link.href }, link.text)] : null);
  toastHost.appendChild(el);
  setTimeout(() => el.remove(), kind === 'error' ? timeout * 2 : timeout);
}

// Appends children as h() takes them: nodes, text, arrays, and nothing for null/false.
export function add(parent, ...children) {
  append(parent, children);
  return parent;
}
