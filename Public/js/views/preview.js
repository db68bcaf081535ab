// The live preview beside a screen form: the server lays the UNSAVED screen out for a device
// preset (POST /apps/{app}/preview, JSON frames), debounced while the user edits, and device.js
// draws it in a device, as the app shows it. A second device can be shown beside the first; the
// zoom fits the panel or is chosen; the panel can be widened (drag or arrow keys on its edge).
// Hovering a section names its component; a click goes to it; layout warnings are listed. The
// Platform choice draws the chrome of iOS/tvOS, Android/Android TV or a browser (preview-chrome.js);
// cells show sample content that the "Sample content" panel edits (sample-panel.js).
import { api, state, setDevice, find } from '../state.js';
import { h, select, debounce } from '../dom.js';
import { typeName } from './components.js';
import { explain } from '../notify.js';
import { labelOf, withLabel } from '../field-errors.js';
import { drawDevice, deviceWidth } from '../device.js';
import { canvasEditing } from './canvas-drag.js';
import { PLATFORMS } from '../preview-chrome.js';
import { SamplePanel } from '../sample-panel.js';
import { distinctWarnings, describeWarning } from '../layout-warnings.js';

const DELAY = 300;
const COMPARE_KEY = 'rivers.compareDevice';
const ZOOM_KEY = 'rivers.previewZoom';
const WIDTH_KEY = 'rivers.previewWidth';
const PLATFORM_KEY = 'rivers.previewPlatform';
/** The room (px) the form keeps beside the preview: its fields stay usable, in two columns (app.css). */
const FORM_MIN = 448;
const ZOOMS = [
  { value: 'fit', text: 'Fit' }, { value: '0.5', text: '50%' }, { value: '0.75', text: '75%' },
  { value: '1', text: '100%' }, { value: '1.5', text: '150%' },
];
const MIN_WIDTH = 320;

export class PreviewPanel {
  /**
   * @param {{getScreen: () => object, onPickComponent: (index: number) => void, onFocusPointer: (pointer: string) => void,
   *   check?: () => Array<{pointer: string, message: string}>, onMoveComponent?: (from: number, to: number) => void,
   *   canMove?: () => boolean}} options
   *   check: what the editor knows the server would refuse (then no preview is asked for).
   *   onMoveComponent(from, to): a component dragged on the drawing (canvas-drag.js); canMove: whether it may be.
   */
  constructor({ getScreen, onPickComponent, onFocusPointer, check, onMoveComponent, canMove = () => false }) {
    this.getScreen = getScreen;
    this.check = check;
    this.onMoveComponent = onMoveComponent;
    this.canMove = canMove;
    this.onPickComponent = onPickComponent;
    this.onFocusPointer = onFocusPointer;
    this.sequence = 0;
    this.controller = null;
    /** The last layouts drawn: [{device, layout}] (drawn again on resize and zoom). */
    this.shown = [];
    this.compare = sessionStorage.getItem(COMPARE_KEY) || '';
    this.zoom = sessionStorage.getItem(ZOOM_KEY) || 'fit';
    this.platform = localStorage.getItem(PLATFORM_KEY) || 'ios';
    if (!PLATFORMS.some((p) => p.value === this.platform)) this.platform = 'ios';
    this.refresh = debounce(() => this.load(), DELAY);
    this.el = this.build();
  }

