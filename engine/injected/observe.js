// observe.js: the passive observation of one document: its visible text, its
// forms and its actionable elements, each bounded, each saying when it cut.
// Needs core.js, text.js and forms.js first. Installs tw.observe(options) once per document.
(() => {
  'use strict';
  const OBSERVE_VERSION = 14;
  const tw = globalThis.__tabwright;
  if (tw.observeVersion === OBSERVE_VERSION) return;
  const { dom, norm, cut, rendered } = tw;

  // Selectors of ancestors are shared by their descendants; the cache lives
  // for one observation, since the DOM may change between two.
  let selectorCache = null;
  const sel = (el) => tw.selector(el, selectorCache);
  // Controls reported as form fields: the interactive list keeps their ref,
  // selector, role, label and state, and leaves their value to the form.
  let inForms = null;

  // An element's value is cut at this length unless the observation is
  // scoped, where it is read up to maxChars; a cut value says its whole
  // length (valuelength), so the reader knows to ask.
  const MAX_ELEMENT_VALUE = 80;
  let valueCap = null; // set per observation: the scope's bound, or null
  // Text and forms have scripts of their own, installed before this one.
  const { visibleText, seenHTML, plainText, preview, saidBy } = tw.text;
  const { BUTTON_TYPES, isDisabled, putValue } = tw.forms;
  const isSecret = tw.secret;

  // --- interactive -----------------------------------------------------------
  // What a person sees and can use is listed: semantic controls, and what
  // real apps make usable without semantics (a focusable cell or day, a
  // div with a click listener, a todo's label a script double-clicks).
  const WIDGET_ROLES = new Set([
    'button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'switch', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem',
  ]);
  // Roles and tags that hold a page's parts: focusable for keyboard or
  // script focus (a dialog, a skip target), never a thing to press.
  const CONTAINER_ROLES = new Set([
    'dialog', 'alertdialog', 'main', 'region', 'document', 'application', 'article', 'feed', 'log',
    'navigation', 'banner', 'complementary', 'contentinfo', 'form', 'search', 'group', 'radiogroup',
    'grid', 'treegrid', 'table', 'rowgroup', 'row', 'listbox', 'menu', 'menubar', 'tablist', 'tree',
    'toolbar', 'list', 'tabpanel', 'presentation', 'none', 'status', 'alert', 'figure',
  ]);
  const CONTAINER_TAGS = new Set(['html', 'body', 'main', 'nav', 'section', 'article', 'aside', 'header',
    'footer', 'form', 'dialog', 'table', 'tbody', 'thead', 'tr', 'ul', 'ol', 'dl', 'fieldset', 'iframe']);
  const container = (el, r) => CONTAINER_ROLES.has(r) || CONTAINER_TAGS.has(dom.tag(el));
  // Cells and headers a grid makes focusable are its parts, whatever
  // they hold (a header's sort icon, a cell's editor).
  const CELL_ROLES = new Set(['gridcell', 'cell', 'columnheader', 'rowheader']);
  const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex], [contenteditable]';
  // A thing to use has a short name: text beyond this is a region's.
  const ITEM_TEXT = 120;
  // The text counted is what is drawn (a gutter's hidden spacer that sizes
  // its column says nothing).
  const shortName = (el) => {
    if (norm(dom.attr(el, 'aria-label'))) return true;
    if ((el.textContent || '').length > 4 * ITEM_TEXT) return false; // a region, at a glance
    const t = tw.nameText(el, null, ITEM_TEXT + 1);
    return t !== '' && t.length <= ITEM_TEXT;
  };
  // A focusable part: an element with any tabindex (-1 included: apps
  // focus cells and days from script) that is not a container, and is a
  // cell, or a named leaf with nothing focusable inside.
  const focusablePart = (el, r) => {
    const ti = dom.attr(el, 'tabindex');
    if (ti === null || Number.isNaN(parseInt(ti, 10)) || container(el, r)) return false;
    if (CELL_ROLES.has(r)) return true;
    return shortName(el) && !el.querySelector(FOCUSABLE);
  };
  // ownText: a text node of its own says something (not only its children).
  const ownText = (el) => [...el.childNodes].some((c) => c.nodeType === 3 && c.data.trim() !== '');

  // actionable: something a user can click, type into or toggle. inside
  // says a listed ancestor holds el: a text item inside a control is part
  // of it, not one of its own.
  const actionable = (el, inside) => {
    const tag = dom.tag(el);
    switch (tag) {
      case 'a': case 'area': if (dom.has(el, 'href')) return true; break;
      case 'button': case 'select': case 'textarea': case 'summary': return true;
      case 'input': return el.type !== 'hidden';
    }
    const r = tw.explicitRole(el);
    if (WIDGET_ROLES.has(r)) return true;
    // The root of an editable region; its descendants are part of it.
    if (el.isContentEditable && !dom.parent(el)?.isContentEditable) return true;
    if (LIST_ROLES.has(r) || LIST_TAGS.has(tag)) {
      // A list whose items are clicked is listed item by item (below).
      if (clickableItems(el)) return false;
    }
    if (clickable(el, r)) return true;
    const parent = dom.parent(el);
    if (parent && clickableItems(parent) && norm(el.textContent)) return true;
    // Focusable by keyboard and not a landmark or container: a custom control.
    const ti = dom.attr(el, 'tabindex');
    if (ti !== null && !r && parseInt(ti, 10) >= 0) return true;
    if (focusablePart(el, r)) return true;
    if (inside) return false;
    // A label that labels no control is text a script handles (TodoMVC's
    // todo, double-clicked to edit).
    if (tag === 'label' && !el.control && ownText(el) && shortName(el)) return true;
    return delegated(el, r);
  };

  // Listeners: the engine marks the elements that have pointer listeners
  // of the page's own (tw.listeners, read through the DevTools protocol,
  // since a page's listeners cannot be seen from this world).
  const POINTER_EVENTS = ['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart'];
  const listensToPointer = (el) => {
    const types = tw.listeners?.get(el);
    return !!types && POINTER_EVENTS.some((t) => types.has(t));
  };
  // A listener on a container handles its items' clicks (event
  // delegation): a named text leaf a few levels under it is an item a
  // person can press. The document, html and body listen for the whole
  // page (frameworks' roots, analytics): too far up to say anything.
  const DELEGATION_DEPTH = 3;
  // Text under aria-hidden is drawn to be read (a code editor's lines);
  // what uses it is its accessible twin (the editor's input), listed.
  const delegated = (el, r) => {
    if (!tw.listeners || container(el, r) || !ownText(el) || !shortName(el)) return false;
    if (el.closest('[aria-hidden=true]')) return false;
    for (const c of [...el.children]) if (ownText(c)) return false; // a leaf of text
    let n = dom.parent(el);
    for (let i = 0; n && i < DELEGATION_DEPTH; i++, n = dom.parent(n)) {
      const tag = dom.tag(n);
      if (tag === 'body' || tag === 'html') return false;
      if (listensToPointer(n)) return true;
    }
    return false;
  };

  // clickable: a click handler in the markup or from script (a listener
  // on a named leaf, not a container delegating for its items), or a
  // pointer cursor the element sets itself (its children inherit it, and
  // are not listed for it).
  const clickable = (el, r) => {
    if (dom.has(el, 'onclick')) return true;
    if (listensToPointer(el) && !container(el, r) && shortName(el) && !el.querySelector(FOCUSABLE)) return true;
    if (getComputedStyle(el).cursor !== 'pointer') return false;
    const parent = dom.parent(el);
    return !parent || parent.nodeType !== 1 || getComputedStyle(parent).cursor !== 'pointer';
  };

  // Menus, listboxes and the lists autocompletes show: when the list or
  // its items are clickable, each item is one element.
  const LIST_ROLES = new Set(['listbox', 'menu', 'menubar', 'tree', 'tablist']);
  const LIST_TAGS = new Set(['ul', 'ol']);
  const ITEM_ROLES = new Set(['tab', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'option', 'treeitem']);
  let itemsCache = null;
  const clickableItems = (list) => {
    if (itemsCache?.has(list)) return itemsCache.get(list);
    const r = tw.explicitRole(list);
    let yes = false;
    if (LIST_ROLES.has(r) || LIST_TAGS.has(dom.tag(list))) {
      const items = [...list.children].filter((c) => rendered(c) && norm(c.textContent));
      const pointer = (c) => dom.has(c, 'onclick') || listensToPointer(c) || getComputedStyle(c).cursor === 'pointer';
      yes = items.length >= 2 && !items.some((c) => dom.all(c, 'a[href], button, input, select, textarea').length) &&
        (clickable(list, r) || listensToPointer(list) || items.every(pointer));
    }
    itemsCache?.set(list, yes);
    return yes;
  };

  // absolute resolves a link target against the document (SVG links have no
  // string href property to do it for us).
  const absolute = (href) => {
    try {
      return new URL(href, document.baseURI).href;
    } catch {
      return href;
    }
  };

  // shortHref writes a link on this page's origin as a path (the url field
  // says which origin); other links stay absolute.
  const shortHref = (href) => {
    const abs = absolute(href);
    try {
      const u = new URL(abs);
      return u.origin === location.origin ? u.pathname + u.search + u.hash : abs;
    } catch {
      return abs;
    }
  };

  // Input types whose role already says what they are.
  const PLAIN_TYPES = new Set(['text', 'checkbox', 'radio', 'button']);

  const describeElement = (el) => {
    const tag = dom.tag(el);
    const role = tw.role(el);
    // A form control is named by its field's selector, and its type and
    // value are the field's.
    const field = inForms?.get(el);
    const e = { ref: tw.ref(el), selector: field || sel(el), role };
    // Custom controls (a div with tabindex or onclick) have no name in ARIA
    // terms, but their text is what a user would call them.
    const editable = el.isContentEditable && role === 'textbox';
    const label = cut(tw.accName(el) || (role === 'generic' && !editable ? tw.nameText(el, null, 120) : ''), 80);
    // Every entry has a label, the contract says; one without a name is ''.
    e.label = label;
    if (tag === 'input' && !PLAIN_TYPES.has(el.type) && !field) e.type = el.type;
    if (isDisabled(el)) e.disabled = true;

    const ariaChecked = dom.attr(el, 'aria-checked');
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) e.mixed = true;
      else if (el.checked) e.checked = true;
    } else if (ariaChecked === 'true') e.checked = true;
    else if (ariaChecked === 'mixed') e.mixed = true;

    const expanded = dom.attr(el, 'aria-expanded');
    if (expanded === 'true' || expanded === 'false') e.expanded = expanded === 'true';
    else if (tag === 'summary' && dom.tag(dom.parent(el) || el) === 'details') e.expanded = dom.parent(el).open;
    if (dom.attr(el, 'aria-selected') === 'true') e.selected = true;
    if (dom.attr(el, 'aria-pressed') === 'true') e.pressed = true;

    let value = '';
    if (tag === 'select') value = [...el.selectedOptions].map((o) => norm(o.label || o.text)).join(', ');
    else if ((tag === 'input' && !BUTTON_TYPES.has(el.type) && el.type !== 'checkbox' && el.type !== 'radio' && el.type !== 'file') || tag === 'textarea') {
      if (!isSecret(el)) value = el.value;
    } else if (editable) value = norm(el.textContent);
    if (value && !field) putValue(e, value, MAX_ELEMENT_VALUE, valueCap);

    if ((tag === 'a' || tag === 'area') && dom.has(el, 'href')) {
      // A selector like a[href="/item/7"] already says where the link goes.
      const raw = dom.attr(el, 'href');
      const href = shortHref(raw);
      // A link without a name (an image with alt="") is called by where it
      // goes, as a person hovering it would see.
      if (!e.label) {
        e.label = cut(href, 80);
        if (href.length > 80) e.href = cut(href, 500);
      } else if (!(href === raw && e.selector.endsWith('[href=' + tw.cssString(raw) + ']'))) e.href = cut(href, 500);
    }
    return e;
  };

  // --- card positions (for folding repeated cards in Go) ----------------------
  // A card is the nearest element, the listed one or an ancestor, that has at
  // least CARD_MIN siblings of its family: its tag and the class word at least
  // half its same-tag siblings carry (a product tile, a result, a list item,
  // whatever extra classes one of them has). Its position is the card's
  // selector with n for its nth-of-type index, and the element's path under
  // the card (underCard), written so that like elements of like cards have
  // the same path whatever their hrefs, ids or the parts one card adds.
  const CARD_MIN = 6;
  const CARD_DEPTH = 6;
  let cardCache = null;
  // kindWords are the class words that say what an element is: plain CSS
  // names without digits (no ids, grid columns or positions).
  const kindWords = (el) => (dom.attr(el, 'class') || '').trim().split(/\s+/).filter((w) => /^-?[A-Za-z_][A-Za-z_-]*$/.test(w));
  const siblingsOf = (parent) => {
    let c = cardCache.get(parent);
    if (c) return c;
    const kids = [...dom.children(parent)];
    const byTag = new Map(); // tag -> count
    const words = new Map(); // tag -> class word -> count
    const nth = new Map();
    for (const k of kids) {
      const t = dom.tag(k);
      byTag.set(t, (byTag.get(t) || 0) + 1);
      nth.set(k, byTag.get(t));
      if (!words.has(t)) words.set(t, new Map());
      const w = words.get(t);
      for (const word of new Set(kindWords(k))) w.set(word, (w.get(word) || 0) + 1);
    }
    const family = new Map();
    const size = new Map();
    for (const k of kids) {
      const t = dom.tag(k);
      const w = words.get(t);
      let best = '';
      for (const word of kindWords(k)) if (w.get(word) * 2 >= byTag.get(t) && (!best || w.get(word) > w.get(best))) best = word;
      const f = best ? t + '.' + best : t;
      family.set(k, f);
      size.set(f, (size.get(f) || 0) + 1);
    }
    c = { byTag, words, nth, family, size };
    cardCache.set(parent, c);
    return c;
  };
  // step is el's selector among its siblings: its tag when no sibling
  // shares it, else its tag and a class word no sibling of that tag has,
  // else its nth-of-type.
  const step = (el) => {
    const c = siblingsOf(dom.parent(el));
    const t = dom.tag(el);
    if (c.byTag.get(t) === 1) return t;
    const w = kindWords(el).find((word) => c.words.get(t).get(word) === 1);
    return w ? `${t}.${w}` : `${t}:nth-of-type(${c.nth.get(el)})`;
  };
  // underCard is where el sits in card, as a selector below it: el's tag,
  // or tag and class word, when that names el alone in the card; else its
  // parent's path and its step. So an optional part before el (a badge, a
  // thumbnail) does not change el's path, as an nth-of-type would.
  const underCard = (card, el) => {
    if (el === card) return '';
    const t = dom.tag(el);
    for (const s of [t, ...kindWords(el).map((w) => `${t}.${w}`)]) {
      const hits = dom.all(card, s);
      if (hits.length === 1 && hits[0] === el && oncePerCard(card, s)) return s;
    }
    const parent = dom.parent(el);
    const up = parent === card ? '' : underCard(card, parent) + ' ';
    return `${up}> ${step(el)}`;
  };
  // oncePerCard: s names at most one element in each card of card's family,
  // so the cards that have that element all call it s.
  const oncePerCard = (card, s) => {
    const parent = dom.parent(card);
    const sib = siblingsOf(parent);
    const f = sib.family.get(card);
    sib.once ||= new Map();
    const key = f + ' ' + s;
    if (!sib.once.has(key)) sib.once.set(key, [...dom.children(parent)].every((k) => sib.family.get(k) !== f || dom.all(k, s).length <= 1));
    return sib.once.get(key);
  };
  // cardPosition is el's card: of the ancestors within CARD_DEPTH (el
  // included) that have CARD_MIN siblings of their family, the one with the
  // most (the nearest of equals), so a story's byline links are parts of
  // the story, not cards of their own.
  const cardPosition = (el) => {
    if (dom.root(el) !== document) return null;
    let best = null;
    let most = CARD_MIN - 1;
    for (let c = el, depth = 0; c && depth < CARD_DEPTH; c = dom.parent(c), depth++) {
      const parent = dom.parent(c);
      if (!parent || parent === document.documentElement) break;
      const sib = siblingsOf(parent);
      const size = sib.size.get(sib.family.get(c));
      if (size > most) [best, most] = [c, size];
    }
    if (!best) return null;
    const parent = dom.parent(best);
    return { card: `${sel(parent)} > ${dom.tag(best)}:nth-of-type(n)`, n: siblingsOf(parent).nth.get(best), under: underCard(best, el) };
  };

  // interactiveSection lists the actionable elements in DOM order. An
  // element whose one actionable descendant carries the same name (a tab's
  // <li> and its link, a one-item menu and its item) is one entry: the
  // outer one, which holds the state (selected, expanded).
  const interactiveSection = (max, root) => {
    const list = [];
    const outer = []; // per entry, the index of its nearest listed ancestor
    const inner = new Map(); // per entry, how many entries it holds
    let omitted = 0;
    const visit = (c, above) => {
      if (!actionable(c, above >= 0) || !rendered(c)) return above;
      if (list.length >= max) { omitted++; return above; }
      list.push(describeElement(c));
      outer.push(above);
      if (above >= 0) inner.set(above, (inner.get(above) || 0) + 1);
      return list.length - 1;
    };
    const walk = (node, above) => {
      for (const c of tw.flatChildren(node)) {
        if (c.nodeType !== 1) continue;
        walk(c, visit(c, above));
      }
    };
    if (root) walk(root, visit(root, -1));
    else if (document.documentElement) walk(document.documentElement, -1);
    // A link with no name (an image link, called by its href) to where a
    // named listed link goes too is that link's second door: one entry.
    const link = (e) => {
      const el = tw.element(e.ref);
      return el && dom.tag(el) === 'a' && dom.has(el, 'href') ? { to: el.href, nameless: e.label === cut(shortHref(dom.attr(el, 'href')), 80) } : null;
    };
    const links = list.map(link);
    const destinations = new Set(links.filter((l) => l && !l.nameless).map((l) => l.to));
    const door = (i) => !!links[i]?.nameless && destinations.has(links[i].to);
    // An item of a list widget (a tab, a menu item) is named by its one
    // link even when it adds a counter after the link's text ("Issues 42"),
    // or names an icon link itself (aria-label on the <li>).
    const item = (e) => ITEM_ROLES.has(e.role);
    const namedBy = (outerLabel, i) => {
      const own = list[i].label;
      return (own !== '' && outerLabel.startsWith(own) && /^\W*\d/.test(outerLabel.slice(own.length))) || !!links[i]?.nameless;
    };
    // A generic entry inside a component (a shadow tree) whose named part
    // is listed too says nothing that part does not, when it has no name
    // (a select's chevron and display box, beside its input) or the same
    // name as a part with a role (a checkbox's label beside the checkbox):
    // it goes.
    const drop = new Set();
    const elOf = list.map((e) => tw.element(e.ref));
    const parts = new Map(); // shadow root or host -> labels of the named entries in it ('' for generic ones)
    const treesOf = (el) => {
      const out = [];
      for (let r = dom.root(el); r instanceof ShadowRoot; r = dom.root(r.host)) out.push(r, r.host);
      return out;
    };
    list.forEach((e, i) => {
      if (e.label === '' || !elOf[i]) return;
      for (const t of [dom.root(elOf[i]), elOf[i]]) {
        if (!parts.has(t)) parts.set(t, new Set());
        parts.get(t).add(e.role === 'generic' ? '' : e.label);
      }
    });
    list.forEach((e, i) => {
      if (e.role !== 'generic' || !elOf[i]) return;
      const saidBy = treesOf(elOf[i]).some((t) => parts.has(t) && (e.label === '' || parts.get(t).has(e.label)));
      if (saidBy) {
        drop.add(i);
        if (outer[i] >= 0) inner.set(outer[i], inner.get(outer[i]) - 1);
      }
    });
    const same = (i) => {
      const a = outer[i];
      if (a < 0 || drop.has(i) || inner.get(a) !== 1 || inner.has(i) && inner.get(i) > 0 || inForms?.has(elOf[i])) return false;
      // An unnamed outer entry (a component's host) stands for its one
      // named part.
      if (list[a].label === '') return list[a].role === 'generic' && list[i].label !== '';
      return list[a].label === list[i].label || (item(list[a]) && namedBy(list[a].label, i));
    };
    // Of an outer generic entry and its one inner entry of the same name,
    // the inner one says what the thing is (a menu's <li> and its
    // role=menuitem): it stays, the outer one goes.
    list.forEach((e, i) => {
      if (!same(i)) return;
      const a = outer[i];
      if (list[a].role === 'generic' && (e.role !== 'generic' || list[a].label === '')) drop.add(a);
      else drop.add(i);
    });
    return { list: list.filter((e, i) => !drop.has(i) && !door(i)), omitted };
  };

  // --- entry point -------------------------------------------------------------
  // rootsUnder lists scope and the open shadow roots below it.
  const rootsUnder = (scope) => {
    const out = [scope];
    for (let i = 0; i < out.length; i++) {
      for (const el of dom.all(out[i], '*')) if (el.shadowRoot) out.push(el.shadowRoot);
    }
    return out;
  };

  // groundings maps each listed ref to its box in CSS px of the viewport,
  // [x, y, width, height], for the elements at least partly in view.
  const groundings = (list) => {
    const out = {};
    const vw = innerWidth;
    const vh = innerHeight;
    for (const e of list) {
      const el = tw.element(e.ref);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0 || r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
      out[e.ref] = [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
    }
    return { boxes: out, viewport: [vw, vh], scroll: [Math.round(scrollX), Math.round(scrollY)] };
  };

  // observe(options) returns the page part of the observation. Options:
  // maxChars, maxInteractive; include, a set of section names (text, forms,
  // interactive, a11y, listpattern, tableshape, reader, vision) — absent means
  // text, forms and interactive; scope, a CSS selector the sections are read
  // under. Each section comes from its own extractor; `truncated` collects
  // every cut so the caller can say what was left out. A scope selector that
  // is invalid or matches nothing is returned as {error: {path, message}}.
  tw.observe = (options) => {
    const opt = options || {};
    // Both bounds always come from Go (observe.Options fills in the
    // defaults), so the numbers live in one place.
    const maxChars = opt.maxChars;
    const maxInteractive = opt.maxInteractive;
    const inc = opt.include || { text: true, forms: true, interactive: true };
    let scope = null;
    if (opt.scope) {
      try {
        scope = document.querySelector(opt.scope);
      } catch (e) {
        return { error: { path: 'scope', message: 'is not a valid CSS selector: ' + String(e.message || e).slice(0, 200) } };
      }
      if (!scope) return { error: { path: 'scope', message: 'matches no element' } };
    } else if (opt.scopeHandle) {
      // An element a locator found a moment ago (act.js holds it).
      scope = tw.byHandle?.(opt.scopeHandle) || null;
      if (!scope || !scope.isConnected) return { error: { path: 'selector', message: 'the located element left the document before it was read' } };
    }
    const roots = scope ? rootsUnder(scope) : tw.roots();
    valueCap = scope ? maxChars : null;
    const truncated = {};
    selectorCache = tw.selectorCache();
    const result = { url: location.href, title: dom.title(), doc: tw.doc };

    inForms = inc.forms ? new Map() : null;
    itemsCache = new Map();
    const labels = new Map(); // listed element -> its label, said in forms or interactive
    if (inc.forms) {
      const { forms, omitted } = tw.forms.section(roots, scope, { sel, valueCap, inForms, shortHref });
      if (omitted) truncated.forms = { shown: forms.length, omitted };
      result.forms = forms;
      for (const f of forms) for (const fd of f.fields) if (fd.ref && fd.label) labels.set(tw.element(fd.ref), fd.label);
    }
    if (inc.interactive || inc.vision) {
      const { list, omitted } = interactiveSection(maxInteractive, scope);
      if (omitted) truncated.interactive = { shown: list.length, omitted };
      result.interactive = list;
      if (inc.interactive) for (const e of list) if (e.label) labels.set(tw.element(e.ref), e.label);
      if (opt.cards) {
        cardCache = new Map();
        const cards = {};
        for (const e of list) {
          const at = cardPosition(tw.element(e.ref));
          if (at) cards[e.ref] = at;
        }
        cardCache = null;
        result.cards = cards;
      }
      if (inc.vision) result.groundings = groundings(list);
    }
    if (inc.text) {
      // After forms and interactive: the preview leaves out what their
      // labels say, and a long table's rows unless the scope is the table.
      const foldTable = (t) => !opt.allText && !(scope && (t === scope || t.contains(scope)));
      const marked = visibleText(scope, labels.size && !opt.allText ? saidBy(labels) : null, foldTable, sel);
      const text = preview(marked);
      if (text.length > maxChars) truncated.textpreview = true;
      result.textpreview = cut(text, maxChars);
      result.textlength = plainText(marked).length;
    }
    if ((inc.forms || inc.interactive) && !scope) {
      // Drawn child frames, for the engine to read into this observation.
      const frames = [];
      for (const root of roots) {
        for (const f of dom.all(root, 'iframe, frame')) {
          const r = f.getBoundingClientRect();
          // Tracking pixels (1x1 frames) hold nothing to act on.
          if (rendered(f) && r.width >= 4 && r.height >= 4 && frames.length < 16) frames.push(sel(f));
        }
      }
      if (frames.length) result.frames = frames;
    }
    if (inc.a11y && tw.a11y) {
      const a = tw.a11y(scope || document.documentElement, { maxLines: opt.maxA11yLines, maxChars: opt.maxA11yChars });
      if (a.truncated) truncated.a11y = { shown: a.lines, omitted: a.omitted };
      result.a11y = a;
    }
    if (inc.listpattern && tw.listpattern) {
      const { patterns, omitted } = tw.listpattern(scope || document, { sel });
      if (omitted) truncated.listpattern = { shown: patterns.length, omitted };
      result.listpattern = patterns;
    }
    if (inc.tableshape && tw.tableshape) {
      const { tables, omitted } = tw.tableshape(scope || document, { sel });
      if (omitted) truncated.tableshape = { shown: tables.length, omitted };
      result.tableshape = tables;
    }
    if (inc.reader) {
      // The rendered DOM, scripts' output included; the engine parses it.
      result.html = seenHTML(scope || document.documentElement);
      result.lang = document.documentElement.lang || '';
    }

    selectorCache = null;
    inForms = null;
    itemsCache = null;
    if (tw.refTarget.size > 1000) tw.pruneRefs();
    if (Object.keys(truncated).length) result.truncated = truncated;
    return result;
  };

  tw.observeVersion = OBSERVE_VERSION;
})();
