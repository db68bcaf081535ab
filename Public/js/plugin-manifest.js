// Plugin manifests as the Plugins page shows them (pure: no DOM, no requests): the pasted or
// uploaded text read as JSON (a mistake said by line and column), what a manifest is in words,
// where a plugin is used (the server's rule for refusing a delete: screens of its type, components
// of its type, hooks, navigations; layouts holding a component of its type), and the server's
// problems (pointers into the manifest such as /general/fields/0/type) in the words on the page.

/** The manifest's top-level keys, as the page calls them. */
const TOP_LABELS = {
  identifier: 'Identifier', name: 'Name', type: 'Type', manifest_version: 'Manifest version', description: 'Description',
  author_name: 'Author’s name', author_email: 'Author’s email', min_zapp_sdk: 'Lowest Zapp SDK', screen: 'Screen plugin',
  ui_builder_support: 'UI builder support', characteristics: 'Characteristics', custom_configuration_fields: 'Configuration fields',
  platform: 'Platform', api: 'API', dependency_name: 'Dependency name', dependency_version: 'Dependency version',
};
const SECTION_LABELS = {
  general: 'General', styles: 'Styles', data: 'Data', rules: 'Rules', advertising: 'Advertising',
  assets: 'Assets', localizations: 'Localizations', hooks: 'Hooks',
};
export const SECTIONS = Object.keys(SECTION_LABELS);

/** A field type in words. */
export const FIELD_TYPES = {
  text_input: 'Text', text_area: 'Long text', number_input: 'Number', select: 'Choice', multi_select: 'Choices',
  tag_select: 'Tags', color_picker: 'Colour', color_picker_rgba: 'Colour with opacity', switch: 'Switch', checkbox: 'Checkbox',
  hidden: 'Hidden', uploader: 'Image address', ios_font_selector: 'iOS font', android_font_selector: 'Android font',
  tvos_font_selector: 'tvOS font', font_selector: 'Font', nav_bar_selector: 'Nav bar', preload_plugins_selector: 'Hooks',
  screen_selector: 'Screen', text_style: 'Text style', text: 'Text', textarea: 'Long text', dropdown: 'Choice',
  tags: 'Tags', colorpicker: 'Colour',
};

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const words = (key) => {
  const text = String(key).replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/**
 * The text of a manifest read as JSON: {manifest} or {problem} (in words, with the line and the
 * column of a JSON mistake).
 */
export function readManifest(text) {
  const source = String(text ?? '');
  if (!source.trim()) return { problem: 'Paste a manifest, or choose its file.' };
  let value;
  try {
    value = JSON.parse(source);
  } catch (error) {
    const said = String(error?.message || '');
    let line = null; let column = null;
    const lc = /line (\d+) column (\d+)/.exec(said);
    const at = /position (\d+)/.exec(said);
    if (lc) { line = Number(lc[1]); column = Number(lc[2]); } else if (at) {
      const before = source.slice(0, Number(at[1]));
      line = before.split('\n').length;
      column = before.length - before.lastIndexOf('\n');
    } else if (/end of (JSON|data) input|Unexpected end/i.test(said)) {
      const lines = source.replace(/\s+$/, '').split('\n');
      line = lines.length;
      column = lines[lines.length - 1].length + 1;
    }
    return { problem: `This is not valid JSON${line ? ` (line ${line}, column ${column})` : ''}: check for a missing comma, quote or bracket there.`, line, column };
  }
  if (!isObject(value)) return { problem: 'A manifest is one JSON object ({ … }), with its identifier, name, type and fields.' };
  return { manifest: value };
}

/** What kind of plugin a registered plugin (or a manifest) is, in words. */
export function pluginKind(plugin) {
  const type = plugin?.type ?? plugin?.manifest?.type;
  if (plugin?.screen === true || plugin?.screen === 'true') return 'Screen plugin';
  if (plugin?.ui_component || type === 'ui_component') return 'Component plugin';
  if (type === 'nav_bar' || type === 'menu') return 'Navigation plugin';
  return type ? `Plugin (${String(type).replace(/_/g, ' ')})` : 'Plugin';
}

/** The fields of a manifest section (groups' fields included). */
function sectionFields(section) {
  const out = [];
  const walk = (items) => (Array.isArray(items) ? items : []).forEach((item) => {
    if (!isObject(item)) return;
    if (item.group === true || item.group === 'true' || String(item.group).trim().toLowerCase() === 'true') walk(item.fields);
    else out.push(item);
  });
  walk(section?.fields);
  walk(section?.custom_configuration_fields);
  return out;
}

/** A manifest in one line: "Screen plugin “Promo” (promo), version 1.0.0, 3 fields in General and Styles." */
export function manifestSummary(manifest) {
  if (!isObject(manifest)) return '';
  const counts = SECTIONS.map((s) => [s, sectionFields(manifest[s]).length]).filter(([, n]) => n);
  const total = counts.reduce((a, [, n]) => a + n, 0) + sectionFields({ fields: manifest.custom_configuration_fields }).length;
  const where = counts.map(([s]) => SECTION_LABELS[s]);
  const sections = where.length ? ` in ${where.length > 1 ? `${where.slice(0, -1).join(', ')} and ${where[where.length - 1]}` : where[0]}` : '';
  const name = manifest.name ? `“${manifest.name}”` : '(no name)';
  const id = manifest.identifier ? ` (${manifest.identifier})` : ' (no identifier)';
  const version = manifest.manifest_version ? `, version ${manifest.manifest_version}` : ', no version';
  return `${pluginKind(manifest)} ${name}${id}${version}, ${total === 1 ? '1 field' : `${total} fields`}${sections}.`;
}

function fieldName(field, index) {
  const label = isObject(field) && typeof field.label === 'string' && field.label.trim() ? field.label.trim() : null;
  const key = isObject(field) && typeof field.key === 'string' && field.key ? field.key : null;
  if (label && key && label !== key) return `field “${label}” (${key})`;
  if (label || key) return `field “${label || key}”`;
  return `field ${index + 1}`;
}

/**
 * Where a pointer into a manifest is, in words: "/general/fields/0/type" → "General section,
 * field “Title” (title): type"; "/name" → "Name".
 */
export function manifestPlace(pointer, manifest) {
  const parts = String(pointer || '').split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (!parts.length || (parts.length === 1 && parts[0] === '')) return 'The manifest';
  const out = [];
  let node = manifest;
  let i = 0;
  const first = parts[0];
  if (SECTION_LABELS[first]) {
    out.push(`${SECTION_LABELS[first]} section`);
    node = isObject(manifest) ? manifest[first] : undefined;
    i = 1;
  } else if (first === 'custom_configuration_fields') {
    out.push('Configuration fields');
  } else {
    out.push(TOP_LABELS[first] || words(first));
    node = isObject(manifest) ? manifest[first] : undefined;
    i = 1;
  }
  const rest = [];
  while (i < parts.length) {
    const key = parts[i];
    const index = parts[i + 1];
    if ((key === 'fields' || key === 'custom_configuration_fields') && /^\d+$/.test(index ?? '')) {
      const item = Array.isArray(node?.[key]) ? node[key][Number(index)] : undefined;
      const isGroup = isObject(item) && item.group !== undefined && item.group !== false;
      out.push(isGroup ? `group “${item.label || Number(index) + 1}”` : fieldName(item, Number(index)));
      node = item;
      i += 2;
    } else if (key === 'options' && /^\d+$/.test(index ?? '')) {
      rest.push(`option ${Number(index) + 1}`);
      node = Array.isArray(node?.options) ? node.options[Number(index)] : undefined;
      i += 2;
    } else {
      rest.push(key.replace(/_/g, ' '));
      node = isObject(node) ? node[key] : undefined;
      i += 1;
    }
  }
  return `${out.join(', ')}${rest.length ? ` › ${rest.join(' › ')}` : ''}`;
}

/** One problem the server found in a manifest ({pointer, message}), in the words of the page. */
export function manifestProblem(error, manifest) {
  const place = manifestPlace(error?.pointer, manifest);
  let message = String(error?.message ?? '').trim();
  const required = /^"([^"]+)" is required$/.exec(message);
  if (required) message = 'missing (the manifest must have it)';
  message = message.replace(/"([^"]*)"/g, '“$1”');
  return `${place}: ${message}`;
}

