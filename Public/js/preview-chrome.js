// The chrome around a screen in the preview, per platform family: iOS (status bar, nav bar, tab
// bar, home indicator), Android (status bar, top app bar, bottom navigation, gesture bar), tvOS and
// Android TV (no status bar and no tab bar: a menu runs along the top, or there is none), and the
// web (a browser's tab and address bar, the site's header with its menu as links). The platform
// comes from the device's kind and the Platform choice of the preview. Colours, fonts and sizes
// come from the navigations' styles (preview-look.js). Sizes are points.
import { svg, r2, fit, textWidth, lookOf, fontStack, isDark } from './preview-look.js';

export const PLATFORMS = [
  { value: 'ios', text: 'iOS / tvOS' },
  { value: 'android', text: 'Android / Android TV' },
  { value: 'web', text: 'Web' },
];

/** The device's kind: its preset's, or from its width. */
export function kindOf(device) {
  return device.kind || (device.width >= 1280 ? 'tv' : device.width >= 700 ? 'tablet' : 'phone');
}

/** The platform family a device is drawn as: ios, android, tvos, androidtv or web. */
export function platformOf(device, choice = 'ios') {
  const kind = kindOf(device);
  if (choice === 'web') return 'web';
  if (kind === 'tv') return choice === 'android' ? 'androidtv' : 'tvos';
  return choice === 'android' ? 'android' : 'ios';
}

export const PLATFORM_NAMES = { ios: 'iOS', android: 'Android', tvos: 'tvOS', androidtv: 'Android TV', web: 'Web' };

/**
 * What surrounds the content on a device, in points: the status bar, the bars the screen's
 * navigations add, the bottom safe area; and the bezel.
 */
export function chromeOf(device, screen, choice = 'ios') {
  const kind = kindOf(device);
  const platform = platformOf(device, choice);
  const tv = platform === 'tvos' || platform === 'androidtv';
  const navigations = Array.isArray(screen?.navigations) ? screen.navigations : [];
  const navBar = navigations.find((n) => n?.category === 'nav_bar') || null;
  const menu = navigations.find((n) => n?.category === 'menu') || null;
  const menuType = String(menu?.navigation_type || '');
  let menuStyle = null;
  if (menu) {
    if (tv || platform === 'web') menuStyle = 'top';
    else if (/tab|toolbar|bottom/i.test(menuType)) menuStyle = 'tabs';
    else if (/top/i.test(menuType)) menuStyle = 'top';
    else menuStyle = 'side';
  }
  const navLook = lookOf(navBar?.styles, platform);
  const hidden = navLook.presentation === 'hidden';
  const notch = platform === 'ios' && kind === 'phone' && device.height >= 800;
  const m = {
    kind, platform, tv, navBar, menu, menuStyle, notch, navLook, menuLook: lookOf(menu?.styles, platform),
    status: 0, safeBottom: 0, bezel: 12, radius: 30, browser: 0,
    nav: 0, topMenu: 0, tabBar: 0,
  };
  if (platform === 'ios') {
    Object.assign(m, {
      status: kind === 'tablet' ? 24 : notch ? 47 : 20,
      safeBottom: kind === 'tablet' ? 20 : notch ? 34 : 0,
      bezel: kind === 'tablet' ? 18 : 12,
      radius: kind === 'tablet' ? 24 : notch ? 48 : 34,
    });
  } else if (platform === 'android') {
    Object.assign(m, { status: 24, safeBottom: 16, bezel: kind === 'tablet' ? 16 : 10, radius: kind === 'tablet' ? 22 : 28 });
  } else if (tv) {
    Object.assign(m, { bezel: 10, radius: 4 });
  } else {
    Object.assign(m, { browser: kind === 'phone' ? 56 : 44, bezel: 1, radius: 8 });
  }
  const wantsNav = (navBar && !hidden) || menuStyle === 'side' || screen?.connected;
  if (platform === 'web') {
    // The site's header: its title (or logo) and the menu as links, in one bar.
    if (wantsNav || menu) m.nav = 56;
  } else if (tv) {
    // A TV shows the menu along the top (the nav bar's title sits in it); no menu, no bar.
    if (menu) m.topMenu = 72;
    else if (wantsNav) m.nav = 72;
  } else {
    if (wantsNav) m.nav = platform === 'android' ? 56 : 44;
    if (menuStyle === 'top') m.topMenu = platform === 'android' ? 48 : 40;
    if (menuStyle === 'tabs') m.tabBar = platform === 'android' ? 64 : (kind === 'tablet' ? 50 : 49);
  }
  m.top = m.browser + m.status + m.nav + m.topMenu;
  m.bottom = m.tabBar ? m.tabBar + m.safeBottom : 0;
  return m;
}

