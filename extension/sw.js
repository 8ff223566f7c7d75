// tabwright attach: the service worker.
//
// It keeps one WebSocket to the tabwright hub on 127.0.0.1 and relays Chrome
// DevTools Protocol messages for the tabs an agent claimed. The hub speaks
// plain CDP to us; we answer the few browser-level commands the engine uses
// (Target.getTargets, Target.attachToTarget, Browser.getVersion, ...) with the
// extension APIs, and send every other command to chrome.debugger.
//
// Wire format (JSON text frames):
//   hub -> us   CDP commands {id, sessionId?, method, params}, or {"type": "ping"}
//   us -> hub   CDP replies and events, or control messages whose first key
//               is "type": hello, pong, keepalive, name
//
// A tab is attached only when the hub sends Target.attachToTarget for it,
// which the engine does only for a claim; Target.detachFromTarget (release)
// detaches it and leaves the page alone.

const PROTOCOL = "tabwright-relay-1";
const KEEPALIVE_MS = 20000; // Chrome stops an idle service worker after ~30 s
const WAKE_ALARM = "tabwright-wake";
const MAX_QUEUE = 2000;
// A hub out of reach this long is gone (its tabwright stopped): no agent can
// hold a claim any more, so every tab is detached. A hub that is there
// answers a reconnect within a second or two.
const HUB_GONE_MS = 15000;
const BOOTED = Date.now(); // tells the hub a restarted worker from a reconnected one

let ws = null;
let connecting = false;
let retryTimer = null;
let retryDelay = 500;
let keepaliveTimer = null;
const queue = []; // messages waiting for a connection (events met while offline)

// Claims survive a restart of this worker in chrome.storage.session:
// roots:    tabId -> {sessionId, targetId}  (the session we made up for the tab)
// children: child sessionId -> tabId        (iframes Chrome attached for us)
// lostAt:   when the hub was last lost (0 while connected)
let roots = new Map();
let children = new Map();
let lostAt = 0;
let ready = false;
const restored = chrome.storage.session.get(["roots", "children", "lostAt"]).then((got) => {
  for (const [k, v] of Object.entries(got.roots || {})) roots.set(Number(k), v);
  for (const [k, v] of Object.entries(got.children || {})) children.set(k, v);
  lostAt = got.lostAt || 0;
  ready = true;
});

// whenReady runs fn now once the claims are restored, else right after, in
// call order either way.
function whenReady(fn) {
  if (ready) fn();
  else restored.then(fn);
}

function persist() {
  chrome.storage.session.set({
    roots: Object.fromEntries(roots),
    children: Object.fromEntries(children),
  });
}

function setStatus(state, detail) {
  chrome.storage.session.set({ status: { state, detail: detail || "", at: Date.now() } });
}

// ---- configuration

// pairing.json is written next to this file by `tabwright setup` (and by
// tests); values saved on the options page override it.
async function config() {
  let file = {};
  try {
    const res = await fetch(chrome.runtime.getURL("pairing.json"), { cache: "no-store" });
    if (res.ok) file = await res.json();
  } catch (e) {
    // no pairing file: the options page must provide port and key
  }
  const local = await chrome.storage.local.get(["port", "key", "name", "profileId"]);
  let profileId = local.profileId;
  if (!profileId) {
    profileId = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
    await chrome.storage.local.set({ profileId });
  }
  return {
    port: local.port || file.port,
    key: local.key || file.key,
    name: local.name || file.name || "Chrome profile",
    profileId,
  };
}

// ---- connection

