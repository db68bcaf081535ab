// Releases without the DOM (issue 27): release rules as the form edits them and as the API takes
// them, app versions as the server reads them, which rule an app gets (first match wins), example
// URLs per rule, channel names, and a local date and time written as ISO with its offset. Pure, so
// `node --test Tests/js/` checks it.

/** The stores Zapp names in its per-app-version URLs, with the names people know them by. */
export const STORES = [
  { id: 'apple_store', label: 'Apple App Store' },
  { id: 'google_play', label: 'Google Play' },
  { id: 'samsung_app_store', label: 'Samsung Galaxy Store' },
];

export function storeLabel(id) {
  if (!id) return 'Any store';
  return STORES.find((s) => s.id === id)?.label || id;
}

/** An app version as the server takes it in a rule: up to four dot-separated whole numbers of up to 6 digits. */
export const VERSION_PATTERN = /^[0-9]{1,6}(\.[0-9]{1,6}){0,3}$/;
/** A channel's name (a path segment of its public URL). */
export const CHANNEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** Why `text` is no app version a rule takes ('' when it is one). */
export function versionProblem(text) {
  return VERSION_PATTERN.test(String(text ?? '')) ? '' : 'must be a version like 5.2 or 6.0.1 (up to four whole numbers)';
}

/** Why `name` cannot name a channel ('' when it can): the server's words. */
export function channelNameProblem(name) {
  const text = String(name ?? '');
  if (!/^[a-z]/.test(text)) return 'must start with a lowercase letter (like staging or qa)';
  if (text.length > 32) return 'is at most 32 characters';
  if (!CHANNEL_PATTERN.test(text)) return 'may hold only lowercase letters, digits, _ and -';
  return '';
}

/** A version's parts ([5, 2]), or null when it is not one. */
export function parseVersion(text) {
  if (text === null || text === undefined || !VERSION_PATTERN.test(String(text))) return null;
  return String(text).split('.').map(Number);
}

/** The version at the start of what an app sends ("6.0.1-beta" → [6, 0, 1]), as the server reads it; null when none. */
export function leadingVersion(text) {
  const m = /^([0-9]{1,6})(?:\.([0-9]{1,6}))?(?:\.([0-9]{1,6}))?(?:\.([0-9]{1,6}))?/.exec(String(text ?? ''));
  return m ? m.slice(1).filter((p) => p !== undefined).map(Number) : null;
}

