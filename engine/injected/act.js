// act.js: finding one element strictly, checking it can be acted on, and the
// page-side half of every action (the trusted input itself comes from the
// browser through CDP). Needs core.js.
(() => {
  'use strict';
  const tw = globalThis.__tabwright;
  if (tw.actVersion === 2) return;
  const { dom, norm } = tw;

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
  const byLabel = (text) => {
    const want = norm(text);
    const found = new Set();
    for (const root of tw.roots()) {
      for (const label of dom.all(root, 'label')) {
        if (label.control && labelText(label) === want) found.add(label.control);
      }
    }
    return inOrder(found);
  };

  const byPlaceholder = (text) => {
    const found = new Set();
    for (const root of tw.roots()) {
      for (const el of dom.all(root, '[placeholder]')) if (dom.attr(el, 'placeholder') === text) found.add(el);
    }
    return inOrder(found);
  };

  // find returns every element the locator matches, in nth order.
  tw.find = (loc) => {
    if (loc.handle) return [byHandle(loc.handle)].filter((el) => el && el.isConnected);
    if (loc.ref) return [tw.element(loc.ref)].filter(Boolean);
    switch (loc.type || 'css') {
      case 'css': return css(loc.selector);
      case 'xpath': return xpath(loc.selector);
      case 'label': return byLabel(loc.selector);
      case 'placeholder': return byPlaceholder(loc.selector);
    }
    throw new Error('unknown selector type ' + loc.type);
  };

  // describe names an element for messages: <button#save name=go> "Save".
  const describe = (el) => {
    const d = { tag: dom.tag(el) };
    const id = dom.id(el);
    if (id) d.id = id;
    const name = dom.attr(el, 'name');
    if (name) d.name = name;
    const text = tw.cut(norm(el.innerText ?? el.textContent), 40);
    if (text) d.text = text;
    return d;
  };
  tw.describe = describe;
  const short = (el) => {
    const id = dom.id(el);
    const cls = (dom.attr(el, 'class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2).join('.');
    return '<' + dom.tag(el) + (id ? '#' + id : '') + (cls && !id ? '.' + cls : '') + '>';
  };

  // --- actionability -------------------------------------------------------
  const frame = () => new Promise((resolve) => {
    // rAF stalls in a hidden page; a timer keeps the loop going there. In a
    // visible one the wait is for a real frame (a busy machine can take
    // longer than 50 ms to draw one, and a timer would then call a moving
    // element still); the long timer only guards against a stalled renderer.
    const t = setTimeout(resolve, document.hidden ? 50 : 1000);
    requestAnimationFrame(() => { clearTimeout(t); resolve(); });
  });

  const disabled = (el) => {
    if (el.disabled === true) return true;
    if (dom.attr(el, 'aria-disabled') === 'true') return true;
    const fs = el.closest && el.closest('fieldset[disabled]');
    if (fs && ['button', 'input', 'select', 'textarea'].includes(dom.tag(el))) {
      const legend = fs.querySelector(':scope > legend');
      return !(legend && legend.contains(el));
    }
    return false;
  };
  const TEXT_INPUTS = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date',
    'datetime-local', 'month', 'time', 'week']);
  const editable = (el) => {
    const tag = dom.tag(el);
    if (tag === 'textarea') return el.readOnly ? 'read-only' : '';
    if (tag === 'input') {
      if (!TEXT_INPUTS.has((dom.attr(el, 'type') || '').toLowerCase())) return 'not a text field';
      return el.readOnly ? 'read-only' : '';
    }
    if (el.isContentEditable) return '';
    return 'not editable';
  };
  tw.editable = (el) => !editable(el);

  // The point inside the element's content box at the offset ratios (centre
  // by default), in this frame's viewport coordinates.
  const point = (el, offset) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const px = (v) => parseFloat(v) || 0;
    const left = r.left + px(cs.borderLeftWidth) + px(cs.paddingLeft);
    const top = r.top + px(cs.borderTopWidth) + px(cs.paddingTop);
    const w = Math.max(0, r.width - px(cs.borderLeftWidth) - px(cs.borderRightWidth) - px(cs.paddingLeft) - px(cs.paddingRight));
    const h = Math.max(0, r.height - px(cs.borderTopWidth) - px(cs.borderBottomWidth) - px(cs.paddingTop) - px(cs.paddingBottom));
    const fx = offset ? offset.x_ratio : 0.5;
    const fy = offset ? offset.y_ratio : 0.5;
    // A box with no content area (an empty button) still takes the border box.
    if (w === 0 || h === 0) return { x: r.left + r.width * fx, y: r.top + r.height * fy };
    return { x: left + w * fx, y: top + h * fy };
  };

  const deepFromPoint = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const composedContains = (outer, inner) => {
    for (let n = inner; n; n = n.parentNode || n.host) if (n === outer) return true;
    return false;
  };
  // The pointer reaches el when the hit element is el, inside it, or a label
  // of it (clicking a styled label reaches a hidden checkbox).
  const reaches = (el, hit) => {
    if (!hit) return false;
    if (composedContains(el, hit)) return true;
    const label = hit.closest && hit.closest('label');
    return !!(label && label.control === el);
  };

  const inViewport = (el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  };

  // check runs the actionability checks once. It returns {ok, x, y} or
  // {ok: false, code, reason}.
  const check = async (el, need) => {
    if (!el.isConnected) return { ok: false, code: 'not_actionable', reason: 'detached during action' };
    if (need.visible && !tw.rendered(el)) return { ok: false, code: 'not_actionable', reason: 'not visible' };
    if (need.enabled && disabled(el)) return { ok: false, code: 'not_actionable', reason: 'disabled' };
    if (need.editable) {
      const why = editable(el);
      if (why) return { ok: false, code: 'not_actionable', reason: why };
    }
    if (need.scroll && !inViewport(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    if (need.stable) {
      // The box as the last frame drew it, against the box at the next one.
      const a = el.getBoundingClientRect();
      await frame();
      if (!el.isConnected) return { ok: false, code: 'not_actionable', reason: 'detached during action' };
      const b = el.getBoundingClientRect();
      if (a.x !== b.x || a.y !== b.y || a.width !== b.width || a.height !== b.height) {
        return { ok: false, code: 'not_actionable', reason: 'not stable (still moving)' };
      }
    }
    const p = point(el, need.offset);
    if (need.pointer) {
      if (p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight) {
        return { ok: false, code: 'not_actionable', reason: 'outside viewport after scroll' };
      }
      const hit = deepFromPoint(p.x, p.y);
      if (!reaches(el, hit)) {
        return { ok: false, code: 'not_actionable', reason: 'covered by ' + (hit ? short(hit) : 'nothing (outside the page)') };
      }
    }
    return { ok: true, x: p.x, y: p.y };
  };

  // resolve finds exactly one element for loc and waits, up to timeoutMs,
  // until it passes the checks in need. On success the element is held and
  // its handle returned with the point to act at. Ambiguity fails at once:
  // guessing which of several elements was meant is never safe.
  tw.resolve = async (loc, need, timeoutMs) => {
    // A ref this document never handed out (it came from an earlier page)
    // or whose element was collected can never match: fail at once.
    if (loc.ref && !tw.refTarget.has(loc.ref)) return { ok: false, code: 'stale_ref' };
    const deadline = performance.now() + timeoutMs;
    let last = { ok: false, code: 'not_found', count: 0 };
    for (;;) {
      let els;
      try {
        els = tw.find(loc);
      } catch (e) {
        return { ok: false, code: 'invalid_input', reason: String(e.message || e) };
      }
      if (els.length > 1 && loc.nth == null && !loc.handle && !loc.ref) {
        return { ok: false, code: 'ambiguous', count: els.length, candidates: els.slice(0, 5).map(describe) };
      }
      const el = els[loc.nth ?? 0];
      if (el) {
        const r = await check(el, need);
        if (r.ok) {
          const h = tw.hold(el);
          if (need.watch) watch(el, h, need.watch);
          return { ok: true, handle: h, x: r.x, y: r.y, count: els.length, target: describe(el) };
        }
        last = { ...r, count: els.length, target: describe(el) };
        if (r.reason === 'detached during action' && (loc.handle || loc.ref)) return last;
      } else {
        last = { ok: false, code: 'not_found', count: els.length };
      }
      if (performance.now() >= deadline) return last;
      await frame();
    }
  };

  // --- verification: did the trusted event reach the element? --------------
  tw.watches ??= new Map();
  const watch = (el, h, types) => {
    const seen = {};
    const on = (ev) => {
      if (ev.isTrusted && ev.composedPath().includes(el)) seen[ev.type] = true;
    };
    for (const t of types) addEventListener(t, on, { capture: true });
    tw.watches.set(h, { seen, stop: () => types.forEach((t) => removeEventListener(t, on, { capture: true })) });
  };
  tw.watched = (h) => {
    const w = tw.watches.get(h);
    if (!w) return {};
    w.stop();
    tw.watches.delete(h);
    return w.seen;
  };

  // --- page-side halves of actions -----------------------------------------
  const need = (h) => {
    const el = byHandle(h);
    if (!el || !el.isConnected) throw new Error('detached during action');
    return el;
  };

  tw.domClick = (h) => { need(h).click(); return true; };

  tw.focus = (h) => {
    const el = need(h);
    el.focus({ preventScroll: true });
    return deepActive() === el;
  };

  const deepActive = () => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  };
  tw.isFocused = (h) => deepActive() === byHandle(h);

  // focusedEditable holds the element that has focus, if it takes text.
  tw.focusedEditable = () => {
    const a = deepActive();
    if (!a || a === document.body || !tw.editable(a)) return null;
    return { handle: tw.hold(a), target: describe(a) };
  };

  tw.selectAll = (h) => {
    const el = need(h);
    el.focus({ preventScroll: true });
    if (typeof el.select === 'function') {
      el.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    }
    return true;
  };

  tw.readValue = (h) => valueOf(need(h));
  const valueOf = (el) => {
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea') return el.value;
    if (tag === 'select') return el.value;
    if (el.isContentEditable) return el.innerText.replace(/\n$/, '');
    return el.textContent;
  };

  // setValue is fill's dom mode: the value through the element's own setter
  // (so frameworks that wrap it notice), then input and change events.
  tw.setValue = (h, text) => {
    const el = need(h);
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea') {
      const proto = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
    } else if (el.isContentEditable) {
      el.innerText = text;
    } else {
      throw new Error('not editable');
    }
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  };

  // selectOption picks one option of a native <select> without opening its
  // popup, as a person's choice would: input and change events follow.
  tw.selectOption = (h, want) => {
    const el = need(h);
    if (dom.tag(el) !== 'select') return { ok: false, reason: 'not a <select> element' };
    const opts = [...el.options];
    let i = -1;
    if (want.value != null) i = opts.findIndex((o) => o.value === want.value);
    else if (want.label != null) i = opts.findIndex((o) => norm(o.label || o.textContent) === norm(want.label));
    else if (want.index != null) i = want.index < opts.length ? want.index : -1;
    if (i < 0) {
      return { ok: false, reason: 'no such option', options: opts.slice(0, 20).map((o) => ({ value: o.value, label: norm(o.label || o.textContent) })) };
    }
    if (opts[i].disabled) return { ok: false, reason: 'the option is disabled' };
    el.selectedIndex = i;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    const o = el.options[el.selectedIndex];
    return { ok: el.selectedIndex === i, selected: { value: o.value, label: norm(o.label || o.textContent), index: el.selectedIndex } };
  };

  // --- scroll ----------------------------------------------------------------
  // scrollStep scrolls the held container (or the page) by dx, dy and says
  // where it ended and whether anything moved.
  tw.scrollStep = (h, dx, dy) => {
    const box = h ? need(h) : (document.scrollingElement || document.documentElement);
    const before = [box.scrollLeft, box.scrollTop];
    box.scrollBy({ left: dx, top: dy, behavior: 'instant' });
    return { x: box.scrollLeft, y: box.scrollTop, moved: box.scrollLeft !== before[0] || box.scrollTop !== before[1] };
  };
  tw.scrollPos = (h) => {
    const box = h ? need(h) : (document.scrollingElement || document.documentElement);
    return { x: box.scrollLeft, y: box.scrollTop, height: box.scrollHeight, view: box === document.scrollingElement ? innerHeight : box.clientHeight };
  };

  const intersectsViewport = (el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth && r.width > 0 && r.height > 0;
  };

  // textInView: some element (matching selector, when given) whose text
  // contains text is drawn inside the viewport.
  tw.textInView = (text, selector) => {
    if (selector) return css(selector).some((el) => (el.textContent || '').includes(text) && tw.rendered(el) && intersectsViewport(el));
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.nodeValue.includes(text)) continue;
      const el = n.parentElement;
      if (el && tw.rendered(el) && intersectsViewport(el)) return true;
    }
    return false;
  };

  // --- wait ------------------------------------------------------------------
  const checkedState = (el) => {
    if (el.indeterminate) return 'mixed';
    if (typeof el.checked === 'boolean' && dom.tag(el) === 'input') return el.checked;
    const a = dom.attr(el, 'aria-checked') ?? dom.attr(el, 'aria-pressed');
    if (a === 'mixed') return 'mixed';
    return a === 'true';
  };
  const selectedState = (el) => (dom.tag(el) === 'option' ? el.selected : dom.attr(el, 'aria-selected') === 'true');
  const expandedState = (el) => (dom.tag(el) === 'details' ? el.open : dom.attr(el, 'aria-expanded') === 'true');
  const innerText = (el) => (el.innerText ?? el.textContent ?? '');

  // state reads what a wait condition looks at, for the answer and for the
  // last observed state on a timeout.
  const state = async (loc, cond) => {
    const els = tw.find(loc);
    if (cond === 'attached') return { count: els.length, met: els.length > 0 };
    if (cond === 'absent') return { count: els.length, met: els.length === 0 };
    if (els.length > 1 && loc.nth == null && !loc.handle && !loc.ref) {
      return { count: els.length, ambiguous: els.slice(0, 5).map(describe) };
    }
    const el = els[loc.nth ?? 0];
    if (!el) return { count: els.length, found: false };
    switch (cond) {
      case 'visible': return { visible: tw.rendered(el) };
      case 'actionable': {
        const r = await check(el, { visible: true, enabled: true, stable: true, pointer: true });
        return r.ok ? { actionable: true } : { actionable: false, reason: r.reason };
      }
      case 'text': return { text: innerText(el) };
      case 'value': return { value: valueOf(el) };
      case 'checked': return { checked: checkedState(el) };
      case 'selected': return { selected: selectedState(el) };
      case 'expanded': return { expanded: expandedState(el) };
    }
    return {};
  };
  const met = (cond, st, w) => {
    switch (cond) {
      case 'attached': case 'absent': return st.met;
      case 'visible': return st.visible === true;
      case 'actionable': return st.actionable === true;
      case 'text': return st.text != null && (w.previous != null ? st.text !== w.previous : st.text.includes(w.expected));
      case 'value': return st.value === w.expected;
      case 'checked': return st.checked === w.expected;
      case 'selected': return st.selected === w.expected;
      case 'expanded': return st.expanded === w.expected;
    }
    return false;
  };

  // waitFor polls an element condition every frame until it holds or the
  // time is up; either way it returns the last state it saw.
  tw.waitFor = async (loc, w, timeoutMs) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const st = await state(loc, w.condition);
      if (st.ambiguous) return { ok: false, code: 'ambiguous', state: st };
      if (met(w.condition, st, w)) return { ok: true, state: st };
      if (performance.now() >= deadline) return { ok: false, code: 'timeout', state: st };
      await frame();
    }
  };

  // --- control read ------------------------------------------------------------
  // readControl describes one control after an action: what a person would
  // check to see that the action took (its value, state, and for lists the
  // options on offer).
  tw.readControl = (h, o) => {
    const el = need(h);
    const out = { role: tw.role(el) || dom.tag(el), name: tw.cut(tw.accName(el), 200) };
    const tag = dom.tag(el);
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      if ((dom.attr(el, 'type') || '').toLowerCase() !== 'password') out.value = el.value;
    } else if (el.isContentEditable) {
      out.value = tw.cut(innerText(el), o.maxChars);
    }
    const c = checkedState(el);
    if (c !== false || dom.has(el, 'aria-checked') || (tag === 'input' && /checkbox|radio/.test(el.type))) out.checked = c;
    if (dom.has(el, 'aria-selected') || tag === 'option') out.selected = selectedState(el);
    if (dom.has(el, 'aria-expanded') || tag === 'details') out.expanded = expandedState(el);
    if (disabled(el)) out.disabled = true;
    let options = [];
    if (tag === 'select') {
      options = [...el.options].map((op) => ({ label: norm(op.label || op.textContent), value: op.value, selected: op.selected }));
    } else {
      let popups = [];
      if (o.popup) popups = css(o.popup);
      else {
        for (const attr of ['aria-controls', 'aria-owns']) {
          for (const id of (dom.attr(el, attr) || '').split(/\s+/).filter(Boolean)) {
            const p = el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : document.getElementById(id);
            if (p) popups.push(p);
          }
        }
        if (!popups.length && /listbox|menu|combobox|tree|grid|radiogroup/.test(out.role)) popups = [el];
      }
      for (const p of popups) {
        for (const op of dom.all(p, '[role=option],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=treeitem],option')) {
          if (!tw.rendered(op) && dom.tag(op) !== 'option') continue;
          const item = { label: tw.cut(norm(op.textContent), 120) };
          const v = dom.attr(op, 'data-value') ?? dom.attr(op, 'value');
          if (v != null) item.value = v;
          item.selected = selectedState(op) || dom.attr(op, 'aria-checked') === 'true';
          options.push(item);
        }
      }
    }
    if (options.length) {
      out.options = options.slice(0, o.maxOptions);
      if (options.length > o.maxOptions) out.options_omitted = options.length - o.maxOptions;
    }
    const text = norm(innerText(el));
    if (text && text !== out.name && tag !== 'select') out.text = tw.cut(text, o.maxChars);
    return out;
  };

  // --- frames --------------------------------------------------------------
  const FRAME_TAGS = new Set(['iframe', 'frame']);
  // frameStep finds the one frame element a path step names.
  tw.frameStep = (sel) => {
    let els;
    try {
      els = css(sel);
    } catch (e) {
      return { code: 'invalid_input', reason: String(e.message || e) };
    }
    if (els.length !== 1) return { code: els.length ? 'ambiguous' : 'not_found', count: els.length, candidates: els.slice(0, 5).map(describe) };
    if (!FRAME_TAGS.has(dom.tag(els[0]))) return { code: 'not_found', count: 1, reason: 'matches a <' + dom.tag(els[0]) + '>, not an iframe' };
    return { handle: tw.hold(els[0]) };
  };
  // frameElements holds every frame element of the document.
  tw.frameElements = () => everything().filter((el) => FRAME_TAGS.has(dom.tag(el))).map((el) => tw.hold(el));
  // frameOrigin is where the frame's viewport starts, in this viewport.
  tw.frameOrigin = (h) => {
    const el = need(h);
    // The frame must be on screen for input to reach what is inside it.
    if (!inViewport(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    return { x: r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), y: r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0) };
  };
  tw.frameInfo = () => ({ url: location.href, title: document.title });

  tw.actVersion = 2;
})();