async function connect() {
  if (ws || connecting) return;
  connecting = true;
  try {
    await restored;
    const cfg = await config();
    if (!cfg.port || !cfg.key) {
      setStatus("unpaired", "no hub port or pairing key: run `tabwright setup`, or enter them on this page");
      return;
    }
    setStatus("connecting", `ws://127.0.0.1:${cfg.port}`);
    const sock = new WebSocket(`ws://127.0.0.1:${cfg.port}/relay`, [PROTOCOL, "tabwright-key-" + cfg.key]);
    ws = sock;
    sock.onopen = async () => {
      retryDelay = 500;
      lostAt = 0;
      chrome.storage.session.set({ lostAt });
      const product = await productName();
      const files = await fileAccess();
      sock.send(JSON.stringify({
        type: "hello",
        profile: { id: cfg.profileId, name: cfg.name },
        product,
        booted: BOOTED,
        userAgent: navigator.userAgent,
        fileAccess: files,
        claims: [...roots.entries()].map(([tabId, r]) => ({ tabId, sessionId: r.sessionId, targetId: r.targetId })),
      }));
      while (queue.length && sock.readyState === WebSocket.OPEN) sock.send(queue.shift());
      setStatus("connected", `ws://127.0.0.1:${cfg.port} as "${cfg.name}"`);
      updateKeepalive();
    };
    sock.onmessage = (ev) => whenReady(() => onHubMessage(ev.data));
    sock.onclose = (ev) => {
      if (ws === sock) ws = null;
      updateKeepalive();
      const why = ev.code === 1008 || ev.code === 4401 || ev.code === 4403 ? "refused by the hub: " + (ev.reason || ev.code) : "hub not reachable";
      setStatus("disconnected", why);
      if (!lostAt) {
        lostAt = Date.now();
        chrome.storage.session.set({ lostAt });
      } else if (roots.size > 0 && Date.now() - lostAt > HUB_GONE_MS) {
        releaseAll();
      }
      scheduleRetry();
    };
  } finally {
    connecting = false;
  }
}

function scheduleRetry() {
  if (retryTimer) return;
  retryTimer = setTimeout(() => {
    retryTimer = null;
    connect();
  }, retryDelay);
  retryDelay = Math.min(retryDelay * 2, 10000);
}

function send(obj) {
  const text = JSON.stringify(obj);
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(text);
    return;
  }
  if (queue.length < MAX_QUEUE) queue.push(text);
  connect();
}

// While a tab is claimed we talk to the hub at least every KEEPALIVE_MS, so
// Chrome never counts this worker as idle in the middle of an agent's work.
function updateKeepalive() {
  const want = ws && roots.size > 0;
  if (want && !keepaliveTimer) {
    keepaliveTimer = setInterval(() => send({ type: "keepalive", claims: roots.size }), KEEPALIVE_MS);
  } else if (!want && keepaliveTimer) {
    clearInterval(keepaliveTimer);
    keepaliveTimer = null;
  }
}

// fileAccess tells whether the user turned on "Allow access to file URLs"
// for this extension (Chrome reloads the extension when it changes). The
// answer is kept for the checks that must not wait.
let fileAllowed = null;
async function fileAccess() {
  try {
    fileAllowed = await chrome.extension.isAllowedFileSchemeAccess();
  } catch (e) {
    fileAllowed = false;
  }
  return fileAllowed;
}

// refusal is an error of ours with a stable tabwright code, an input path
// and a hint; the engine hands it to the agent as it is.
function refusal(code, message, path, hint) {
  return { code: -32000, message, data: "tabwright-error:" + JSON.stringify({ code, message, path, hint }) };
}

const FILE_HINT =
  'open chrome://extensions (edge://extensions), click "Details" on "tabwright attach" and turn on "Allow access to file URLs"; then try again';

function noFileAccess(what, path) {
  return refusal(
    "permission_denied",
    what + ': the user has not allowed the tabwright extension access to file URLs',
    path,
    FILE_HINT,
  );
}

const isFileURL = (u) => typeof u === "string" && u.slice(0, 5).toLowerCase() === "file:";

async function productName() {
  let name = "Chrome";
  let version = (navigator.userAgent.match(/Chrome\/([\d.]+)/) || [])[1] || "0";
  try {
    const ua = await navigator.userAgentData.getHighEntropyValues(["fullVersionList"]);
    const brands = ua.fullVersionList || [];
    const edge = brands.find((b) => b.brand === "Microsoft Edge");
    const chrome = brands.find((b) => b.brand === "Google Chrome") || brands.find((b) => b.brand === "Chromium");
    if (edge) {
      name = "Edge";
      version = edge.version;
    } else if (chrome) {
      version = chrome.version;
    }
  } catch (e) {
    // keep the user agent's reduced version
  }
  return name + "/" + version;
}

