#!/usr/bin/env node
// The WebAssembly solver against the native one on Pascal Pons' test sets, side by side in one
// run: `vier solve --no-book` (1 MB table cleared per position) and the module's `solve` (the
// same), position by position. Scores and node counts must be identical: any difference is
// printed and the exit status is 1. Prints the time ratio wasm/native per set and the slowest
// position in wasm.
//
//   tools/web.sh && cargo build --release
//   node tools/wasm_bench.mjs [--vier target/release/vier] [--wasm target/web/vier.wasm.gz]
//                             [--limit N] [--passes N] [SET ...]
//                             (default: every tests/data/pons set, 3 passes)
//
// The native times are vier's own (`vier solve` times each position; its summary's nodes per
// second give the set's total unrounded, where each line rounds to whole microseconds), the wasm
// ones the module's (performance.now() around each solve): neither counts start-up or I/O.
//
// What is compared is the solver's speed once the code is compiled, natively and in V8:
// - V8 first runs a module's functions as its baseline compiler makes them, compiled one by one
//   when first called, and compiles the hot ones again with its optimising tier while they
//   run. A page reaches the optimised code within its first solves; a benchmark would count a
//   function's compile in the position that first needs it (a millisecond, where a position
//   takes microseconds). So the module is compiled by the optimising tier at once, before any
//   position (the V8 flags below: the same code, compiled earlier).
// - Each set is run `--passes` times, native and wasm in turn, and each side's time is its
//   quickest pass: a pause of the machine's or of V8's (its garbage collector interrupts wasm
//   too, for the JSON of the calls between positions) lands in one pass, and a set of
//   microsecond positions is a few milliseconds in all. The ratio of all the passes' sums is
//   printed beside it.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { compile, instantiate } from "../web/wasm.js";

v8.setFlagsFromString("--no-wasm-lazy-compilation");
v8.setFlagsFromString("--no-wasm-dynamic-tiering");

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
const passes = Math.max(1, Number(option("--passes", "3")) || 3);
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
const readSet = (set) => readFileSync(set, "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#"));
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

let mismatches = 0;
// one pass of one set on both sides: the total milliseconds of each side, and each position's
// nodes (null where the two sides differ: printed)
function pass(set, lines) {
  const input = lines.join("\n") + "\n";
  // the native solver on the whole set, each position's line: moves score nodes micros
  const run = spawnSync(vier, ["solve", "--no-book"], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  const rate = /, (\d+) nodes\/s/.exec(run.stderr ?? "");
  if (run.status !== 0 || rate === null) {
    console.error(`wasm_bench: ${vier} solve failed on ${set}: ${run.stderr}`);
    process.exit(2);
  }
  const native = run.stdout.trim().split("\n").map((l) => l.split(/\s+/));
  const nativeMs = (sum(native.map((l) => Number(l[2]))) / Number(rate[1])) * 1000;
  let wasmMs = 0;
  const nodes = lines.map((line, i) => {
    const [moves] = line.split(/\s+/);
    const [nMoves, nScore, nNodes] = native[i] ?? [];
    const w = engine.call({ op: "solve", size: "7x6", moves });
    if (nMoves !== moves || w.error !== undefined || String(w.score) !== nScore || String(w.nodes) !== nNodes) {
      mismatches++;
      console.log(`MISMATCH ${basename(set)} ${moves}: native ${native[i]?.join(" ")}, wasm ${JSON.stringify(w)}`);
      return null;
    }
    wasmMs += w.time_ms;
    return w.nodes;
  });
  return { nativeMs, wasmMs, nodes };
}

console.log(`${passes} passes; each side's quickest pass (and the ratio of all passes' sums)`);
console.log("set            positions  native ms  wasm ms   ratio  (all passes)  mean nodes");
for (const set of sets) {
  const lines = readSet(set).slice(0, limit);
  const runs = Array.from({ length: passes }, () => pass(set, lines));
  const nativeMs = Math.min(...runs.map((r) => r.nativeMs));
  const wasmMs = Math.min(...runs.map((r) => r.wasmMs));
  const plain = sum(runs.map((r) => r.wasmMs)) / sum(runs.map((r) => r.nativeMs));
  const nodes = runs[0].nodes.filter((n) => n !== null);
  console.log(
    `${basename(set).padEnd(14)} ${String(lines.length).padStart(9)} ${nativeMs.toFixed(1).padStart(10)} ` +
      `${wasmMs.toFixed(1).padStart(8)} ${(wasmMs / nativeMs).toFixed(2).padStart(7)} ${plain.toFixed(2).padStart(13)} ` +
      `${(sum(nodes) / Math.max(1, nodes.length)).toFixed(0).padStart(11)}`,
  );
}
if (mismatches > 0) {
  console.log(`${mismatches} positions differ between wasm and native`);
  process.exit(1);
}
