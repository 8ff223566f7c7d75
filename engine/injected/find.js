// find.js: strict element lookup (css, xpath, label, placeholder, refs and
// handles), element descriptions for messages, and frame elements. Needs
// core.js; check.js and act.js build on it.
(() => {
  'use strict';
  const tw = globalThis.__tabwright;
  if (tw.findVersion === 4) return;
  const { dom, norm } = tw;

  // --- the page contract ---------------------------------------------------
  // A page function that cannot do what it was asked answers {ok: false,
  // code, reason, detail}: code is the engine's error code, reason one of
  // REASONS. The engine maps (code, reason) to its error in one place and
  // never reads detail, which is for people (what covers the element, why
  // it takes no text). A helper deep inside a call refuses by throwing
  // tw.refusal(...); tw.answer hands that on in the same shape.
  const REASONS = new Set(['covered', 'not_visible', 'disabled', 'not_editable', 'unstable', 'detached',
    'outside_viewport', 'not_select', 'option_disabled', 'no_option', 'bad_selector', 'not_frame']);
  tw.reasons = REASONS;
  const no = (code, reason, detail) => {
    if (!REASONS.has(reason)) throw new Error('tabwright: reason ' + reason + ' is not in the page contract');
    const r = { ok: false, code, reason };
    if (detail) r.detail = detail;
    return r;
  };
  tw.no = no;
  class Refusal {
    constructor(answer) { this.answer = answer; }
  }
  tw.refusal = (code, reason, detail) => new Refusal(no(code, reason, detail));
  // answer runs one engine call: its value comes back as {value}, a
  // refusal as {refused}; anything else thrown is a bug and stays thrown.
  // A call that answers at once is answered at once (a promise would cost
  // the evaluation a turn of the event loop).
  const refused = (e) => {
    if (e instanceof Refusal) return { refused: e.answer };
    throw e;
  };
  tw.answer = (call) => {
    try {
      const v = call();
      return v instanceof Promise ? v.then((value) => ({ value }), refused) : { value: v };
    } catch (e) {
      return refused(e);
    }
  };

  // --- handles: elements found by one call and acted on by the next -------
  tw.held ??= new Map(); // "hN" -> WeakRef(element)
  tw.nextHeld ??= 1;
  tw.hold = (el) => {
    const h = 'h' + tw.nextHeld++;
    tw.held.set(h, new WeakRef(el));
    if (tw.held.size > 256) tw.held.delete(tw.held.keys().next().value);
    return h;
  };
  const byHandle = (h) => tw.held.get(h)?.deref() || null;
  tw.byHandle = byHandle;

  // --- finding -------------------------------------------------------------
  // Every element of the document and of its open shadow trees, in tree
  // order with each shadow tree right after its host: the order nth counts in.
  const everything = () => {
    const out = [];
    const walk = (root) => {
      for (const el of dom.all(root, '*')) {
        out.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return out;
  };
  tw.everything = everything;
  const inOrder = (set) => (set.size <= 1 ? [...set] : everything().filter((el) => set.has(el)));

  // css matches in the document and in every open shadow root; "a >>> b"
  // steps into the shadow root of each match of a (our selectors use it).
  const css = (sel) => {
    const parts = sel.split('>>>').map((s) => s.trim());
    let scopes = tw.roots();
    let found = new Set();
    for (let i = 0; i < parts.length; i++) {
      found = new Set();
      for (const scope of scopes) for (const el of dom.all(scope, parts[i])) found.add(el);
      if (i < parts.length - 1) scopes = [...found].filter((el) => el.shadowRoot).map((el) => el.shadowRoot);
    }
    return inOrder(found);
  };
  tw.css = css;

  const xpath = (sel) => {
    const res = document.evaluate(sel, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < res.snapshotLength; i++) {
      const n = res.snapshotItem(i);
      if (n.nodeType === 1) out.push(n);
    }
    return out;
  };

  // A wrapping label's own text leaves out the text of the controls inside
  // it (a select's options, a textarea's content).
  const CONTROL_TAGS = new Set(['select', 'textarea', 'button', 'input', 'datalist', 'option', 'script', 'style']);
  const labelText = (label) => {
    let out = '';
    const walk = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) out += c.nodeValue;
        else if (c.nodeType === 1 && !CONTROL_TAGS.has(dom.tag(c))) walk(c);
      }
    };
    walk(label);
    return norm(out);
  };

  // labelledBy lists the elements aria-labelledby names, or null when it
  // names none that exist (the browser then ignores the attribute too).
  const labelledBy = (el) => {
    const ids = (dom.attr(el, 'aria-labelledby') || '').trim().split(/\s+/).filter(Boolean);
    const root = dom.root(el);
    const els = ids.map((id) => (root.nodeType === 11 && dom.byId(root, id)) || dom.byId(document, id)).filter(Boolean);
    return els.length ? els : null;
  };

  // labelsOf gives the texts that label el, in the order the accessible
  // name takes them: aria-labelledby replaces everything else, then a
  // non-empty aria-label, then the <label> elements of the control. Each
  // text counts on its own, and so do several joined, as the name joins them.
  // native is el's <label> elements; labels (control -> its labels, from
  // one pass over the document) saves asking each control, which costs the
  // browser a walk of the document every time.
  const labelsOf = (el, labels) => {
    const by = labelledBy(el);
    let texts;
    if (by) texts = by.map((t) => tw.nameText(t, el));
    else if (norm(dom.attr(el, 'aria-label'))) texts = [norm(dom.attr(el, 'aria-label'))];
    else texts = (labels ? labels.get(el) || [] : [...(el.labels || [])]).map(labelText);
    if (texts.length > 1) texts.push(norm(texts.join(' ')));
    return texts;
  };
  tw.labelsOf = labelsOf;

  // byLabel: the elements whose label (as labelsOf reads it) is exactly the
  // text, whitespace normalised. The candidates are what can carry a label:
  // the controls of <label> elements and anything with aria-label(ledby).
  const byLabel = (text) => {
    const want = norm(text);
    const labels = new Map(); // control -> its <label>s, in document order
    const candidates = new Set();
    for (const root of tw.roots()) {
      for (const label of dom.all(root, 'label')) {
        const c = label.control;
        if (!c) continue;
        if (!labels.has(c)) labels.set(c, []);
        labels.get(c).push(label);
        candidates.add(c);
      }
      for (const el of dom.all(root, '[aria-labelledby],[aria-label]')) candidates.add(el);
    }
    const found = new Set();
    for (const el of candidates) if (labelsOf(el, labels).includes(want)) found.add(el);
    return inOrder(found);
  };

  const byPlaceholder = (text) => {
    const found = new Set();
    for (const root of tw.roots()) {
      for (const el of dom.all(root, '[placeholder]')) if (dom.attr(el, 'placeholder') === text) found.add(el);
    }
    return inOrder(found);
  };

  // --- roles, DOM-side --------------------------------------------------------
  // byRole answers a role locator from the DOM when the answer is sure to
  // be the accessibility tree's: exactly one element of the role with that
  // name, and every element that could have the role one whose role, name
  // and presence in the tree follow from plain HTML. Anything else (an
  // explicit role, aria-owns, custom elements, which may hide a closed
  // shadow root, hidden candidates, names from CSS, images, titles or
  // placeholders, no match, several) answers null: the caller asks the
  // browser's accessibility tree.
  const DOM_ROLES = {
    button: 'button,input,summary,[role]',
    checkbox: 'input,[role]',
    radio: 'input,[role]',
    textbox: 'input,textarea,[contenteditable],[role]',
    link: 'a,area,[role]',
  };
  const PLAIN_TEXTBOX = new Set(['text', 'email', 'tel', 'url']);
  const PLAIN_INLINE = new Set(['span', 'b', 'i', 'em', 'strong', 'small', 'u', 'mark', 'code', 'abbr']);
  const noGenerated = (el) => ['::before', '::after'].every((p) => {
    const c = getComputedStyle(el, p).content;
    return c === 'none' || c === 'normal';
  });
  // plainText is el's text when only text and plain inline elements (no
  // aria-label, no generated content, all shown) make it; null otherwise.
  // skip is a control inside a label, left out of the label's text.
  const plainText = (el, skip) => {
    if (!noGenerated(el)) return null;
    let out = '';
    for (const c of el.childNodes) {
      if (c.nodeType === 3) out += c.nodeValue;
      else if (c === skip) continue;
      else if (c.nodeType === 1) {
        if (!PLAIN_INLINE.has(dom.tag(c)) || c.attributes.length) return null;
        const inner = plainText(c, skip);
        if (inner == null) return null;
        out += inner;
      } else if (c.nodeType !== 8) return null;
    }
    return out;
  };
  // plainName is the accessible name of a candidate of role, or null when
  // it does not follow from plain HTML.
  const plainName = (el, role) => {
    if (dom.has(el, 'aria-labelledby') || dom.has(el, 'aria-describedby')) return null;
    const aria = dom.attr(el, 'aria-label');
    if (aria != null && norm(aria)) return norm(aria);
    const tag = dom.tag(el);
    if (tag === 'input' && role === 'button') {
      const v = dom.attr(el, 'value');
      return v != null && norm(v) ? norm(v) : null;
    }
    if (role === 'button' || role === 'link') {
      const t = plainText(el, null);
      return t != null && norm(t) ? norm(t) : null;
    }
    const labels = [...(el.labels || [])];
    if (labels.length > 1) return null;
    if (labels.length === 1) {
      const t = plainText(labels[0], el);
      return t != null && norm(t) ? norm(t) : null;
    }
    // No label: a text field is named by its placeholder, when no title
    // competes with it.
    const ph = dom.attr(el, 'placeholder');
    if (role !== 'textbox' || dom.has(el, 'title') || dom.has(el, 'aria-placeholder') || ph == null || !norm(ph)) return null;
    return norm(ph);
  };
  // plainCandidate: el's role is the one tw.role gives, as the browser
  // computes it too, and el is in the tree (shown, not aria-hidden, not inert).
  const plainCandidate = (el, role) => {
    if (dom.has(el, 'role') || el.isContentEditable || dom.has(el, 'contenteditable')) return false;
    const tag = dom.tag(el);
    if (tag === 'summary' || tag === 'area') return false;
    if (tag === 'input') {
      const t = el.type;
      if (role === 'textbox' && !PLAIN_TEXTBOX.has(t)) return false;
      if (role === 'button' && !['button', 'submit', 'reset'].includes(t)) return false;
    }
    if (el.closest('[aria-hidden],[inert],[hidden]')) return false;
    return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  };
  tw.byRole = (role, name) => {
    const sel = DOM_ROLES[role];
    if (!sel || name == null) return null;
    const want = norm(name);
    const all = everything();
    if (all.some((el) => el.localName.includes('-') || dom.has(el, 'aria-owns'))) return null;
    const found = [];
    for (const root of tw.roots()) {
      for (const el of dom.all(root, sel)) {
        if (dom.tag(el) === 'input' && el.type === 'hidden') continue; // never in the tree
        const tokens = (dom.attr(el, 'role') || '').toLowerCase().split(/\s+/);
        if (tw.role(el) !== role && !tokens.includes(role)) continue;
        if (!plainCandidate(el, role)) return null;
        const n = plainName(el, role);
        if (n == null) return null;
        if (n === want) found.push(el);
      }
    }
    return found.length === 1 ? found : null;
  };

  // find returns every element the locator matches, in nth order.
  tw.find = (loc) => {
    if (loc.handle) return [byHandle(loc.handle)].filter((el) => el && el.isConnected);
    if (loc.ref) return tw.staleRef(loc) ? [] : [tw.element(loc.ref)].filter(Boolean);
    switch (loc.type || 'css') {
      case 'css': return css(loc.selector);
      case 'xpath': return xpath(loc.selector);
      case 'label': return byLabel(loc.selector);
      case 'placeholder': return byPlaceholder(loc.selector);
      case 'role': return tw.byRole(loc.selector, loc.name);
    }
    throw new Error('unknown selector type ' + loc.type);
  };

  // stableSelector is the unique CSS selector, now, of the one element loc
  // names (a ref, usually), or null when it names none: what a recording
  // keeps so that a replay needs no observation.
  tw.stableSelector = (loc) => {
    const [el] = tw.find(loc);
    return el ? tw.selector(el) : null;
  };

  // describe names an element for messages: <button#save name=go> "Save".
  tw.describe = (el) => {
    const d = { tag: dom.tag(el) };
    const id = dom.id(el);
    if (id) d.id = id;
    const name = dom.attr(el, 'name');
    if (name) d.name = name;
    const text = tw.cut(norm(el.innerText ?? el.textContent), 40);
    if (text) d.text = text;
    return d;
  };
  tw.short = (el) => {
    const id = dom.id(el);
    const cls = (dom.attr(el, 'class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2).join('.');
    return '<' + dom.tag(el) + (id ? '#' + id : '') + (cls && !id ? '.' + cls : '') + '>';
  };

  // --- frames --------------------------------------------------------------
  const FRAME_TAGS = new Set(['iframe', 'frame']);
  // frameStep finds the one frame element a path step names.
  tw.frameStep = (sel) => {
    let els;
    try {
      els = css(sel);
    } catch (e) {
      return no('invalid_input', 'bad_selector', String(e.message || e));
    }
    if (els.length !== 1) return { code: els.length ? 'ambiguous' : 'not_found', count: els.length, candidates: els.slice(0, 5).map(tw.describe) };
    if (!FRAME_TAGS.has(dom.tag(els[0]))) return { ...no('not_found', 'not_frame', '<' + dom.tag(els[0]) + '>'), count: 1 };
    return { handle: tw.hold(els[0]) };
  };
  // frameElements holds every frame element of the document.
  tw.frameElements = () => everything().filter((el) => FRAME_TAGS.has(dom.tag(el))).map((el) => tw.hold(el));
  tw.frameInfo = () => ({ url: location.href, title: document.title });

  tw.findVersion = 4;
})();