// ---- messages from the hub

function onHubMessage(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return;
  }
  if (msg.type === "ping") {
    send({ type: "pong" });
    return;
  }
  if (msg.type === "release_all") {
    // the hub has no engine connection holding these claims any more
    releaseAll();
    return;
  }
  if (typeof msg.id !== "number" || typeof msg.method !== "string") return;
  if (!msg.sessionId) {
    browserCommand(msg);
    return;
  }
  // A tab or iframe session: straight to chrome.debugger, with no await
  // before sendCommand so commands reach the page in the order they came.
  const target = debuggee(msg.sessionId);
  if (!target) {
    reply(msg, null, { code: -32001, message: "Session with given id not found." });
    return;
  }
  if (msg.method === "Page.navigate" && fileAllowed === false && msg.params && isFileURL(msg.params.url)) {
    reply(msg, null, noFileAccess("cannot load " + msg.params.url, "url"));
    return;
  }
  chrome.debugger.sendCommand(target, msg.method, msg.params || {}).then(
    (result) => reply(msg, result || {}),
    (err) => reply(msg, null, cdpError(err)),
  );
}

function debuggee(sessionId) {
  for (const [tabId, r] of roots) {
    if (r.sessionId === sessionId) return { tabId };
  }
  const tabId = children.get(sessionId);
  if (tabId !== undefined) return { tabId, sessionId };
  return null;
}

function reply(msg, result, error) {
  const out = { id: msg.id };
  if (msg.sessionId) out.sessionId = msg.sessionId;
  if (error) out.error = error;
  else out.result = result;
  send(out);
}

// chrome.debugger rejects with the browser's error as JSON text, or with a
// message of its own (e.g. "Cannot access a chrome:// URL").
function cdpError(err) {
  const text = (err && err.message) || String(err);
  try {
    const e = JSON.parse(text);
    if (typeof e.code === "number") return { code: e.code, message: e.message || text };
  } catch (e) {
    // not JSON
  }
  return { code: -32000, message: text };
}

// ---- browser-level commands, answered with the extension APIs

async function browserCommand(msg) {
  try {
    const result = await browserMethod(msg.method, msg.params || {});
    reply(msg, result);
  } catch (err) {
    reply(msg, null, err && typeof err.code === "number" ? err : cdpError(err));
  }
}

function noTarget(id) {
  return { code: -32602, message: "No target with given id found: " + id };
}

async function pageTargets() {
  const all = await chrome.debugger.getTargets();
  return all.filter((t) => t.type === "page" && typeof t.tabId === "number");
}

function targetInfo(t) {
  return {
    targetId: t.id,
    type: "page",
    title: t.title || "",
    url: t.url || "",
    attached: roots.has(t.tabId),
    canAccessOpener: false,
  };
}

async function findTarget(targetId) {
  const t = (await pageTargets()).find((x) => x.id === targetId);
  if (!t) throw noTarget(targetId);
  return t;
}

