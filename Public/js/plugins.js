// Plugin forms. The server describes the form of any registered plugin
// (GET /apps/{app}/plugins/{identifier}/form): per section, fields and groups in manifest order,
// with conditions. A screen plugin's values live in the screen under the section's name (general,
// styles, data, rules, advertising) and the field's key; a ui_component plugin's under the
// component's `styles`. The server checks the values when the screen is saved (422 at
// /<section>/<key>), so errors land on these fields like any other.
import { api, state } from './state.js';
import { h, uid } from './dom.js';

const SCREEN_SECTIONS = ['general', 'styles', 'data', 'rules', 'advertising'];
const forms = new Map(); // identifier → Promise<form>

function loadForm(identifier) {
  if (!forms.has(identifier)) {
    const promise = api.pluginForm(identifier);
    promise.catch(() => forms.delete(identifier)); // try again next time
    forms.set(identifier, promise);
  }
  return forms.get(identifier);
}

function unavailable(error, what) {
  if (error.isMissingRoute) return 'This server cannot describe plugin forms yet; the plugin’s values are kept as they are.';
  if (error.status === 404) return `The plugin ${what} is not registered in this app; its values are kept as they are.`;
  return `The plugin’s form could not be loaded: ${error.detail || error.message}`;
}

/**
 * The settings of the screen plugin behind `screen.type` (values written into the draft in place).
 */
export function pluginSettings(screen, onChange, onForm = () => {}) {
  const headingId = uid('plugin');
  const box = h('section', { class: 'plugin-settings', 'aria-labelledby': headingId },
    h('h2', { id: headingId, text: `Plugin settings (${screen.type})` }),
    h('p', { class: 'hint', text: 'Loading the plugin’s form…' }));
  loadForm(screen.type).then((form) => {
    const body = h('div', { class: 'plugin-form' });
    const render = () => body.replaceChildren(...renderSections(form, (section) => {
      if (!SCREEN_SECTIONS.includes(section)) return null;
      screen[section] ??= {};
      return { values: screen[section], pointer: `/${section}` };
    }, () => { onChange(); if (hasConditions(form)) render(); }, (section) => screen[section] || {}));
    render();
    onForm(form);
    box.replaceChildren(h('h2', { id: headingId, text: `${form.name || screen.type} settings` }),
      h('p', { class: 'hint' }, 'Screen plugin ', h('code', { text: form.identifier || screen.type }), screen.plugin_version ? ` · version ${screen.plugin_version}` : ''),
      body);
  }).catch((error) => {
    box.replaceChildren(h('h2', { id: headingId, text: `Plugin settings (${screen.type})` }), h('p', { class: 'hint', text: unavailable(error, screen.type) }));
  });
  return box;
}

/**
 * The settings of a ui_component plugin, in the component's `styles`.
 * @param {object} component edited in place
 * @param {string} identifier the plugin
 * @param {string} pointer the component's pointer (/ui_components/2)
 */
export function componentPluginSettings(component, identifier, pointer, onChange) {
  const box = h('details', { class: 'plugin-settings wide' }, h('summary', { text: `Plugin settings (${identifier})` }),
    h('p', { class: 'hint', text: 'Loading the plugin’s form…' }));
  loadForm(identifier).then((form) => {
    component.styles ??= {};
    const body = h('div', { class: 'plugin-form' });
    const render = () => body.replaceChildren(...renderSections(form,
      (section) => (section === 'styles' ? { values: component.styles, pointer: `${pointer}/styles` } : null),
      () => { onChange(); if (hasConditions(form)) render(); },
      (section) => (section === 'styles' ? component.styles : {})));
    render();
    box.replaceChildren(h('summary', { text: `${form.name || identifier} settings` }), body);
  }).catch((error) => {
    box.replaceChildren(h('summary', { text: `Plugin settings (${identifier})` }), h('p', { class: 'hint', text: unavailable(error, identifier) }));
  });
  return box;
}

function hasConditions(form) {
  const walk = (items) => items.some((i) => (i.group ? walk(i.fields || []) : (i.conditions || []).length > 0));
  return (form.sections || []).some((s) => walk(s.fields || []));
}

function renderSections(form, place, onChange, valuesOf) {
  const parts = [];
  for (const section of form.sections || []) {
    const target = place(section.name);
    if (!target) {
      parts.push(h('p', { class: 'hint', text: `Section “${section.name}” is not edited here.` }));
      continue;
    }
    const ctx = { values: target.values, pointer: target.pointer, onChange, valuesOf, section: section.name };
    parts.push(h('fieldset', { class: 'group' }, h('legend', { text: section.name }), renderItems(section.fields || [], ctx)));
  }
  return parts.length ? parts : [h('p', { class: 'hint', text: 'This plugin has no settings.' })];
}

