// Plugin forms. The server describes the form of any registered plugin
// (GET /apps/{app}/plugins/{identifier}/form): per section, fields and groups in manifest order,
// with conditions. A screen plugin's values live in the screen under the section's name (general,
// styles, data, rules, advertising) and the field's key; a ui_component plugin's under the
// component's `styles`. The server checks the values when the screen is saved (422 at
// /<section>/<key>), so errors land on these fields like any other. Which fields are shown and
// required follows the server's rules (plugin-conditions.js).
//
// Controls by field type: a text style (`text_style`) is its nested sections, each field drawn like
// a top-level one, its value an object {section: {key: value}}; an uploader is a web address
// (https, checked before saving: pluginFieldProblems) with a preview when it names an image; a
// font selector picks one of the platform's common fonts or takes another font's name.
import { api, state } from './state.js';
import { h, uid, focusKeyOf, restoreFocus } from './dom.js';
import { explain } from './notify.js';
import { flatFields, isShown, isRequired, matches, valueOf } from './plugin-conditions.js';
import { webAddressProblem } from './web-address.js';
import { controlValue, isOn, valueForm } from './plugin-values.js';

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

/** Forgets the forms kept of a plugin (after a new version of it is registered). */
export function forgetPluginForm(identifier) { forms.delete(identifier); }

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
  // Switches, numbers and choices are written in the form the server gives (`value_form`, one
  // rule per field type: docs/spec/plugin-values.md), the form the plugin's own code reads.
  let control;
  switch (f.type) {
    case 'switch': case 'checkbox': {
      control = h('input', { type: 'checkbox', id, checked: isOn(current) });
      control.addEventListener('change', () => { values[f.key] = controlValue(f, control.checked); ctx.onChange(); });
      control.dataset.pointer = `${ctx.pointer}/${f.key}`;
      control.dataset.focusKey = `plugin-${ctx.pointer}/${f.key}`;
      return h('div', { class: 'field check' }, control, h('label', { for: id, text: label }));
    }
    case 'select': case 'dropdown': case 'screen_selector': case 'multi_select': case 'tag_select': case 'tags': {
      if (f.type !== 'screen_selector' && valueForm(f) === 'choices') {
        control = multipleChoice(f, ctx, id, current, set);
        break;
      }
      // One value (a tag_select too): a plain option value, never an array.
      const options = f.type === 'screen_selector'
        ? state.screens.map((s) => ({ value: s.id, text: s.name }))
        : optionsFor(f, ctx);
      const chosen = Array.isArray(current) ? current[0] : current;
      control = h('select', { id }, h('option', { value: '', text: '(not set)' }),
        options.map((o) => h('option', { value: String(o.value), text: o.text ?? String(o.value), selected: String(o.value) === String(chosen) })));
      control.addEventListener('change', () => {
        if (control.value === '') { set(null); return; }
        const value = options.find((o) => String(o.value) === control.value)?.value ?? control.value;
        set(f.type === 'screen_selector' ? value : controlValue(f, [value]));
      });
      break;
    }
    case 'number_input': {
      control = h('input', { type: 'number', step: 'any', id, value: current ?? '' });
      control.addEventListener('input', () => set(controlValue(f, control.value)));
      break;
    }
    case 'text_area': case 'textarea': {
      control = h('textarea', { id, rows: 3, placeholder: f.placeholder || '' });
      control.value = current ?? '';
      control.addEventListener('input', () => set(control.value));
      break;
    }
    case 'text_style':
      return textStyleField(f, ctx, label);
    case 'uploader':
      return uploaderField(f, ctx, { id, label, current, set });
    case 'ios_font_selector': case 'android_font_selector': case 'tvos_font_selector': case 'font_selector':
      return fontField(f, ctx, { id, label, current, set });
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

/** A multiple choice: its options as a list box, or comma-separated text when it has none. */
function multipleChoice(f, ctx, id, current, set) {
  const chosen = Array.isArray(current) ? current.map(String) : [];
  const options = optionsFor(f, ctx);
  if (!options.length) {
    const control = h('input', { type: 'text', id, value: chosen.join(', '), placeholder: 'comma-separated' });
    control.addEventListener('input', () => set(controlValue(f, control.value.split(',').map((s) => s.trim()).filter(Boolean))));
    return control;
  }
  const control = h('select', { id, multiple: true, size: Math.min(5, options.length) },
    options.map((o) => h('option', { value: String(o.value), text: o.text ?? String(o.value), selected: chosen.includes(String(o.value)) })));
  control.addEventListener('change', () => set(controlValue(f, [...control.selectedOptions].map((o) => options.find((x) => String(x.value) === o.value)?.value ?? o.value))));
  return control;
}

// Text styles ------------------------------------------------------------------------------------

function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

/**
 * A `text_style` field: its nested sections (`form_sections`, each {key, label, fields}), each a
 * group of fields drawn like top-level ones. The value is {section key: {field key: value}}; a
 * section's object is made when one of its fields is first set, and left out again when emptied.
 */
function textStyleField(f, ctx, label) {
  const sections = f.form_sections || [];
  const pointer = `${ctx.pointer}/${f.key}`;
  const legendId = uid('ts');
  const parts = sections.map((section) => {
    const style = isObject(ctx.values[f.key]) ? ctx.values[f.key] : null;
    const inner = style && isObject(style[section.key]) ? style[section.key] : {};
    const sectionPointer = `${pointer}/${section.key}`;
    const nested = {
      ...ctx,
      values: inner,
      pointer: sectionPointer,
      section: `${ctx.section}/${f.key}/${section.key}`,
      fields: flatFields(section.fields),
      onChange: () => {
        // Attach the section's values to the style (made when absent), or drop them when empty.
        const current = isObject(ctx.values[f.key]) ? ctx.values[f.key] : {};
        if (Object.keys(inner).length) current[section.key] = inner; else delete current[section.key];
        if (Object.keys(current).length) ctx.values[f.key] = current; else delete ctx.values[f.key];
        ctx.onChange();
      },
    };
    return h('fieldset', { class: 'mini-group text-style-section', 'data-pointer': sectionPointer },
      h('legend', { text: section.label || section.key }),
      h('div', { class: 'text-style-fields' }, renderItems(section.fields || [], nested)));
  });
  return h('fieldset', { class: 'group text-style', 'data-pointer': pointer, 'data-key': f.key, 'aria-labelledby': legendId },
    h('legend', { id: legendId, text: label }),
    parts.length ? parts : h('p', { class: 'hint', text: 'This text style has no fields.' }));
}

// Uploaders --------------------------------------------------------------------------------------

const IMAGE_PATH = /\.(png|jpe?g|gif|webp|svg|avif|bmp|ico)$/i;

/** Whether an address names an image (by the end of its path), for a preview. */
export function looksLikeImage(text) {
  try {
    const url = new URL(String(text ?? '').trim());
    return (url.protocol === 'https:' || url.protocol === 'http:') && IMAGE_PATH.test(url.pathname);
  } catch { return false; }
}

// The editor's Content-Security-Policy says which images it may load (the server sends
// `img-src 'self' data: blob:`): an image elsewhere is not loaded (the browser would refuse it and
// log a violation) but linked, to open in a tab of its own.
let imagePolicy = null;

/** The sources of the editor's img-src (or default-src); null when no policy limits images. */
export function imageSources(policy) {
  if (!policy) return null;
  const directives = new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...sources]) => [name.toLowerCase(), sources]));
  return directives.get('img-src') || directives.get('default-src') || null;
}