const titleOf = (item, i) => item?.title || item?.name || `Item ${i + 1}`;

const BLUE = { ios: '#0a84ff', android: '#6750a4', web: '#2f6fd6', tvos: '#ffffff', androidtv: '#ffffff' };

/** The status bar: the time and the signal and battery, in the platform's way. */
function statusBar(m, width, background) {
  if (!m.status) return null;
  const ink = isDark(background) ? '#ffffff' : '#111111';
  const y0 = m.browser;
  if (m.platform === 'android') {
    const y = y0 + 16.5;
    return svg('g', { class: 'device-status' },
      svg('rect', { x: 0, y: y0, width, height: m.status, fill: background || '#f3edf7' }),
      svg('text', { x: 14, y, 'font-size': 12.5, 'font-weight': 500, fill: ink }, '9:41'),
      svg('circle', { class: 'camera', cx: width / 2, cy: y0 + 12, r: 5, fill: '#0b0b0d' }),
      svg('path', { d: `M ${width - 52} ${y - 9} a 12 12 0 0 1 16 0 l -8 9 z`, fill: ink }),
      svg('path', { d: `M ${width - 32} ${y} l 9 -9 v 9 z`, fill: ink }),
      svg('rect', { x: width - 19, y: y - 10, width: 7, height: 11, rx: 1.5, fill: ink }));
  }
  const y = y0 + (m.notch ? 31 : m.status * 0.72);
  const size = m.notch ? 16 : 12;
  const right = width - (m.notch ? 28 : 10);
  return svg('g', { class: 'device-status' },
    svg('rect', { x: 0, y: y0, width, height: m.status, fill: background || '#ffffff' }),
    svg('text', { x: m.notch ? 36 : 8, y, 'font-size': size, 'font-weight': 600, fill: ink }, '9:41'),
    m.notch ? svg('rect', { class: 'island', x: width / 2 - 62, y: y0 + 11, width: 124, height: 36, rx: 18, fill: '#0b0b0d' }) : null,
    [0, 1, 2, 3].map((i) => svg('rect', { x: right - 52 + i * 5, y: y - 3 - i * 2.2, width: 3, height: 3 + i * 2.2, rx: 0.8, fill: ink })),
    svg('rect', { x: right - 26, y: y - 10, width: 23, height: 11.5, rx: 3, fill: 'none', stroke: ink, 'stroke-width': 1 }),
    svg('rect', { x: right - 24, y: y - 8, width: 17, height: 7.5, rx: 1.5, fill: ink }),
    svg('rect', { x: right - 2, y: y - 6, width: 1.6, height: 4, rx: 0.8, fill: ink }));
}

/** A browser's bar: three dots, the address and, on a wide screen, a tab. */
function browserBar(m, width, screen) {
  if (!m.browser) return null;
  const slug = String(screen?.name || 'screen').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'screen';
  const narrow = m.kind === 'phone';
  const fieldX = narrow ? 10 : 90;
  const fieldY = narrow ? 12 : 8;
  const fieldH = narrow ? 32 : 28;
  return svg('g', { class: 'device-browser' },
    svg('rect', { x: 0, y: 0, width, height: m.browser, fill: '#e9ebef' }),
    narrow ? null : [0, 1, 2].map((i) => svg('circle', { cx: 18 + i * 18, cy: m.browser / 2, r: 6, fill: ['#ff5f57', '#febc2e', '#28c840'][i] })),
    svg('rect', { class: 'address-bar', x: fieldX, y: fieldY, width: width - fieldX - 12, height: fieldH, rx: fieldH / 2, fill: '#ffffff', stroke: '#d3d7de', 'stroke-width': 0.5 }),
    svg('text', { class: 'address', x: fieldX + 16, y: fieldY + fieldH / 2 + 4.5, 'font-size': 13, fill: '#4a5160' },
      fit(`app.example.com/${slug}`, width - fieldX - 44, 13)),
    svg('line', { x1: 0, y1: m.browser - 0.5, x2: width, y2: m.browser - 0.5, stroke: '#cfd3da', 'stroke-width': 1 }));
}