async function targetOfTab(tabId) {
  for (let i = 0; i < 50; i++) {
    const t = (await pageTargets()).find((x) => x.tabId === tabId);
    if (t) return t;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw { code: -32000, message: "the new tab has no debugging target" };
}

async function browserMethod(method, p) {
  switch (method) {
    case "Browser.getVersion": {
      const product = await productName();
      return { protocolVersion: "1.3", product, revision: "", userAgent: navigator.userAgent, jsVersion: "" };
    }
    case "Target.getTargets":
      return { targetInfos: (await pageTargets()).map(targetInfo) };
    case "Target.getTargetInfo":
      return { targetInfo: targetInfo(await findTarget(p.targetId)) };
    case "Target.createTarget": {
      if (isFileURL(p.url) && !(await fileAccess())) throw noFileAccess("cannot open " + p.url, "url");
      const tab = await chrome.tabs.create({ url: p.url || "about:blank", active: !p.background });
      return { targetId: (await targetOfTab(tab.id)).id };
    }
    case "Target.closeTarget": {
      const t = await findTarget(p.targetId);
      await chrome.tabs.remove(t.tabId);
      return { success: true };
    }
    case "Target.activateTarget": {
      const t = await findTarget(p.targetId);
      const tab = await chrome.tabs.update(t.tabId, { active: true });
      await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return {};
    }
    case "Target.attachToTarget": {
      const t = await findTarget(p.targetId);
      if (roots.has(t.tabId)) {
        throw { code: -32000, message: "tab " + p.targetId + " is already attached through the extension" };
      }
      if (isFileURL(t.url) && !(await fileAccess())) throw noFileAccess("cannot claim tab " + p.targetId + " (" + t.url + ")", "tab_id");
      try {
        await chrome.debugger.attach({ tabId: t.tabId }, "1.3");
      } catch (err) {
        const text = (err && err.message) || String(err);
        if (/cannot (access|attach)/i.test(text)) {
          throw refusal(
            "permission_denied",
            "cannot claim tab " + p.targetId + " (" + t.url + "): " + text,
            "tab_id",
            isFileURL(t.url)
              ? FILE_HINT
              : "Chrome lets no extension debug its own pages (chrome://, the Web Store, other extensions); claim another tab",
          );
        }
        throw err;
      }
      const sessionId = "tw-" + t.tabId + "-" + crypto.randomUUID().slice(0, 8);
      roots.set(t.tabId, { sessionId, targetId: t.id });
      persist();
      updateKeepalive();
      const info = targetInfo(t);
      info.attached = true;
      send({ method: "Target.attachedToTarget", params: { sessionId, targetInfo: info, waitingForDebugger: false } });
      return { sessionId };
    }
    case "Target.detachFromTarget": {
      for (const [tabId, r] of roots) {
        if (r.sessionId !== p.sessionId) continue;
        forgetTab(tabId);
        await chrome.debugger.detach({ tabId }).catch(() => {});
        return {};
      }
      throw { code: -32602, message: "No session with given id found: " + p.sessionId };
    }
    default:
      throw { code: -32601, message: method + " is not available through the tabwright extension relay" };
  }
}

// releaseAll detaches every tab this extension attached.
function releaseAll() {
  for (const tabId of [...roots.keys()]) {
    forgetTab(tabId);
    chrome.debugger.detach({ tabId }).catch(() => {});
  }
}

// forgetTab ends a claim's relay state and tells the hub the session is gone.
function forgetTab(tabId) {
  const r = roots.get(tabId);
  if (!r) return;
  roots.delete(tabId);
  for (const [sid, owner] of children) {
    if (owner === tabId) children.delete(sid);
  }
  persist();
  updateKeepalive();
  send({ method: "Target.detachedFromTarget", params: { sessionId: r.sessionId, targetId: r.targetId } });
}

// ---- events from chrome.debugger

chrome.debugger.onEvent.addListener((source, method, params) => whenReady(() => onDebuggerEvent(source, method, params)));

function onDebuggerEvent(source, method, params) {
  const root = roots.get(source.tabId);
  if (!root) return; // not a tab we attached
  if (method === "Target.attachedToTarget" && params && params.sessionId) {
    children.set(params.sessionId, source.tabId);
    persist();
  } else if (method === "Target.detachedFromTarget" && params && params.sessionId) {
    children.delete(params.sessionId);
    persist();
  }
  send({ method, sessionId: source.sessionId || root.sessionId, params: params || {} });
}

chrome.debugger.onDetach.addListener((source) => {
  // the tab closed, or the user cancelled debugging from the infobar
  whenReady(() => forgetTab(source.tabId));
});

// ---- waking up

chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener((a) => {
  if (a.name === WAKE_ALARM) connect();
});
chrome.runtime.onStartup.addListener(connect);
chrome.runtime.onInstalled.addListener(connect);
chrome.tabs.onCreated.addListener(() => connect());
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== "local") return;
  if (changes.port || changes.key || changes.name) {
    // new pairing or name: reconnect with it
    if (ws) ws.close(1000, "settings changed");
    else connect();
  }
});
chrome.runtime.onMessage.addListener((m, _sender, respond) => {
  if (m && m.type === "reconnect") {
    connect();
    respond({ ok: true });
  }
});

fileAccess();
connect();
