// A labelled length field: the number, and beside it a "fixed" switch. Unchecked, the number is
// written as it is (scalable: multiplied by the family's factor on a device); checked, it is
// written {"fixed": n} (the same points on every device). See lengths.js.
import { h, uid } from './dom.js';
import { isFixed, lengthNumber, makeLength } from './lengths.js';

/**
 * @param {string} labelText
 * @param {{
 *   get: () => any, set: (value: any) => void, onChange: (change?: {label: string}) => void,
 *   pointer?: string, focusKey?: string, min?: number, step?: string|number, className?: string,
 *   hint?: string, placeholder?: string, ariaLabel?: string,
 * }} options
 *   get/set: the length as stored (n, {"fixed": n} or undefined); onChange: after every change
 *   (a change of the switch names itself, for the undo history).
 * @returns {HTMLElement} a `.field` holding the label, the number and the switch
 */
export function lengthField(labelText, options) {
  const { get, set, onChange, pointer, focusKey, min = 0, step = 'any', className, hint, placeholder, ariaLabel } = options;
  const value = get();
  const id = uid('len');
  const input = h('input', {
    type: 'number', step, inputmode: 'decimal', id, value: lengthNumber(value) ?? '', min: min ?? null,
    placeholder: placeholder ?? null, 'aria-label': ariaLabel ?? null, 'data-focus-key': focusKey ?? null,
  });
  if (pointer !== undefined) input.dataset.pointer = pointer;
  const toggle = h('input', {
    type: 'checkbox', checked: isFixed(value), 'data-focus-key': focusKey ? `${focusKey}-fixed` : null,
    'aria-label': `${ariaLabel || labelText}: fixed (not scaled on other devices)`,
  });
  if (pointer !== undefined) toggle.dataset.fixedFor = pointer;
  const write = () => set(makeLength(input.value === '' ? undefined : Number(input.value), toggle.checked));
  input.addEventListener('input', () => { write(); onChange(); });
  toggle.addEventListener('change', () => {
    write();
    onChange({ label: `${toggle.checked ? 'fix' : 'scale'} ${(ariaLabel || labelText).toLowerCase()}` });
  });
  const parts = [
    labelText ? h('label', { for: id, text: labelText }) : null,
    h('div', { class: 'length' }, input,
      h('label', { class: 'fixed-toggle', title: 'Fixed: the same points on every device. Unchecked, the length scales with the device (× m).' },
        toggle, h('span', { 'aria-hidden': 'true', text: 'fixed' }))),
  ];
  if (hint) {
    const hintEl = h('p', { class: 'hint', id: uid('hint'), text: hint });
    input.setAttribute('aria-describedby', hintEl.id);
    parts.push(hintEl);
  }
  return h('div', { class: ['field', 'length-field', className] }, parts);
}