/** The nav bar (iOS), the top app bar (Android), the site header (web) or a TV's title bar. */
function navBar(m, width, screen) {
  if (!m.nav) return null;
  const look = m.navLook;
  const p = m.platform;
  const y = m.browser + m.status;
  const mid = y + m.nav / 2;
  const bg = look.background || { ios: '#f9f9fb', android: '#f3edf7', web: '#ffffff', tvos: '#000000', androidtv: '#101418' }[p];
  const dark = isDark(bg);
  const ink = look.text || (dark ? '#ffffff' : '#111111');
  const tint = look.accent || look.text || (dark ? '#ffffff' : BLUE[p]);
  const size = look.titleSize || { ios: 17, android: 22, web: 20, tvos: 28, androidtv: 26 }[p];
  const font = fontStack(look.font, p);
  const items = (m.navBar?.nav_items || []).slice(0, 3);
  const parts = [svg('rect', { class: 'nav-background', x: 0, y, width, height: m.nav, fill: bg })];
  if (p === 'ios' || p === 'web') parts.push(svg('line', { x1: 0, y1: y + m.nav - 0.5, x2: width, y2: y + m.nav - 0.5, stroke: dark ? 'rgba(255,255,255,0.15)' : '#d5d8de', 'stroke-width': 0.5 }));
  let left = p === 'android' ? 16 : 12;
  if (m.menuStyle === 'side' || (p === 'web' && m.kind === 'phone' && m.menu)) {
    parts.push(svg('g', { class: 'menu-button', 'aria-label': 'Menu' },
      [0, 1, 2].map((i) => svg('rect', { x: left + 2, y: mid - 7 + i * 6, width: 20, height: 2, rx: 1, fill: p === 'android' ? ink : tint }))));
    left += 36;
  } else if (screen?.connected) {
    if (p === 'android') parts.push(svg('path', { class: 'back-button', d: `M ${left + 16} ${mid} H ${left + 2} M ${left + 9} ${mid - 7} L ${left + 2} ${mid} L ${left + 9} ${mid + 7}`, fill: 'none', stroke: ink, 'stroke-width': 2, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' }));
    else parts.push(svg('path', { class: 'back-button', d: `M ${left + 10} ${mid - 9} L ${left + 2} ${mid} L ${left + 10} ${mid + 9}`, fill: 'none', stroke: tint, 'stroke-width': 2.5, 'stroke-linecap': 'round', 'stroke-linejoin': 'round' }));
    left += p === 'android' ? 40 : 24;
  }
  // Items of the nav bar, from the right (Android: icons; the others: words).
  let right = width - (p === 'android' ? 16 : 12);
  const itemSize = p === 'tvos' || p === 'androidtv' ? 20 : 15;
  for (const [i, item] of [...items.entries()].reverse()) {
    if (p === 'android') {
      parts.push(svg('g', { class: 'nav-item', 'data-title': titleOf(item, i) },
        svg('title', {}, titleOf(item, i)),
        svg('circle', { cx: right - 10, cy: mid, r: 9, fill: 'none', stroke: ink, 'stroke-width': 2 })));
      right -= 36;
      continue;
    }
    const text = fit(titleOf(item, i), width * 0.22, itemSize);
    const w = textWidth(text, itemSize);
    parts.push(svg('text', { class: 'nav-item', x: r2(right - w), y: mid + itemSize * 0.35, 'font-size': itemSize, fill: tint, 'font-family': font }, text));
    right -= w + 14;
  }
  // The web's header shows the menu as links, after the title.
  const title = screen?.name || 'Screen';
  const centred = p === 'ios' ? look.align !== 'left' : look.align === 'center';
  if (look.presentation === 'logo') {
    const w = Math.min(110, width * 0.3);
    const x = centred ? width / 2 - w / 2 : left;
    parts.push(svg('g', { class: 'nav-logo' },
      svg('rect', { x, y: mid - 12, width: w, height: 24, rx: 6, fill: tint, opacity: 0.9 }),
      svg('text', { x: x + w / 2, y: mid + 4.5, 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 800, fill: dark ? '#111' : '#fff', 'font-family': font }, 'LOGO')));
    return svg('g', { class: 'device-nav-bar', 'data-platform': p }, parts);
  }
  if (centred) {
    const room = Math.max(40, Math.min(width - 2 * Math.max(left, width - right), width - 24));
    parts.push(svg('text', {
      class: 'nav-title', x: width / 2, y: mid + size * 0.35, 'text-anchor': 'middle', 'font-size': size, 'font-weight': 600, fill: ink, 'font-family': font,
    }, fit(title, room, size)));
  } else {
    parts.push(svg('text', {
      class: 'nav-title', x: left, y: mid + size * 0.35, 'font-size': size, 'font-weight': p === 'android' ? 400 : 700, fill: ink, 'font-family': font,
    }, fit(title, Math.max(40, right - left - 8), size)));
  }
  if (p === 'web' && m.menu && m.kind !== 'phone') {
    let x = left + textWidth(fit(title, Math.max(40, right - left - 8), size), size) * 1.12 + 36;
    (m.menu.nav_items || []).slice(0, 6).forEach((item, i) => {
      const t = fit(titleOf(item, i), 140, 15);
      if (x + textWidth(t, 15) > right - 8) return;
      parts.push(svg('text', { class: 'menu-item', x, y: mid + 5, 'font-size': 15, 'font-weight': i === 0 ? 700 : 400, fill: i === 0 ? (m.menuLook.accent || tint) : (m.menuLook.text || ink), 'font-family': font }, t));
      if (i === 0) parts.push(svg('rect', { x, y: y + m.nav - 4, width: textWidth(t, 15), height: 3, rx: 1.5, fill: m.menuLook.accent || tint }));
      x += textWidth(t, 15) + 24;
    });
  }
  return svg('g', { class: 'device-nav-bar', 'data-platform': p }, parts);
}

/** A menu along the top: a phone's top tabs, or a TV's menu (the first item focused). */
function topMenu(m, width, screen) {
  if (!m.topMenu) return null;
  const y = m.browser + m.status + m.nav;
  const look = m.menuLook;
  const p = m.platform;
  const items = (m.menu?.nav_items || []).slice(0, 8);
  const shown = items.length ? items : [{ title: 'Home' }];
  const parts = [];
  if (m.tv) {
    const bg = look.background || (p === 'tvos' ? 'rgba(0,0,0,0)' : '#101418');
    const ink = look.text || '#d8dbe2';
    const size = look.titleSize || 22;
    const font = fontStack(look.font || m.navLook.font, p);
    parts.push(svg('rect', { class: 'menu-background', x: 0, y, width, height: m.topMenu, fill: bg }));
    const widths = shown.map((item, i) => textWidth(fit(titleOf(item, i), 260, size), size) + 40);
    const total = widths.reduce((a, b) => a + b, 0) + 12 * (shown.length - 1);
    // tvOS centres its tabs; Android TV puts them after the app's name on the left.
    let x = p === 'tvos' ? Math.max(40, width / 2 - total / 2) : 260;
    if (p === 'androidtv') {
      parts.push(svg('text', { class: 'nav-title', x: 60, y: y + m.topMenu / 2 + 9, 'font-size': 26, 'font-weight': 600, fill: m.navLook.text || '#ffffff', 'font-family': font }, fit(screen?.name || 'Screen', 180, 26)));
    }
    shown.forEach((item, i) => {
      const t = fit(titleOf(item, i), 260, size);
      const w = widths[i];
      if (i === 0) {
        parts.push(svg('rect', { class: 'menu-focus', x, y: y + 14, width: w, height: m.topMenu - 28, rx: (m.topMenu - 28) / 2, fill: look.accent || '#ffffff' }));
      }
      parts.push(svg('text', { class: 'menu-item', x: x + w / 2, y: y + m.topMenu / 2 + size * 0.35, 'text-anchor': 'middle', 'font-size': size, 'font-weight': i === 0 ? 600 : 400, fill: i === 0 ? (isDark(look.accent || '#ffffff') ? '#ffffff' : '#111111') : ink, 'font-family': font }, t));
      x += w + 12;
    });
    return svg('g', { class: 'device-top-menu', 'data-platform': p }, parts);
  }
  const bg = look.background || (p === 'android' ? '#f3edf7' : '#ffffff');
  const dark = isDark(bg);
  const accent = look.accent || (dark ? '#ffffff' : BLUE[p]);
  const ink = look.text || (dark ? '#c9ccd4' : '#555555');
  const size = look.titleSize || 14;
  const font = fontStack(look.font, p);
  parts.push(svg('rect', { class: 'menu-background', x: 0, y, width, height: m.topMenu, fill: bg }));
  let x = 16;
  shown.forEach((item, i) => {
    const text = fit(titleOf(item, i), width / Math.max(shown.length, 1), size);
    const t = p === 'android' ? text.toUpperCase() : text;
    parts.push(svg('text', { class: 'menu-item', x, y: y + m.topMenu / 2 + size * 0.35, 'font-size': size, 'font-weight': i === 0 ? 700 : 500, fill: i === 0 ? accent : ink, 'font-family': font }, t));
    const w = textWidth(t, size);
    if (i === 0) parts.push(svg('rect', { x, y: y + m.topMenu - 3, width: w, height: 3, rx: 1.5, fill: accent }));
    x += w + 24;
  });
  return svg('g', { class: 'device-top-menu', 'data-platform': p }, parts);
}

/** The tab bar (iOS) or bottom navigation (Android). */
function tabBar(m, width) {
  if (!m.tabBar) return null;
  const look = m.menuLook;
  const p = m.platform;
  const items = (m.menu?.nav_items || []).slice(0, 5);
  const shown = items.length ? items : [{ title: 'Menu' }];
  const step = width / shown.length;
  const bg = look.background || (p === 'android' ? '#f3edf7' : '#f9f9fb');
  const dark = isDark(bg);
  const accent = look.accent || (dark ? '#ffffff' : BLUE[p]);
  const ink = look.text || (dark ? '#9aa0ab' : (p === 'android' ? '#49454f' : '#8a909c'));
  const font = fontStack(look.font, p);
  return svg('g', { class: p === 'android' ? 'device-tab-bar bottom-navigation' : 'device-tab-bar', 'data-platform': p },
    svg('rect', { class: 'menu-background', x: 0, y: 0, width, height: m.tabBar + m.safeBottom, fill: bg }),
    p === 'ios' ? svg('line', { x1: 0, y1: 0.25, x2: width, y2: 0.25, stroke: dark ? 'rgba(255,255,255,0.15)' : '#d5d8de', 'stroke-width': 0.5 }) : null,
    shown.map((item, i) => {
      const cx = step * i + step / 2;
      const on = i === 0;
      const color = on ? accent : ink;
      if (p === 'android') {
        return svg('g', { class: 'tab-item' },
          on ? svg('rect', { class: 'active-indicator', x: cx - 32, y: 10, width: 64, height: 30, rx: 15, fill: look.accent ? 'rgba(0,0,0,0.08)' : '#e8def8' }) : null,
          svg('rect', { x: cx - 10, y: 16, width: 20, height: 18, rx: 4, fill: 'none', stroke: on ? (look.accent || '#1d192b') : ink, 'stroke-width': 2 }),
          svg('text', { x: cx, y: 56, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': on ? 700 : 500, fill: on ? (look.accent || '#1d192b') : ink, 'font-family': font }, fit(titleOf(item, i), step - 6, 12)));
      }
      return svg('g', { class: 'tab-item' },
        svg('rect', { x: cx - 11, y: 7, width: 22, height: 18, rx: 5, fill: 'none', stroke: color, 'stroke-width': 2 }),
        svg('text', { x: cx, y: 40, 'text-anchor': 'middle', 'font-size': 10, 'font-weight': 500, fill: color, 'font-family': font }, fit(titleOf(item, i), step - 6, 10)));
    }));
}

/** The bars above the content, in one SVG's children. */
export function topChrome(m, width, screen, background) {
  return [browserBar(m, width, screen), statusBar(m, width, background), navBar(m, width, screen), topMenu(m, width, screen)];
}

/** The bars under the content. */
export function bottomChrome(m, width) {
  return [tabBar(m, width)];
}

/** The home indicator (iOS) or gesture bar (Android) in the bottom safe area. */
export function homeIndicator(m, width) {
  if (!m.safeBottom) return null;
  if (m.platform === 'android') return svg('rect', { x: width / 2 - 54, y: m.safeBottom - 10, width: 108, height: 4, rx: 2, fill: '#1d1b20' });
  return svg('rect', { x: width / 2 - 67, y: m.safeBottom - 13, width: 134, height: 5, rx: 2.5, fill: '#111' });
}
