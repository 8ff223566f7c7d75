// core.js: helpers every page-side concern shares (refs, visibility, roles,
// accessible names, unique selectors, shadow-aware traversal).
//
// It runs in an isolated world: the page cannot see or patch anything defined
// here, and our prototypes are our own. The DOM is shared, though, so nothing
// here may change the document. The script is evaluated again with every
// command, so it installs itself once on globalThis.__tabwright and keeps its
// state there for the life of the document.
(() => {
  'use strict';
  const CORE_VERSION = 7;

  // An element with id="__tabwright" shows up as a named property of the
  // window, in our world too; only an own property is really ours.
  if (!Object.hasOwn(globalThis, '__tabwright')) {
    Object.defineProperty(globalThis, '__tabwright', { value: {}, enumerable: false });
  }
  const tw = globalThis.__tabwright;
  if (tw.coreVersion === CORE_VERSION) return;

  // Refs outlive a single observation: an element keeps its ref while it is
  // alive in this document, and the counter never hands a ref out twice.
  tw.refOf ??= new WeakMap(); // element -> "eN"
  tw.refTarget ??= new Map(); // "eN" -> WeakRef(element), to resolve a ref later
  tw.nextRef ??= 1;
  // doc marks this document's refs: the engine sends it back with a ref, and
  // a ref whose mark is not this document's names nothing here (it came from
  // another page, frame or tab). Random, so no two documents share one.
  tw.doc ??= Array.from(crypto.getRandomValues(new Uint32Array(3)), (n) => n.toString(36)).join('');

  // --- DOM access that the page cannot clobber ---------------------------
  // A form's named controls shadow its properties (<input name="action"> makes
  // form.action an element, <input name="id"> does the same to form.id), and
  // <img name="title"> shadows document.title. Reading through the prototypes
  // sidesteps both.
  const EP = Element.prototype;
  const NP = Node.prototype;
  const dom = {
    attr: (el, name) => EP.getAttribute.call(el, name),
    has: (el, name) => EP.hasAttribute.call(el, name),
    tag: (el) => Reflect.get(EP, 'localName', el),
    id: (el) => EP.getAttribute.call(el, 'id') || '',
    parent: (n) => Reflect.get(NP, 'parentElement', n),
    children: (n) => Reflect.get(n.nodeType === 9 ? Document.prototype : n.nodeType === 11 ? DocumentFragment.prototype : EP, 'children', n),
    all: (root, sel) => (root.nodeType === 9 ? Document.prototype : root.nodeType === 11 ? DocumentFragment.prototype : EP).querySelectorAll.call(root, sel),
    byId: (root, id) => (root.nodeType === 9 ? Document.prototype : DocumentFragment.prototype).getElementById.call(root, id),
    root: (n) => NP.getRootNode.call(n),
    title: () => Reflect.get(Document.prototype, 'title', document),
    body: () => Reflect.get(Document.prototype, 'body', document) || document.documentElement,
  };
  tw.dom = dom;

  // --- text helpers --------------------------------------------------------
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();

  // cut shortens s to at most n UTF-16 units, ending in an ellipsis, and never
  // splits a surrogate pair (a lone half would not survive JSON).
  const cut = (s, n) => {
    if (!s || s.length <= n) return s || '';
    let end = Math.max(0, n - 1);
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    return s.slice(0, end) + '…';
  };
  tw.norm = norm;
  tw.cut = cut;

  // --- traversal -----------------------------------------------------------
  // flatChildren gives a node's children as they render: a shadow host shows
  // its shadow tree, and a slot shows what was assigned to it (or its fallback
  // content). Light children that no slot takes are not rendered at all.
  const flatChildren = (node) => {
    if (node.nodeType === 1) {
      if (node.shadowRoot) return node.shadowRoot.childNodes;
      if (dom.tag(node) === 'slot' && dom.root(node) instanceof ShadowRoot) {
        const assigned = node.assignedNodes();
        if (assigned.length) return assigned;
      }
    }
    return node.childNodes;
  };
  tw.flatChildren = flatChildren;

  // roots lists the document and every open shadow root below it.
  tw.roots = () => {
    const out = [document];
    for (let i = 0; i < out.length; i++) {
      for (const el of dom.all(out[i], '*')) if (el.shadowRoot) out.push(el.shadowRoot);
    }
    return out;
  };

  // --- visibility ----------------------------------------------------------
  // hiddenSubtree: the element and everything under it is out of the text.
  // visibility:hidden is not here because a child may turn itself visible
  // again; text nodes check it on their own.
  const hiddenSubtree = (el, cs) =>
    dom.has(el, 'hidden') ||
    dom.attr(el, 'aria-hidden') === 'true' ||
    cs.display === 'none' ||
    cs.contentVisibility === 'hidden';
  tw.hiddenSubtree = hiddenSubtree;
  // unseen: the element and everything under it is not drawn, whatever
  // assistive technology is told. Content under aria-hidden is drawn for a
  // sighted person (a code editor's lines, a decorative label), so the
  // visible text keeps it.
  tw.unseen = (el, cs) => dom.has(el, 'hidden') || cs.display === 'none' || cs.contentVisibility === 'hidden';

  // --- what a sighted reader cannot see --------------------------------------
  // Text in the document that no person sees is where a hostile page puts
  // instructions for a model: the text an agent reads (the preview, the
  // reader view, read_docs) leaves it out, by these rules, which read
  // computed style and boxes only:
  // - a box: opacity 0; clipped to nothing (clip, clip-path inset 50%);
  //   overflow hidden in a box 1px or smaller; placed off the page (at
  //   negative page coordinates, or a fixed box outside the viewport);
  // - text: font-size under 1px; transparent fill; text indented 500px or
  //   more out of its box; a fill whose contrast with the background it is
  //   drawn on is under MIN_CONTRAST, where that background is known (the
  //   nearest opaque one, through boxes in normal flow; a positioned box,
  //   a transform, an image or a translucent background makes it unknown,
  //   and unknown keeps the text).
  const MIN_CONTRAST = 1.2;
  const rgba = (c) => {
    const m = /^rgba?\(([^)]+)\)$/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map(parseFloat);
    return p.length >= 3 ? [p[0], p[1], p[2], p.length > 3 ? p[3] : 1] : null;
  };
  const luminance = ([r, g, b]) => {
    const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const contrast = (a, b) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const CANVAS = [255, 255, 255, 1];
  // sightRoot is the background at the top: the root's or body's when
  // opaque (it paints the canvas), else the default white canvas.
  const sightRoot = () => {
    for (const el of [document.documentElement, document.body]) {
      if (!el) continue;
      const cs = getComputedStyle(el);
      const bg = rgba(cs.backgroundColor);
      if (cs.backgroundImage !== 'none') return { bg: null };
      if (bg && bg[3] >= 1) return { bg };
    }
    return { bg: CANVAS };
  };
  // sightOf is the sight context el's content is drawn in, from its
  // parent's (ctx).
  const sightOf = (el, cs, ctx) => {
    const bg = rgba(cs.backgroundColor);
    if (cs.backgroundImage !== 'none' || (bg && bg[3] > 0 && bg[3] < 1)) return { bg: null };
    if (bg && bg[3] >= 1) return { bg };
    if (cs.position !== 'static' || cs.transform !== 'none' || cs.float !== 'none') return { bg: null };
    return ctx;
  };
  const CLIP_RECT = /^rect\(([^)]*)\)$/;
  const clippedAway = (cs) => {
    const m = CLIP_RECT.exec(cs.clip || '');
    if (m && cs.position !== 'static' && cs.position !== 'relative') {
      const [top, right, bottom, left] = m[1].split(/[\s,]+/).map(parseFloat);
      if (right - left <= 1 || bottom - top <= 1) return true;
    }
    return /inset\(\s*(50|[6-9]\d|100)%/.test(cs.clipPath || '') || /circle\(\s*0(px)?\b/.test(cs.clipPath || '');
  };
  // unseenBox: nothing in el's box can be seen (beyond tw.unseen's rules).
  const unseenBox = (el, cs) => {
    if (parseFloat(cs.opacity) === 0 || clippedAway(cs)) return true;
    const over = cs.overflowX !== 'visible' && cs.overflowY !== 'visible';
    const placed = cs.position === 'absolute' || cs.position === 'fixed' || cs.transform !== 'none';
    if (!over && !placed) return false;
    const r = el.getBoundingClientRect();
    if (over && (r.width <= 1 || r.height <= 1)) return true;
    if (!placed) return false;
    if (cs.position === 'fixed') return r.right <= 0 || r.bottom <= 0 || r.left >= innerWidth || r.top >= innerHeight;
    const page = document.scrollingElement || document.documentElement;
    return r.right + scrollX <= 0 || r.bottom + scrollY <= 0 || r.left + scrollX >= page.scrollWidth;
  };
  // unseenText: text drawn with style cs in context ctx cannot be seen.
  const unseenText = (cs, ctx) => {
    if (cs.visibility !== 'visible' || parseFloat(cs.fontSize) < 1 || parseFloat(cs.textIndent) <= -500) return true;
    if (cs.backgroundClip === 'text' || cs.webkitBackgroundClip === 'text') return false; // gradient text
    const fill = rgba(cs.webkitTextFillColor) || rgba(cs.color);
    if (!fill) return false;
    if (fill[3] === 0) return true;
    if (!ctx.bg || fill[3] < 1 || cs.textShadow !== 'none' || parseFloat(cs.webkitTextStrokeWidth) > 0) return false;
    return contrast(fill, ctx.bg) < MIN_CONTRAST;
  };
  // sightAt is the sight context el's content is drawn in: the contexts of
  // its ancestors, from the top down.
  const sightAt = (el) => {
    const chain = [];
    for (let n = el; n && n.nodeType === 1; n = n.assignedSlot || dom.parent(n) || dom.root(n).host) chain.unshift(n);
    let ctx = sightRoot();
    for (const n of chain) ctx = sightOf(n, getComputedStyle(n), ctx);
    return ctx;
  };
  tw.sight = { at: sightAt, of: sightOf, unseenBox, unseenText };

  const visOpts = { visibilityProperty: true, checkVisibilityCSS: true };
  const hasBox = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };

  // rendered: the element is drawn somewhere on the page (not necessarily in
  // the viewport). Controls shrunk to nothing behind a styled label still
  // count when the label is drawn, since clicking the label works.
  const rendered = (el) => {
    // display:contents has no box of its own, so checkVisibility says no;
    // what it contains (elements or bare text) is drawn, or not, for it.
    if (getComputedStyle(el).display === 'contents') {
      const p = dom.parent(el);
      if (p && !p.checkVisibility(visOpts)) return false;
      const r = document.createRange();
      r.selectNodeContents(el);
      const b = r.getBoundingClientRect();
      return b.width > 0 && b.height > 0;
    }
    if (!el.checkVisibility(visOpts)) return false;
    if (hasBox(el)) return true;
    const labels = el.labels;
    if (labels && labels.length) return [...labels].some((l) => l.checkVisibility(visOpts) && hasBox(l));
    return false;
  };
  tw.rendered = rendered;

  // --- roles ---------------------------------------------------------------
  const explicitRole = (el) => (dom.attr(el, 'role') || '').trim().split(/\s+/)[0].toLowerCase();

  const inputRole = (el) => {
    const list = dom.has(el, 'list');
    switch (el.type) {
      case 'button': case 'submit': case 'reset': case 'image': case 'file': case 'color':
        return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'search': return list ? 'combobox' : 'searchbox';
      default: return list ? 'combobox' : 'textbox';
    }
  };

  const role = (el) => {
    const r = explicitRole(el);
    if (r && r !== 'none' && r !== 'presentation') return r;
    switch (dom.tag(el)) {
      case 'a': case 'area': return dom.has(el, 'href') ? 'link' : 'generic';
      case 'button': case 'summary': return 'button';
      case 'input': return inputRole(el);
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'option': return 'option';
      case 'form': return 'form';
      case 'img': return 'img';
    }
    if (el.isContentEditable) return 'textbox';
    return 'generic';
  };
  tw.role = role;
  tw.explicitRole = explicitRole;

  // --- accessible names ----------------------------------------------------
  const SKIP_IN_NAME = new Set(['script', 'style', 'noscript', 'template', 'select', 'textarea', 'input', 'button', 'datalist']);

  // nameText collects the text a name is computed from: text, image alt
  // text, svg titles and descendants' own aria-labels, within a budget.
  // skip is the control being named (a wrapping label contains it).
  const nameText = (node, skip, budget = 240) => {
    const out = [];
    let left = budget;
    const walk = (n) => {
      for (const c of flatChildren(n)) {
        if (left <= 0) return;
        if (c.nodeType === 3) {
          out.push(c.data);
          left -= c.data.length;
          continue;
        }
        if (c.nodeType !== 1 || c === skip) continue;
        const tag = dom.tag(c);
        if (SKIP_IN_NAME.has(tag) && c !== node) continue;
        if (dom.has(c, 'hidden') || dom.attr(c, 'aria-hidden') === 'true') continue;
        const label = dom.attr(c, 'aria-label');
        if (label && label.trim()) { out.push(' ' + label + ' '); left -= label.length; continue; }
        if (tag === 'img' || tag === 'area') { const alt = dom.attr(c, 'alt') || ''; out.push(' ' + alt + ' '); left -= alt.length; continue; }
        if (tag === 'svg') {
          const t = c.querySelector(':scope > title');
          if (t) out.push(' ' + t.textContent + ' ');
          continue;
        }
        const cs = getComputedStyle(c);
        if (cs.display === 'none' || cs.visibility === 'hidden') continue;
        const block = !cs.display.startsWith('inline') && cs.display !== 'contents';
        if (block) out.push(' ');
        walk(c);
        if (block) out.push(' ');
      }
    };
    walk(node);
    return norm(out.join(''));
  };

  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'treeitem', 'cell', 'gridcell', 'columnheader', 'rowheader', 'heading', 'tooltip',
  ]);

  // accName approximates the accessible name: aria-labelledby, aria-label,
  // the associated <label>s, what the element says itself (value, alt, its
  // content), then placeholder and title.
  const accName = (el) => {
    const by = dom.attr(el, 'aria-labelledby');
    if (by) {
      const root = dom.root(el);
      const parts = by.trim().split(/\s+/).map((id) => {
        const t = dom.byId(root.nodeType === 11 ? root : document, id) || dom.byId(document, id);
        return t ? nameText(t, el) : '';
      });
      const s = norm(parts.join(' '));
      if (s) return s;
    }
    const aria = norm(dom.attr(el, 'aria-label'));
    if (aria) return aria;

    const tag = dom.tag(el);
    if (el.labels && el.labels.length) {
      const s = norm([...el.labels].map((l) => nameText(l, el)).join(' '));
      if (s) return s;
    }
    if (tag === 'input') {
      const t = el.type;
      if (t === 'submit' || t === 'reset' || t === 'button') {
        const v = norm(dom.attr(el, 'value'));
        if (v || t === 'button') return v;
        return t === 'submit' ? 'Submit' : 'Reset';
      }
      if (t === 'image') return norm(dom.attr(el, 'alt')) || norm(dom.attr(el, 'value')) || 'Submit';
    }
    if (tag === 'img' || tag === 'area') {
      const alt = norm(dom.attr(el, 'alt'));
      if (alt) return alt;
    }
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) { const s = nameText(legend); if (s) return s; }
    }
    const r = role(el);
    if (NAME_FROM_CONTENT.has(r) || tag === 'summary' || tag === 'a' || tag === 'button') {
      const s = nameText(el, null);
      if (s) return s;
    }
    const ph = norm(dom.attr(el, 'placeholder') || dom.attr(el, 'aria-placeholder'));
    if (ph) return ph;
    return norm(dom.attr(el, 'title'));
  };
  tw.accName = accName;
  tw.nameText = nameText;

  // --- unique selectors ----------------------------------------------------
  // Attributes that make short, stable selectors, tried in this order after
  // the id.
  const SELECTOR_ATTRS = ['name', 'data-testid', 'data-test', 'data-qa', 'data-cy', 'aria-label', 'href', 'placeholder'];

  // cssString writes an attribute value: bare when it is a CSS identifier,
  // otherwise in single quotes. Selectors travel inside JSON, where a double
  // quote costs an escape and single quotes cost nothing.
  const CSS_IDENT = /^-?[_a-zA-Z][_a-zA-Z0-9-]*$/;
  const cssString = (v) => CSS_IDENT.test(v) ? v : "'" + v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\a ').replace(/\r/g, '\\d ') + "'";
  tw.cssString = cssString;

  const uniqueIn = (root, sel, el) => {
    try {
      const m = dom.all(root, sel);
      return m.length === 1 && m[0] === el;
    } catch {
      return false;
    }
  };

  // step is el's part of a child path: its tag, with :nth-of-type when a
  // sibling shares the tag. Positions are counted once per parent and kept in
  // the cache, or long lists would cost a quadratic number of sibling visits.
  const step = (el, cache) => {
    const tag = dom.tag(el);
    const name = CSS.escape(tag);
    const parent = dom.parent(el) || el.parentNode;
    if (!parent) return name;
    let positions = cache && cache.positions.get(parent);
    if (!positions) {
      positions = new Map(); // element -> [index among same-tag siblings, count]
      const counts = new Map();
      const kids = [...dom.children(parent)];
      for (const sib of kids) {
        const t = dom.tag(sib);
        const n = (counts.get(t) || 0) + 1;
        counts.set(t, n);
        positions.set(sib, n);
      }
      for (const sib of kids) positions.set(sib, [positions.get(sib), counts.get(dom.tag(sib))]);
      if (cache) cache.positions.set(parent, positions);
    }
    const [index, count] = positions.get(el);
    return count > 1 ? `${name}:nth-of-type(${index})` : name;
  };

  const CLASS_WORD = /^-?[A-Za-z_][A-Za-z_-]{2,39}$/;
  const classWords = (el) => (dom.attr(el, 'class') || '').trim().split(/\s+/).filter((w) => CLASS_WORD.test(w)).slice(0, 3);

  // localSelector is unique within el's own tree (document or shadow root):
  // #id, then tag[attr="value"], each checked with querySelectorAll; then the
  // tag alone when it is the only one of its kind; otherwise the parent's
  // selector, " > ", and the tag with :nth-of-type. That last form is unique
  // by construction (one parent, one position), so it needs no query: a
  // check per element costs a whole-document match, quadratic on long lists.
  // cache (from tw.selectorCache(), optional) shares ancestors' selectors and
  // sibling positions between the elements of one observation.
  const localSelector = (el, root, cache) => {
    const hit = cache && cache.selectors.get(el);
    if (hit) return hit;
    const put = (s) => { if (cache) cache.selectors.set(el, s); return s; };
    const id = dom.id(el);
    if (id) {
      const s = '#' + CSS.escape(id);
      if (uniqueIn(root, s, el)) return put(s);
    }
    const tag = CSS.escape(dom.tag(el));
    for (const a of SELECTOR_ATTRS) {
      const v = dom.attr(el, a);
      if (!v || v.length > 100) continue;
      const s = `${tag}[${a}=${cssString(v)}]`;
      if (uniqueIn(root, s, el)) return put(s);
    }
    // Radios and checkboxes of one group share a name; the value tells them apart.
    const name = dom.attr(el, 'name');
    const value = dom.attr(el, 'value');
    if (name && value && name.length <= 100 && value.length <= 100) {
      const s = `${tag}[name=${cssString(name)}][value=${cssString(value)}]`;
      if (uniqueIn(root, s, el)) return put(s);
    }
    // A class word the element alone carries in its tree (a component's
    // part: ag-center-cols-container, flatpickr-calendar), before a path
    // of positions: far shorter on real apps, and the path of everything
    // below it starts there. Words with digits are left out (generated
    // hashes, grid positions).
    const own = step(el, cache);
    const parent = dom.parent(el);
    if (own === tag && uniqueIn(root, own, el)) return put(own);
    for (const w of classWords(el)) {
      const s = `${tag}.${CSS.escape(w)}`;
      if (uniqueIn(root, s, el)) return put(s);
    }
    if (!parent) return put(own); // top of a shadow tree: best effort
    return put(`${localSelector(parent, root, cache)} > ${own}`);
  };

  // selector: a CSS selector matching only el. Inside open shadow roots it is
  // the host's selector, " >>> ", then the selector within the shadow root.
  const selector = (el, cache) => {
    const root = dom.root(el);
    const local = localSelector(el, root, cache);
    if (root instanceof ShadowRoot) return selector(root.host, cache) + ' >>> ' + local;
    return local;
  };
  tw.selector = selector;
  tw.uniqueIn = uniqueIn;
  tw.selectorCache = () => ({ selectors: new Map(), positions: new Map() });

  // --- refs ----------------------------------------------------------------
  tw.ref = (el) => {
    let r = tw.refOf.get(el);
    if (!r) {
      r = 'e' + tw.nextRef++;
      tw.refOf.set(el, r);
      tw.refTarget.set(r, new WeakRef(el));
    }
    return r;
  };

  // staleRef says whether a locator's ref cannot name an element of this
  // document: marked for another one, or never handed out here.
  tw.staleRef = (loc) => loc.ref != null && (loc.doc !== tw.doc || !tw.refTarget.has(loc.ref));

  // element resolves a ref to its element while it is still in the document.
  tw.element = (r) => {
    const el = tw.refTarget.get(r)?.deref();
    return el && el.isConnected ? el : null;
  };

  // pruneRefs forgets refs whose element was collected, so the table does not
  // grow without bound on pages that churn their DOM.
  // secret says whether a control's value must never leave the page:
  // passwords, card numbers and security codes, one-time codes. Observations
  // leave it out, and actions that read a value back do not echo it.
  const SECRET_AUTOCOMPLETE = /\b(current-password|new-password|one-time-code|cc-number|cc-csc)\b/;
  tw.secret = (el) => el.type === 'password' || SECRET_AUTOCOMPLETE.test(dom.attr(el, 'autocomplete') || '');

  tw.pruneRefs = () => {
    for (const [r, w] of tw.refTarget) if (!w.deref()) tw.refTarget.delete(r);
  };

  tw.coreVersion = CORE_VERSION;
})();