/** Whether a policy's image sources allow loading `url` on a page of `origin`. */
export function imageAllowed(sources, url, origin) {
  if (!sources) return true;
  return sources.some((source) => {
    const s = source.toLowerCase();
    if (s === "'self'") return url.origin === origin;
    if (s === '*') return /^(https?|wss?):$/.test(url.protocol);
    if (/^[a-z][a-z0-9+.-]*:$/.test(s)) return url.protocol === s || (s === 'http:' && url.protocol === 'https:');
    const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^/:]+)(?::(\d+|\*))?/.exec(s);
    if (!m || s.startsWith("'")) return false;
    const [, scheme, wildcard, host, port] = m;
    if (scheme ? `${scheme}:` !== url.protocol && !(scheme === 'http' && url.protocol === 'https:') : !/^https?:$/.test(url.protocol)) return false;
    const hostOk = wildcard ? url.hostname.endsWith(`.${host}`) : url.hostname === host;
    const portOk = !port || port === '*' || url.port === port || (!url.port && ((url.protocol === 'https:' && port === '443') || (url.protocol === 'http:' && port === '80')));
    return hostOk && portOk;
  });
}

/** Resolves whether the editor may show the image at `url` (its policy read once, from its own page). */
function mayShowImage(url) {
  imagePolicy ??= fetch(location.pathname || '/', { method: 'HEAD', cache: 'no-store' })
    .then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return imageSources(r.headers.get('Content-Security-Policy'));
    })
    .catch(() => ["'self'", 'data:', 'blob:']); // unknown: only what every policy here allows
  return imagePolicy.then((sources) => imageAllowed(sources, url, location.origin));
}

