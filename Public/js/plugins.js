// Plugin forms: the place where a screen plugin's (or ui_component plugin's) settings will be
// edited. The server describes each form (GET /apps/{app}/plugins/{id}/form): sections of fields
// and groups; a value lives in the screen under its section (general, styles, data, rules,
// advertising) and its key. Until the server has the plugin routes, this says so and edits nothing.
import { api } from './state.js';
import { h, uid } from './dom.js';

const SECTIONS = ['general', 'styles', 'data', 'rules', 'advertising'];

/**
 * Renders the settings of the plugin behind `screen.type` into a container element.
 * @param {object} screen the draft; values are written into it in place
 * @param {() => void} onChange
 */
export function pluginSettings(screen, onChange) {
  const box = h('section', { class: 'plugin-settings', 'aria-labelledby': 'plugin-heading' },
    h('h2', { id: 'plugin-heading', text: `Plugin settings (${screen.type})` }),
    h('p', { class: 'hint', text: 'Loading the plugin’s form…' }));
  api.pluginForm(screen.type).then((form) => {
    box.replaceChildren(h('h2', { id: 'plugin-heading', text: `${form.name || screen.type} settings` }), renderForm(form, screen, onChange));
  }).catch((error) => {
    const text = error.status === 404
      ? 'This server cannot describe plugin forms yet (or does not know this plugin). The plugin’s settings are kept as they are.'
      : `The plugin’s form could not be loaded: ${error.detail || error.message}`;
    box.replaceChildren(h('h2', { id: 'plugin-heading', text: `Plugin settings (${screen.type})` }), h('p', { class: 'hint', text }));
  });
  return box;
}

function renderForm(form, screen, onChange) {
  const parts = [];
  for (const section of form.sections || []) {
    const target = SECTIONS.includes(section.name) ? section.name : 'general';
    screen[target] ??= {};
    parts.push(h('fieldset', { class: 'group' }, h('legend', { text: section.name }),
      renderItems(section.fields || [], screen[target], `/${target}`, onChange)));
  }
  return h('div', { class: 'plugin-form' }, parts.length ? parts : h('p', { class: 'hint', text: 'This plugin has no settings.' }));
}

function renderItems(items, values, pointer, onChange) {
  return items.map((item) => {
    if (item.group) {
      const details = h('details', { open: !item.folded }, h('summary', { text: item.label || 'Group' }), renderItems(item.fields || [], values, pointer, onChange));
      return details;
    }
    return renderField(item, values, pointer, onChange);
  });
}

function renderField(f, values, pointer, onChange) {
  const id = uid('pf');
  const current = values[f.key] ?? f.initial_value ?? '';
  let control;
  const set = (v) => { values[f.key] = v; onChange(); };
  switch (f.type) {
    case 'switch': case 'checkbox': case 'toggle':
      control = h('input', { type: 'checkbox', id, checked: current === true || current === 'true' });
      control.addEventListener('change', () => set(control.checked));
      return h('div', { class: 'field check' }, control, h('label', { for: id, text: f.label || f.key }));
    case 'select': case 'dropdown':
      control = h('select', { id }, (f.options || []).map((o) => h('option', { value: String(o.value), text: o.text ?? String(o.value), selected: String(o.value) === String(current) })));
      control.addEventListener('change', () => set((f.options || []).find((o) => String(o.value) === control.value)?.value ?? control.value));
      break;
    case 'number': case 'number_input':
      control = h('input', { type: 'number', step: 'any', id, value: current });
      control.addEventListener('input', () => set(control.value === '' ? null : Number(control.value)));
      break;
    case 'color_picker': case 'color':
      control = h('input', { type: 'text', id, value: current, placeholder: f.placeholder || '#RRGGBBAA' });
      control.addEventListener('input', () => set(control.value));
      break;
    default:
      control = h('input', { type: 'text', id, value: current, placeholder: f.placeholder || '' });
      control.addEventListener('input', () => set(control.value));
  }
  control.dataset.pointer = `${pointer}/${f.key}`;
  return h('div', { class: 'field' }, h('label', { for: id, text: `${f.label || f.key}${f.mandatory ? ' (required)' : ''}` }), control);
}