  build() {
    const options = state.devices.map((d) => ({ value: d.id, text: d.name }));
    const device = select(options, state.device, { id: 'preview-device' });
    device.addEventListener('change', () => { setDevice(device.value); this.refresh.flush(); });
    const compare = select([{ value: '', text: '(none)' }, ...options], this.compare, { id: 'preview-device-2' });
    compare.addEventListener('change', () => {
      this.compare = compare.value;
      sessionStorage.setItem(COMPARE_KEY, this.compare);
      this.refresh.flush();
    });
    const zoom = select(ZOOMS, this.zoom, { id: 'preview-zoom' });
    zoom.addEventListener('change', () => { this.zoom = zoom.value; sessionStorage.setItem(ZOOM_KEY, this.zoom); this.draw(); });
    const platform = select(PLATFORMS, this.platform, { id: 'preview-platform' });
    platform.addEventListener('change', () => { this.platform = platform.value; localStorage.setItem(PLATFORM_KEY, this.platform); this.draw(); });
    this.samples = new SamplePanel({ appId: state.app?.id || state.app?.slug || 'app', onChange: () => this.draw() });
    this.status = h('p', { class: 'preview-status', id: 'preview-status', role: 'status', 'aria-live': 'polite', text: 'Loading…' });
    this.frame = h('div', {
      class: 'preview-frame', id: 'preview-frame', 'data-testid': 'preview-svg',
      role: 'group', tabindex: '0',
      'aria-label': 'Preview drawing; click a section to edit its component, drag it up or down to move it (or select it with the arrow keys and move it with Alt+Arrow Up or Down)',
    });
    this.canvas = canvasEditing(this.frame, {
      move: (from, to) => this.onMoveComponent?.(from, to),
      pick: (index) => this.onPickComponent(index),
      canMove: () => Boolean(this.onMoveComponent) && this.canMove(),
      count: () => (this.getScreen().ui_components || []).length,
      stage: () => this.frame.parentElement,
    });
    this.hover = h('div', { class: 'preview-hover', id: 'preview-hover', hidden: true, 'aria-hidden': 'true' });
    this.frame.addEventListener('click', (event) => {
      if (this.canvas.justDragged()) return;
      const index = this.topSection(event.target);
      if (index !== null) this.onPickComponent(index);
    });
    this.frame.addEventListener('mousemove', (event) => this.showHover(event));
    this.frame.addEventListener('mouseleave', () => { this.hover.hidden = true; });
    this.warnings = h('div', { class: 'preview-warnings', id: 'preview-warnings' });
    this.errors = h('div', { class: 'preview-errors', id: 'preview-errors' });
    this.lastWidth = 0;
    this.resizeObserver = new ResizeObserver(() => {
      const width = this.frame.clientWidth;
      if (Math.abs(width - this.lastWidth) < 1) return;
      this.lastWidth = width;
      if (this.zoom === 'fit') this.draw();
    });
    this.resizeObserver.observe(this.frame);
    this.resizer = this.buildResizer();
    const panel = h('aside', { class: 'preview-panel', 'aria-labelledby': 'preview-heading' },
      this.resizer,
      h('div', { class: 'preview-head' },
        h('div', { class: 'preview-title' }, h('h2', { id: 'preview-heading', text: 'Preview' }), this.status),
        h('div', { class: 'field inline' }, h('label', { for: 'preview-device', text: 'Device' }), device),
        h('div', { class: 'field inline' }, h('label', { for: 'preview-device-2', text: 'Beside it' }), compare),
        h('div', { class: 'field inline' }, h('label', { for: 'preview-platform', text: 'Platform' }), platform),
        h('div', { class: 'field inline' }, h('label', { for: 'preview-zoom', text: 'Zoom' }), zoom)),
      this.errors,
      h('div', { class: 'preview-stage' }, this.frame, this.hover),
      this.warnings,
      this.samples.el);
    const width = Number(localStorage.getItem(WIDTH_KEY));
    if (width >= MIN_WIDTH) this.panelWidth = width;
    return panel;
  }