/** An `uploader`: the address of the file (https), with a preview of an image. */
function uploaderField(f, ctx, { id, label, current, set }) {
  const hintId = uid('hint');
  const control = h('input', {
    type: 'text', inputmode: 'url', id, class: 'uploader-url', value: typeof current === 'string' ? current : '',
    placeholder: f.placeholder || 'https://…/image.png', 'aria-describedby': hintId, spellcheck: 'false', autocomplete: 'off',
  });
  control.dataset.pointer = `${ctx.pointer}/${f.key}`;
  control.dataset.focusKey = `plugin-${ctx.pointer}/${f.key}`;
  control.dataset.webAddress = '';
  const preview = h('div', { class: 'uploader-preview', 'aria-live': 'polite', hidden: true });
  const show = async () => {
    const text = control.value.trim();
    if (!looksLikeImage(text)) {
      delete preview.dataset.src;
      preview.replaceChildren();
      preview.hidden = true;
      return;
    }
    if (preview.dataset.src === text) return;
    preview.dataset.src = text;
    const allowed = await mayShowImage(new URL(text));
    if (preview.dataset.src !== text) return; // typed on meanwhile
    preview.hidden = false;
    preview.classList.remove('broken');
    if (!allowed) {
      preview.replaceChildren(
        h('a', { href: text, target: '_blank', rel: 'noopener noreferrer', class: 'uploader-open', text: 'Open the image ↗' }),
        h('span', { class: 'hint', text: 'The editor shows images from its own server only; open this one in a new tab to check it.' }));
      return;
    }
    const status = h('span', { class: 'hint', text: 'Loading the image…' });
    const img = h('img', { alt: `Preview of ${label}`, src: text, decoding: 'async' });
    img.addEventListener('load', () => { status.textContent = `${img.naturalWidth} × ${img.naturalHeight} px`; });
    img.addEventListener('error', () => { img.hidden = true; status.textContent = 'The image could not be loaded from this address.'; preview.classList.add('broken'); });
    preview.replaceChildren(img, status);
  };
  control.addEventListener('input', () => { set(control.value.trim()); show(); });
  show();
  return h('div', { class: 'field uploader' }, h('label', { for: id, text: label }), control,
    h('p', { class: 'hint', id: hintId, text: 'The address of the file (https). An image shows below.' }), preview);
}

/**
 * The web addresses of the uploaders shown under `root` that apps could not open, as problems at
 * their fields (an empty one is "not set": the server says when it is mandatory).
 */
export function pluginFieldProblems(root) {
  const problems = [];
  for (const input of root.querySelectorAll('input[data-web-address][data-pointer]')) {
    if (!input.value.trim()) continue;
    const problem = webAddressProblem(input.value);
    if (problem) problems.push({ pointer: input.dataset.pointer, message: problem });
  }
  return problems;
}

// Fonts ------------------------------------------------------------------------------------------

