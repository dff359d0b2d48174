// The confirmation dialog every action goes through: a modal <dialog> that names what it acts on,
// keeps the keyboard inside it (Tab and Shift+Tab wrap), closes on Escape and on Cancel, shows the
// server's refusal in place, and gives focus back to the button that opened it.

import { h } from './dom.js';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

// confirmAction({title, body, confirmLabel, danger, fields, run}) → resolves with run()'s result,
// or null when cancelled. `fields`: elements (inputs) shown in the body; `run(form)` does the work
// and may throw (the message is shown, the dialog stays open).
export function confirmAction({ title, body, confirmLabel = 'Confirm', danger = false, fields = null, run }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const alert = h('p', { class: 'alert', role: 'alert', 'data-testid': 'confirm-error' });
    const cancel = h('button', { type: 'button', class: 'button', 'data-testid': 'confirm-cancel' }, 'Cancel');
    const confirm = h('button', {
      type: 'submit', class: ['button', danger ? 'danger solid' : 'primary'], 'data-testid': 'confirm-action',
    }, confirmLabel);
    const titleId = `dialog-title-${Math.random().toString(36).slice(2)}`;
    const form = h('form', { method: 'dialog', novalidate: true },
      h('h2', { id: titleId }, title),
      h('div', { class: 'body' }, body, fields),
      alert,
      h('div', { class: 'buttons' }, cancel, confirm));
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': titleId, 'data-testid': 'confirm-dialog' }, form);
    let result = null;
    let busy = false;

    const finish = () => {
      if (dialog.open) dialog.close();
    };
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
      resolve(result);
    });
    dialog.addEventListener('cancel', (e) => {
      // Escape: the native dialog closes; not while the request is on its way.
      if (busy) e.preventDefault();
    });
    dialog.addEventListener('keydown', (e) => {
      if (e.key !== 'Tab') return;
      const items = [...dialog.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null);
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    });
    cancel.addEventListener('click', finish);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      if (busy) return;
      busy = true;
      confirm.disabled = true;
      cancel.disabled = true;
      alert.textContent = '';
      try {
        result = (await run(form)) ?? true;
        busy = false;
        finish();
      } catch (err) {
        busy = false;
        confirm.disabled = false;
        cancel.disabled = false;
        alert.textContent = err && err.message ? err.message : String(err);
        confirm.focus();
      }
    });

    document.body.appendChild(dialog);
    dialog.showModal();
    // The first field when there is one; otherwise Cancel, so that Enter never confirms by accident.
    const firstField = form.querySelector('.body input, .body select');
    (firstField || cancel).focus();
  });
}
