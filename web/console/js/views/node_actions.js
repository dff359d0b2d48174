// A node's actions: power, boot device, identify LED, inspection, reprovisioning, lifecycle and
// maintenance. Each goes through a confirmation dialog that names the node; each button says why
// it is disabled (the role may only read, a cloud instance has no boot device, the lifecycle state
// does not allow it). The server stays the judge: its refusal is shown in the dialog.

import { post, patch } from '../api.js';
import { h, setText, toast } from '../dom.js';
import { label } from '../format.js';
import { confirmAction } from '../dialog.js';
import { canAct, actReason } from '../session.js';

// Lifecycle actions and the states they start from (docs/tasks.md, inventory/model/lifecycle.cpp).
const LIFECYCLE_FROM = {
  manage: ['enrolled', 'available', 'inspect_failed'],
  provide: ['enrolled', 'inspect_failed', 'provision_failed', 'clean_failed'],
  release: ['deployed'],
  retry: ['inspect_failed', 'clean_failed'],
  retire: ['enrolled', 'inspecting', 'inspect_failed', 'available', 'provision_failed', 'deployed', 'clean_failed'],
};

const LIFECYCLE_TEXT = {
  manage: 'The full inventory is read now (inspecting), then the node is available.',
  provide: 'The node becomes available: you vouch for it without a new inspection.',
  release: 'A clean task powers the node off (verified), then it is available again.',
  retry: 'The failed step (inspection or cleaning) is tried again.',
  retire: 'The node leaves service. Its history stays; it cannot be changed afterwards.',
};

function field(labelText, control, hint) {
  return h('div', { class: 'field' }, h('label', { for: control.id }, labelText), control, hint ? h('span', { class: 'hint' }, hint) : null);
}

function isCloud(node) {
  return node.source === 'cloud';
}

function definitions() {
  const ownedOnly = (what) => (node) => (isCloud(node) ? `Cloud instances have no ${what}` : null);
  const lifecycle = (action) => (node) => {
    if (isCloud(node) && action !== 'retire') return 'Cloud instances follow their provider; of the lifecycle actions they take only retire';
    if (!LIFECYCLE_FROM[action].includes(node.lifecycle)) return `Not from ${label(node.lifecycle)}`;
    return null;
  };
  const power = (action, text, danger) => ({
    id: `power-${action.replace('_', '-')}`, label: { on: 'Power on', off: 'Power off', soft_off: 'Soft off', cycle: 'Power cycle', reset: 'Reset' }[action],
    danger, text,
    request: (node) => post(`/api/v1/nodes/${encodeURIComponent(node.id)}/power`, { action }),
  });
  return [
    {
      legend: 'Power',
      items: [
        power('on', 'The node is powered on; nothing is sent if it is on already.', false),
        power('soft_off', 'The operating system is asked to shut down.', true),
        power('off', 'Power is cut at once, without shutting down the operating system.', true),
        power('cycle', 'Power off, then on again: running work is lost.', true),
        power('reset', 'A hard reset: running work is lost.', true),
      ],
    },
    {
      legend: 'Boot device and identify LED',
      items: [
        {
          id: 'boot', label: 'Boot device…', unavailable: ownedOnly('boot device'),
          text: 'Where the node boots from next.',
          fields: () => {
            const device = h('select', { id: 'boot-device', name: 'device' }, ['pxe', 'disk', 'cd', 'bios'].map((d) => h('option', { value: d }, d)));
            const mode = h('select', { id: 'boot-mode', name: 'mode' }, h('option', { value: '' }, 'as the BMC has it'), h('option', { value: 'uefi' }, 'UEFI'), h('option', { value: 'legacy' }, 'legacy'));
            return [field('Device', device), field('Mode', mode),
              h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'persistent' }), 'Every boot, not only the next one')];
          },
          request: (node, form) => {
            const body = { device: form.elements.device.value, persistent: form.elements.persistent.checked };
            if (form.elements.mode.value) body.mode = form.elements.mode.value;
            return post(`/api/v1/nodes/${encodeURIComponent(node.id)}/boot`, body);
          },
        },
        {
          id: 'identify-on', label: 'Identify on', unavailable: ownedOnly('identify LED'), text: 'The identify LED on the chassis lights up.',
          request: (node) => post(`/api/v1/nodes/${encodeURIComponent(node.id)}/identify`, { on: true }),
        },
        {
          id: 'identify-off', label: 'Identify off', unavailable: ownedOnly('identify LED'), text: 'The identify LED goes off.',
          request: (node) => post(`/api/v1/nodes/${encodeURIComponent(node.id)}/identify`, { on: false }),
        },
      ],
    },
    {
      legend: 'Inventory and provisioning',
      items: [
        {
          id: 'inspect', label: 'Inspect now', unavailable: (node) => (isCloud(node) ? "A cloud instance is read by its account's sync" : null),
          text: 'The full inventory (components, firmware) is read again now.',
          request: (node) => post(`/api/v1/nodes/${encodeURIComponent(node.id)}/inspect`),
        },
        {
          id: 'reprovision', label: 'Reprovision…', danger: true,
          unavailable: (node) => (['provisioning', 'cleaning'].includes(node.lifecycle) ? `Not while ${node.lifecycle}` : null),
          text: 'The operating system is installed again: everything on the node\'s disks is lost.',
          fields: () => [field('Image', h('input', { type: 'text', id: 'reprovision-image', name: 'image', placeholder: 'the default image' }), 'Leave empty for the default.')],
          request: (node, form) => {
            const image = form.elements.image.value.trim();
            return post(`/api/v1/nodes/${encodeURIComponent(node.id)}/reprovision`, image ? { image } : {});
          },
        },
      ],
    },
    {
      legend: 'Lifecycle',
      items: ['manage', 'provide', 'release', 'retry', 'retire'].map((action) => ({
        id: `lifecycle-${action}`, label: label(action).replace(/^./, (c) => c.toUpperCase()),
        danger: action === 'retire' || action === 'release', text: LIFECYCLE_TEXT[action], unavailable: lifecycle(action),
        request: (node) => post(`/api/v1/nodes/${encodeURIComponent(node.id)}/lifecycle`, { action }),
      })),
    },
    {
      legend: 'Maintenance',
      items: [
        {
          id: 'maintenance-on', label: 'Start maintenance…', unavailable: (node) => (node.maintenance ? 'In maintenance already' : null),
          text: 'Automatic actions (a rollout\'s updates) leave the node alone; an operator\'s actions still run.',
          fields: () => [field('Reason', h('input', { type: 'text', id: 'maintenance-reason', name: 'reason', maxlength: '1000', placeholder: 'e.g. replacing PSU 2' }))],
          request: (node, form) => {
            const reason = form.elements.reason.value.trim();
            return patch(`/api/v1/nodes/${encodeURIComponent(node.id)}`, reason ? { maintenance: true, maintenance_reason: reason } : { maintenance: true });
          },
        },
        {
          id: 'maintenance-off', label: 'End maintenance', unavailable: (node) => (node.maintenance ? null : 'Not in maintenance'),
          text: 'Automatic actions may act on the node again.',
          request: (node) => patch(`/api/v1/nodes/${encodeURIComponent(node.id)}`, { maintenance: false, maintenance_reason: null }),
        },
      ],
    },
  ];
}

