// The preview's layout warnings as the editor lists them: which component each concerns (the
// server's `component_path`: the component's index at each level from the screen's top level down,
// through its groups), named as the drawing names sections ("Grid 1 in Group 3"), and the
// top-level component a click on it goes to. No DOM and no state (Tests/js/layout-warnings.test.mjs).

/** The path of the component a warning concerns, or null for the screen as a whole (a server that
 * sends no path: its index, as a top-level component's). */
export function warningPath(warning) {
  if (Array.isArray(warning?.component_path) && warning.component_path.length) return warning.component_path;
  return Number.isInteger(warning?.component_index) ? [warning.component_index] : null;
}

/**
 * The warnings of layouts drawn on several devices (`shown`: [{device, layout}]), each once, in
 * order: the same message about the same component on another device is not repeated. Those seen
 * only past the first device say where (`on`: its name).
 */
export function distinctWarnings(shown) {
  const list = [];
  const seen = new Set();
  shown.forEach(({ device, layout }, i) => {
    for (const w of layout?.warnings || []) {
      const path = warningPath(w);
      const key = `${path ? path.join('.') : ''}|${w.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      list.push({ ...w, path, on: i > 0 ? device.name : '' });
    }
  });
  return list;
}

/**
 * What a warning's line says and where a click on it goes: `{label, pick}`, `pick` the index of
 * the top-level component that holds the one concerned (null for the screen). `components`: the
 * screen's `ui_components`; `nameOf(type)`: a component type's name. Counting from 1, as the form
 * does (the server counts from 0).
 */
export function describeWarning(warning, components, nameOf) {
  const path = warning.path !== undefined ? warning.path : warningPath(warning);
  const on = warning.on ? ` (on ${warning.on})` : '';
  if (!path) return { label: `${warning.message}${on}`, pick: null };
  let name = '';
  let siblings = components || [];
  for (const index of path) {
    const component = siblings[index];
    const own = `${component ? nameOf(component.component_type) : 'Component'} ${index + 1}`;
    name = name ? `${own} in ${name}` : own;
    siblings = component?.ui_components || [];
  }
  return { label: `${name}: ${warning.message}${on}`, pick: path[0] };
}