/** Compares two versions' parts, missing parts being 0 (5.2 = 5.2.0): -1, 0 or 1. */
export function compareVersions(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

// Rules as the form holds them: {store: '' | id, from: '', below: '', target: 'channel:<name>' | 'version:<n>' | ''}.

/** The API's rules → the form's rows. */
export function rulesToRows(rules) {
  return (rules || []).map((r) => ({
    store: r.store || '',
    from: r.from_version ?? '',
    below: r.below_version ?? '',
    target: r.channel ? `channel:${r.channel}` : (Number.isInteger(r.version) ? `version:${r.version}` : ''),
  }));
}

/** The form's rows → the API's rules (what `PUT release-rules` takes). Blank ends are open (null). */
export function rowsToRules(rows) {
  return (rows || []).map((row) => {
    const rule = {
      store: row.store || null,
      from_version: String(row.from ?? '').trim() || null,
      below_version: String(row.below ?? '').trim() || null,
    };
    const [kind, ...rest] = String(row.target || '').split(':');
    const value = rest.join(':');
    if (kind === 'channel' && value) rule.channel = value;
    else if (kind === 'version' && /^\d+$/.test(value)) rule.version = Number(value);
    return rule;
  });
}

const FIELD_LABELS = { store: 'Store', from_version: 'From version', below_version: 'Below version', target: 'Sends apps to' };

/**
 * A server problem of a rule, for its field and in plain words: `/rules/1/channel` and
 * `/rules/1/version` become `/rules/1/target` (one select holds both), and field names become
 * their labels ("Below version must be above From version (5): …").
 */
export function plainRuleProblem({ pointer = '', message = '' }) {
  const m = /^\/rules\/(\d+)(?:\/([a-z_]+))?/.exec(pointer);
  let text = String(message)
    .replace(/\bfrom_version\b/g, 'From version')
    .replace(/\bbelow_version\b/g, 'Below version')
    .replace(/\bgoogle_play\b/g, 'Google Play')
    .replace(/\bapple_store\b/g, 'Apple App Store')
    .replace(/\bsamsung_app_store\b/g, 'Samsung Galaxy Store');
  if (!m) return { pointer, message: text };
  const index = Number(m[1]);
  let field = m[2] || '';
  if (field === 'channel' || field === 'version') field = 'target';
  const label = field ? FIELD_LABELS[field] : `Rule ${index + 1}`;
  // "must …", "needs …" read on from the field's name; other messages are sentences of their own.
  if (/^(must|is|needs|may)\b/.test(text)) text = `${label} ${text}`;
  else text = `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
  return { pointer: `/rules/${index}${field ? `/${field}` : ''}`, message: text };
}

/** What the editor can tell before asking the server: [{pointer, message}] in the same words. */
export function ruleProblems(rows) {
  const problems = [];
  (rows || []).forEach((row, i) => {
    const at = `/rules/${i}`;
    const from = String(row.from ?? '').trim();
    const below = String(row.below ?? '').trim();
    if (from && versionProblem(from)) problems.push({ pointer: `${at}/from_version`, message: `From version ${versionProblem(from)}` });
    if (below && versionProblem(below)) problems.push({ pointer: `${at}/below_version`, message: `Below version ${versionProblem(below)}` });
    if (from && below && !versionProblem(from) && !versionProblem(below) && compareVersions(parseVersion(from), parseVersion(below)) >= 0) {
      problems.push({ pointer: `${at}/below_version`, message: `Below version must be above From version (${from}): no app version would match` });
    }
    if (!row.target) problems.push({ pointer: `${at}/target`, message: 'Sends apps to: choose a channel or a version' });
  });
  return problems;
}

/** Which apps a rule names, in words: "Google Play apps from 5.0 below 5.2". */
export function ruleWho(rule) {
  const apps = rule.store ? `${storeLabel(rule.store)} apps` : 'Apps of any store';
  const from = rule.from_version;
  const below = rule.below_version;
  if (from && below) return `${apps} from ${from} below ${below}`;
  if (from) return `${apps} from ${from}`;
  if (below) return `${apps} below ${below}`;
  return apps;
}

/** What a rule sends its apps to, in words. */
export function targetText(rule) {
  if (rule.channel) return `channel ${rule.channel}`;
  if (Number.isInteger(rule.version)) return `version ${rule.version} (pinned)`;
  return 'nothing yet';
}

function ruleMatches(rule, store, version) {
  if (rule.store && rule.store !== store) return false;
  const from = parseVersion(rule.from_version);
  const below = parseVersion(rule.below_version);
  if (!from && !below) return true;
  if (!version) return false;
  if (from && compareVersions(version, from) < 0) return false;
  if (below && compareVersions(version, below) >= 0) return false;
  return true;
}

/** What an app of `store` at `appVersion` gets: {rule: index|null, channel|null, version|null}, first match winning, else production. */
export function resolveRules(rules, store, appVersion) {
  const version = leadingVersion(appVersion);
  const index = (rules || []).findIndex((rule) => ruleMatches(rule, store, version));
  if (index < 0) return { rule: null, channel: 'production', version: null };
  const rule = rules[index];
  return { rule: index, channel: rule.channel || null, version: rule.channel ? null : rule.version };
}

/** An app version just below `parts` (5.2 → 5.1, 5.0 → 4.9, 6 → 5.9), or null below 0. */
export function versionBelow(parts) {
  const p = [...parts];
  let i = p.length - 1;
  while (i >= 0 && p[i] === 0) i -= 1;
  if (i < 0) return null;
  p[i] -= 1;
  const out = p.slice(0, i + 1);
  if (out.length < 2) out.push(9);
  else if (i < p.length - 1) out.push(9);
  return out;
}

/** The URL an app of a store and version reads. */
export function storeUrl(origin, slug, store, appVersion) {
  return `${origin}/rivers/${encodeURIComponent(slug)}/${store}/${encodeURIComponent(appVersion)}/rivers.json`;
}

/** The URL a channel is served at (production: the app's main URL). */
export function channelUrl(origin, slug, name) {
  return name === 'production'
    ? `${origin}/rivers/${encodeURIComponent(slug)}/rivers.json`
    : `${origin}/rivers/${encodeURIComponent(slug)}/channels/${encodeURIComponent(name)}/rivers.json`;
}

/**
 * One example per rule: an app it names (its store, or Apple's for any store; its From version,
 * else a version just below its Below version, else 1.0), that app's URL, and what that app gets
 * (`gets.rule` is another index when an earlier rule takes it). Then one for an app no rule names
 * (rule: null) when there is one among the stores at 1.0 or 99.0.
 */
export function exampleUrls(rules, { origin, slug }) {
  const list = rules || [];
  const out = list.map((rule, index) => {
    const store = rule.store || STORES[0].id;
    let parts = parseVersion(rule.from_version);
    if (!parts && rule.below_version) parts = versionBelow(parseVersion(rule.below_version) || [0]);
    if (!parts && !rule.below_version) parts = [1, 0];
    if (!parts) return { index, store, appVersion: null, url: null, gets: null, who: ruleWho(rule) };
    const appVersion = parts.join('.');
    return { index, store, appVersion, url: storeUrl(origin, slug, store, appVersion), gets: resolveRules(list, store, appVersion), who: ruleWho(rule) };
  });
  for (const store of STORES.map((s) => s.id)) {
    const version = ['1.0', '99.0'].find((v) => resolveRules(list, store, v).rule === null);
    if (version) {
      out.push({ index: null, store, appVersion: version, url: storeUrl(origin, slug, store, version), gets: resolveRules(list, store, version), who: 'An app no rule names' });
      break;
    }
  }
  return out;
}

function lowerNoHigher(a, b) {
  if (!a) return true;
  if (!b) return false;
  return compareVersions(b, a) >= 0;
}

function upperNoLower(a, b) {
  if (!a) return true;
  if (!b) return false;
  return compareVersions(a, b) >= 0;
}

function overlaps(a, b) {
  const startsBelow = (from, below) => !below || !from || compareVersions(from, below) < 0;
  return startsBelow(a.from, b.below) && startsBelow(b.from, a.below);
}

/**
 * Rules an earlier one overlaps or hides entirely (first match wins), as the server warns of them:
 * [{pointer: '/rules/<j>', message}] in plain words, computed as the rules are edited.
 */
export function ruleWarnings(rules) {
  const read = (rule) => ({ store: rule.store || null, from: parseVersion(rule.from_version), below: parseVersion(rule.below_version) });
  const list = (rules || []).map(read);
  const found = [];
  list.forEach((later, j) => {
    for (let i = 0; i < j; i += 1) {
      const earlier = list[i];
      if (earlier.store && later.store && earlier.store !== later.store) continue;
      const covers = (!earlier.store || earlier.store === later.store)
        && lowerNoHigher(earlier.from, later.from) && upperNoLower(earlier.below, later.below);
      if (covers) {
        found.push({ pointer: `/rules/${j}`, message: `Never applies: rule ${i + 1} (${ruleWho(rules[i])}) comes first and takes every app it names.` });
        return;
      }
      if (overlaps(earlier, later)) {
        found.push({ pointer: `/rules/${j}`, message: `Overlaps rule ${i + 1} (${ruleWho(rules[i])}): the apps both name get rule ${i + 1}’s target.` });
        return;
      }
    }
  });
  return found;
}

/** A server warning ("overlaps rule 1 (google_play apps below 5.2): …") in the editor's words. */
export function plainWarning(message) {
  const text = plainRuleProblem({ message }).message;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/**
 * A `datetime-local` value ("2026-12-01T09:30") as ISO 8601 with the local offset
 * ("2026-12-01T09:30:00+01:00"); null when it is not one. `offsetOf(date)` gives minutes east of
 * UTC at that moment (the browser's zone by default; daylight saving included).
 */
export function localToIso(value, offsetOf = (date) => -date.getTimezoneOffset()) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(String(value ?? ''));
  if (!m) return null;
  const [, y, mo, d, hh, mm, ss = '00'] = m;
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mm), Number(ss));
  if (Number.isNaN(date.getTime())) return null;
  const offset = offsetOf(date);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const pad = (n) => String(n).padStart(2, '0');
  return `${y}-${mo}-${d}T${hh}:${mm}:${ss}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A Date as a `datetime-local` value in the browser's zone ("2026-12-01T09:30"). */
export function toLocalInput(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Schedules in the order people read them: pending first (soonest first), then the rest (newest first). */
export function sortSchedules(items) {
  const time = (s) => Date.parse(s.at) || 0;
  const pending = items.filter((s) => s.state === 'pending').sort((a, b) => time(a) - time(b));
  const rest = items.filter((s) => s.state !== 'pending').sort((a, b) => time(b) - time(a));
  return [...pending, ...rest];
}
