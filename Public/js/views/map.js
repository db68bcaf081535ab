// The Map: the app's screens as a graph, which screen opens which (component taps, nav bar, menu
// and tab bar items, hooks, connected screens), laid out by distance from home (app-map.js).
// Home is marked, a screen nothing reaches is flagged, every screen is a link into its editor;
// the same links are listed screen by screen below the drawing. Follows the screens live.
import { state, subscribe, refresh } from '../state.js';
import { h } from '../dom.js';
import { showError } from '../notify.js';
import { buildAppMap, layoutAppMap, linkPairs, linkPath, LINK_KINDS } from '../app-map.js';
import { typeName } from './components.js';

const SIZE = { nodeWidth: 196, nodeHeight: 62, gapX: 96, gapY: 26 };
const KIND_ORDER = ['component', 'navigation', 'connected', 'hook'];
const FLAG_TEXT = {
  nothing: 'Nothing opens this screen',
  unreached: 'Not reached from home: only screens nothing reaches open it',
};
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.append(c);
  return el;
}

export async function mount(root) {
  const view = new MapView(root);
  view.render();
  const off = subscribe((kind) => { if (kind === 'screens') view.render(); });
  // A fresh read: the list may be older than someone's last save.
  refresh('screens').catch((error) => showError(error, 'Loading the screens'));
  return { title: 'Map', unmount: off };
}

class MapView {
  constructor(root) {
    this.root = root;
    this.hidden = new Set();
  }

  render() {
    const focused = document.activeElement?.closest?.('.map-node')?.dataset.screenId;
    const map = buildAppMap(state.screens, { typeName });
    this.map = map;
    const names = new Map(map.nodes.map((n) => [n.id, n.name]));
    const body = h('div', { class: 'pane-body wide map-page' },
      h('h1', { text: 'Map' }),
      h('p', { class: 'lede', text: 'Which screen opens which: taps on components, nav bar, menu and tab bar items, hooks, and connected screens (opened from their parent, filled by the tapped item). Columns go by taps from home; open a screen by choosing it.' }));
    if (!map.nodes.length) {
      body.append(h('p', { class: 'empty', id: 'map-empty' }, 'No screens yet: ', h('a', { href: '#/screens', text: 'create the first one' }), '.'));
      this.root.replaceChildren(body);
      return;
    }
    body.append(this.summary(map), this.filters(map), this.drawing(map), this.table(map, names));
    // Drawn again (someone saved a screen): the page stays scrolled where it was.
    const before = this.root.querySelector('.pane-body');
    const scroll = before ? [before.scrollTop, before.querySelector('.map-scroll')?.scrollLeft || 0, before.querySelector('.map-scroll')?.scrollTop || 0] : null;
    this.root.replaceChildren(body);
    if (scroll) {
      body.scrollTop = scroll[0];
      const box = body.querySelector('.map-scroll');
      if (box) { box.scrollLeft = scroll[1]; box.scrollTop = scroll[2]; }
    }
    if (focused) this.root.querySelector(`.map-node[data-screen-id="${CSS.escape(focused)}"]`)?.focus();
  }

  summary(map) {
    const unreached = map.nodes.filter((n) => !n.reached);
    const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
    return h('div', { id: 'map-summary', class: 'map-summary' },
      h('p', {}, `${count(map.nodes.length, 'screen')}, ${count(map.links.length, 'link')}. Home: `,
        h('a', { href: `#/screens/${map.home}`, text: map.nodes.find((n) => n.home)?.name || '' }), '.'),
      unreached.length ? h('p', { class: 'notice map-unreached', role: 'note' },
        h('strong', { text: unreached.length === 1 ? '1 screen is not reached from home: ' : `${unreached.length} screens are not reached from home: ` }),
        unreached.map((n, i) => [i ? ', ' : '', h('a', { href: `#/screens/${n.id}`, text: n.name })]),
        '. Link to them from a component, a nav item or a hook, or delete them.') : null);
  }

  filters(map) {
    const counts = Object.fromEntries(KIND_ORDER.map((k) => [k, map.links.filter((l) => l.kind === k).length]));
    return h('fieldset', { class: 'map-filters', id: 'map-filters' }, h('legend', { text: 'Show links' }),
      KIND_ORDER.map((kind) => h('label', { class: 'map-filter' },
        h('input', {
          type: 'checkbox', checked: !this.hidden.has(kind), 'data-kind': kind,
          onchange: (event) => {
            if (event.target.checked) this.hidden.delete(kind); else this.hidden.add(kind);
            this.root.querySelector('.map-canvas')?.classList.toggle(`hide-${kind}`, !event.target.checked);
          },
        }),
        h('span', { class: `map-swatch kind-${kind}`, 'aria-hidden': 'true' }),
        `${LINK_KINDS[kind]} (${counts[kind]})`)));
  }

