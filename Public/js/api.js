// The JSON API client: one place that adds the credentials (an API token as Bearer, or the
// session cookie the browser sends with the session's CSRF token on every write), reads ETags and
// turns every failure into an ApiError carrying the server's problem+json (type, title, detail,
// errors[{pointer, message}], …).

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the server could not be reached
   * @param {object} problem the problem+json body (or a synthesized one)
   * @param {{method: string, path: string, id?: string|null}} request (id: the answer's X-Request-Id)
   */
  constructor(status, problem, request) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.problem = problem;
    this.request = request;
  }
  get type() { return this.problem.type || ''; }
  get title() { return this.problem.title || `HTTP ${this.status}`; }
  get detail() { return this.problem.detail || ''; }
  /** Validation problems as [{pointer, message}]. */
  get errors() { return Array.isArray(this.problem.errors) ? this.problem.errors : []; }
  get isConflict() { return this.status === 412 || this.type === '/problems/stale-revision'; }
  get isValidation() { return this.status === 422; }
  get isNotFound() { return this.status === 404; }
  /** True when the route itself does not exist (a feature the server does not have yet), told
   *  apart from a missing resource by the problem's type. */
  get isMissingRoute() { return this.status === 404 && this.type === '/problems/no-route'; }
  /** 403 for too few rights: the role it needs (viewer, editor, publisher, admin, …). */
  get needs() { return this.status === 403 ? (this.problem.needs || null) : null; }
  /** Seconds to wait before trying again (429 Retry-After), or null. */
  get retryAfter() {
    const n = Number(this.problem.retry_after ?? this.request?.retryAfter);
    return Number.isFinite(n) && n > 0 ? Math.ceil(n) : null;
  }
}

const BASE = '/api/v1';

