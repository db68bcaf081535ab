// The live preview beside a screen form: the server draws the UNSAVED screen as SVG for a device
// preset (POST /apps/{app}/preview?format=svg), debounced while the user edits; the layout
// warnings are listed, and a click on a section or warning goes to its component.
import { api, state, setDevice } from '../state.js';
import { h, select, debounce } from '../dom.js';
import { typeName } from './components.js';
import { explain } from '../notify.js';
import { unescapePointer, withNames } from '../field-errors.js';

const DELAY = 300;

export class PreviewPanel {
  /**
   * @param {{getScreen: () => object, onPickComponent: (index: number) => void, onFocusPointer: (pointer: string) => void}} options
   */
  constructor({ getScreen, onPickComponent, onFocusPointer }) {
    this.getScreen = getScreen;
    this.onPickComponent = onPickComponent;
    this.onFocusPointer = onFocusPointer;
    this.sequence = 0;
    this.controller = null;
    this.lastSvg = '';
    this.fit = true;
    this.refresh = debounce(() => this.load(), DELAY);
    this.el = this.build();
  }

  build() {
    const device = select(state.devices.map((d) => ({ value: d.id, text: d.name })), state.device, { id: 'preview-device' });
    device.addEventListener('change', () => { setDevice(device.value); this.refresh.flush(); });
    const fit = h('input', { type: 'checkbox', id: 'preview-fit', checked: this.fit });
    fit.addEventListener('change', () => { this.fit = fit.checked; this.applyZoom(); });
    this.status = h('p', { class: 'preview-status', id: 'preview-status', role: 'status', 'aria-live': 'polite', text: 'Loading…' });
    this.frame = h('div', {
      class: 'preview-frame', id: 'preview-frame', 'data-testid': 'preview-svg',
      role: 'group', 'aria-label': 'Preview drawing; click a section to edit its component',
    });
    this.frame.addEventListener('click', (event) => {
      const section = event.target.closest?.('g.section[data-component-index]');
      if (section) this.onPickComponent(Number(section.dataset.componentIndex));
    });
    this.warnings = h('div', { class: 'preview-warnings', id: 'preview-warnings' });
    this.resizeObserver = new ResizeObserver(() => this.applyZoom());
    this.resizeObserver.observe(this.frame);
    this.errors = h('div', { class: 'preview-errors', id: 'preview-errors' });
    return h('aside', { class: 'preview-panel', 'aria-labelledby': 'preview-heading' },
      h('div', { class: 'preview-head' },
        h('h2', { id: 'preview-heading', text: 'Preview' }),
        h('div', { class: 'field inline' }, h('label', { for: 'preview-device', text: 'Device' }), device),
        h('div', { class: 'field inline check' }, fit, h('label', { for: 'preview-fit', text: 'Fit the screen’s width' }))),
      this.status,
      this.errors,
      this.frame,
      this.warnings);
  }

  destroy() {
    this.resizeObserver.disconnect();
    this.refresh.cancel();
    this.controller?.abort();
    this.sequence += 1;
  }

  async load() {
    const mine = ++this.sequence;
    this.controller?.abort();
    this.controller = new AbortController();
    this.status.textContent = 'Updating preview…';
    this.el.setAttribute('aria-busy', 'true');
    const screen = this.getScreen();
    try {
      const svg = await api.previewSvg(screen, state.device, this.controller.signal);
      if (mine !== this.sequence) return;
      this.show(svg);
      this.errors.replaceChildren();
      this.status.textContent = 'Live: drawn by the server from the form as it is now, unsaved changes included.';
      this.el.dataset.state = 'ok';
    } catch (error) {
      if (error.name === 'AbortError' || mine !== this.sequence) return;
      this.el.dataset.state = 'error';
      this.status.textContent = this.lastSvg ? 'The preview cannot be drawn; showing the last one that could.' : 'The preview cannot be drawn.';
      this.showProblem(error);
    } finally {
      if (mine === this.sequence) this.el.removeAttribute('aria-busy');
    }
  }

  show(svgText) {
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const svg = doc.documentElement;
    if (!svg || svg.nodeName !== 'svg' || doc.querySelector('parsererror')) {
      throw new Error('the server sent a preview that is not SVG');
    }
    // The server's drawing holds no scripts; drop any anyway before it enters the page.
    svg.querySelectorAll('script, foreignObject').forEach((n) => n.remove());
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', svg.querySelector('title')?.textContent || 'Screen preview');
    this.lastSvg = svgText;
    this.frame.dataset.svgLength = String(svgText.length);
    this.frame.replaceChildren(document.importNode(svg, true));
    this.applyZoom();
    this.showWarnings([...svg.querySelectorAll('text.warning')].map((t) => t.textContent.replace(/^⚠\s*/, '')));
  }

  /**
   * Fit: the device's width (plus the drawing's 20-point margins) fills the frame; cells that
   * scroll beyond the screen stay to the right, reachable by scrolling. Otherwise 1 point = 1 pixel.
   */
  applyZoom() {
    const svg = this.frame.querySelector('svg');
    if (!svg) return;
    const box = svg.viewBox?.baseVal;
    const device = state.devices.find((d) => d.id === state.device);
    if (!this.fit || !box || !box.width || !device) {
      svg.style.width = '';
      svg.style.height = '';
      return;
    }
    const available = this.frame.clientWidth - 2;
    if (available <= 0) return;
    const scale = Math.min(available / (device.width + 40), 4);
    svg.style.width = `${box.width * scale}px`;
    svg.style.height = `${box.height * scale}px`;
  }

  showWarnings(list) {
    if (!list.length) {
      this.warnings.replaceChildren(h('p', { class: 'hint', text: 'No layout warnings.' }));
      return;
    }
    this.warnings.replaceChildren(
      h('h3', { text: `Warnings (${list.length})` }),
      h('ul', { class: 'warning-list' }, list.map((text) => {
        const m = /^component (\d+): ?(.*)$/.exec(text);
        if (!m) return h('li', { text });
        // The server counts from 0; the form from 1.
        const index = Number(m[1]);
        const c = (this.getScreen().ui_components || [])[index];
        const label = `Component ${index + 1}${c ? ` (${typeName(c.component_type)})` : ''}: ${m[2]}`;
        return h('li', {}, h('button', { type: 'button', class: 'link-button', text: label, onclick: () => this.onPickComponent(index) }));
      })));
  }

  showProblem(error) {
    const errors = error.errors || [];
    const items = errors.length
      ? errors.map((e) => {
        const pointer = (e.pointer || '').replace(/^\/screen/, '');
        return h('li', {}, h('button', {
          type: 'button', class: 'link-button', onclick: () => this.onFocusPointer(pointer),
          text: `${pointer ? unescapePointer(pointer) : 'the screen'}: ${withNames(e.message)}`,
        }));
      })
      : [h('li', { text: `${explain(error).title}: ${explain(error).detail}` })];
    this.errors.replaceChildren(h('div', { class: 'error-summary compact', role: 'alert' },
      h('h3', { text: errors.length ? 'The preview needs:' : 'The preview failed' }),
      h('ul', {}, items)));
  }
}
