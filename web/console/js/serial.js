// The serial console page (/serial-console#<node>): the node's console in xterm.js over the
// WebSocket GET /api/v1/nodes/{id}/console (binary messages are bytes both ways, text messages
// JSON controls), and the output kept from before (console/log). It lives in a document of its
// own: xterm.js writes its cell sizes and colours into <style> elements, which the console's
// strict Content-Security-Policy forbids.

import { api } from './api.js';

const nodeRef = decodeURIComponent(location.hash.replace(/^#/, ''));
const statusEl = document.getElementById('serial-status');
const breakButton = document.getElementById('send-break');
const reconnectButton = document.getElementById('reconnect');
const logButton = document.getElementById('show-log');
const logPanel = document.getElementById('serial-log');
const logText = document.getElementById('serial-log-text');
const nodeLink = document.getElementById('node-link');

const encoder = new TextEncoder();
let socket = null;
let writer = false;
let endedWhy = null;

function setStatus(state, text) {
  statusEl.dataset.state = state;
  statusEl.textContent = text;
}

const term = new window.Terminal({
  cursorBlink: true,
  scrollback: 10000,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  fontSize: 14,
});
const terminalBox = document.getElementById('terminal');
term.open(terminalBox);
// A click anywhere on the black box (it is larger than the 80 columns) gives the keys back to the
// terminal.
terminalBox.addEventListener('click', () => term.focus());

// Keys go to the host as they are typed; a read-only viewer's are refused by the service, which
// says so (and the status already does).
term.onData((data) => {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
});

function onControl(message) {
  if (message.type === 'attached') {
    writer = Boolean(message.writer);
    nodeLink.textContent = message.node_name || nodeRef;
    setStatus(writer ? 'writer' : 'reader',
      writer ? `Connected (${message.protocol}): you have the keyboard` : `Connected (${message.protocol}): read-only, someone else is typing`);
    breakButton.disabled = !writer;
    term.focus();
  } else if (message.type === 'refused') {
    term.write(`\r\n\x1b[33m[${message.reason}]\x1b[0m\r\n`);
  } else if (message.type === 'ended') {
    endedWhy = message.reason;
  }
}

// Why the WebSocket could not open: the browser does not say, so the route is asked without the
// upgrade; it answers 426 when everything but the BMC itself was fine.
async function whyNotOpened() {
  try {
    await api(`/api/v1/nodes/${encodeURIComponent(nodeRef)}/console`);
  } catch (e) {
    if (e.status === 401) return 'you are not signed in: sign in to the console first';
    if (e.status !== 426) return e.message;
  }
  return 'the BMC did not open its console (it may be unreachable, refuse the credentials, or have no serial console)';
}

function connect() {
  endedWhy = null;
  let attached = false;
  reconnectButton.hidden = true;
  setStatus('connecting', 'Connecting…');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  socket = new WebSocket(`${scheme}://${location.host}/api/v1/nodes/${encodeURIComponent(nodeRef)}/console`);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (event) => {
    if (typeof event.data === 'string') {
      const message = JSON.parse(event.data);
      if (message.type === 'attached') attached = true;
      onControl(message);
    } else {
      term.write(new Uint8Array(event.data));
    }
  };
  socket.onclose = async (event) => {
    socket = null;
    breakButton.disabled = true;
    reconnectButton.hidden = false;
    if (!attached) {
      setStatus('failed', `Not connected: ${await whyNotOpened()}`);
      return;
    }
    const why = endedWhy || event.reason || 'the connection was lost';
    setStatus('ended', `Disconnected: ${why}`);
    term.write(`\r\n\x1b[33m[disconnected: ${why}]\x1b[0m\r\n`);
  };
}

breakButton.addEventListener('click', () => {
  if (socket && writer) socket.send(JSON.stringify({ type: 'break' }));
  term.focus();
});
reconnectButton.addEventListener('click', connect);

// Escape sequences and carriage returns make no sense outside a terminal.
function plain(text) {
  return text
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    .replace(/\x1b[()][0-9A-Za-z]/g, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r/g, '');
}

async function loadLog() {
  logText.textContent = 'Loading…';
  const base = `/api/v1/nodes/${encodeURIComponent(nodeRef)}/console/log?limit=1000`;
  let text = '';
  let after = 0;
  try {
    // At most 50 pages (of up to 64 KiB chunks): the rest stays readable through the API.
    for (let page = 0; page < 50; page++) {
      const answer = await api(`${base}&after=${after}`);
      for (const chunk of answer.chunks) text += chunk.data;
      after = answer.next_after;
      if (!answer.more) break;
    }
    logText.textContent = plain(text) || 'Nothing kept: the node printed nothing while a console was open.';
  } catch (e) {
    logText.textContent = `Could not load: ${e.message}`;
  }
}

logButton.addEventListener('click', () => {
  const show = logPanel.hidden;
  logPanel.hidden = !show;
  logButton.setAttribute('aria-expanded', String(show));
  if (show) loadLog();
});

async function start() {
  if (!nodeRef) {
    setStatus('failed', 'No node: open this page from a node\'s page');
    return;
  }
  nodeLink.href = `/#/nodes/${encodeURIComponent(nodeRef)}`;
  nodeLink.textContent = nodeRef;
  document.title = `${nodeRef} · Serial console · Ironhold`;
  try {
    const node = await api(`/api/v1/nodes/${encodeURIComponent(nodeRef)}`);
    nodeLink.textContent = node.name;
    nodeLink.href = `/#/nodes/${encodeURIComponent(node.id)}`;
    document.title = `${node.name} · Serial console · Ironhold`;
  } catch (e) {
    setStatus('failed', e.status === 401 ? 'Not signed in: sign in to the console first, then reload' : `Not connected: ${e.message}`);
    if (e.status === 401) nodeLink.href = '/#/signin';
    return;
  }
  connect();
}

start();
