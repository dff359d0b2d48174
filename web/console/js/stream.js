// Live updates: an EventSource on GET /api/v1/stream (same origin: the session cookie
// authenticates it). The browser reconnects by itself after a drop and sends Last-Event-ID;
// "stream.reset" means events were lost, so every view reloads. When the server refuses the
// stream outright, its status says what to do: 401 → sign in again; 404 (a server without the
// stream) → poll every 10 s, and look for the stream again each minute; anything else → try again
// shortly. The indicator in the top bar (data-testid="stream-status", data-state
// live|reconnecting|polling) always says which.

import { emit } from './bus.js';

const STREAM = '/api/v1/stream';
const EVENTS = [
  'node.updated',
  'node.deleted',
  'task.updated',
  'rollout.updated',
  'cloud_account.updated',
  'cloud_account.deleted',
  'alert.updated',
];
const POLL_MS = 10_000;
const REPROBE_MS = 60_000;
const RETRY_MS = 5_000;

let source = null;
let pollTimer = null;
let reprobeTimer = null;
let retryTimer = null;
let running = false;

function indicator() {
  return document.querySelector('[data-testid="stream-status"]');
}

function setState(state, text, title) {
  const el = indicator();
  if (!el) return;
  el.dataset.state = state;
  el.title = title;
  const label = el.querySelector('.label');
  if (label && label.textContent !== text) label.textContent = text;
}

function startPolling() {
  setState('polling', 'Polling every 10 s',
    'The live stream is not available on this server (GET /api/v1/stream answered 404): the console reloads its data every 10 seconds.');
  if (pollTimer) return;
  pollTimer = setInterval(() => {
    if (document.visibilityState === 'visible') emit('refresh', { reason: 'poll' });
  }, POLL_MS);
  clearTimeout(reprobeTimer);
  reprobeTimer = setTimeout(() => { if (running) open(); }, REPROBE_MS);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
  clearTimeout(reprobeTimer);
}

// What the server answers to the stream's URL: its status only (the body is not read).
async function probe() {
  const controller = new AbortController();
  try {
    const res = await fetch(STREAM, {
      credentials: 'same-origin', cache: 'no-store', signal: controller.signal,
      headers: { Accept: 'text/event-stream' },
    });
    controller.abort();
    return res.status;
  } catch {
    return 0;
  }
}

function open() {
  close();
  if (!running) return;
  if (!pollTimer) setState('reconnecting', 'Connecting…', 'Opening the live stream');
  const es = new EventSource(STREAM);
  source = es;
  let opened = false;
  es.addEventListener('open', () => {
    const reconnected = opened || pollTimer !== null;
    opened = true;
    stopPolling();
    setState('live', 'Live', 'Updates arrive as they happen (GET /api/v1/stream)');
    // Whatever changed while there was no stream is reloaded.
    if (reconnected) emit('refresh', { reason: 'reconnected' });
  });
  for (const type of EVENTS) {
    es.addEventListener(type, (e) => {
      let data;
      try {
        data = JSON.parse(e.data);
      } catch {
        return;
      }
      emit(type, data);
    });
  }
  es.addEventListener('stream.reset', () => emit('refresh', { reason: 'reset' }));
  es.addEventListener('error', () => onError(es));
}

async function onError(es) {
  if (es !== source) return;
  if (es.readyState === EventSource.CONNECTING) {
    // A dropped connection: the browser is reconnecting (with Last-Event-ID).
    if (!pollTimer) setState('reconnecting', 'Reconnecting…', 'The live stream dropped; reconnecting');
    return;
  }
  // Closed: the server refused the stream. Ask why.
  close();
  const status = await probe();
  if (!running) return;
  if (status === 401) {
    emit('unauthorized');
  } else if (status === 404 || status === 405 || status === 501) {
    startPolling();
  } else {
    if (!pollTimer) setState('reconnecting', 'Reconnecting…', `The live stream is unavailable (${status || 'no answer'}); retrying`);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(open, RETRY_MS);
  }
}

function close() {
  if (source) {
    source.close();
    source = null;
  }
}

export function startStream() {
  if (running) return;
  running = true;
  open();
}

export function stopStream() {
  running = false;
  close();
  stopPolling();
  clearTimeout(retryTimer);
  setState('reconnecting', 'Connecting…', '');
}
