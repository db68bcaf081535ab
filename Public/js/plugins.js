// Plugin forms. The server describes the form of any registered plugin
// (GET /apps/{app}/plugins/{identifier}/form): per section, fields and groups in manifest order,
// with conditions. A screen plugin's values live in the screen under the section's name (general,
// styles, data, rules, advertising) and the field's key; a ui_component plugin's under the
// component's `styles`. The server checks the values when the screen is saved (422 at
// /<section>/<key>), so errors land on these fields like any other. Which fields are shown and
// required follows the server's rules (plugin-conditions.js).
import { api, state } from './state.js';
import { h, uid, focusKeyOf, restoreFocus } from './dom.js';
import { explain } from './notify.js';
import { flatFields, isShown, isRequired, matches, valueOf } from './plugin-conditions.js';

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
  return `The plugin’s form could not be loaded: ${explain(error).detail}`;
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
    const body = liveForm(form, (section) => {
      if (!SCREEN_SECTIONS.includes(section)) return null;
      screen[section] ??= {};
      return { values: screen[section], pointer: `/${section}` };
    }, (section) => screen[section] || {}, onChange);
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
    const body = liveForm(form,
      (section) => (section === 'styles' ? { values: component.styles, pointer: `${pointer}/styles` } : null),
      (section) => (section === 'styles' ? component.styles : {}), onChange);
    box.replaceChildren(h('summary', { text: `${form.name || identifier} settings` }), body);
  }).catch((error) => {
    box.replaceChildren(h('summary', { text: `Plugin settings (${identifier})` }), h('p', { class: 'hint', text: unavailable(error, identifier) }));
  });
  return box;
}

/**
 * The form's sections, drawn again only when an edit changes what is shown (a condition starts or
 * stops holding, other options are offered): typing in a field never loses the focus.
 */
function liveForm(form, place, valuesOf, onChange) {
  const body = h('div', { class: 'plugin-form' });
  let shape = '';
  const render = () => {
    const focus = focusKeyOf(body);
    shape = shapeOf(form, place, valuesOf);
    body.replaceChildren(...renderSections(form, place, changed, valuesOf));
    restoreFocus(body, focus);
  };
  const changed = () => {
    onChange();
    if (shapeOf(form, place, valuesOf) !== shape) render();
  };
  render();
  return body;
}

/** What the values decide about the form: which fields are shown and required, and which options each offers. */
function shapeOf(form, place, valuesOf) {
  const parts = [];
  for (const section of form.sections || []) {
    const target = place(section.name);
    if (!target) continue;
    const ctx = { values: target.values, valuesOf, section: section.name, fields: flatFields(section.fields) };
    for (const f of ctx.fields) {
      parts.push([f.key, isShown(f, ctx), isRequired(f, ctx), (f.conditional_options || []).length ? optionsFor(f, ctx).map((o) => o.value) : null]);
    }
  }
  return JSON.stringify(parts);
}

function renderSections(form, place, onChange, valuesOf) {
  const parts = [];
  for (const section of form.sections || []) {
    const target = place(section.name);
    if (!target) {
      parts.push(h('p', { class: 'hint', text: `Section “${section.name}” is not edited here.` }));
      continue;
    }
    const ctx = { values: target.values, pointer: target.pointer, onChange, valuesOf, section: section.name, fields: flatFields(section.fields) };
    parts.push(h('fieldset', { class: 'group' }, h('legend', { text: section.name }), renderItems(section.fields || [], ctx)));
  }
  return parts.length ? parts : [h('p', { class: 'hint', text: 'This plugin has no settings.' })];
}

function renderItems(items, ctx) {
  return items.map((item) => {
    if (item.group) {
      return h('details', { class: 'plugin-group', open: !item.folded }, h('summary', { text: item.label || 'Group' }), renderItems(item.fields || [], ctx));
    }
    if (item.type === 'hidden' || !isShown(item, ctx)) return null;
    return renderField(item, ctx);
  });
}

/** The options offered: those of the first conditional set whose condition holds, else the field's. */
function optionsFor(f, ctx) {
  for (const c of f.conditional_options || []) {
    // Here the other section's values are looked at: the choice of options is the editor's alone.
    const sameSection = !c.section || c.section === ctx.section;
    const values = sameSection ? ctx.values : ctx.valuesOf(c.section);
    if (matches(valueOf(c.key, values, sameSection ? ctx.fields : []), c.value)) return c.options || [];
  }
  return f.options || [];
}

function renderField(f, ctx) {
  const id = uid('pf');
  const { values } = ctx;
  const has = Object.prototype.hasOwnProperty.call(values, f.key);
  const current = has ? values[f.key] : (f.initial_value ?? '');
  const label = `${f.label || f.key}${isRequired(f, ctx) ? ' (required)' : ''}`;
  const set = (v) => {
    if (v === '' || v === null || v === undefined) delete values[f.key]; else values[f.key] = v;
    ctx.onChange();
  };
  // Numbers and switches keep the JSON type they came with ("18" stays text, as the manifest's
  // initial value says): plugin code reads them with string casts.
  const asText = typeof (has ? values[f.key] : f.initial_value) === 'string';
  let control;
  switch (f.type) {
    case 'switch': case 'checkbox': {
      control = h('input', { type: 'checkbox', id, checked: current === true || current === 'true' });
      control.addEventListener('change', () => { values[f.key] = asText ? String(control.checked) : control.checked; ctx.onChange(); });
      control.dataset.pointer = `${ctx.pointer}/${f.key}`;
      control.dataset.focusKey = `plugin-${ctx.pointer}/${f.key}`;
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
      control.addEventListener('input', () => set(control.value === '' ? null : (asText ? control.value : Number(control.value))));
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
  control.dataset.focusKey = `plugin-${ctx.pointer}/${f.key}`;
  return h('div', { class: 'field' }, h('label', { for: id, text: label }), control);
}