function conditionsHold(field, ctx) {
  const conditions = field.conditions || [];
  if (!conditions.length) return true;
  const test = (c) => {
    const values = c.section && c.section !== ctx.section ? ctx.valuesOf(c.section) : ctx.values;
    return JSON.stringify(values?.[c.key] ?? null) === JSON.stringify(c.value ?? null) || String(values?.[c.key]) === String(c.value);
  };
  return field.conditions_match === 'all' ? conditions.every(test) : conditions.some(test);
}

function renderItems(items, ctx) {
  return items.map((item) => {
    if (item.group) {
      return h('details', { class: 'plugin-group', open: !item.folded }, h('summary', { text: item.label || 'Group' }), renderItems(item.fields || [], ctx));
    }
    if (item.type === 'hidden' || !conditionsHold(item, ctx)) return null;
    return renderField(item, ctx);
  });
}

function optionsFor(f, ctx) {
  for (const c of f.conditional_options || []) {
    const values = c.section && c.section !== ctx.section ? ctx.valuesOf(c.section) : ctx.values;
    if (String(values?.[c.key]) === String(c.value)) return c.options || [];
  }
  return f.options || [];
}

function renderField(f, ctx) {
  const id = uid('pf');
  const { values } = ctx;
  const has = Object.prototype.hasOwnProperty.call(values, f.key);
  const current = has ? values[f.key] : (f.initial_value ?? '');
  const label = `${f.label || f.key}${f.mandatory ? ' (required)' : ''}`;
  const set = (v) => {
    if (v === '' || v === null || v === undefined) delete values[f.key]; else values[f.key] = v;
    ctx.onChange();
  };
  let control;
  switch (f.type) {
    case 'switch': case 'checkbox': {
      control = h('input', { type: 'checkbox', id, checked: current === true || current === 'true' });
      control.addEventListener('change', () => { values[f.key] = control.checked; ctx.onChange(); });
      control.dataset.pointer = `${ctx.pointer}/${f.key}`;
      return h('div', { class: 'field check' }, control, h('label', { for: id, text: label }));
    }
    case 'select': case 'dropdown': case 'screen_selector': {
      const options = f.type === 'screen_selector'
        ? state.screens.map((s) => ({ value: s.id, text: s.name }))
        : optionsFor(f, ctx);
      control = h('select', { id }, h('option', { value: '', text: '(not set)' }),
        options.map((o) => h('option', { value: String(o.value), text: o.text ?? String(o.value), selected: String(o.value) === String(current) })));
      control.addEventListener('change', () => set(options.find((o) => String(o.value) === control.value)?.value ?? control.value));
      break;
    }
    case 'multi_select': case 'tag_select': case 'tags': {
      const chosen = Array.isArray(current) ? current.map(String) : [];
      const options = optionsFor(f, ctx);
      if (options.length) {
        control = h('select', { id, multiple: true, size: Math.min(5, options.length) },
          options.map((o) => h('option', { value: String(o.value), text: o.text ?? String(o.value), selected: chosen.includes(String(o.value)) })));
        control.addEventListener('change', () => set([...control.selectedOptions].map((o) => options.find((x) => String(x.value) === o.value)?.value ?? o.value)));
      } else {
        control = h('input', { type: 'text', id, value: chosen.join(', '), placeholder: 'comma-separated' });
        control.addEventListener('input', () => set(control.value.split(',').map((s) => s.trim()).filter(Boolean)));
      }
      break;
    }
    case 'number_input': {
      control = h('input', { type: 'number', step: 'any', id, value: current ?? '' });
      control.addEventListener('input', () => set(control.value === '' ? null : Number(control.value)));
      break;
    }
    case 'text_area': case 'textarea': {
      control = h('textarea', { id, rows: 3, placeholder: f.placeholder || '' });
      control.value = current ?? '';
      control.addEventListener('input', () => set(control.value));
      break;
    }
    case 'text_style': {
      return h('div', { class: 'field' }, h('span', { class: 'mini-label', text: label }),
        h('p', { class: 'hint', text: 'A text style (nested fields): kept as it is; not edited here yet.' }));
    }
    default: {
      const colour = f.type.startsWith('color');
      control = h('input', { type: 'text', id, value: typeof current === 'object' ? JSON.stringify(current) : (current ?? ''), placeholder: f.placeholder || (colour ? '#RRGGBBAA' : '') });
      control.addEventListener('input', () => set(control.value));
    }
  }
  control.dataset.pointer = `${ctx.pointer}/${f.key}`;
  return h('div', { class: 'field' }, h('label', { for: id, text: label }), control);
}
