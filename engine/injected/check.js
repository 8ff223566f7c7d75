// check.js: whether an element can take an action (attached, visible,
// enabled, editable, stable, reached by the pointer), the point to act at,
// the find-and-check loop, and the watch that verifies a trusted event
// arrived. Needs core.js and find.js.
(() => {
  'use strict';
  const tw = globalThis.__tabwright;
  if (tw.checkVersion === 10) return;
  const { dom, no } = tw;
  const NA = 'not_actionable';

  // --- animation frames ----------------------------------------------------
  // rAF does not run in a hidden page, and a stalled renderer draws nothing:
  // a timer stands in for the frame there. In a visible page the wait is for
  // a real frame (a busy machine can take longer than 50 ms to draw one, and
  // a short timer would then call a moving element still).
  const HIDDEN_MS = 50;
  const STALL_MS = 1000;

  // nextFrame resolves inside the next animation frame's callback with
  // {time: the frame's time, value: read()}, read there too, or with a
  // timer's sample when no frame comes; null once deadline (performance.now
  // time) passes, so that no wait outlives the call that asked for it.
  const nextFrame = (deadline, read = () => undefined) => new Promise((resolve) => {
    const left = deadline - performance.now();
    if (left <= 0) {
      resolve(null);
      return;
    }
    const stall = document.hidden ? HIDDEN_MS : STALL_MS;
    let done = false;
    const settle = (time) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(time == null ? null : { time, value: read() });
    };
    const timer = setTimeout(() => settle(left <= stall ? null : performance.now()), Math.min(left, stall));
    requestAnimationFrame((time) => settle(time));
  });
  tw.nextFrame = nextFrame;

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

  // deepFromPoint is the element the pointer reaches at (x, y), looked up
  // root by root down the composed tree. A shadow root's elementFromPoint
  // answers its host for slotted light-DOM content (the text of a button
  // whose label is slotted), where elementsFromPoint lists the shadow
  // element that draws it first; a display:contents element the single
  // answer names is kept in front of its drawn child.
  const deepFromPoint = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const root = hit.shadowRoot;
      const all = root.elementsFromPoint(x, y);
      const one = root.elementFromPoint(x, y);
      let inner = all[0];
      if (one && one !== inner && flatParent(one) === inner && getComputedStyle(one).display === 'contents') inner = one;
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const flatParent = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
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
    // Events from a closed tree reach a window listener retargeted to its
    // host: the host is what the watch can hear.
    if (inClosedTreeOf(el, hit)) return hit;
    const label = hit.closest && hit.closest('label');
    if (label && label.control === el) return el;
    if (getComputedStyle(el).pointerEvents === 'none') {
      const ctl = dom.parent(el)?.closest(CONTROL);
      if (ctl && ctl === hit.closest(CONTROL) && flatContains(ctl, el)) return ctl;
    }
    return null;
  };

  // inClosedTreeOf: el lives in the closed shadow tree of host, which no
  // hit test can enter; reaching the host at el's point is as far as the
  // pointer can be followed (an element found there by its role).
  const inClosedTreeOf = (el, host) => {
    if (host.shadowRoot) return false;
    for (let r = dom.root(el); r instanceof ShadowRoot; r = dom.root(r.host)) if (r.host === host) return true;
    return false;
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
    if (!miss) return no(NA, 'outside_viewport');
    // A code editor draws its text over the input that takes the keys
    // (Monaco's and Ace's textarea sit under their view lines): what
    // covers it is the editor's own surface, and clicking that is what a
    // person does. The click lands there, and the result says so.
    if (ownSurface(el, miss)) {
      const p = first;
      return { ok: true, x: p.x, y: p.y, receiver: miss, surface: tw.short(miss) };
    }
    return { ...no(NA, 'covered', tw.short(miss)), hit: miss };
  };
  // ownSurface: el takes text and the element over it is drawn by the same
  // widget: inside el's parent or grandparent, and not el's own label.
  const SURFACE_DEPTH = 2;
  const ownSurface = (el, hit) => {
    if (!tw.editable(el) || dom.tag(hit) === 'label') return false;
    let box = el;
    for (let i = 0; i < SURFACE_DEPTH && box; i++) {
      box = flatParent(box);
      if (box && box !== document.body && box !== document.documentElement && flatContains(box, hit)) return true;
    }
    return false;
  };

  // optionProblem says why a select cannot take the wanted option now.
  const optionProblem = (el, want) => {
    if (dom.tag(el) !== 'select') return { ...no(NA, 'not_select', '<' + dom.tag(el) + '>'), final: true };
    const opts = [...el.options];
    const i = tw.pickOption(opts, want);
    if (i < 0) return { ...no('not_found', 'no_option'), options: tw.optionList(opts) };
    if (opts[i].disabled) return no(NA, 'option_disabled', 'the option is disabled');
    if (nativeDisabled(opts[i])) return no(NA, 'option_disabled', 'the option is in a disabled optgroup');
    return null;
  };
  tw.optionList = (opts) => opts.slice(0, 20).map((o) => ({ value: o.value, label: tw.norm(o.label || o.textContent) }));
  tw.pickOption = (opts, want) => {
    if (want.value != null) return opts.findIndex((o) => o.value === want.value);
    if (want.label != null) return opts.findIndex((o) => tw.norm(o.label || o.textContent) === tw.norm(want.label));
    if (want.index != null) return want.index < opts.length ? want.index : -1;
    return -1;
  };

  // --- stability -------------------------------------------------------------
  // Two boxes closer in time than this come from one frame: Chrome runs a
  // frame it had not begun yet at once, with the time of the evaluate that
  // asked for it, so the first rAF after an evaluate shows what the evaluate
  // saw. Samples are counted only this far apart.
  const FRAME_GAP_MS = 15;
  const sameBox = (a, b) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

  // stable waits until el shows one box in consecutive animation frames,
  // each sample a box with the animation time it shows. It answers null
  // when it does, or why not: unstable (the box changed, or time ran out
  // first: late), detached. A running animation (CSS or Web Animations)
  // asks for one more equal frame: one that turns at its end (alternate,
  // eased) shows the same box in the two frames either side of the turn.
  const stable = async (el, deadline) => {
    const animations = document.getAnimations();
    const want = animations.some((an) => an.playState === 'running') ? 3 : 2;
    let last = null;
    let seen = 0;
    // The evaluate's own view is the first sample, at the time the document
    // timeline shows it: a frame inside FRAME_GAP_MS of it is the same frame
    // and is passed over, so no two samples of one frame are compared, and a
    // click waits one frame, not two. Not while an animation is pending: it
    // starts at the next frame at time 0, so that frame would show its first
    // box again.
    const now = document.timeline.currentTime;
    if (now != null && !animations.some((an) => an.pending)) {
      last = { time: now, value: box(el) };
      seen = 1;
    }
    for (;;) {
      const f = await nextFrame(deadline, () => el.isConnected && box(el));
      if (!f) return { ...no(NA, 'unstable', seen ? 'time ran out before it held still' : 'no frame was drawn in time'), late: true };
      if (!f.value) return no(NA, 'detached');
      if (last && f.time - last.time < FRAME_GAP_MS) continue;
      if (last && !sameBox(last.value, f.value)) return no(NA, 'unstable', 'still moving');
      last = f;
      if (++seen >= want) return null;
    }
  };

  // check runs the actionability checks once, waiting at most until
  // deadline. It returns {ok, x, y, receiver} or a refusal (see the page
  // contract). st carries the scroll attempts of one resolve.
  const check = async (el, need, st, deadline) => {
    if (!el.isConnected) return no(NA, 'detached');
    if (need.visible && !tw.rendered(el)) return no(NA, 'not_visible');
    if (need.enabled && disabled(el)) return no(NA, 'disabled');
    if (need.editable) {
      const why = editable(el, need.whole);
      if (why) return no(NA, 'not_editable', why);
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
      const why = await stable(el, deadline);
      if (why) return why;
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

  // --- a cover that may leave --------------------------------------------------
  // A cover can sit still and then leave (a timer, a script, a fade, a
  // network answer), so a covered element is tried again until the
  // deadline, as a person would wait: at once, then after these pauses
  // (Playwright's schedule), the last repeated.
  const COVER_WAITS = [0, 20, 100, 100, 500];
  const coverState = (el, hit) => {
    const a = box(el);
    const b = hit.getBoundingClientRect();
    return [a.x, a.y, a.width, a.height, b.x, b.y, b.width, b.height].join(' ');
  };
  // coverSeen counts a covered check into st: st.cover is the cover, and how
  // many checks in a row saw it over the same place. What the pointer reaches
  // around an element that lets it through (pointer-events: none) is no
  // cover: the page may yet let the pointer in.
  const coverSeen = (st, el, hit) => {
    if (flatContains(hit, el)) {
      st.cover = null;
      return;
    }
    const state = coverState(el, hit);
    const c = st.cover;
    st.cover = c && c.hit === hit && c.state === state ? { hit, state, n: c.n + 1 } : { hit, state, n: 1 };
  };
  // stayed: the cover of the last checks was the same element over the
  // same place since the log's run of covered answers began, which the
  // error says: it never moved while we waited.
  const stayed = (st) => !!st.cover && st.cover.n === st.log.at(-1)?.checks;
  // coverWait is the pause before the next check after the nth covered one.
  const coverWait = (n) => COVER_WAITS[Math.min(n, COVER_WAITS.length - 1)];
  const pause = (ms, deadline) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(ms, deadline - performance.now()))));

  // --- the call log ------------------------------------------------------------
  // What each check of one resolve found, a run of equal answers counted
  // once (the newest LOG_RUNS runs), so a failure says how the page got
  // there: "not visible (4 checks), then covered by <div#cookie> (5)".
  const LOG_RUNS = 5;
  const logged = (st, r) => {
    const run = st.log.at(-1);
    if (run && run.code === r.code && run.reason === r.reason && run.detail === r.detail) {
      run.checks++;
      return;
    }
    st.log.push({ code: r.code, reason: r.reason, detail: r.detail, checks: 1 });
    if (st.log.length > LOG_RUNS) st.log.shift();
  };
  const failed = (st, r) => ({ ...r, log: st.log });

  // resolve finds exactly one element for loc and waits, up to timeoutMs,
  // until it passes the checks in need. On success the element is held and
  // its handle returned with the point to act at. Ambiguity fails at once:
  // guessing which of several elements was meant is never safe. then
  // ({fn, args}, optional) is the action's page-side half, run on the held
  // element right after the checks passed, in the same task (nothing of the
  // page runs between): its answer, as tw.answer gives it, is then's.
  const resolveFound = async (loc, need, timeoutMs, then) => {
    // A ref of another document, or whose element was collected, can never
    // match: fail at once.
    if (tw.staleRef(loc)) return { ok: false, code: 'stale_ref' };
    const deadline = performance.now() + timeoutMs;
    let last = { ok: false, code: 'not_found', count: 0 };
    const st = { tries: 0, log: [] };
    const end = (r) => failed(st, r.reason === 'covered' && stayed(st) ? { ...r, static: true } : r);
    for (;;) {
      let els;
      try {
        els = tw.find(loc);
      } catch (e) {
        return no('invalid_input', 'bad_selector', String(e.message || e));
      }
      // A role the DOM cannot answer for sure: the accessibility tree will.
      if (els == null) return { ok: false, code: 'not_found', unsure: true };
      if (els.length > 1 && loc.nth == null && !loc.handle && !loc.ref) {
        return { ok: false, code: 'ambiguous', count: els.length, candidates: els.slice(0, 5).map(tw.describe) };
      }
      const el = els[loc.nth ?? 0];
      if (el) {
        const { hit, final, late, ...r } = await check(el, need, st, deadline);
        // Time ran out while waiting for frames: the reason seen before stands.
        if (late && last.reason) return end(last);
        if (r.ok) {
          const h = tw.hold(el);
          if (need.watch) watch(r.receiver, el, h, need.watch);
          const found = { ok: true, handle: h, x: r.x, y: r.y, count: els.length, target: tw.describe(el), surface: r.surface };
          if (then) found.then = tw.answer(() => tw[then.fn](h, ...then.args));
          return found;
        }
        last = { ...r, count: els.length, target: tw.describe(el) };
        logged(st, last);
        if (final || (r.reason === 'detached' && (loc.handle || loc.ref))) return failed(st, last);
        if (hit) coverSeen(st, el, hit);
        else st.cover = null;
      } else {
        last = { ok: false, code: 'not_found', count: els.length };
        logged(st, last);
        st.cover = null;
      }
      if (performance.now() >= deadline) return end(last);
      if (st.cover) await pause(coverWait(st.cover.n - 1), deadline);
      await nextFrame(deadline);
    }
  };

  // before ({fn, handle, args}, optional) is a check the step before left
  // to ride this call (a fill's read-back, what a click reached): it runs
  // first, and when it does not pass (its value has no ok) nothing else
  // runs. Its answer comes back as before.
  tw.resolve = async (loc, need, timeoutMs, then, before) => {
    if (!before) return resolveFound(loc, need, timeoutMs, then);
    const b = tw.answer(() => tw[before.fn](before.handle, ...before.args));
    if (!(b.value && b.value.ok)) return { ok: false, before: b };
    return { ...(await resolveFound(loc, need, timeoutMs, then)), before: b };
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
  // heardMove waits up to two animation frames (within budgetMs) for the
  // watched element to hear a pointer move; true at once when it has, or
  // when the watch is gone (another document: nothing left to route to).
  tw.heardMove = async (h, budgetMs) => {
    const w = tw.watches.get(h);
    if (!w) return true;
    const deadline = performance.now() + budgetMs;
    for (let i = 0; i < 2 && !w.seen.mousemove; i++) await nextFrame(deadline);
    return !!w.seen.mousemove;
  };
  // reached is watched as a check that rides the next call: ok when the
  // event, or at least the press, arrived (or the page navigated).
  tw.reached = (h, expect) => {
    const w = tw.watched(h);
    return { ...w, ok: !!(w.gone || w[expect] || w.mousedown || w.pointerdown || w.focus) };
  };

  // frameOrigin is where the frame's viewport starts, in this viewport, and
  // whether a CSS transform (on the frame or above it) makes that offset
  // not enough to map a point. With settleMS > 0 (an out-of-process frame
  // at or below this one) a scroll it made is drawn before it answers: the
  // browser routes input to such a frame by the last drawn frame's layout,
  // and a click sent before that lands where the frame used to be. Two
  // animation frames: the first draws the scroll, the second comes once
  // that frame has gone to the compositor.
  tw.frameOrigin = async (h, settleMS = 0) => {
    const el = tw.byHandle(h);
    if (!el || !el.isConnected) throw tw.refusal(NA, 'detached');
    // The frame must be on screen for input to reach what is inside it.
    if (!inViewport(el)) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      const deadline = performance.now() + settleMS;
      for (let i = 0; i < 2 && settleMS > 0; i++) await nextFrame(deadline);
    }
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

  tw.checkVersion = 10;
})();
