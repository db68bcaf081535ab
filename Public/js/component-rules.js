// Rules about a component that the editor applies before asking the server, with no DOM and no
// state (tested on their own: Tests/js/component-rules.test.mjs): the data source type a
// component may be given, and the cell style a new component starts with.
import { availableWidth, parseRatio } from './family-math.js';
import { lengthNumber } from './lengths.js';

/** The data source types apps know (docs/spec/rivers-format.md), in words. The same list as the
 *  server's `PublishCheck.knownDataSourceTypes` (Sources/RiversCore/Publishing/PublishCheck.swift), which
 *  openapi.json lists as `x-known-types` (Tests/js/editor-contract.test.mjs checks the two). */
export const SOURCE_TYPES = [
  { value: 'APPLICASTER_CATEGORY', text: 'Category' },
  { value: 'APPLICASTER_COLLECTION', text: 'Collection' },
  { value: 'APPLICASTER_ATOM_FEED', text: 'Atom feed' },
  { value: 'APPLICASTER_FAVORITES', text: 'Favorites' },
  { value: 'WEB_URL', text: 'Web page (address)' },
  { value: 'BANNER', text: 'Banner' },
  { value: 'DOWNLOADS', text: 'Downloads' },
  { value: 'USER_ACCOUNT_COMPONENT', text: 'User account' },
];

/**
 * Any other type is a data-source plugin's, named by the plugin's identifier: the server counts a
 * type as known when it is one of the above or the identifier of a plugin of the app
 * (`PublishCheck.warnings`), and an identifier keeps to the server's rule for it,
 * `PluginManifest.isValidIdentifier` (Sources/RiversCore/Plugins/PluginManifest.swift; the
 * `PluginId` pattern of Sources/RiversServer/openapi.json): 1 to 100 letters, digits, '.', '_' or
 * '-', starting with a letter or digit; `general_content` and `favorites` are reserved
 * (`PluginManifest.reservedIdentifiers`). A type outside this rule can never name a plugin, so
 * apps would show nothing for it.
 */
export const PLUGIN_IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const RESERVED_IDENTIFIERS = ['general_content', 'favorites'];

/** Why a data source type cannot be saved, in words that start with the field's label ('' when it can). */
export function sourceTypeProblem(type, label = 'Custom source type') {
  const value = String(type ?? '');
  if (!value || SOURCE_TYPES.some((t) => t.value === value)) return '';
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  if (RESERVED_IDENTIFIERS.includes(value)) {
    return `${label}: “${shown}” is a screen type, not a data source type. Choose a type from the list, or type the identifier of a data-source plugin.`;
  }
  if (PLUGIN_IDENTIFIER.test(value)) return '';
  const why = value.length > 100
    ? `it has ${value.length} characters, at most 100 are allowed`
    : (/^[._-]/.test(value) ? 'it must start with a letter or a digit' : 'it may only hold letters, digits, “.”, “_” and “-” (no spaces)');
  return `${label}: “${shown}” cannot be a data-source plugin’s type: ${why}, like MY_PLUGIN_FEED.`;
}

/**
 * Every data source type in `components` (and their children) that cannot be saved, as
 * [{pointer, message}] under `pointerBase`. A connected screen's components have no data source
 * (the caller leaves them out).
 */
export function sourceTypeProblems(components, pointerBase = '/ui_components') {
  const problems = [];
  (components || []).forEach((c, i) => {
    const p = `${pointerBase}/${i}`;
    const message = sourceTypeProblem(c?.data?.type);
    if (message) problems.push({ pointer: `${p}/data/type`, message });
    problems.push(...sourceTypeProblems(c?.ui_components, `${p}/ui_components`));
  });
  return problems;
}

/** Component types laid out in several columns (or a row), and those of one item a line. */
const MULTI_COLUMN = new Set(['grid', 'horizontal_list']);
const ONE_COLUMN = new Set(['list']);
/** A hero is a wide picture: a full-width style shaped like a picture, the nearer to 16:9 the better. */
const HERO = new Set(['hero']);
const HERO_RATIO = 16 / 9;

/**
 * The cell style a new component starts with: a multi-column one for a grid or a horizontal list,
 * a one-column one for a list, a full-width one with an aspect ratio (nearest 16:9) for a hero,
 * else the family's first.
 */
export function defaultCellStyle(family, typeId) {
  const styles = family?.cell_styles || [];
  if (!styles.length) return null;
  const available = availableWidth(family);
  const width = (s) => s.computed?.width ?? lengthNumber(s.width);
  const multi = (s) => (s.columns ? s.columns > 1 : (available && width(s) !== null ? width(s) < available * 0.75 : false));
  const single = (s) => (s.columns ? s.columns === 1 : (available && width(s) !== null ? width(s) >= available * 0.75 : false));
  if (MULTI_COLUMN.has(typeId)) return (styles.find(multi) || styles[0]).id;
  if (ONE_COLUMN.has(typeId)) return (styles.find(single) || styles[0]).id;
  if (HERO.has(typeId)) {
    const ratio = (s) => {
      const r = typeof s.aspect_ratio === 'number' ? s.aspect_ratio : parseRatio(s.aspect_ratio);
      return Number.isFinite(r) && r > 0 ? r : null;
    };
    // Nearness on a log scale: 2:1 and 1.5:1 are as far from 16:9 as their shapes look.
    const distance = (s) => Math.abs(Math.log(ratio(s) / HERO_RATIO));
    const shaped = styles.filter((s) => single(s) && ratio(s) !== null && ratio(s) >= 1)
      .sort((a, b) => distance(a) - distance(b));
    if (shaped.length) return shaped[0].id;
    // No picture-shaped full-width style: the tallest full-width one, else the first.
    const full = styles.filter(single);
    const height = (s) => s.computed?.height ?? lengthNumber(s.height) ?? 0;
    if (full.length) return full.reduce((best, s) => (height(s) > height(best) ? s : best)).id;
    return styles[0].id;
  }
  return styles[0].id;
}
