// The members of a free-form object (a navigation's styles, rules and assets): one row per member
// with its key, its type and its value. Types are kept exactly as JSON has them: a text stays a
// string even when it holds digits ("18"), since apps read these values with string casts; a
// number stays a number, true/false a boolean. A text whose key names a colour gets a colour
// swatch beside it. Objects, arrays and null are kept as they are (shown as JSON, not edited).
//
// Rows live here between draws (a row being typed has no key yet, or repeats one): only rows
// with a key of their own are written into the object; what is left unwritten is reported by
// problems() before saving, at the row's key (pointer `<object>/~entry/<index>`).
import { h, select, stableStringify } from './dom.js';

const TYPES = [
  { value: 'text', text: 'Text' },
  { value: 'number', text: 'Number' },
  { value: 'boolean', text: 'True/false' },
];
const COLOUR_KEY = /colou?r|tint/i;
const HEX = /^#([0-9a-f]{6}|[0-9a-f]{8})$/i;

/** A JSON pointer token (RFC 6901). */
export function pointerToken(key) { return String(key).replace(/~/g, '~0').replace(/\//g, '~1'); }

function typeOf(value) {
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return 'json';
}

/** The text of a number as typed, or null when it is not one. */
function numberOf(text) {
  const t = String(text ?? '').trim();
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** The #RRGGBB a colour picker shows for a text (#RRGGBB, or #AARRGGBB with its alpha first). */
function pickerColour(text) {
  const t = String(text ?? '').trim();
  if (!HEX.test(t)) return '#000000';
  return `#${t.slice(-6).toLowerCase()}`;
}

export class MembersEditor {
  /**
   * @param {{get: () => object|undefined, set: (object) => void, onChange: () => void,
   *   label: string, idPrefix: string}} options
   *   get/set: the object in the draft; label: what people call it ("Nav bar styles").
   */
  constructor({ get, set, onChange, label, idPrefix }) {
    this.get = get;
    this.set = set;
    this.onChange = onChange;
    this.label = label;
    this.idPrefix = idPrefix;
    this.rows = [];
    this.written = null; // the object as last read or written (rows are read again when it differs)
    this.nextRow = 0;
  }

  /** The rows again from the draft, unless they are what was written last (pending rows stay). */
  sync() {
    const object = this.get();
    const now = stableStringify(object && typeof object === 'object' && !Array.isArray(object) ? object : {});
    if (now === this.written) return;
    this.rows = Object.entries(object || {}).map(([key, value]) => this.row(key, value));
    this.written = now;
  }

  row(key, value) {
    const type = typeOf(value);
    this.nextRow += 1;
    return { id: this.nextRow, key, type, value, text: type === 'number' ? String(value) : null };
  }

  /** The keys each row writes (null: not written: no key, or a key an earlier row has). */
  writtenKeys() {
    const seen = new Set();
    return this.rows.map((r) => {
      if (r.key === '' || seen.has(r.key)) return null;
      seen.add(r.key);
      return r.key;
    });
  }

  /** Writes the rows into the object (in their order) and tells the editor. */
  commit() {
    const keys = this.writtenKeys();
    const object = {};
    this.rows.forEach((r, i) => {
      if (keys[i] === null) return;
      if (r.type === 'number') {
        const n = numberOf(r.text);
        if (n === null) return;
        r.value = n;
      }
      object[keys[i]] = r.value;
    });
    this.written = stableStringify(object);
    this.set(object);
    this.onChange();
  }

  /** What keeps a row from being saved, at the row's key or value. */
  problems(pointer) {
    const keys = this.writtenKeys();
    const out = [];
    this.rows.forEach((r, i) => {
      const at = `${pointer}/~entry/${i}`;
      if (r.key === '') {
        if (!(r.type === 'text' && r.value === '')) out.push({ pointer: at, message: 'give this entry a key' });
      } else if (keys[i] === null) {
        out.push({ pointer: at, message: `“${r.key}” is a key of an earlier entry: use another key` });
      } else if (r.type === 'number' && numberOf(r.text) === null) {
        out.push({ pointer: `${pointer}/${pointerToken(r.key)}`, message: 'enter a number' });
      }
    });
    return out;
  }

  /** Draws the rows; `pointer` is the object's (/navigations/0/styles). */
  render(pointer) {
    this.sync();
    const keys = this.writtenKeys();
    const list = h('ol', { class: 'members' }, this.rows.map((r, i) => this.rowView(r, i, pointer, keys[i])));
    const add = h('button', {
      type: 'button', class: 'button small members-add', 'data-focus-key': `${this.idPrefix}-add`, text: '+ Add entry',
      'aria-label': `Add an entry to ${this.label}`,
      onclick: () => {
        this.rows.push(this.row('', ''));
        this.redraw(pointer);
        this.el.querySelector(`[data-focus-key="${this.idPrefix}-${this.rows.at(-1).id}-key"]`)?.focus();
      },
    });
    const body = [
      this.rows.length ? list : h('p', { class: 'hint', text: 'No entries.' }),
      add,
    ];
    if (this.el) this.el.replaceChildren(...body.filter(Boolean));
    else this.el = h('div', { class: 'members-body' }, body);
    return this.el;
  }

  /** Draws the rows again, keeping the focus (and the caret of a text being typed). */
  redraw(pointer) {
    const active = document.activeElement;
    const focus = active?.dataset?.focusKey;
    const caret = active?.type === 'text' ? active.selectionStart : null;
    this.render(pointer);
    const again = focus ? this.el.querySelector(`[data-focus-key="${CSS.escape(focus)}"]`) : null;
    again?.focus();
    if (again && caret !== null && again.type === 'text') again.setSelectionRange(caret, caret);
  }

  rowView(r, i, pointer, writtenKey) {
    const n = i + 1;
    const key = (s) => `${this.idPrefix}-${r.id}-${s}`;
    const keyInput = h('input', {
      type: 'text', id: key('key'), 'data-focus-key': key('key'), value: r.key, placeholder: 'key',
      'aria-label': `Key of entry ${n} of ${this.label}`, autocomplete: 'off', spellcheck: 'false',
    });
    keyInput.dataset.pointer = `${pointer}/~entry/${i}`;
    const valuePointer = writtenKey === null ? null : `${pointer}/${pointerToken(writtenKey)}`;
    const valueName = `Value of entry ${n} of ${this.label}`;

    let valueControl;
    let extra = null;
    if (r.type === 'json') {
      valueControl = h('input', { type: 'text', readonly: true, id: key('value'), value: JSON.stringify(r.value), 'aria-label': `${valueName} (kept as it is)`, title: 'Kept as it is: an object, a list or null is not edited here.' });
    } else if (r.type === 'boolean') {
      valueControl = select([{ value: 'true', text: 'true' }, { value: 'false', text: 'false' }], String(r.value === true), { id: key('value'), 'aria-label': valueName });
      valueControl.addEventListener('change', () => { r.value = valueControl.value === 'true'; this.commit(); });
    } else if (r.type === 'number') {
      valueControl = h('input', { type: 'number', step: 'any', id: key('value'), value: r.text ?? '', 'aria-label': valueName });
      valueControl.addEventListener('input', () => { r.text = valueControl.value; this.commit(); });
    } else {
      valueControl = h('input', { type: 'text', id: key('value'), value: r.value ?? '', 'aria-label': valueName, spellcheck: 'false' });
      if (COLOUR_KEY.test(r.key)) {
        // A colour: the text is what is saved (#RRGGBB, or #AARRGGBB as apps read it); the swatch helps pick one.
        const swatch = h('input', { type: 'color', class: 'members-swatch', id: key('swatch'), 'data-focus-key': key('swatch'), value: pickerColour(r.value), 'aria-label': `Pick the colour of ${r.key || `entry ${n}`}` });
        swatch.addEventListener('input', () => {
          const old = String(r.value ?? '').trim();
          const alpha = /^#[0-9a-f]{8}$/i.test(old) ? old.slice(1, 3) : '';
          r.value = `#${alpha}${swatch.value.slice(1)}`.toUpperCase();
          valueControl.value = r.value;
          this.commit();
        });
        valueControl.placeholder = '#RRGGBB or #AARRGGBB';
        valueControl.addEventListener('input', () => { if (HEX.test(valueControl.value.trim())) swatch.value = pickerColour(valueControl.value); });
        extra = swatch;
      }
      valueControl.addEventListener('input', () => { r.value = valueControl.value; this.commit(); });
    }
    valueControl.dataset.focusKey = key('value');
    if (valuePointer) valueControl.dataset.pointer = valuePointer;

    const typeOptions = r.type === 'json' ? [...TYPES, { value: 'json', text: 'Other (kept)' }] : TYPES;
    const type = select(typeOptions, r.type, { id: key('type'), 'data-focus-key': key('type'), 'aria-label': `Type of entry ${n} of ${this.label}` });
    type.addEventListener('change', () => {
      const was = r.type === 'number' ? (numberOf(r.text) ?? r.text ?? '') : r.value;
      r.type = type.value;
      if (r.type === 'text') r.value = was !== null && typeof was === 'object' ? JSON.stringify(was) : String(was ?? '');
      else if (r.type === 'number') r.text = typeof was === 'boolean' ? (was ? '1' : '0') : (numberOf(was) === null ? '' : String(numberOf(was)));
      else if (r.type === 'boolean') r.value = was === true || /^\s*(true|yes|1)\s*$/i.test(String(was));
      this.commit();
      this.redraw(pointer);
    });

    keyInput.addEventListener('input', () => {
      const colourBefore = COLOUR_KEY.test(r.key);
      r.key = keyInput.value;
      this.commit();
      // The value's pointer follows the key; a key that starts or stops naming a colour changes the row.
      const keys = this.writtenKeys();
      if (keys[i] === null) delete valueControl.dataset.pointer;
      else valueControl.dataset.pointer = `${pointer}/${pointerToken(keys[i])}`;
      if (colourBefore !== COLOUR_KEY.test(r.key) && r.type === 'text') this.redraw(pointer);
    });

    const remove = h('button', {
      type: 'button', class: 'icon-button danger', 'data-focus-key': key('remove'), text: '✕',
      'aria-label': `Remove entry ${n} (${r.key || 'no key'}) of ${this.label}`,
      onclick: () => {
        this.rows.splice(i, 1);
        this.commit();
        this.redraw(pointer);
        this.el.querySelector('.members-add')?.focus();
      },
    });
    return h('li', { class: 'member-row', 'data-key': r.key, 'data-type': r.type },
      h('div', { class: 'field member-key' }, keyInput),
      h('div', { class: 'field member-type' }, type),
      h('div', { class: ['field', 'member-value', extra && 'with-swatch'] }, valueControl, extra),
      remove);
  }
}