  /** The panel's left edge: drag it, or use the arrow keys on it, to widen the preview. */
  buildResizer() {
    const handle = h('div', {
      class: 'preview-resizer', id: 'preview-resizer', role: 'separator', tabindex: '0', 'aria-orientation': 'vertical',
      'aria-label': 'Width of the preview: drag, or press Arrow Left to widen and Arrow Right to narrow',
      title: 'Drag to widen the preview',
    });
    handle.addEventListener('keydown', (event) => {
      const step = event.shiftKey ? 80 : 24;
      if (event.key === 'ArrowLeft') { event.preventDefault(); this.setWidth(this.currentWidth() + step); }
      if (event.key === 'ArrowRight') { event.preventDefault(); this.setWidth(this.currentWidth() - step); }
      if (event.key === 'Home') { event.preventDefault(); this.setWidth(MIN_WIDTH); }
      if (event.key === 'End') { event.preventDefault(); this.setWidth(this.maxWidth()); }
    });
    handle.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      handle.setPointerCapture?.(event.pointerId);
      const startX = event.clientX;
      const startWidth = this.currentWidth();
      const move = (e) => this.setWidth(startWidth + (startX - e.clientX));
      const up = () => { handle.removeEventListener('pointermove', move); handle.removeEventListener('pointerup', up); };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', up);
    });
    return handle;
  }

  get grid() { return this.el.closest('.editor-grid'); }

  currentWidth() { return Math.round(this.el.getBoundingClientRect().width); }

  /** The form keeps at least FORM_MIN beside the preview. */
  maxWidth() {
    const grid = this.grid;
    return grid ? Math.max(MIN_WIDTH, grid.clientWidth - FORM_MIN - 16) : 900;
  }

  setWidth(width) {
    const w = Math.round(Math.max(MIN_WIDTH, Math.min(width, this.maxWidth())));
    this.panelWidth = w;
    this.applyWidth();
    localStorage.setItem(WIDTH_KEY, String(w));
  }

  /** Puts the chosen width on the grid (once the panel is in it). */
  applyWidth() {
    const grid = this.grid;
    if (!grid) return;
    if (this.panelWidth) grid.style.setProperty('--preview-width', `${Math.min(this.panelWidth, this.maxWidth())}px`);
    this.resizer.setAttribute('aria-valuenow', String(this.currentWidth()));
    this.resizer.setAttribute('aria-valuemin', String(MIN_WIDTH));
    this.resizer.setAttribute('aria-valuemax', String(this.maxWidth()));
  }

  destroy() {
    this.resizeObserver.disconnect();
    this.refresh.cancel();
    this.controller?.abort();
    this.sequence += 1;
  }

  devices() {
    const first = state.devices.find((d) => d.id === state.device) || state.devices[0];
    const second = this.compare && this.compare !== first?.id ? state.devices.find((d) => d.id === this.compare) : null;
    return [first, second].filter(Boolean);
  }

  async load() {
    const mine = ++this.sequence;
    this.controller?.abort();
    this.controller = new AbortController();
    this.applyWidth();
    this.status.textContent = 'Updating preview…';
    this.el.setAttribute('aria-busy', 'true');
    const screen = this.getScreen();
    const devices = this.devices();
    // Known to be refused: said here in the form's words, and not sent (the last drawing stays).
    const problems = this.check?.() || [];
    if (problems.length) {
      this.controller.abort();
      this.el.dataset.state = 'error';
      this.status.textContent = this.shown.length ? 'The preview waits for the form to be fixed; showing the last one that could be drawn.' : 'The preview waits for the form to be fixed.';
      this.showProblem({ errors: problems });
      this.el.removeAttribute('aria-busy');
      return;
    }
    try {
      const layouts = await Promise.all(devices.map((d) => api.previewLayout(screen, d.id, this.controller.signal)));
      if (mine !== this.sequence) return;
      this.shown = devices.map((device, i) => ({ device, layout: layouts[i] }));
      this.screen = screen;
      this.samples.update(screen);
      this.draw();
      this.errors.replaceChildren();
      this.status.textContent = 'Live: laid out by the server from the form as it is now, unsaved changes included.';
      this.status.title = this.status.textContent;
      this.el.dataset.state = 'ok';
      this.showWarnings();
    } catch (error) {
      if (error.name === 'AbortError' || mine !== this.sequence) return;
      this.el.dataset.state = 'error';
      this.status.textContent = this.shown.length ? 'The preview cannot be drawn; showing the last one that could.' : 'The preview cannot be drawn.';
      this.showProblem(error);
    } finally {
      if (mine === this.sequence) this.el.removeAttribute('aria-busy');
    }
  }

  /**
   * Pixels a point: the chosen zoom, or what fits every device shown, side by side, in the frame's
   * width (its padding, the gaps between devices and room for a scrollbar kept).
   */
  scale() {
    if (this.zoom !== 'fit') return Number(this.zoom) || 1;
    const available = this.frame.clientWidth - 24 - 16 * (this.shown.length - 1) - 2;
    const points = this.shown.reduce((sum, s) => sum + deviceWidth({ ...s.device, width: s.layout.device.width, height: s.layout.device.height }, this.screen, this.platform), 0);
    if (available <= 0 || !points) return 1;
    return Math.max(0.05, Math.min(Math.floor((available / points) * 1000) / 1000, 1));
  }

  draw() {
    if (!this.shown.length) return;
    const zoom = Math.round(this.scale() * 1000) / 1000;
    const scrollTop = this.frame.querySelector('.device-viewport')?.scrollTop || 0;
    this.frame.replaceChildren(h('div', { class: 'device-row' },
      this.shown.map(({ device, layout }) => drawDevice({
        layout, device, screen: this.screen, zoom, platform: this.platform,
        family: find.family(this.screen?.family) || null, feeds: this.samples.feeds,
      }))));
    const first = this.frame.querySelector('.device-viewport');
    if (first) first.scrollTop = scrollTop;
    this.frame.dataset.zoom = String(zoom);
    this.canvas.redrawn();
  }

  /** The top-level section under an element (a group's child picks its group). */
  topSection(target) {
    let g = target.closest?.('g.section[data-component-index]');
    if (!g) return null;
    while (g.parentElement?.closest('g.section[data-component-index]')) g = g.parentElement.closest('g.section[data-component-index]');
    return Number(g.dataset.componentIndex);
  }

  showHover(event) {
    const g = event.target.closest?.('g.section[data-name]');
    if (!g) { this.hover.hidden = true; return; }
    this.hover.textContent = `${g.dataset.name} — click to edit`;
    const stage = this.hover.parentElement.getBoundingClientRect();
    this.hover.style.left = `${Math.max(0, event.clientX - stage.left + 12)}px`;
    this.hover.style.top = `${Math.max(0, event.clientY - stage.top + 12)}px`;
    this.hover.hidden = false;
  }

  showWarnings() {
    const list = distinctWarnings(this.shown);
    if (!list.length) {
      this.warnings.replaceChildren(h('p', { class: 'hint', text: 'No layout warnings.' }));
      return;
    }
    const components = this.getScreen().ui_components || [];
    this.warnings.replaceChildren(
      h('h3', { text: `Warnings (${list.length})` }),
      h('ul', { class: 'warning-list' }, list.map((w) => {
        const { label, pick } = describeWarning(w, components, typeName);
        if (pick === null) return h('li', { text: label });
        return h('li', {}, h('button', { type: 'button', class: 'link-button', text: label, onclick: () => this.onPickComponent(pick) }));
      })));
  }

  showProblem(error) {
    const errors = error.errors || [];
    const items = errors.length
      ? errors.map((e) => {
        const pointer = (e.pointer || '').replace(/^\/screen/, '');
        return h('li', {}, h('button', {
          type: 'button', class: 'link-button', onclick: () => this.onFocusPointer(pointer),
          text: withLabel(pointer ? labelOf(this.el.closest('form'), pointer) : 'The screen', e.message),
        }));
      })
      : [h('li', { text: `${explain(error).title}: ${explain(error).detail}` })];
    this.errors.replaceChildren(h('div', { class: 'error-summary compact', role: 'alert' },
      h('h3', { text: errors.length ? 'The preview needs:' : 'The preview failed' }),
      h('ul', {}, items)));
  }
}