function etagOf(response, body) {
  const header = response.headers.get('ETag');
  if (header) return header;
  if (body && typeof body === 'object' && Number.isInteger(body.revision)) return `"${body.revision}"`;
  return null;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A fresh Idempotency-Key (random, 128 bits). crypto.randomUUID needs a secure context; the
 *  editor may be served over plain http on a private network, where getRandomValues still works. */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether a failed write may be sent again with its key: the server was not reached, or it could
 *  not tell whether the change was saved, or it was too busy to start it (its app's changes
 *  waiting in line: nothing saved, try again after Retry-After). The key makes the repeat safe
 *  (the server answers as the first time instead of changing anything twice). */
export function isRetryableWrite(error) {
  return error.status === 0 || error.type === '/problems/write-outcome-unknown'
    || error.type === '/problems/idempotency-key-in-progress' || error.type === '/problems/busy';
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Api {
  constructor(token = null) {
    this.token = token;
    /** The signed-in session's CSRF token (kept in memory only), sent on writes made with the cookie. */
    this.csrf = null;
    this.app = null; // slug or id of the app being edited
    /** Called with every ApiError of status 401 (the token or the session stopped working). */
    this.onUnauthorized = null;
  }

  /**
   * Sends one request. Resolves to {data, etag, status, response}; rejects with ApiError.
   * @param {string} method
   * @param {string} path below /api/v1, or absolute when it starts with '/'
   * @param {{body?: any, etag?: string|null, signal?: AbortSignal, text?: boolean, auth?: boolean, quiet401?: boolean, headers?: object}} options
   *   quiet401: a 401 is an answer here (signing in, asking whether a session is on), not a sign-out.
   *   headers: more request headers.
   */
  async request(method, path, options = {}) {
    if (SAFE.has(method)) return this.send(method, path, options);
    // Every write carries an Idempotency-Key; one whose outcome is unknown is sent again, with
    // the same key, up to twice.
    const headers = { 'Idempotency-Key': newIdempotencyKey(), ...(options.headers || {}) };
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.send(method, path, { ...options, headers });
      } catch (error) {
        if (!(error instanceof ApiError) || !isRetryableWrite(error) || attempt >= 2 || options.signal?.aborted) throw error;
        // As long as the server asks (a few seconds at most), else half a second, then one.
        await sleep(Math.min(error.retryAfter ?? 0, 5) * 1000 || 500 * 2 ** attempt);
      }
    }
  }

  async send(method, path, { body, etag, signal, text = false, auth = true, quiet401 = false, headers: extra = {} } = {}) {
    const url = /^(https?:\/)?\//.test(path) ? path : `${BASE}/${path}`;
    const headers = { ...extra, Accept: text ? 'image/svg+xml, application/problem+json' : 'application/json, application/problem+json' };
    if (auth && this.token) headers.Authorization = `Bearer ${this.token}`;
    else if (auth && this.csrf && !SAFE.has(method)) headers['X-CSRF-Token'] = this.csrf;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (etag) headers['If-Match'] = etag;
    const request = { method, path: url };
    let response;
    try {
      response = await fetch(url, {
        method, headers, signal, cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (error.name === 'AbortError') throw error;
      throw new ApiError(0, {
        type: '/problems/network', title: 'Cannot reach the server',
        detail: 'The server did not answer. Check that the Rivers server is running, then try again.',
      }, request);
    }
    const type = response.headers.get('Content-Type') || '';
    let data = null;
    if (response.status !== 204) {
      const raw = await response.text();
      if (!response.ok || type.includes('json')) {
        try { data = raw ? JSON.parse(raw) : null; } catch { data = raw; }
      } else {
        data = raw;
      }
    }
    // Quoted when reporting a server error (the server logs it with the error).
    request.id = response.headers.get('X-Request-Id');
    if (!response.ok) {
      const problem = data && typeof data === 'object' ? data
        : { title: `${response.status} ${response.statusText}`, detail: typeof data === 'string' ? data.slice(0, 500) : '' };
      request.retryAfter = response.headers.get('Retry-After');
      const error = new ApiError(response.status, problem, request);
      if (response.status === 401 && !quiet401 && this.onUnauthorized) this.onUnauthorized(error);
      throw error;
    }
    return { data, etag: etagOf(response, data), status: response.status, response };
  }

  appPath(rest) { return `apps/${encodeURIComponent(this.app)}/${rest}`; }

  /** Every item of a paged list (`path` below /api/v1, without limit and offset), following the pages. */
  async all(path) {
    const items = [];
    let offset = 0;
    const join = path.includes('?') ? '&' : '?';
    for (;;) {
      const { data } = await this.request('GET', `${path}${join}limit=200&offset=${offset}`);
      items.push(...data.items);
      if (data.next_offset === null || data.next_offset === undefined || data.items.length === 0) break;
      offset = data.next_offset;
    }
    return items;
  }

  // Signing in ----------------------------------------------------------------------------------
  /** The session of the cookie ({user, session_id, csrf_token}); rejects with a 401 when there is none. */
  async session() { return (await this.request('GET', 'session', { auth: false, quiet401: true })).data; }
  async signIn(email, password) {
    return (await this.request('POST', 'session', { body: { email, password }, auth: false, quiet401: true })).data;
  }
  signOut() { return this.request('DELETE', 'session', { quiet401: true }); }
  /** What a one-time link is (no credentials needed). The secret goes in a header, never a path (paths are logged). */
  async link(secret) {
    return (await this.request('GET', 'link', { auth: false, quiet401: true, headers: { 'X-Link-Secret': secret } })).data;
  }
  /** Uses a one-time link ({password, name?}): answers like signIn. */
  async useLink(secret, body) {
    return (await this.request('POST', 'link', { body, auth: false, quiet401: true, headers: { 'X-Link-Secret': secret } })).data;
  }

  // Apps and catalogs -------------------------------------------------------------------------
  /** The apps the caller can open, each with the caller's `role` there. */
  /** A page of the apps one can open, by slug; `q` keeps those whose slug or name contains it. */
  async appsPage(q = '', limit = 100) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (q) query.set('q', q);
    return (await this.request('GET', `apps?${query}`)).data;
  }
  /** One app by slug or id (null when it is not there to open). */
  async findApp(key) {
    try {
      return (await this.request('GET', `apps/${encodeURIComponent(key)}`)).data;
    } catch (error) {
      if (error.status === 404) return null;
      throw error;
    }
  }
  async getApp() { return (await this.request('GET', `apps/${encodeURIComponent(this.app)}`)).data; }
  /** Renames the app or changes its slug ({name?, slug?}); answers the app. */
  async updateApp(body) { return (await this.request('PATCH', `apps/${encodeURIComponent(this.app)}`, { body })).data; }
  /** Deletes (archives) the app. */
  archiveApp() { return this.request('DELETE', `apps/${encodeURIComponent(this.app)}`); }
  /** The app's catalog (built-in types and its ui_component plugins); the global one on older servers. */
  async componentTypes() {
    if (this.app) {
      try {
        return (await this.request('GET', this.appPath('component-types'))).data.items;
      } catch (error) {
        if (!error.isMissingRoute) throw error;
      }
    }
    return (await this.request('GET', 'component-types')).data.items;
  }
  async devices() { return (await this.request('GET', 'devices')).data.items; }

  // Members, invitations, tokens, activity (the app's admins) ----------------------------------
  async members() { return this.all(this.appPath('members')); }
  setMemberRole(userId, role) { return this.request('PUT', this.appPath(`members/${encodeURIComponent(userId)}`), { body: { role } }); }
  removeMember(userId) { return this.request('DELETE', this.appPath(`members/${encodeURIComponent(userId)}`)); }
  async invitations() { return this.all(this.appPath('invitations')); }
  /** Answers {invitation, url}: the link to pass on, shown this once. */
  async invite(body) { return (await this.request('POST', this.appPath('invitations'), { body })).data; }
  revokeInvitation(id) { return this.request('DELETE', this.appPath(`invitations/${encodeURIComponent(id)}`)); }
  async tokens() { return this.all(this.appPath('tokens')); }
  /** Answers the token's info with `token`, the secret itself, shown this once. */
  async createToken(body) { return (await this.request('POST', this.appPath('tokens'), { body })).data; }
  revokeToken(id) { return this.request('DELETE', this.appPath(`tokens/${encodeURIComponent(id)}`)); }
  // Releases: preview links (a draft on a device) ------------------------------------------------
  async previewLinks() { return this.all(this.appPath('preview-links')); }
  /** Answers the link's info with `url`, the draft's address, shown this once. */
  async createPreviewLink(body) { return (await this.request('POST', this.appPath('preview-links'), { body })).data; }
  revokePreviewLink(id) { return this.request('DELETE', this.appPath(`preview-links/${encodeURIComponent(id)}`)); }
  // Releases: channels, release rules, schedules (admins change them; everyone reads them) ------
  /** The app's channels, production first: [{name, version, revision, public_url, …}]. */
  async channels() { return (await this.request('GET', this.appPath('channels'))).data.items; }
  /** One channel with its history (newest first); {data, etag}. */
  channel(name) { return this.request('GET', this.appPath(`channels/${encodeURIComponent(name)}`)); }
  /** Points a channel at a version (makes it when new); `etag` the channel's, or none for a new one. */
  moveChannel(name, version, note, etag) {
    const body = { version };
    if (note) body.note = note;
    return this.request('PUT', this.appPath(`channels/${encodeURIComponent(name)}`), { body, etag });
  }
  /** Points a channel back at the version it served before its last move. */
  rollbackChannel(name, note, etag) {
    return this.request('POST', this.appPath(`channels/${encodeURIComponent(name)}/rollback`), { body: note ? { note } : {}, etag });
  }
  removeChannel(name, etag) { return this.request('DELETE', this.appPath(`channels/${encodeURIComponent(name)}`), { etag }); }
  /** {data: {rules, revision, warnings}, etag}. */
  releaseRules() { return this.request('GET', this.appPath('release-rules')); }
  saveReleaseRules(rules, etag) { return this.request('PUT', this.appPath('release-rules'), { body: { rules }, etag }); }
  /** What an app of `store` at `appVersion` gets now: {rule, channel, version, url}. */
  async resolveRelease(store, appVersion) {
    const query = new URLSearchParams({ store, app_version: appVersion });
    return (await this.request('GET', this.appPath(`release-rules/resolve?${query}`))).data;
  }
  async schedules() { return this.all(this.appPath('schedules')); }
  async createSchedule(body) { return (await this.request('POST', this.appPath('schedules'), { body })).data; }
  cancelSchedule(id) { return this.request('DELETE', this.appPath(`schedules/${encodeURIComponent(id)}`)); }

  /** One page of the audit log, newest first; `filter` {actor, kind, id, since, until}. */
  async audit(filter = {}, limit = 50, offset = 0) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
    query.set('limit', String(limit));
    query.set('offset', String(offset));
    return (await this.request('GET', this.appPath(`audit?${query}`))).data;
  }

  // Families, layouts, screens ------------------------------------------------------------------
  /** Every item of a collection, following the pages. */
  list(kind) { return this.all(this.appPath(kind)); }
  get(kind, id) { return this.request('GET', this.appPath(`${kind}/${encodeURIComponent(id)}`)); }
  create(kind, body) { return this.request('POST', this.appPath(kind), { body }); }
  replace(kind, id, body, etag) { return this.request('PUT', this.appPath(`${kind}/${encodeURIComponent(id)}`), { body, etag }); }
  patch(kind, id, body, etag) { return this.request('PATCH', this.appPath(`${kind}/${encodeURIComponent(id)}`), { body, etag }); }
  remove(kind, id, etag) { return this.request('DELETE', this.appPath(`${kind}/${encodeURIComponent(id)}`), { etag }); }
  reorder(screenId, componentIds, etag) {
    return this.request('POST', this.appPath(`screens/${encodeURIComponent(screenId)}/reorder`), { body: { component_ids: componentIds }, etag });
  }

  // Preview -------------------------------------------------------------------------------------
  /** The SVG of an unsaved screen body on a device preset. */
  async previewSvg(screen, device, signal) {
    return (await this.request('POST', this.appPath('preview?format=svg'), { body: { screen, device }, signal, text: true })).data;
  }

  /** The frames of an unsaved screen body on a device preset: the server's layout, as JSON. */
  async previewLayout(screen, device, signal) {
    return (await this.request('POST', this.appPath('preview'), { body: { screen, device }, signal })).data;
  }

  /**
   * One cell of an unsaved family laid out and drawn by the server (POST …/cell-preview):
   * `body` is {family, cell_style, device?} (no device: the family's reference size). `format`
   * 'svg' answers the drawing as text, 'json' the frames ({device, m, cell, content, warnings}).
   */
  async cellPreview(body, format, signal) {
    const svg = format === 'svg';
    return (await this.request('POST', this.appPath(`cell-preview?format=${svg ? 'svg' : 'json'}`), { body, signal, text: svg })).data;
  }

  // Publishing ----------------------------------------------------------------------------------
  /** Publishes the draft; `channel` points that channel at it instead of production. */
  publish(note, channel = null) {
    const body = { note };
    if (channel && channel !== 'production') body.channel = channel;
    return this.request('POST', this.appPath('publish'), { body });
  }
  async problems() { return (await this.publishReport()).problems; }
  /** What stops a publish (`problems`) and what a publish goes ahead with (`warnings`). */
  async publishReport() {
    const { data } = await this.request('GET', this.appPath('problems'));
    return { problems: data.problems || [], warnings: data.warnings || [] };
  }
  async versions(limit = 50, offset = 0) { return (await this.request('GET', this.appPath(`versions?limit=${limit}&offset=${offset}`))).data; }
  async version(n) { return (await this.request('GET', this.appPath(`versions/${n}`))).data; }
  /** The document a publish would send now (the saved screens). */
  async draftDocument() { return (await this.request('GET', this.appPath('draft.json'))).data; }
  async diff(from, to) { return (await this.request('GET', this.appPath(`versions/diff?from=${from}&to=${to}`))).data; }
  rollback(n) { return this.request('POST', this.appPath(`versions/${n}/rollback`), { body: {} }); }
  /** The public document, fetched without the token as an app would. */
  async publicDocument(url) { return (await this.request('GET', url, { auth: false })).data; }

  // Plugins (later) -----------------------------------------------------------------------------
  async plugins() { return (await this.request('GET', this.appPath('plugins'))).data.items || []; }
  async pluginForm(id) { return (await this.request('GET', this.appPath(`plugins/${encodeURIComponent(id)}/form`))).data; }
  /** Every registered plugin (all pages). */
  async allPlugins() { return this.all(this.appPath('plugins')); }
  plugin(id) { return this.request('GET', this.appPath(`plugins/${encodeURIComponent(id)}`)); }
  /** Registers a manifest: a new plugin (201), or a new version of one the app has (200). */
  registerPlugin(manifest) { return this.request('POST', this.appPath('plugins'), { body: manifest }); }
  /** A new version of a plugin, or a version it has replaced (`etag`: the plugin's revision). */
  replacePlugin(id, manifest, etag) { return this.request('PUT', this.appPath(`plugins/${encodeURIComponent(id)}`), { body: manifest, etag }); }
  removePlugin(id, etag) { return this.request('DELETE', this.appPath(`plugins/${encodeURIComponent(id)}`), { etag }); }
}
