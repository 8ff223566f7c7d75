// check.js: whether an element can take an action (attached, visible,
// enabled, editable, stable, reached by the pointer), the point to act at,
// the find-and-check loop, and the watch that verifies a trusted event
// arrived. Needs core.js and find.js.
(() => {
  'use strict';
  const tw = globalThis.__tabwright;
  if (tw.checkVersion === 2) return;
  const { dom } = tw;

  const frame = () => new Promise((resolve) => {
    // rAF stalls in a hidden page; a timer keeps the loop going there. In a
    // visible one the wait is for a real frame (a busy machine can take
    // longer than 50 ms to draw one, and a timer would then call a moving
    // element still); the long timer only guards against a stalled renderer.
    const t = setTimeout(resolve, document.hidden ? 50 : 1000);
    requestAnimationFrame(() => { clearTimeout(t); resolve(); });
  });
  tw.frame = frame;
  // frameBy waits for the next frame but not past the deadline: a loaded
  // renderer can take longer than the time left to draw one, and the
  // answer must reach the caller before its own deadline.
  const frameBy = (deadline) => Promise.race([frame(), new Promise((r) => setTimeout(r, Math.max(0, deadline - performance.now())))]);
  tw.frameBy = frameBy;

  // --- enabled -------------------------------------------------------------
  // Roles that aria-disabled applies to, and so inherit it from an ancestor
  // (WAI-ARIA 1.2: widgets and their containers; not headings or text).
  const ARIA_DISABLABLE = new Set(['application', 'button', 'checkbox', 'columnheader', 'combobox', 'grid', 'gridcell',
    'group', 'link', 'listbox', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio',
    'radiogroup', 'row', 'rowheader', 'scrollbar', 'searchbox', 'separator', 'slider', 'spinbutton', 'switch', 'tab',
    'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);
  // A control a target may sit inside: a span in a disabled button is as
  // disabled as the button.
  const CONTROL = 'button,input,select,textarea,option,summary,a[href],[role=button],[role=link],[role=checkbox],' +
    '[role=radio],[role=switch],[role=tab],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=option],[role=treeitem]';
  const flatParentElement = (n) => {
    const p = n.assignedSlot || n.parentNode;
    return p && p.nodeType === 11 ? p.host : p && p.nodeType === 1 ? p : null;
  };
  const ariaDisabled = (el) => {
    if (!ARIA_DISABLABLE.has(tw.role(el))) return false;
    for (let n = el; n; n = flatParentElement(n)) {
      const a = (dom.attr(n, 'aria-disabled') || '').trim().toLowerCase();
      if (a === 'true') return true;
      if (a === 'false') return false;
    }
    return false;
  };
  // :disabled covers the disabled attribute, a disabled fieldset (outside its
  // first legend) and a disabled optgroup.
  const nativeDisabled = (el) => {
    try { return el.matches(':disabled'); } catch { return false; }
  };
  const disabled = (el) => {
    const ctl = (el.closest && el.closest(CONTROL)) || el;
    return nativeDisabled(ctl) || ariaDisabled(ctl);
  };
  tw.disabled = disabled;

  // --- editable ------------------------------------------------------------
  // Inputs that take typed text, and those whose value fill sets whole: the
  // browser's pickers take no text insertion, but their value setter checks
  // the format.
  // Keys reach the segments of date and time fields; colour and range
  // inputs take a whole value only.
  const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'datetime-local', 'month', 'time', 'week']);
  const VALUE_INPUTS = new Set(['date', 'datetime-local', 'month', 'time', 'week', 'color', 'range']);
  tw.valueInput = (el) => dom.tag(el) === 'input' && VALUE_INPUTS.has(el.type);
  const editable = (el, whole) => {
    const tag = dom.tag(el);
    if (tag === 'textarea') return el.readOnly ? 'read-only' : '';
    if (tag === 'input') {
      // el.type, not the attribute: an unknown type is a text field.
      if (!TEXT_INPUTS.has(el.type) && !(whole && VALUE_INPUTS.has(el.type))) return 'not a text field (input type=' + el.type + ')';
      return el.readOnly ? 'read-only' : '';
    }
    if (el.isContentEditable) return '';
    return 'not editable';
  };
  tw.editable = (el) => !editable(el);

  // --- boxes and points ----------------------------------------------------
  // display:contents draws no box of its own; its contents do.
  const contents = (el) => getComputedStyle(el).display === 'contents';
  const range = (el) => {
    const r = document.createRange();
    r.selectNodeContents(el);
    return r;
  };
  const box = (el) => (contents(el) ? range(el).getBoundingClientRect() : el.getBoundingClientRect());
  tw.box = box;

  // The point inside the element's content box at the offset ratios (centre
  // by default), in this frame's viewport coordinates.
  const point = (el, offset) => {
    const r = box(el);
    const fx = offset ? offset.x_ratio : 0.5;
    const fy = offset ? offset.y_ratio : 0.5;
    if (contents(el)) return { x: r.left + r.width * fx, y: r.top + r.height * fy };
    const cs = getComputedStyle(el);
    const px = (v) => parseFloat(v) || 0;
    const left = r.left + px(cs.borderLeftWidth) + px(cs.paddingLeft);
    const top = r.top + px(cs.borderTopWidth) + px(cs.paddingTop);
    const w = Math.max(0, r.width - px(cs.borderLeftWidth) - px(cs.borderRightWidth) - px(cs.paddingLeft) - px(cs.paddingRight));
    const h = Math.max(0, r.height - px(cs.borderTopWidth) - px(cs.borderBottomWidth) - px(cs.paddingTop) - px(cs.paddingBottom));
    // A box with no content area (an empty button) still takes the border box.
    if (w === 0 || h === 0) return { x: r.left + r.width * fx, y: r.top + r.height * fy };
    return { x: left + w * fx, y: top + h * fy };
  };

  // Other points to try when the centre misses: the centre of each box the
  // element is drawn in (the lines of a wrapped link, the fragments of an
  // inline element), clipped to the viewport.
  const fragmentPoints = (el) => {
    const out = [];
    for (const r of contents(el) ? range(el).getClientRects() : el.getClientRects()) {
      const l = Math.max(r.left, 0), t = Math.max(r.top, 0);
      const rr = Math.min(r.right, innerWidth), b = Math.min(r.bottom, innerHeight);
      if (rr - l >= 1 && b - t >= 1) out.push({ x: (l + rr) / 2, y: (t + b) / 2 });
      if (out.length >= 8) break;
    }
    return out;
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
  // Containment in the rendered (flat) tree: slotted content is inside the
  // slot that shows it, so a shadow button reaches what it renders.
  const flatContains = (outer, inner) => {
    for (let n = inner; n; n = n.assignedSlot || n.parentNode || n.host) if (n === outer) return true;
    return false;
  };
  // The pointer reaches el when the hit element is el, inside it, a label of
  // it (clicking a styled label reaches a hidden checkbox), or the control
  // el sits in when el lets the pointer through (pointer-events: none).
  // It answers the element that then receives the event.
  const reaches = (el, hit) => {
    if (!hit) return null;
    if (flatContains(el, hit)) return el;
    const label = hit.closest && hit.closest('label');
    if (label && label.control === el) return el;
    if (getComputedStyle(el).pointerEvents === 'none') {
      const ctl = dom.parent(el)?.closest(CONTROL);
      if (ctl && ctl === hit.closest(CONTROL) && flatContains(ctl, el)) return ctl;
    }
    return null;
  };

  const inViewport = (el) => {
    const r = box(el);
    return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  };
  tw.inViewport = inViewport;

  // Alignments tried in turn when the element is covered where it was
  // scrolled to (a sticky header over the centre of the viewport).
  const ALIGNS = ['center', 'end', 'start', 'nearest'];
  const scrollTo = (el, st) => {
    const block = ALIGNS[st.tries++ % ALIGNS.length];
    // display:contents cannot scroll itself into view: its first drawn
    // child can, or else the element around it.
    if (contents(el)) el = [...dom.children(el)].find((c) => c.getClientRects().length) || dom.parent(el) || el;
    el.scrollIntoView({ block, inline: block === 'nearest' ? 'nearest' : 'center', behavior: 'instant' });
  };

  // hitPoint finds a point at which the pointer reaches el: the asked
  // offset only, or the centre and then each fragment's centre.
  const hitPoint = (el, need) => {
    // A control shrunk to nothing is clicked through its label.
    const r = box(el);
    const shown = r.width || r.height ? el : [...(el.labels || [])].find((l) => tw.rendered(l)) || el;
    const first = point(shown, need.offset);
    const pts = need.offset ? [first] : [first, ...fragmentPoints(shown)];
    let miss = null;
    for (const p of pts) {
      if (p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight) continue;
      const hit = deepFromPoint(p.x, p.y);
      const receiver = reaches(el, hit);
      if (receiver) return { ok: true, x: p.x, y: p.y, receiver };
      miss ??= hit;
    }
    if (!miss) return { ok: false, code: 'not_actionable', reason: 'outside viewport after scroll' };
    return { ok: false, code: 'not_actionable', reason: 'covered by ' + tw.short(miss), covered: true };
  };

  // optionProblem says why a select cannot take the wanted option now.
  const optionProblem = (el, want) => {
    if (dom.tag(el) !== 'select') return { ok: false, code: 'not_actionable', reason: 'not a <select> element', final: true };
    const opts = [...el.options];
    const i = tw.pickOption(opts, want);
    if (i < 0) {
      return { ok: false, code: 'not_found', reason: 'no such option', options: opts.slice(0, 20).map((o) => ({ value: o.value, label: tw.norm(o.label || o.textContent) })) };
    }
    if (opts[i].disabled) return { ok: false, code: 'not_actionable', reason: 'the option is disabled' };
    if (nativeDisabled(opts[i])) return { ok: false, code: 'not_actionable', reason: 'the option is in a disabled optgroup' };
    return null;
  };
  tw.pickOption = (opts, want) => {
    if (want.value != null) return opts.findIndex((o) => o.value === want.value);
    if (want.label != null) return opts.findIndex((o) => tw.norm(o.label || o.textContent) === tw.norm(want.label));
    if (want.index != null) return want.index < opts.length ? want.index : -1;
    return -1;
  };

  // check runs the actionability checks once. It returns {ok, x, y,
  // receiver} or {ok: false, code, reason}. st carries the scroll attempts
  // of one resolve.
  const check = async (el, need, st = { tries: 0 }) => {
    if (!el.isConnected) return { ok: false, code: 'not_actionable', reason: 'detached during action' };
    if (need.visible && !tw.rendered(el)) return { ok: false, code: 'not_actionable', reason: 'not visible' };
    if (need.enabled && disabled(el)) return { ok: false, code: 'not_actionable', reason: 'disabled' };
    if (need.editable) {
      const why = editable(el, need.whole);
      if (why) return { ok: false, code: 'not_actionable', reason: why };
    }
    if (need.option) {
      const why = optionProblem(el, need.option);
      if (why) return why;
    }
    if (need.scroll && (st.realign || !inViewport(el))) {
      scrollTo(el, st);
      st.realign = false;
    }
    if (need.stable) {
      // The box as the last frame drew it, against the box at the next one.
      // An animation that has not started yet (pending: created with its
      // element, it starts at the next frame at time 0) would show the same
      // box twice; wait for it to start first.
      if (document.getAnimations().some((an) => an.pending)) await frame();
      const a = box(el);
      await frame();
      if (!el.isConnected) return { ok: false, code: 'not_actionable', reason: 'detached during action' };
      const b = box(el);
      if (a.x !== b.x || a.y !== b.y || a.width !== b.width || a.height !== b.height) {
        return { ok: false, code: 'not_actionable', reason: 'not stable (still moving)' };
      }
    }
    if (!need.pointer) {
      const p = point(el, need.offset);
      return { ok: true, x: p.x, y: p.y, receiver: el };
    }
    const r = hitPoint(el, need);
    // Covered where it is: the next try scrolls it to another place.
    if (!r.ok && need.scroll) st.realign = true;
    return r;
  };
  tw.check = check;

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
    const st = { tries: 0 };
    for (;;) {
      let els;
      try {
        els = tw.find(loc);
      } catch (e) {
        return { ok: false, code: 'invalid_input', reason: String(e.message || e) };
      }
      if (els.length > 1 && loc.nth == null && !loc.handle && !loc.ref) {
        return { ok: false, code: 'ambiguous', count: els.length, candidates: els.slice(0, 5).map(tw.describe) };
      }
      const el = els[loc.nth ?? 0];
      if (el) {
        const r = await check(el, need, st);
        if (r.ok) {
          const h = tw.hold(el);
          if (need.watch) watch(r.receiver, el, h, need.watch);
          return { ok: true, handle: h, x: r.x, y: r.y, count: els.length, target: tw.describe(el) };
        }
        last = { ...r, count: els.length, target: tw.describe(el) };
        if (r.final || (r.reason === 'detached during action' && (loc.handle || loc.ref))) return last;
      } else {
        last = { ok: false, code: 'not_found', count: els.length };
      }
      if (performance.now() >= deadline) return last;
      await frameBy(deadline);
    }
  };

  // --- verification: did the trusted event reach the element? --------------
  // The watch listens on the window, so it hears events after the page
  // removed the element too; watched says whether the element left.
  tw.watches ??= new Map();
  const watch = (receiver, el, h, types) => {
    const seen = {};
    const on = (ev) => {
      if (ev.isTrusted && ev.composedPath().includes(receiver)) seen[ev.type] = true;
    };
    for (const t of types) addEventListener(t, on, { capture: true });
    tw.watches.set(h, { seen, el, stop: () => types.forEach((t) => removeEventListener(t, on, { capture: true })) });
  };
  tw.watched = (h) => {
    const w = tw.watches.get(h);
    // No watch: this is another document than the one the watch was set in.
    if (!w) return { gone: true };
    w.stop();
    tw.watches.delete(h);
    return { ...w.seen, detached: !w.el.isConnected };
  };

  // frameOrigin is where the frame's viewport starts, in this viewport, and
  // whether a CSS transform (on the frame or above it) makes that offset
  // not enough to map a point.
  tw.frameOrigin = (h) => {
    const el = tw.byHandle(h);
    if (!el || !el.isConnected) throw new Error('detached during action');
    // The frame must be on screen for input to reach what is inside it.
    if (!inViewport(el)) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const px = (v) => parseFloat(v) || 0;
    let transformed = false;
    for (let n = el; n && !transformed; n = flatParentElement(n)) {
      const s = n === el ? cs : getComputedStyle(n);
      transformed = s.transform !== 'none' || s.scale !== 'none' || s.rotate !== 'none' || s.translate !== 'none' || (s.zoom && s.zoom !== '1');
    }
    return {
      x: r.left + el.clientLeft + px(cs.paddingLeft), y: r.top + el.clientTop + px(cs.paddingTop),
      w: el.clientWidth - px(cs.paddingLeft) - px(cs.paddingRight), h: el.clientHeight - px(cs.paddingTop) - px(cs.paddingBottom),
      transformed,
    };
  };

  tw.checkVersion = 2;
})();
