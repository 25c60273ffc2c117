#!/usr/bin/env node
// The WebAssembly solver against the native one on Pascal Pons' test sets, side by side in one
// run: `vier solve --no-book` (1 MB table cleared per position) and the module's `solve` (the
// same), position by position. Scores and node counts must be identical: any difference is
// printed and the exit status is 1. Prints the time ratio wasm/native per set and the slowest
// position in wasm.
//
//   tools/web.sh && cargo build --release
//   node tools/wasm_bench.mjs [--vier target/release/vier] [--wasm target/web/vier.wasm.gz]
//                             [--limit N] [SET ...]        (default: every tests/data/pons set)
//
// The native times are vier's own (`vier solve` prints each position's microseconds), the wasm
// ones the module's (performance.now() around the solve): neither counts start-up or I/O, and
// the module is warmed up first (below).

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile, instantiate } from "../web/wasm.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const vier = option("--vier", join(root, "target/release/vier"));
const wasmPath = option("--wasm", join(root, "target/web/vier.wasm.gz"));
const limit = Number(option("--limit", "0")) || Infinity;
const setsDir = join(root, "tests/data/pons");
const sets = args.length > 0 ? args : readdirSync(setsDir).filter((f) => f.startsWith("Test_")).sort().map((f) => join(setsDir, f));

for (const [what, path, how] of [
  ["vier", vier, "cargo build --release"],
  ["the module", wasmPath, "tools/web.sh"],
]) {
  if (!existsSync(path)) {
    console.error(`wasm_bench: ${what} is missing at ${path}: build it with ${how}`);
    process.exit(2);
  }
}

const engine = await instantiate(await compile(readFileSync(wasmPath)));
// V8 first runs a module's functions as compiled by its baseline tier and compiles the hot ones
// again with its optimising tier: solve a few positions of each set untimed first
const readSet = (set) => readFileSync(set, "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#"));
for (const set of sets) {
  for (const line of readSet(set).slice(0, 50)) engine.call({ op: "solve", size: "7x6", moves: line.split(/\s+/)[0] });
}
let mismatches = 0;
console.log("set            positions  native ms  wasm ms   ratio  mean nodes  wasm max ms");
for (const set of sets) {
  const lines = readSet(set).slice(0, limit);
  const input = lines.join("\n") + "\n";
  // the native solver on the whole set, each position's line: moves score nodes micros
  const run = spawnSync(vier, ["solve", "--no-book"], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  if (run.status !== 0) {
    console.error(`wasm_bench: ${vier} solve failed on ${set}: ${run.stderr}`);
    process.exit(2);
  }
  const native = run.stdout.trim().split("\n").map((l) => l.split(/\s+/));
  let nativeMs = 0;
  let wasmMs = 0;
  let nodes = 0;
  let slowest = { ms: 0, moves: "" };
  lines.forEach((line, i) => {
    const [moves] = line.split(/\s+/);
    const [nMoves, nScore, nNodes, nMicros] = native[i] ?? [];
    const w = engine.call({ op: "solve", size: "7x6", moves });
    if (nMoves !== moves || w.error !== undefined || String(w.score) !== nScore || String(w.nodes) !== nNodes) {
      mismatches++;
      console.log(`MISMATCH ${basename(set)} ${moves}: native ${native[i]?.join(" ")}, wasm ${JSON.stringify(w)}`);
      return;
    }
    nativeMs += Number(nMicros) / 1000;
    wasmMs += w.time_ms;
    nodes += w.nodes;
    if (w.time_ms > slowest.ms) slowest = { ms: w.time_ms, moves };
  });
  console.log(
    `${basename(set).padEnd(14)} ${String(lines.length).padStart(9)} ${nativeMs.toFixed(0).padStart(10)} ` +
      `${wasmMs.toFixed(0).padStart(8)} ${(wasmMs / nativeMs).toFixed(2).padStart(7)} ` +
      `${(nodes / lines.length).toFixed(0).padStart(11)} ${slowest.ms.toFixed(1).padStart(12)} (${slowest.moves})`,
  );
}
if (mismatches > 0) {
  console.log(`${mismatches} positions differ between wasm and native`);
  process.exit(1);
}
