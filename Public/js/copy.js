// Copying what people pass on (the public URL, an invitation link, a new token), and the box that
// shows a secret the server answers only once.
import { h } from './dom.js';
import { info } from './notify.js';

/** Copies a read-only field's text to the clipboard; `what` names it in the confirmation. */
export async function copyText(input, what) {
  const text = input.value;
  try {
    await navigator.clipboard.writeText(text);
    info(`${what} copied.`);
  } catch {
    input.select();
    const ok = document.execCommand && document.execCommand('copy');
    if (ok) info(`${what} copied.`);
    else info(`Select the ${what.toLowerCase()} and copy it (Ctrl+C): the browser refused to copy it.`);
  }
}

/**
 * A secret shown this once (an invitation link, a token): a read-only field with a Copy button,
 * and what to do with it.
 * @param {{id: string, label: string, value: string, what: string, title: string, text: string}} options
 *   id: the field's id; what: how the confirmation names it ("Token").
 */
export function onceBox({ id, label, value, what, title, text }) {
  const input = h('input', { type: 'text', readonly: true, id, value, class: 'url-input', spellcheck: 'false' });
  input.addEventListener('focus', () => input.select());
  const box = h('div', { class: 'once-box', role: 'status', tabindex: '-1' },
    h('h3', { text: title }),
    h('p', { text }),
    h('div', { class: 'url-row' },
      h('label', { for: id, class: 'visually-hidden', text: label }),
      input,
      h('button', { type: 'button', class: 'button', id: `${id}-copy`, text: 'Copy', 'aria-label': `Copy ${label.toLowerCase()}`, onclick: () => copyText(input, what) })));
  return box;
}