  drawing(map) {
    const layout = layoutAppMap(map, SIZE);
    const canvas = h('div', {
      class: ['map-canvas', ...[...this.hidden].map((k) => `hide-${k}`)], id: 'map-canvas',
      style: `width:${layout.width}px;height:${layout.height}px`,
    });
    const defs = svg('defs', {}, ...KIND_ORDER.map((kind) => svg('marker', {
      id: `map-arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse',
    }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: `map-arrow kind-${kind}` }))));
    const lines = svg('svg', { class: 'map-lines', width: layout.width, height: layout.height, 'aria-hidden': 'true' }, defs);
    const names = new Map(map.nodes.map((n) => [n.id, n.name]));
    let laneLines = 0;
    for (const pair of linkPairs(map.links)) {
      const a = layout.positions.get(pair.from);
      const b = layout.positions.get(pair.to);
      const far = b.column < a.column - 1;
      const d = linkPath(a, b, { ...SIZE, lane: 22, offset: far ? laneLines : 0 });
      if (far) laneLines += 1;
      if (!d) continue; // a screen opening itself is said in the list, not drawn
      const kinds = KIND_ORDER.filter((k) => pair.kinds.includes(k));
      kinds.forEach((kind, i) => {
        const labels = map.links.filter((l) => l.from === pair.from && l.to === pair.to && l.kind === kind).map((l) => l.label);
        const shift = (i - (kinds.length - 1) / 2) * 5;
        lines.append(svg('path', {
          d, class: `map-line kind-${kind}`, 'data-from': pair.from, 'data-to': pair.to, 'data-kind': kind,
          transform: shift ? `translate(0 ${shift})` : null, 'marker-end': `url(#map-arrow-${kind})`,
        }, svg('title', {}, document.createTextNode(`${names.get(pair.from)} → ${names.get(pair.to)}: ${labels.join('; ')}`))));
      });
    }
    canvas.append(lines);
    if (layout.bandTop !== null) {
      canvas.append(h('div', { class: 'map-band', style: `top:${layout.bandTop}px`, text: 'Not reached from home' }));
    }
    // In the page's order as drawn (column by column, top to bottom), so that Tab goes the same way.
    const drawn = [...map.nodes].sort((x, y) => {
      const px = layout.positions.get(x.id); const py = layout.positions.get(y.id);
      return (px.band === py.band ? 0 : (px.band === 'reached' ? -1 : 1)) || px.column - py.column || px.y - py.y;
    });
    for (const n of drawn) {
      const p = layout.positions.get(n.id);
      const opens = n.opens === 1 ? 'opens 1 screen' : `opens ${n.opens} screens`;
      const opened = n.openedBy === 1 ? 'opened by 1 screen' : `opened by ${n.openedBy} screens`;
      const kind = n.connected ? 'Connected' : (['general_content', 'favorites'].includes(n.type) ? null : `Plugin · ${n.type}`);
      canvas.append(h('a', {
        class: ['map-node', n.home && 'home', n.flag && 'flagged', n.connected && 'connected'],
        href: `#/screens/${n.id}`, 'data-screen-id': n.id, 'data-focus-key': `map-${n.id}`,
        style: `left:${p.x}px;top:${p.y}px;width:${SIZE.nodeWidth}px;height:${SIZE.nodeHeight}px`,
        'aria-label': [n.name, n.home ? 'home screen' : null, kind, n.flag ? FLAG_TEXT[n.flag] : null, opens, opened].filter(Boolean).join(', '),
        title: n.flag ? FLAG_TEXT[n.flag] : null,
      },
      h('span', { class: 'map-node-name', text: n.name }),
      h('span', { class: 'map-node-meta' },
        n.home ? h('span', { class: 'badge home', text: '★ Home' }) : null,
        kind ? h('span', { class: `badge kind-${n.connected ? 'connected' : 'plugin'}`, text: kind }) : null,
        n.flag ? h('span', { class: 'map-flag', text: n.flag === 'nothing' ? 'Nothing opens this screen' : 'Not reached from home' }) : null,
        !n.flag && !n.home ? h('span', { class: 'map-counts', text: `${n.openedBy} in · ${n.opens} out` }) : null)));
    }
    // Pointing at or focusing a screen brings out its lines.
    const hot = (id) => {
      canvas.classList.toggle('focusing', Boolean(id));
      for (const line of canvas.querySelectorAll('.map-line')) line.classList.toggle('hot', Boolean(id) && (line.dataset.from === id || line.dataset.to === id));
    };
    canvas.addEventListener('pointerover', (e) => hot(e.target.closest('.map-node')?.dataset.screenId || null));
    canvas.addEventListener('pointerleave', () => hot(null));
    canvas.addEventListener('focusin', (e) => hot(e.target.closest('.map-node')?.dataset.screenId || null));
    canvas.addEventListener('focusout', () => hot(null));
    return h('div', { class: 'map-scroll', role: 'group', 'aria-label': 'Map of the screens' }, canvas);
  }

  table(map, names) {
    const ways = (links, end) => {
      if (!links.length) return h('span', { class: 'muted', text: '—' });
      return h('ul', { class: 'map-ways' }, links.map((l) => h('li', { 'data-kind': l.kind },
        h('a', { href: `#/screens/${l[end]}`, text: names.get(l[end]) }), ` — ${l.label}`)));
    };
    return h('section', { class: 'panel map-table-panel', 'aria-labelledby': 'map-links-heading' },
      h('h2', { id: 'map-links-heading', text: 'Links, screen by screen' }),
      h('table', { class: 'data-table map-table', id: 'map-links' },
        h('thead', {}, h('tr', {}, ['Screen', 'Opens', 'Opened by'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, map.nodes.map((n) => h('tr', { 'data-screen-id': n.id },
          h('th', { scope: 'row' }, h('a', { href: `#/screens/${n.id}`, text: n.name }),
            n.home ? [' ', h('span', { class: 'badge home', text: '★ Home' })] : null,
            n.flag ? h('div', { class: 'map-flag', text: FLAG_TEXT[n.flag] }) : null),
          h('td', {}, ways(map.links.filter((l) => l.from === n.id), 'to')),
          h('td', {}, ways(map.links.filter((l) => l.to === n.id && l.from !== n.id), 'from')))))));
  }
}