// actionsPanel(node, {onTask, onNode}) → {element, update(node)}
export function actionsPanel(initialNode, { onTask, onNode }) {
  let node = initialNode;
  const buttons = [];
  const groups = definitions().map((group) => {
    const note = h('p', { class: 'action-note', hidden: true });
    const items = group.items.map((def) => {
      const button = h('button', { type: 'button', class: ['button', 'small', def.danger ? 'danger' : null], 'data-action': def.id }, def.label);
      button.addEventListener('click', () => run(def));
      buttons.push({ def, button, note });
      return button;
    });
    return h('fieldset', { class: 'action-group' }, h('legend', {}, group.legend), h('div', { class: 'buttons' }, items), note);
  });
  const roleNote = h('p', { class: 'role-note', 'data-testid': 'role-note', hidden: true });
  const element = h('section', { class: 'panel section', 'aria-labelledby': 'actions-title', 'data-testid': 'node-actions' },
    h('h2', { id: 'actions-title' }, 'Actions'), roleNote, h('div', { class: 'actions' }, groups));

  function update(next) {
    node = next;
    const acting = canAct(node.project);
    roleNote.hidden = acting;
    setText(roleNote, acting ? '' : actReason(node.project));
    // One visible line per group says which of its buttons are off and why (the role aside: said
    // once above).
    const notes = new Map();  // note → Map(reason → [labels])
    for (const { def, button, note } of buttons) {
      const reason = !acting ? actReason(node.project) : node.retired_at ? 'The node is retired' : def.unavailable ? def.unavailable(node) : null;
      button.disabled = Boolean(reason);
      button.title = reason || def.text || def.label;
      if (reason) button.dataset.reason = reason;
      else delete button.dataset.reason;
      if (!notes.has(note)) notes.set(note, new Map());
      if (reason && acting) {
        const byReason = notes.get(note);
        if (!byReason.has(reason)) byReason.set(reason, []);
        byReason.get(reason).push(def.label.replace(/…$/, ''));
      }
    }
    for (const [note, byReason] of notes) {
      note.hidden = byReason.size === 0;
      setText(note, [...byReason].map(([reason, labels]) => `${labels.join(', ')}: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}.`).join(' '));
    }
  }

  async function run(def) {
    const result = await confirmAction({
      title: `${def.label.replace(/…$/, '')} ${node.name}?`,
      body: [h('p', {}, def.text),
        h('p', { class: 'muted' }, `${node.name}: ${node.source === 'cloud' ? `${node.driver} instance` : 'owned server'}${node.location?.site ? `, ${[node.location.site, node.location.rack].filter(Boolean).join(' / ')}` : ''}, power ${node.power_state}, ${label(node.lifecycle)}.`)],
      confirmLabel: def.label.replace(/…$/, ''),
      danger: Boolean(def.danger),
      fields: def.fields ? def.fields() : null,
      run: (form) => def.request(node, form),
    });
    if (!result) return;
    // A task (202), a lifecycle answer ({node, from, task?}), or the node (maintenance).
    const task = result.task || (result.kind && result.state ? result : null);
    const changed = result.node || (result.id === node.id && result.name ? result : null);
    if (changed) onNode(changed);
    if (task) {
      onTask(task);
      toast(`${def.label.replace(/…$/, '')} ${node.name}: task ${task.state}.`, { kind: 'ok', link: { href: '#/tasks', text: 'Tasks' } });
    } else {
      toast(`${def.label.replace(/…$/, '')} ${node.name}: done.`, { kind: 'ok' });
    }
  }

  update(node);
  return { element, update };
}
