// How values read in the console: times, numbers, labels.

const numberFormat = new Intl.NumberFormat();

export function num(n) {
  return n === null || n === undefined ? '—' : numberFormat.format(n);
}

export function plural(n, one, many = one + 's') {
  return `${num(n)} ${n === 1 ? one : many}`;
}

function pad(n) {
  return String(n).padStart(2, '0');
}

// Local time, to the second: 2026-11-30 19:28:12
export function dateTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function clock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

// "12 s ago", "5 min ago", "3 h ago", "2 d ago"; "in 4 min" for the future.
export function ago(iso, now = Date.now()) {
  if (!iso) return 'never';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return iso;
  const seconds = Math.round((now - t) / 1000);
  const future = seconds < 0;
  const s = Math.abs(seconds);
  let text;
  if (s < 5) return future ? 'now' : 'just now';
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.floor(s / 60)} min`;
  else if (s < 86400 * 2) text = `${Math.floor(s / 3600)} h`;
  else text = `${Math.floor(s / 86400)} d`;
  return future ? `in ${text}` : `${text} ago`;
}

export function duration(fromIso, toIso) {
  if (!fromIso) return '—';
  const ms = (toIso ? new Date(toIso).getTime() : Date.now()) - new Date(fromIso).getTime();
  if (Number.isNaN(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function label(value) {
  if (value === null || value === undefined || value === '') return '—';
  return String(value).replace(/_/g, ' ');
}

const SOURCE_NAMES = { bmc: 'Owned', cloud: 'Cloud', redfish: 'Redfish', ipmi: 'IPMI', ec2: 'EC2', bcc: 'Baidu BCC', openstack: 'OpenStack' };

export function sourceName(key) {
  return SOURCE_NAMES[key] || key;
}

// Where a node is: "ams1 / R2 / U14" for an owned server, "us-east-1 / us-east-1a" for a cloud one.
export function place(node) {
  const loc = node.location || {};
  const parts = [];
  if (loc.site) parts.push(loc.site);
  if (loc.rack) parts.push(loc.rack);
  if (loc.unit !== null && loc.unit !== undefined) parts.push(`U${loc.unit}`);
  return parts.length ? parts.join(' / ') : '—';
}

export function gpus(hw) {
  if (!hw || !hw.gpu_count) return '—';
  return `${hw.gpu_count} × ${hw.gpu_model || 'GPU'}`;
}

export function unitValue(value, unit) {
  if (value === null || value === undefined) return '—';
  const v = Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${numberFormat.format(v)} ${unitName(unit)}`.trim();
}

export function unitName(unit) {
  return { Cel: '°C', RPM: 'RPM', W: 'W', V: 'V', A: 'A', '%': '%', kWh: 'kWh' }[unit] ?? (unit || '');
}

export function shortId(id) {
  return id ? id.slice(0, 8) : '—';
}
