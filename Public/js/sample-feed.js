// Sample content for the preview: a small feed per data source (a section title and item titles),
// generated from the data source until the user edits it in the preview's "Sample content" panel,
// kept in localStorage per app. Pure functions (node --test reads them); nothing here draws or
// touches the network. Pictures are described, not fetched: artOf() gives colours and shapes
// seeded by the data source and the item's index, which preview-look.js draws as SVG.

export const STORAGE_PREFIX = 'rivers.sampleFeeds.';
export const MAX_TITLES = 40;
export const MAX_TITLE_LENGTH = 80;

/** FNV-1a, 32 bits: the same number for the same text on every machine. */
export function hash(text) {
  let h = 0x811c9dc5;
  const s = String(text ?? '');
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const SECTIONS = ['Trending now', 'New this week', 'Continue watching', 'Top picks for you', 'Award winners',
  'Documentaries', 'Live and upcoming', 'Because you watched', 'Family night', 'Editor’s choice', 'Sports highlights', 'Comedy'];
const FIRST = ['The Last', 'Midnight', 'Northern', 'Silent', 'Golden', 'Hidden', 'Wild', 'Broken', 'Electric', 'Paper',
  'Blue', 'Distant', 'Little', 'Open', 'Burning', 'Velvet'];
const SECOND = ['Harbor', 'Lights', 'Kingdom', 'Summer', 'Signal', 'River', 'Frontier', 'Garden', 'Station', 'Orbit',
  'Coast', 'Empire', 'Hours', 'Season', 'Valley', 'Echoes'];
const GENRES = ['Drama', 'Comedy', 'Thriller', 'Documentary', 'Sci-fi', 'Family', 'Sport', 'Music', 'Crime', 'Nature'];

/**
 * The key of a component's feed: its data source (`type|source`), or, with none (a connected
 * screen's component, a banner), the component itself (`#id`, or `#index` without an id).
 */
export function feedKey(component, index = 0) {
  const source = String(component?.data?.source ?? '').trim();
  const type = String(component?.data?.type ?? '').trim();
  if (source || type) return `${type}|${source}`;
  return `#${component?.id || index}`;
}

/** Words for a feed key, for the panel: "APPLICASTER_COLLECTION 3119", or the component's. */
export function feedLabel(key, fallback = '') {
  if (key.startsWith('#')) return fallback || 'No data source';
  const [type, source] = key.split('|');
  return [source ? `Source ${source}` : '', type ? `(${type})` : ''].filter(Boolean).join(' ');
}

/** The feed a key starts with: a section title and 12 item titles, seeded by the key. */
export function defaultFeed(key) {
  const seed = hash(key);
  const items = [];
  for (let i = 0; i < 12; i += 1) {
    const a = FIRST[(seed + i * 7) % FIRST.length];
    const b = SECOND[((seed >>> 5) + i * 5) % SECOND.length];
    items.push(`${a} ${b}`);
  }
  return { title: SECTIONS[seed % SECTIONS.length], items };
}

/** A feed as stored, cleaned: a title (text) and up to MAX_TITLES non-empty titles. */
export function cleanFeed(feed) {
  const title = String(feed?.title ?? '').slice(0, MAX_TITLE_LENGTH);
  const items = (Array.isArray(feed?.items) ? feed.items : [])
    .map((t) => String(t ?? '').trim().slice(0, MAX_TITLE_LENGTH)).filter(Boolean).slice(0, MAX_TITLES);
  return { title, items };
}

/** The feed shown for a key: the user's (what they left empty falls back to the default's). */
export function feedFor(feeds, key) {
  const base = defaultFeed(key);
  const mine = feeds && Object.prototype.hasOwnProperty.call(feeds, key) ? cleanFeed(feeds[key]) : null;
  if (!mine) return base;
  return { title: mine.title.trim() ? mine.title : base.title, items: mine.items.length ? mine.items : base.items };
}

/** The title of item `i` (the titles repeat when there are more items than titles). */
export function itemTitle(feed, i) {
  const items = feed?.items?.length ? feed.items : ['Untitled'];
  return items[((i % items.length) + items.length) % items.length];
}

/** A second line for item `i`: a year and a genre, seeded. */
export function itemSubtitle(key, i) {
  const seed = hash(`${key}#${i}`);
  return `${2014 + (seed % 12)} · ${GENRES[(seed >>> 4) % GENRES.length]}`;
}

/** Titles typed one a line: trimmed, empty lines dropped, at most MAX_TITLES. */
export function parseTitles(text) {
  return String(text ?? '').split(/\r?\n/).map((t) => t.trim().slice(0, MAX_TITLE_LENGTH)).filter(Boolean).slice(0, MAX_TITLES);
}

export function formatTitles(items) {
  return (items || []).join('\n');
}

/** The app's feeds from a Storage (localStorage), {} when none or unreadable. */
export function loadFeeds(storage, appId) {
  try {
    const raw = storage?.getItem(STORAGE_PREFIX + appId);
    const parsed = raw ? JSON.parse(raw) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out = {};
    for (const [k, v] of Object.entries(parsed)) out[k] = cleanFeed(v);
    return out;
  } catch {
    return {};
  }
}

/** Keeps one feed (or forgets it: `feed` null) and answers the app's feeds after. */
export function saveFeed(storage, appId, key, feed) {
  const feeds = loadFeeds(storage, appId);
  if (feed) feeds[key] = cleanFeed(feed); else delete feeds[key];
  try {
    if (Object.keys(feeds).length) storage?.setItem(STORAGE_PREFIX + appId, JSON.stringify(feeds));
    else storage?.removeItem(STORAGE_PREFIX + appId);
  } catch { /* storage full or off: the feed lives for this page only */ }
  return feeds;
}

/**
 * The picture of item `i` of a feed: two colours of a gradient, its angle, and a shape (sun, hills,
 * rings or stripes) with its place, all seeded, so the same item always looks the same.
 */
export function artOf(key, i) {
  const seed = hash(`${key}@${i}`);
  const hue = seed % 360;
  const hue2 = (hue + 30 + ((seed >>> 9) % 90)) % 360;
  return {
    from: `hsl(${hue} 62% 46%)`,
    to: `hsl(${hue2} 70% 24%)`,
    angle: (seed >>> 3) % 4,
    shape: ['sun', 'hills', 'rings', 'stripes'][(seed >>> 12) % 4],
    x: 0.25 + ((seed >>> 16) % 50) / 100,
    y: 0.25 + ((seed >>> 22) % 30) / 100,
  };
}
