// Real MCP clients against a tabwright binary, default profile: the
// TypeScript SDK's client lists the tools (its own result checks) and runs a
// browser_batch on a fixture page served here; every input schema compiles
// in Ajv as the SDK configures it and in Ajv's strict mode, and judges a
// valid and an invalid batch alike; the Inspector's CLI lints the listed
// schemas for portability (--strict: any finding fails), lists and calls the
// tools too. Then the same with --inline-schemas.
//
//   node check.mjs path/to/tabwright
//
// Exits non-zero on the first failure, saying what failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.argv[2];
if (!bin) {
  console.error("usage: node check.mjs path/to/tabwright");
  process.exit(2);
}

function fail(msg) {
  console.error("FAIL " + msg);
  process.exit(1);
}

// The fixture: a field, a button that writes what the field holds.
const page = `<!doctype html><title>form</title>
<input id="name" aria-label="Name"><button id="go">Go</button><p id="out"></p>
<script>document.getElementById("go").onclick = () => {
  document.getElementById("out").textContent = "hello " + document.getElementById("name").value;
};</script>`;
const site = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html" });
  res.end(page);
});
await new Promise((ok) => site.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${site.address().port}/`;

const goodBatch = {
  tab_handle: "h",
  steps: [
    { action: "fill", selector: "#name", text: "ada", frame: { path: ["iframe#x"] } },
    { action: "click", selector: "button", selector_type: "role", name: "Go", settle_ms: [0, 50], observe: { selector: "#out" } },
    { action: "wait", condition: "text", selector: "#out", expected: "hello ada" },
  ],
};
const badBatches = [
  { tab_handle: "h", steps: [{ action: "click", selector: "#go", frame: { path: [] } }] },
  { tab_handle: "h", steps: [{ action: "click", selector: "#go", nth: -1 }] },
  { tab_handle: "h", steps: [{ action: "click", selector: "#go", observe: { max_chars: 10 } }] },
  { tab_handle: "h", steps: [{ action: "fill", selector: "#go" }] },
];

// Ajv's class for a schema's dialect: draft-07 when it says so, else the
// MCP default, 2020-12.
function strictAjv(schema) {
  const draft07 = String(schema.$schema || "").includes("draft-07");
  return draft07 ? new Ajv({ strict: true, allErrors: true }) : new Ajv2020({ strict: true, allErrors: true });
}

function checkSchemas(tools, form) {
  const sdk = new AjvJsonSchemaValidator();
  for (const tool of tools) {
    let strict, loose;
    try {
      loose = sdk.getValidator(tool.inputSchema);
    } catch (e) {
      fail(`${form}: ${tool.name}: the SDK's Ajv cannot compile its schema: ${e.message}`);
    }
    try {
      strict = strictAjv(tool.inputSchema).compile(tool.inputSchema);
    } catch (e) {
      fail(`${form}: ${tool.name}: Ajv strict refuses its schema: ${e.message}`);
    }
    if (tool.name !== "browser_batch") continue;
    if (!loose(goodBatch).valid || !strict(goodBatch)) {
      fail(`${form}: a valid batch is refused: ${JSON.stringify(strict.errors)}`);
    }
    for (const bad of badBatches) {
      if (loose(bad).valid || strict(bad)) fail(`${form}: an invalid batch is accepted: ${JSON.stringify(bad)}`);
    }
  }
}

async function runBatch(client, form) {
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) fail(`${form}: ${name}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  const opened = await call("browser_open_tab", { url });
  const batch = { ...goodBatch, tab_handle: opened.tab_handle };
  batch.steps = batch.steps.map(({ frame, ...s }) => s); // no child frame on the fixture
  const res = await call("browser_batch", batch);
  if (!res.ok || res.steps.length !== 3) fail(`${form}: batch result ${JSON.stringify(res)}`);
  await call("browser_tab_control", { tab_handle: opened.tab_handle, action: "close" });
}

// The Inspector's CLI (2.x): tools/list with --strict, its portability
// lint (findings in full on stderr, exit 6 on an error-severity one), and a
// call. A tool error exits non-zero by design, so each run's exit status
// and streams are read, not thrown.
function inspector(flags, form) {
  const require = createRequire(import.meta.url);
  const cli = require.resolve("@modelcontextprotocol/inspector/clients/launcher/build/index.js");
  // The server from a config file, so its flags stay apart from the CLI's.
  const config = join(mkdtempSync(join(tmpdir(), "tw-inspector-")), "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { tabwright: { command: bin, args: ["mcp", ...flags] } } }));
  const run = (...args) => {
    const r = spawnSync(process.execPath, [cli, "--cli", "--config", config, "--server", "tabwright", "--format", "json", ...args], {
      encoding: "utf8",
      env: { ...process.env, MCP_INSPECTOR_SECRET_STORE: "memory" }, // no keychain to ask
    });
    let out;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      fail(`${form}: inspector ${args.join(" ")}: exit ${r.status}, no JSON on stdout: ${r.stdout}${r.stderr}`);
    }
    return { out, status: r.status, stderr: r.stderr.trim() };
  };
  // --format json: {result, schemaFindings (when the lint found any)}.
  const list = run("--method", "tools/list", "--strict");
  if (list.status !== 0 || list.out.schemaFindings) {
    fail(`${form}: inspector's schema lint (--strict): exit ${list.status}: ${JSON.stringify(list.out.schemaFindings)}\n${list.stderr}`);
  }
  if (!list.out.result.tools.some((t) => t.name === "browser_batch")) fail(`${form}: inspector: no browser_batch listed`);
  const res = run("--method", "tools/call", "--tool-name", "browser_batch", "--tool-arg", "tab_handle=nope", "--tool-arg", 'steps=[{"action":"press_key","key":"Tab"}]');
  // A well-formed batch on a handle no session claimed: the server's own
  // refusal, not the client's.
  const call = res.out.result;
  if (!call?.isError || !JSON.stringify(call.structuredContent).includes("invalid_handle")) fail(`${form}: inspector: call result ${JSON.stringify(res.out)}`);
}

for (const flags of [[], ["--inline-schemas"]]) {
  const form = flags.length ? "inlined" : "default";
  const client = new Client({ name: "tabwright-real-clients", version: "1" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", ...flags], stderr: "inherit" }));
  const { tools } = await client.listTools();
  const size = JSON.stringify({ tools }).length;
  if (!tools.some((t) => t.name === "browser_batch")) fail(`${form}: browser_batch is not listed`);
  if (form === "default" && size > 20000) fail(`default: tools/list is ${size} characters, over 20,000`);
  if (form === "inlined" && JSON.stringify(tools).includes('"$ref"')) fail("inlined: a $ref is listed");
  checkSchemas(tools, form);
  await runBatch(client, form);
  await client.close();
  inspector(flags, form);
  console.log(`ok ${form}: ${tools.length} tools, ${size} characters; schemas compile in the SDK's Ajv and Ajv strict; browser_batch ran; the Inspector CLI's schema lint (--strict) finds nothing, and it lists and calls browser_batch`);
}
site.close();
