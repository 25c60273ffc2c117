// The page's engine (WebAssembly) in node for tools/proven.py:
//   node tools/proven_web.mjs VIER_WASM BOOK < requests.json
// requests.json is a list of {size, moves, movetime_ms, multipv}; for each it runs `think` (with
// every progress report kept) and `analyse`, and prints one JSON list of
// {reports, answer, analyse}, in the requests' order. The module is the one the page's worker
// runs, with the folder's book.

import { readFileSync } from "node:fs";
import { compile, gunzip, instantiate } from "../web/wasm.js";

const [wasmPath, bookPath] = process.argv.slice(2);
const requests = JSON.parse(readFileSync(0, "utf8"));
let reports = [];
const engine = await instantiate(await compile(readFileSync(wasmPath)), {
  onProgress: (p) => reports.push(p),
});
const book = engine.loadBook(await gunzip(readFileSync(bookPath)));
if (book.error !== undefined) throw new Error(`the book: ${book.error}`);

const out = [];
for (const { size, moves, movetime_ms, multipv } of requests) {
  reports = [];
  const answer = engine.call({ op: "think", size, moves, movetime_ms, multipv });
  if (answer.error !== undefined) throw new Error(`think ${size} ${moves}: ${answer.error}`);
  const kept = reports;
  const analyse = engine.call({ op: "analyse", size, moves });
  if (analyse.error !== undefined) throw new Error(`analyse ${size} ${moves}: ${analyse.error}`);
  out.push({ reports: kept, answer, analyse });
}
process.stdout.write(JSON.stringify(out));
