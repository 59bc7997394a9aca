// audience tracker
// Readable source of GET /a.js. `make tracker` minifies it with terser (names mangled, settings in
// terser.json) into dist/a.min.js; render.py replaces the endpoint placeholder there. Declarations
// use `let` so that terser can merge them. The contract is in README.md.
//
// Names: me = this script element; ep = endpoint URL; cfg = site config from the collector;
// ready = cfg has arrived; cookieOn = `_vis` is in use (cookie mode, or consent granted);
// asked = consent given or withdrawn before cfg arrived; gone = the page has been hidden for good
// (pagehide); Q = events waiting to be sent; T = the pending flush timer; pid = id of the current
// page view; purl = its URL; maxS / sentS = largest scroll depth seen / already reported in this
// page view; Z = declared zones; M = page API.
(() => {
  let w = window, d = document, nav = navigator, loc = location;
  let me = d.currentScript, site = me && me.getAttribute('data-site');
  let api = w.audience = w.audience || {};
  if (!site || api.v) return; // no site id, or the tag is on the page twice
  api.v = 1;
  // The endpoint is on the origin of this script's own src; its path is renamable server-side.
  let ep = new URL("__AUDIENCE_ENDPOINT__", me.src); // a URL: sendBeacon, fetch and + take it as its href
  let cfg = {}, ready, cookieOn, asked, gone, Q = [], T, pid, purl, maxS, sentS, Z = [];
  let fresh = () => { pid = rid(); maxS = sentS = 0; }; // a new page view
  let vids = new WeakMap, arr = v => Array.isArray(v) ? v : [];
  let on = (t, k, f, o) => t.addEventListener(k, f, o);

  // 26 characters of 5 random bits each (130 bits), URL-safe: 0-9 a-v.
  let rid = () => {
    let s = '';
    for (let b of crypto.getRandomValues(new Uint8Array(26))) s += (b & 31).toString(32);
    return s;
  };

  // Keeps non-empty strings, finite numbers and booleans: props stay flat and nothing absent is
  // ever sent, as null or otherwise.
  let flat = o => {
    let r = {};
    for (let k in o) {
      let v = o[k], t = typeof v;
      if (t == 'string' ? v : t == 'boolean' || t == 'number' && isFinite(v)) r[k] = v;
    }
    return r;
  };

  let make = (type, name, props) => {
    let x = screen.width, e = flat({
      type, name, url: loc.href, title: d.title, language: nav.language,
      screen: x < 768 ? 'mobile' : x < 1024 ? 'tablet' : 'desktop', page_id: pid, ts: Date.now()
    });
    props = flat(props);
    for (let k in props) { e.props = props; break; }
    return e;
  };

  // Events wait at most one second, so that a burst shares one request.
  let push = e => { Q.push(e); T = T || setTimeout(flush, 1e3); };
  // `url`: events that close a page view carry its URL, not the next view's.
  let emit = (name, props, url) => { let e = make('event', name, props); if (url) e.url = url; push(e); };

  let vis = () => (cookieOn && d.cookie.match(/(?:^|; )_vis=([\w-]{22,64})(?:;|$)/) || [])[1];

  let flush = () => {
    clearTimeout(T);
    T = 0;
    while (ready && Q.length) {
      let body = JSON.stringify({site, visitor: vis(), events: Q.splice(0, 50)});
      // A text/plain body needs no CORS preflight, and a beacon survives the page's unload. When the
      // browser refuses the beacon (over its quota), fetch: mode cors by default, and a string body
      // goes as text/plain;charset=UTF-8. Booleans are written 1 in this file (the browser converts).
      nav.sendBeacon(ep, new Blob([body], {type: 'text/plain;charset=UTF-8'})) ||
        fetch(ep, {method: 'POST', body, keepalive: 1, credentials: 'omit'}).catch(flat); // flat: a no-op here
    }
  };

  // `_vis` is created once and never rewritten, so its expiry never moves. Max-Age 390 days stays
  // under 13 calendar months whatever the start date (the shortest 13 months last 393 days).
  let useVis = yes => {
    cookieOn = yes;
    if (!yes) d.cookie = '_vis=;max-age=0;path=/';
    else if (!vis()) d.cookie = '_vis=' + rid() + ';max-age=33696000;path=/;SameSite=Lax' + (loc.protocol == 'https:' ? ';Secure' : '');
  };

  let scrolled = () => {
    maxS = Math.max(maxS, Math.min(100, Math.round((scrollY + innerHeight) / d.documentElement.scrollHeight * 100)));
  };

  // A zone's time runs while one of its elements is at least half on screen and the page visible.
  let tick = z => {
    let now = Date.now();
    if (z.t) z.ms += now - z.t;
    z.t = z.shown.size && !d.hidden && !gone ? now : 0;
  };

  // Reports what the page view accumulated: the scroll depth when it grew, and zone time as the
  // increment since the last report (a page hidden then shown again reports again when it ends).
  let end = () => {
    scrolled();
    if (maxS > sentS) emit('scroll_depth', {percent: sentS = maxS}, purl);
    for (let z of Z) {
      tick(z);
      if (z.ms) emit('zone_visibility', {zone: z.name, visible_ms: z.ms}, purl);
      z.ms = 0;
    }
  };
  let leave = () => { end(); flush(); };

  let view = ref => {
    purl = loc.href;
    let e = make('pageview'), q = new URL(purl).searchParams;
    if (ref) e.referrer = ref;
    Q.push(e);
    for (let p of arr(cfg.search_params)) {
      let v = (q.get(p) || '').trim();
      if (v) { emit('view_search_results', {search_term: v, search_param: p}); break; }
    }
    flush(); // page views go out at once
  };
  let next = () => { end(); fresh(); view(purl); };

  // SPA navigations: a new page view when the path or query changes, not for the hash alone.
  let moved = () => { if (ready && loc.href.split('#')[0] != purl.split('#')[0]) next(); };
  for (let k of ['pushState', 'replaceState']) {
    let orig = history[k];
    history[k] = (...a) => { orig.apply(history, a); moved(); }; // both return undefined
  }
  on(w, 'popstate', moved);
  on(w, 'scroll', scrolled, {passive: 1});
  on(d, 'visibilitychange', () => { Z.forEach(tick); if (d.hidden) leave(); });
  // On unload Chromium fires pagehide before visibilitychange: zone time stops at the first.
  on(w, 'pagehide', () => { gone = 1; leave(); });
  // A page restored from the back/forward cache is a new page view.
  on(w, 'pageshow', e => { gone = 0; Z.forEach(tick); if (e.persisted && ready) { fresh(); view(); } });

  // Clicks on links and buttons, among them outbound links and downloads.
  let clicked = e => {
    let el = e.target.closest && e.target.closest('a,button'), tag = el && el.tagName;
    if (tag != 'A' && tag != 'BUTTON' || e.button > 1) return; // auxclick: the middle button only
    let href = tag == 'A' ? el.href : '', u = href && new URL(href); // '' is dropped, false would not be
    emit('click', {
      element: tag == 'A' ? 'a' : 'button', id: el.id, href,
      text: el.innerText.replace(/\s+/g, ' ').trim().slice(0, 100) || el.getAttribute('aria-label')
    });
    if (!/^https?:$/.test(u && u.protocol)) return;
    if (u.host != loc.host) emit('outbound_click', {url: href, domain: u.hostname});
    let ext = (u.pathname.toLowerCase().match(/\.(\w+)$/) || [])[1];
    if (ext && arr(cfg.downloads).includes(ext)) emit('file_download', {url: href, extension: ext});
  };
  on(d, 'click', clicked, 1);
  on(d, 'auxclick', clicked, 1);

  // Form submissions: which form, never what was typed in it.
  on(d, 'submit', e => {
    let a = n => e.target.getAttribute(n); // attributes, since form.id may be a field named "id"
    emit('form_submit', {form_id: a('id'), form_name: a('name'), form_action: new URL(a('action') || '', loc.href).href});
  }, 1);

  // HTML5 videos. Media events do not bubble, so they are caught on their way down.
  let media = e => {
    let v = e.target, s = vids.get(v) || {}, type = e.type;
    let props = p => Object.assign({video_url: v.currentSrc || v.src, video_title: v.title}, p);
    if (v.tagName != 'VIDEO') return;
    vids.set(v, s);
    if (type == 'ended') { emit('video_complete', props()); vids.delete(v); } // a replay starts again
    else if (type == 'play') { if (!s.started) emit('video_start', props(s.started = 1)); }
    else for (let p of [25, 50, 75]) // a live stream's duration is Infinity: no progress events
      if (!s[p] && v.currentTime / v.duration * 100 >= p) emit('video_progress', props({percent: s[p] = p}));
  };
  for (let t of ['play', 'timeupdate', 'ended']) on(d, t, media, 1);

  // The page API. Until the config has arrived, events wait in Q and a consent waits too.
  let M = {
    track: (name, props) => { if (name && typeof name == 'string') emit(name, props); },
    ecommerce: (name, data) => {
      if (!/^(view_item(_list)?|select_item|(add_to|remove_from|view)_cart|begin_checkout|add_(shipping|payment)_info|purchase|refund)$/.test(name))
        return console.warn('audience: unknown e-commerce event', name);
      let {items, ...props} = data || {}, e = make('event', name, props);
      if (e.props && props.transaction_id != null) e.props.transaction_id += '';
      if (arr(items).length) e.items = items.map(({id, name, price, quantity}) => flat({id: id && id + '', name, price, quantity}));
      push(e);
    },
    // Only consent mode asks for consent: granting creates `_vis`, withdrawing deletes it.
    // What was queued before a change at run time belongs to the previous state: flushed first.
    consent: yes => { if (!ready) asked = !!yes; else if (cfg.mode == 'consent') { flush(); useVis(!!yes); } },
    pageview: () => { if (ready) next(); }
  };
  // Calls made before this script ran, by the stub documented in README.md: [method, ...args].
  let run = c => { try { M[c[0]](...c.slice(1)); } catch {} };
  let early = arr(api.q);
  Object.assign(api, M, {q: {push: run}});
  fresh();
  early.forEach(run);

  fetch(ep + '?site=' + encodeURIComponent(site), {credentials: 'omit'})
    .then(r => r.ok ? r.json() : {}).catch(flat)
    .then(c => {
      cfg = Object(c);
      ready = 1;
      let mode = cfg.mode, yes = mode == 'cookie'
        // Cookie mode honours Global Privacy Control and Do Not Track by staying cookieless.
        ? !nav.globalPrivacyControl && nav.doNotTrack != '1'
        : mode == 'consent' && (asked ?? !!cfg.consent_granted_default);
      if (yes || mode == 'consent' && asked === false) useVis(yes); // a withdrawal deletes `_vis`
      Z = arr(cfg.zones).map(({name, selector}) => {
        let z = {name, selector, shown: new Set, ms: 0, t: 0};
        z.io = new IntersectionObserver(es => {
          for (let e of es) z.shown[e.intersectionRatio >= .5 ? 'add' : 'delete'](e.target);
          tick(z);
        }, {threshold: .5});
        return z;
      });
      // Zones rendered later (SPA views, lazy content) are picked up as the DOM changes.
      let scan = () => Z.forEach(z => { try { d.querySelectorAll(z.selector).forEach(el => z.io.observe(el)); } catch {} });
      if (Z.length) { scan(); new MutationObserver(scan).observe(d.documentElement, {childList: 1, subtree: 1}); }
      view(d.referrer);
    });
})();
