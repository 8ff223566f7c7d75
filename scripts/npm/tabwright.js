#!/usr/bin/env node
// The `tabwright` command of the npm package: it runs the binary of this
// platform, which npm installed as the optional dependency
// tabwright-<platform>-<arch> (the one whose os and cpu match), with this
// process's arguments and stdio, passes on the signals an MCP client sends
// to stop it, and exits as the binary did.
"use strict";
const { spawn } = require("child_process");

const pkg = `tabwright-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "tabwright.exe" : "tabwright";
let bin;
try {
  bin = require.resolve(`${pkg}/bin/${exe}`);
} catch (e) {
  console.error(
    `tabwright: no binary for ${process.platform}-${process.arch}: the package ${pkg} is not installed. ` +
      `npm installs it with tabwright unless optional dependencies are left out (--omit=optional); ` +
      `reinstall with them, or build from source: go install github.com/tabwright/tabwright/cmd/tabwright@latest`
  );
  process.exit(3);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const sig of forwarded) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error(`tabwright: could not run ${bin}: ${err.message}`);
  process.exit(3);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what the binary saw.
    for (const sig of forwarded) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