/**
 * Where a plugin is used: screens of its type, with components of its type (named "List 2 in
 * Group 1"), hooks running it, navigations of it; layouts holding a component of its type.
 * @returns {Array<{kind: 'screen'|'layout', id, name, via: string[], components: string[]}>} as the server's `used_by`
 */
export function pluginUses(identifier, screens = [], layouts = [], { typeName = words } = {}) {
  const components = (list, inside = '') => (Array.isArray(list) ? list : []).flatMap((c, i) => {
    if (!isObject(c)) return [];
    const label = `${typeName(c.component_type)} ${i + 1}${inside ? ` in ${inside}` : ''}`;
    return [...(c.component_type === identifier ? [label] : []), ...components(c.ui_components, label)];
  });
  const uses = [];
  for (const s of Array.isArray(screens) ? screens : []) {
    if (!isObject(s)) continue;
    const via = [];
    if (s.type === identifier) via.push('type');
    const mine = components(s.ui_components);
    if (mine.length) via.push('component');
    const hooks = [...(s.hooks?.preload_plugins || []), ...(s.hooks?.postload_plugins || [])];
    if (hooks.some((x) => x?.identifier === identifier)) via.push('hook');
    if ((s.navigations || []).some((n) => n?.navigation_type === identifier)) via.push('navigation');
    if (via.length) uses.push({ kind: 'screen', id: s.id, name: s.name, via, components: mine });
  }
  for (const l of Array.isArray(layouts) ? layouts : []) {
    if (!isObject(l)) continue;
    const mine = components(l.ui_components);
    if (mine.length) uses.push({ kind: 'layout', id: l.id, name: l.name, via: ['component'], components: mine });
  }
  return uses;
}
