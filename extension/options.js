// The options page: name the profile, override the pairing, show the state.

const $ = (id) => document.getElementById(id);

function show(status) {
  const s = status || { state: "starting", detail: "" };
  $("state").textContent = "Hub connection: " + s.state;
  $("state").className = s.state;
  $("detail").textContent = s.detail || "";
}

async function load() {
  const local = await chrome.storage.local.get(["name", "port", "key"]);
  $("name").value = local.name || "";
  $("port").value = local.port || "";
  $("key").value = local.key || "";
  const session = await chrome.storage.session.get("status");
  show(session.status);
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === "session" && changes.status) show(changes.status.newValue);
});

$("save").addEventListener("click", async () => {
  const port = $("port").value.trim();
  const values = { name: $("name").value.trim(), port: port ? Number(port) : "", key: $("key").value.trim() };
  await chrome.storage.local.set(values);
  chrome.runtime.sendMessage({ type: "reconnect" }).catch(() => {});
});

load();
