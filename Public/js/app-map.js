// The app as a whole: which screen opens which, as a graph (pure: screens in, nodes, links and a
// layout out; the Map page draws it). A screen opens another by a component's tap target
// (`data.target`, in groups too), a nav bar or menu item (`data.target`, nested items too), a
// hook that is a screen (`screen_id`), and a connected screen is opened from its parent by the
// tapped item (the sender fills it). The home screen is where the app starts: a screen that no
// path from home reaches is flagged, "nothing opens" it when no other screen links to it at all.

/** What each kind of link is called on the page. */
export const LINK_KINDS = {
  component: 'Component taps',
  navigation: 'Nav bar, menu and tab bar items',
  connected: 'Connected screens',
  hook: 'Hooks',
};

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (id) => (typeof id === 'string' ? id.toLowerCase() : null);

function defaultTypeName(type) {
  const text = String(type || 'component').replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The name of a navigation as the editor shows it: "Nav bar", "Tab bar" or "Menu". */
export function navigationName(navigation) {
  if (navigation?.category === 'nav_bar') return 'Nav bar';
  if (navigation?.navigation_type === 'tab_bar_menu') return 'Tab bar';
  return 'Menu';
}

/**
 * Every link out of one screen: [{from, to, kind, label}] in the order of the screen's form
 * (components, navigations, hooks). `typeName` names a component type ("List").
 */
export function screenLinks(screen, { typeName = defaultTypeName } = {}) {
  const from = lower(screen?.id);
  const links = [];
  const components = (list, inside) => (Array.isArray(list) ? list : []).forEach((c, i) => {
    if (!isObject(c)) return;
    const label = `${typeName(c.component_type)} ${i + 1}${inside ? ` in ${inside}` : ''}`;
    const to = lower(c.data?.target);
    if (to) links.push({ from, to, kind: 'component', label });
    components(c.ui_components, label);
  });
  components(screen?.ui_components, '');
  for (const navigation of Array.isArray(screen?.navigations) ? screen.navigations : []) {
    const owner = navigationName(navigation);
    const items = (list, trail) => (Array.isArray(list) ? list : []).forEach((item, i) => {
      if (!isObject(item)) return;
      const title = String(item.title ?? '').trim() || `item ${i + 1}`;
      const to = lower(item.data?.target);
      const path = [...trail, `“${title}”`];
      if (to) links.push({ from, to, kind: 'navigation', label: `${owner} item ${path.join(' › ')}` });
      items(item.nav_items, path);
    });
    items(navigation?.nav_items, []);
  }
  for (const [key, when] of [['preload_plugins', 'Preload'], ['postload_plugins', 'Postload']]) {
    for (const hook of Array.isArray(screen?.hooks?.[key]) ? screen.hooks[key] : []) {
      const to = lower(hook?.screen_id);
      if (to) links.push({ from, to, kind: 'hook', label: `${when} hook “${hook.identifier || 'plugin'}”` });
    }
  }
  return links;
}

/**
 * The graph of the app's screens.
 * @returns {{nodes: Array<{id, name, home, connected, type, layer, reached, opensCount, openedBy: number, flag: ''|'nothing'|'unreached'}>,
 *   links: Array<{from, to, kind, label}>, home: string|null, unreached: string[], missing: Array<{from, to, kind, label}>}}
 *   flag: 'nothing' — no other screen opens it; 'unreached' — only screens that home does not reach do.
 *   missing: links to a screen the app does not have.
 */
export function buildAppMap(screens, options = {}) {
  const list = (Array.isArray(screens) ? screens : []).filter((s) => isObject(s) && typeof s.id === 'string');
  const ids = new Set(list.map((s) => lower(s.id)));
  const links = [];
  const missing = [];
  for (const screen of list) {
    for (const link of screenLinks(screen, options)) (ids.has(link.to) ? links : missing).push(link);
    const parent = lower(screen.parent);
    if (screen.connected && parent) {
      const link = { from: parent, to: lower(screen.id), kind: 'connected', label: 'Connected screen, filled by the tapped item' };
      (ids.has(parent) ? links : missing).push(link);
    }
  }
  const home = lower((list.find((s) => s.home) || list[0])?.id) || null;
  const out = new Map(list.map((s) => [lower(s.id), []]));
  const into = new Map(list.map((s) => [lower(s.id), []]));
  for (const link of links) {
    out.get(link.from).push(link);
    into.get(link.to).push(link);
  }
  // Distance from home, by the fewest taps.
  const layer = new Map();
  if (home) {
    layer.set(home, 0);
    const queue = [home];
    while (queue.length) {
      const id = queue.shift();
      for (const link of out.get(id)) {
        if (!layer.has(link.to)) { layer.set(link.to, layer.get(id) + 1); queue.push(link.to); }
      }
    }
  }
  const reached = new Set(layer.keys());
  // The screens home does not reach are laid out the same way from their own starts: those nothing
  // opens first (else the first of a loop), in the order of the list.
  const rest = list.map((s) => lower(s.id)).filter((id) => !reached.has(id));
  const otherLayer = new Map();
  const starts = [...rest.filter((id) => !into.get(id).some((l) => l.from !== id)), ...rest];
  for (const start of starts) {
    if (otherLayer.has(start)) continue;
    otherLayer.set(start, 0);
    const queue = [start];
    while (queue.length) {
      const id = queue.shift();
      for (const link of out.get(id)) {
        if (!reached.has(link.to) && !otherLayer.has(link.to)) { otherLayer.set(link.to, otherLayer.get(id) + 1); queue.push(link.to); }
      }
    }
  }
  const nodes = list.map((s) => {
    const id = lower(s.id);
    const others = into.get(id).filter((l) => l.from !== id);
    const isReached = reached.has(id);
    return {
      id, name: s.name || '(no name)', home: id === home, connected: Boolean(s.connected), type: s.type || 'general_content',
      reached: isReached, layer: isReached ? layer.get(id) : otherLayer.get(id),
      opens: new Set(out.get(id).map((l) => l.to)).size,
      openedBy: new Set(others.map((l) => l.from)).size,
      flag: isReached ? '' : (others.length ? 'unreached' : 'nothing'),
    };
  });
  return { nodes, links, home, unreached: nodes.filter((n) => !n.reached).map((n) => n.id), missing };
}

/** Links grouped by the pair of screens they join (one line is drawn for each pair). */
export function linkPairs(links) {
  const pairs = new Map();
  for (const link of links) {
    const key = `${link.from}>${link.to}`;
    if (!pairs.has(key)) pairs.set(key, { from: link.from, to: link.to, kinds: [], labels: [] });
    const pair = pairs.get(key);
    if (!pair.kinds.includes(link.kind)) pair.kinds.push(link.kind);
    pair.labels.push(link.label);
  }
  return [...pairs.values()];
}

/**
 * Where each screen goes: columns by distance from home (home alone in the first), the screens
 * home does not reach in a band below, laid out the same way. Within a column, screens are ordered
 * by where the screens that open them are (a few sweeps), so that lines cross less.
 * @returns {{positions: Map<string, {x, y, column, band}>, width, height, bandTop: number|null}}
 */
export function layoutAppMap(map, { nodeWidth = 200, nodeHeight = 64, gapX = 90, gapY = 28, pad = 24, top = 56, bandGap = 72 } = {}) {
  const positions = new Map();
  const order = new Map(map.nodes.map((n, i) => [n.id, i]));
  const incoming = new Map(map.nodes.map((n) => [n.id, []]));
  const outgoing = new Map(map.nodes.map((n) => [n.id, []]));
  for (const link of map.links) {
    if (link.from === link.to) continue;
    incoming.get(link.to)?.push(link.from);
    outgoing.get(link.from)?.push(link.to);
  }
  let width = 0;
  let y0 = top; // room above for the lines that go back
  let bandTop = null;
  for (const band of [true, false]) {
    const nodes = map.nodes.filter((n) => n.reached === band);
    if (!nodes.length) continue;
    if (!band) { bandTop = y0 > top ? y0 + bandGap / 2 : pad; y0 = bandTop + bandGap / 2 + (y0 > top ? 0 : top - pad); }
    const columns = [];
    for (const n of nodes) (columns[n.layer] ??= []).push(n.id);
    for (let c = 0; c < columns.length; c += 1) columns[c] ??= [];
    const rank = new Map();
    const setRanks = () => columns.forEach((col) => col.forEach((id, i) => rank.set(id, i)));
    setRanks();
    const layerOf = new Map(nodes.map((n) => [n.id, n.layer]));
    const sweep = (c, neighbours, side) => {
      const score = (id) => {
        const near = neighbours.get(id).filter((o) => layerOf.get(o) === c + side);
        return near.length ? near.reduce((a, o) => a + rank.get(o), 0) / near.length : rank.get(id);
      };
      const scores = new Map(columns[c].map((id) => [id, score(id)]));
      columns[c].sort((a, b) => scores.get(a) - scores.get(b) || order.get(a) - order.get(b));
      setRanks();
    };
    for (let pass = 0; pass < 4; pass += 1) {
      for (let c = 1; c < columns.length; c += 1) sweep(c, incoming, -1);
      for (let c = columns.length - 2; c >= 0; c -= 1) sweep(c, outgoing, 1);
    }
    const tallest = Math.max(...columns.map((col) => col.length));
    const bandHeight = tallest * nodeHeight + (tallest - 1) * gapY;
    columns.forEach((col, c) => {
      const colHeight = col.length * nodeHeight + (col.length - 1) * gapY;
      const top = y0 + (bandHeight - colHeight) / 2;
      col.forEach((id, i) => {
        positions.set(id, { x: pad + c * (nodeWidth + gapX), y: top + i * (nodeHeight + gapY), column: c, band: band ? 'reached' : 'unreached' });
      });
    });
    width = Math.max(width, pad * 2 + columns.length * nodeWidth + (columns.length - 1) * gapX);
    y0 += bandHeight;
  }
  return { positions, width: Math.max(width, pad * 2 + nodeWidth), height: y0 + pad, bandTop, nodeWidth, nodeHeight };
}

/** A polyline through `points` with its corners rounded (radius r), as an SVG path. */
function rounded(points, radius = 8) {
  const r1 = (n) => Math.round(n * 10) / 10;
  let d = `M${r1(points[0][0])},${r1(points[0][1])}`;
  for (let i = 1; i < points.length - 1; i += 1) {
    const [px, py] = points[i - 1]; const [x, y] = points[i]; const [nx, ny] = points[i + 1];
    const inLen = Math.hypot(x - px, y - py); const outLen = Math.hypot(nx - x, ny - y);
    const r = Math.min(radius, inLen / 2, outLen / 2);
    const ax = x - ((x - px) / (inLen || 1)) * r; const ay = y - ((y - py) / (inLen || 1)) * r;
    const bx = x + ((nx - x) / (outLen || 1)) * r; const by = y + ((ny - y) / (outLen || 1)) * r;
    d += ` L${r1(ax)},${r1(ay)} Q${r1(x)},${r1(y)} ${r1(bx)},${r1(by)}`;
  }
  const [lx, ly] = points[points.length - 1];
  return `${d} L${r1(lx)},${r1(ly)}`;
}

/**
 * The SVG path of a line between two placed screens, through the gaps between them only: forward
 * (to a later column) from the right edge to the left edge; back one column from the left edge to
 * the right edge, a little lower (so that a pair linked both ways shows two lines); within a
 * column, around the right side; back further, out into the gap, up along the top lane
 * (`lane`, moved by `offset` so that such lines can be told apart), across and down into the gap
 * beside the target.
 */
export function linkPath(a, b, { nodeWidth = 200, nodeHeight = 64, gapX = 90, lane = 20, offset = 0 } = {}) {
  const r = (n) => Math.round(n * 10) / 10;
  if (a === b) return '';
  if (b.column > a.column) {
    const x1 = a.x + nodeWidth; const y1 = a.y + nodeHeight / 2;
    const x2 = b.x; const y2 = b.y + nodeHeight / 2;
    const dx = Math.max(30, (x2 - x1) / 2);
    return `M${r(x1)},${r(y1)} C${r(x1 + dx)},${r(y1)} ${r(x2 - dx)},${r(y2)} ${r(x2)},${r(y2)}`;
  }
  if (b.column === a.column) {
    const x = a.x + nodeWidth; const y1 = a.y + nodeHeight / 2; const y2 = b.y + nodeHeight / 2;
    const out = Math.min(gapX * 0.45, 20 + Math.abs(y2 - y1) / 6);
    return `M${r(x)},${r(y1 + (y2 > y1 ? 8 : -8))} C${r(x + out)},${r(y1)} ${r(x + out)},${r(y2)} ${r(x)},${r(y2 + (y2 > y1 ? -8 : 8))}`;
  }
  const y1 = a.y + nodeHeight / 2 + 10; const y2 = b.y + nodeHeight / 2 + 10;
  const x1 = a.x; const x2 = b.x + nodeWidth;
  if (b.column === a.column - 1) {
    const mid = (x1 + x2) / 2;
    return `M${r(x1)},${r(y1)} C${r(mid)},${r(y1)} ${r(mid)},${r(y2)} ${r(x2)},${r(y2)}`;
  }
  const shift = (offset % 5) * 4;
  const gap1 = x1 - gapX / 2 + shift; const gap2 = x2 + gapX / 2 - shift; const top = lane - shift;
  return rounded([[x1, y1], [gap1, y1], [gap1, top], [gap2, top], [gap2, y2], [x2, y2]]);
}