const IOS_FONTS = [
  'SFProText-Regular', 'SFProText-Medium', 'SFProText-Semibold', 'SFProText-Bold',
  'SFProDisplay-Regular', 'SFProDisplay-Medium', 'SFProDisplay-Semibold', 'SFProDisplay-Bold',
  'HelveticaNeue', 'HelveticaNeue-Light', 'HelveticaNeue-Medium', 'HelveticaNeue-Bold',
  'Helvetica', 'Helvetica-Bold', 'Avenir-Book', 'Avenir-Medium', 'Avenir-Heavy', 'AvenirNext-Regular',
  'AvenirNext-DemiBold', 'AvenirNext-Bold', 'ArialMT', 'Arial-BoldMT', 'Georgia', 'Georgia-Bold',
  'Futura-Medium', 'Futura-Bold', 'GillSans', 'Menlo-Regular', 'Courier', 'TimesNewRomanPSMT',
];
const ANDROID_FONTS = [
  'Roboto-Regular', 'Roboto-Light', 'Roboto-Medium', 'Roboto-Bold', 'Roboto-Black', 'Roboto-Thin',
  'Roboto-Italic', 'RobotoCondensed-Regular', 'RobotoCondensed-Bold', 'sans-serif', 'sans-serif-light',
  'sans-serif-medium', 'sans-serif-condensed', 'sans-serif-black', 'serif', 'monospace',
  'NotoSans-Regular', 'NotoSans-Bold', 'NotoSerif-Regular', 'OpenSans-Regular', 'OpenSans-Bold',
];
const FONTS = {
  ios_font_selector: IOS_FONTS,
  tvos_font_selector: IOS_FONTS,
  android_font_selector: ANDROID_FONTS,
  font_selector: [...IOS_FONTS, ...ANDROID_FONTS],
};
const PLATFORM = { ios_font_selector: 'iOS', tvos_font_selector: 'tvOS', android_font_selector: 'Android', font_selector: '' };
const OTHER_FONT = '__other__';

/**
 * A font selector: the platform's common fonts, or another font (one the app bundles) typed in.
 * The value is the font's name, a string. Errors go to what is shown: the list, or the name typed.
 */
function fontField(f, ctx, { id, label, current, set }) {
  const fonts = FONTS[f.type] || FONTS.font_selector;
  const value = current === null || current === undefined ? '' : String(current);
  const custom = value !== '' && !fonts.includes(value);
  const platform = PLATFORM[f.type] ? `${PLATFORM[f.type]} fonts` : 'Fonts';
  const picker = h('select', { id },
    h('option', { value: '', text: '(not set)' }),
    h('optgroup', { label: platform }, fonts.map((name) => h('option', { value: name, text: name, selected: name === value }))),
    h('option', { value: OTHER_FONT, text: 'Another font (type its name)…', selected: custom }));
  picker.value = custom ? OTHER_FONT : value;
  const other = h('input', {
    type: 'text', id: uid('font'), value: custom ? value : '', placeholder: 'e.g. MyBrand-Bold', hidden: !custom,
    'aria-label': `${label}: the font’s name`, spellcheck: 'false', autocomplete: 'off',
  });
  const pointer = `${ctx.pointer}/${f.key}`;
  const point = (el) => {
    for (const x of [picker, other]) { delete x.dataset.pointer; }
    el.dataset.pointer = pointer;
  };
  point(custom ? other : picker);
  picker.dataset.focusKey = `plugin-${pointer}`;
  other.dataset.focusKey = `plugin-${pointer}-other`;
  const sample = h('span', { class: 'font-sample', 'aria-hidden': 'true', text: 'Aa' });
  const showSample = (name) => { sample.style.fontFamily = name ? `"${name.replace(/"/g, '')}", system-ui` : ''; };
  showSample(value);
  picker.addEventListener('change', () => {
    if (picker.value === OTHER_FONT) {
      other.hidden = false;
      point(other);
      other.focus();
      set(other.value.trim());
      showSample(other.value.trim());
      return;
    }
    other.hidden = true;
    point(picker);
    set(picker.value);
    showSample(picker.value);
  });
  other.addEventListener('input', () => { set(other.value.trim()); showSample(other.value.trim()); });
  return h('div', { class: 'field font-field' }, h('label', { for: id, text: label }),
    h('div', { class: 'font-pick' }, picker, sample), other);
}
