// The engine's WebAssembly module checked from node (tests/web.rs runs it):
//   node tests/web/check.mjs VIER_WASM BOOK EXPECTED_JSON
// EXPECTED_JSON holds `analyse`: {size, moves, columns}, `vier solve --all`'s values of the
// columns (null for a full column), and `solve`: {size, moves, score, nodes} from
// `vier solve --no-book`. Each position's `analyse` must give its columns and `solve` its score
// and node count; `think` must answer a legal column, the best one from the book in a 7x6
// opening; bad requests must be answered with an error, not a trap. Prints one line per
// failure and exits 1 if there is any.

import { readFileSync } from "node:fs";
import { compile, gunzip, instantiate } from "../../web/wasm.js";

const [wasmPath, bookPath, expectedPath] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedPath, "utf8"));
const reports = [];
const engine = await instantiate(await compile(readFileSync(wasmPath)), {
  onProgress: (p) => reports.push(p),
});

let checks = 0;
let failures = 0;
function check(ok, what, detail) {
  checks++;
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}: ${JSON.stringify(detail)}`);
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// the book: 7x6, every position with at most 9 discs
const book = engine.loadBook(await gunzip(readFileSync(bookPath)));
check(book.size === "7x6" && book.depth === 9 && book.positions > 300000, "the book loads", book);
check(engine.loadBook(new Uint8Array([1, 2, 3])).error !== undefined, "a damaged book is refused", "");

for (const { size, moves, columns } of expected.analyse) {
  const a = engine.call({ op: "analyse", size, moves });
  check(same(a.columns, columns) && a.complete, `analyse ${size} ${moves} equals vier solve --all`, { wasm: a, native: columns });

  reports.length = 0;
  const t = engine.call({ op: "think", size, moves, movetime_ms: 50 });
  check(a.legal.includes(t.column), `think ${size} ${moves} plays a legal column`, t);
  check(reports.length > 0 && reports.every((r) => r.depth >= 0 && typeof r.nodes === "number"), `think ${size} ${moves} reports its depths`, reports.at(-1));
  // a proven answer is the best column's value
  const best = Math.max(...columns.filter((c) => c !== null));
  if (t.exact !== null) {
    check(t.exact === best && columns[t.column] === best, `think ${size} ${moves} plays a best column when proven`, { t, columns });
  }

  const level = engine.call({ op: "think", size, moves, movetime_ms: 50, level: 3, seed: 7 });
  check(a.legal.includes(level.column) && level.chosen_by === 3, `think ${size} ${moves} at level 3 plays a legal column`, level);
}

// a 7x6 opening is answered from the book: proven at once, no search worth the name
for (const moves of ["", "4", "44", "4453", "43", "3344"]) {
  const t = engine.call({ op: "think", size: "7x6", moves, movetime_ms: 10000 });
  const a = engine.call({ op: "analyse", size: "7x6", moves });
  const best = Math.max(...a.columns.filter((c) => c !== null));
  check(t.book_hits > 0 && t.exact === best && a.columns[t.column] === best, `think 7x6 ${moves || "-"} plays the book's move`, t);
}

// the solver alone, without the book, as vier solve --no-book: the same score and node count
for (const { size, moves, score, nodes } of expected.solve) {
  const s = engine.call({ op: "solve", size, moves });
  check(s.score === score && s.nodes === nodes, `solve ${size} ${moves} as vier solve --no-book`, { wasm: s, native: { score, nodes } });
}

// bad requests get reasons, and the engine still works after them
for (const [request, why] of [
  [{ op: "think", size: "7x6", moves: "4444444" }, "illegal move"],
  [{ op: "think", size: "3x3" }, "unsupported size"],
  [{ op: "think", size: "7x6", moves: "44", level: 12 }, "level out of range"],
  [{ op: "think", size: "7x6", movetime_ms: -1 }, "negative time"],
  [{ op: "analyse", size: "7x6", moves: "4", board: "7/7/7/7/7/3x3 o" }, "moves and board"],
  [{ op: "solve", size: "7x6", moves: "4141414" }, "finished game"],
  [{ op: "fly" }, "unknown op"],
  [{}, "no op"],
  [[1, 2], "not an object"],
]) {
  const answer = engine.call(request);
  check(typeof answer.error === "string" && answer.error.length > 0, `${why} is answered with an error`, answer);
}
const after = engine.call({ op: "think", size: "7x6", moves: "4453", movetime_ms: 10 });
check(Number.isInteger(after.column), "the engine answers after bad requests", after);
check(engine.call({ op: "clear" }).cleared === true, "clear answers", "");
const info = engine.call({ op: "info" });
check(info.sizes.length === 57 && info.unsolved.length === 5 && info.sizes.includes("9x8") && info.levels.length === info.full_level && info.book.depth === 9, "info lists sizes, levels and the book", info);

console.log(`${checks} checks, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
