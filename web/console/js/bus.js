// The console's own events: the stream's (node.updated, task.updated, ...), "refresh" (reload
// what you show: the stream was reset, or the 10-second poll came round) and "unauthorized".

const handlers = new Map();

export function on(type, fn) {
  if (!handlers.has(type)) handlers.set(type, new Set());
  handlers.get(type).add(fn);
  return () => handlers.get(type)?.delete(fn);
}

export function emit(type, data) {
  for (const fn of [...(handlers.get(type) || [])]) {
    try {
      fn(data);
    } catch (e) {
      console.error(`handler of ${type} failed`, e);
    }
  }
}
