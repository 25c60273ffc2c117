// The page only draws the snapshots it is sent (one JSON snapshot per change) and sends what
// the person does; the rules live in the engine. How it reaches the engine is the backend's
// business (`window.vierBackend`): `vier gui`'s server (server.js) or, on the page without a
// server, the engine compiled to WebAssembly in this browser. Both answer with the same
// snapshots.
"use strict";

const $ = (id) => document.getElementById(id);
const backend = window.vierBackend;
let game = null; // the latest snapshot
let built = ""; // the board size the board elements were made for
// click-to-engine-disc times in ms, for the browser tests and anyone curious
window.vierTimings = [];
let pendingClick = null;

const name = { x: "Blue ✕", o: "Orange ◯" };

async function api(path, body) {
  const res = await backend.post(path, body);
  if (!res.ok) {
    if (res.lost) {
      say("This game had ended; a new one was started.");
      await start(true);
    } else {
      say(res.error);
    }
    return null;
  }
  say("");
  render(res.snapshot);
  return res.snapshot;
}

function say(text) {
  $("message").textContent = text || "";
}

async function start(fresh) {
  const snap = await backend.open(fresh);
  if (!snap) {
    say(backend.unreachable);
    return;
  }
  render(snap);
  backend.listen(render);
}

function build(s) {
  const board = $("board");
  board.replaceChildren();
  for (let c = 1; c <= s.width; c++) {
    const col = document.createElement("button");
    col.type = "button";
    col.className = "column";
    col.dataset.column = String(c);
    col.addEventListener("click", () => play(c));
    col.addEventListener("keydown", (e) => {
      const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
      if (step) {
        e.preventDefault();
        const next = board.querySelector(`[data-column="${c + step}"]`);
        if (next) next.focus();
      }
    });
    for (let r = s.height; r >= 1; r--) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.cell = `${c},${r}`;
      cell.dataset.disc = "";
      col.append(cell);
    }
    const num = document.createElement("span");
    num.className = "num";
    // as move strings write it: letters past 9 columns
    num.textContent = colChar(c, s.width);
    num.setAttribute("aria-hidden", "true");
    col.append(num);
    board.append(col);
  }
  const row = $("analysis");
  row.replaceChildren();
  for (let c = 1; c <= s.width; c++) {
    const a = document.createElement("div");
    a.className = "acell";
    a.dataset.analysisColumn = String(c);
    row.append(a);
  }
  const game = board.closest(".game");
  game.style.setProperty("--w", s.width);
  game.style.setProperty("--h", s.height);
  board.setAttribute("aria-label", `Board, ${s.width} columns by ${s.height} rows`);
  built = s.size;
}

function who(s, side) {
  if (s.engine_side === side) return `the engine (${name[side]})`;
  if (s.engine_side === "none") return name[side];
  return `you (${name[side]})`;
}

function statusText(s) {
  if (s.status === "x-wins" || s.status === "o-wins") {
    const side = s.status[0];
    const four = s.winning.map(([c, r]) => `${colChar(c, s.width)}/${r}`).join(" ");
    const winner = s.engine_side === side ? `The engine (${name[side]}) wins`
      : s.engine_side === "none" ? `${name[side]} wins` : `You (${name[side]}) win`;
    return `${winner}: four in a row at column/row ${four}.`;
  }
  if (s.status === "draw") return "Draw: the board is full.";
  if (s.engine_side === s.to_move) return `The engine (${name[s.to_move]}) is to move.`;
  if (s.engine_side === "none") return `${name[s.to_move]} to move.`;
  return `Your turn: you play ${name[s.to_move]}.`;
}

function render(s) {
  const old = game;
  if (old && s.id === old.id && s.version < old.version) return; // a late answer
  game = s;
  window.vierGame = s; // for the browser tests
  if (built !== s.size) build(s);
  const [lc, lr] = s.last_move || [0, 0];
  const wins = new Set(s.winning.map(([c, r]) => `${c},${r}`));
  const grown = old && old.size === s.size && s.moves.startsWith(old.moves) ? old.moves.length : null;
  for (let c = 1; c <= s.width; c++) {
    const col = $("board").querySelector(`[data-column="${c}"]`);
    const legal = s.legal.includes(c);
    col.disabled = !legal || s.engine_side === s.to_move;
    let filled = 0;
    for (let r = 1; r <= s.height; r++) {
      const disc = s.cells[r - 1][c - 1];
      if (disc) filled++;
      const cell = col.querySelector(`[data-cell="${c},${r}"]`);
      const key = `${c},${r}`;
      const isNew = disc && cell.dataset.disc !== disc && grown !== null;
      cell.dataset.disc = disc;
      cell.classList.toggle("last", c === lc && r === lr);
      cell.classList.toggle("win", wins.has(key));
      if (isNew) {
        cell.style.setProperty("--fall", String(s.height - r + 1));
        cell.classList.remove("drop");
        void cell.offsetWidth; // restart the animation
        cell.classList.add("drop");
      }
    }
    col.setAttribute("aria-label", `Column ${c}: ${filled} of ${s.height} filled` +
      (legal ? "" : ", closed"));
  }
  const st = $("status");
  st.dataset.status = s.status;
  st.textContent = statusText(s);
  document.title = `vier: ${st.textContent}`;

  if (pendingClick && s.moves.length >= pendingClick.length) {
    if (s.moves.startsWith(pendingClick.moves)) {
      window.vierTimings.push(performance.now() - pendingClick.t0);
    }
    pendingClick = null;
  }

  const th = $("thinking");
  if (s.engine.message) {
    // next to the board, where the engine's move was expected
    th.textContent = `Engine problem: ${s.engine.message}`;
  } else if (s.thinking && s.engine_side === s.to_move && s.status === "playing") {
    th.textContent = `Thinking… depth ${s.thinking.depth} · ${s.thinking.score} · line ${s.thinking.pv}`;
  } else if (s.engine_side === s.to_move && s.status === "playing") {
    th.textContent = "Thinking…";
  } else if (s.last_engine_ms !== null && s.engine_side !== "none") {
    th.textContent = `The engine's last move took ${s.last_engine_ms} ms.`;
  } else {
    th.textContent = "";
  }
  th.dataset.state = s.engine.state;
  th.dataset.problem = s.engine.message ? "true" : "false";

  renderAnalysis(s);

  const eng = $("engine");
  eng.classList.toggle("error", s.engine.state === "error" || s.engine.message !== "");
  eng.dataset.state = s.engine.state;
  eng.dataset.restarts = String(s.engine.restarts);
  eng.textContent = s.engine.message ? `Engine: ${s.engine.message}` : `Engine: ${s.engine.state}`;

  $("undo").disabled = !s.can_undo;
  $("redo").disabled = !s.can_redo;
  $("side").value = s.engine_side;
  const sizes = $("size");
  if (sizes.options.length !== s.sizes.length) {
    const label = (z) => z.replace("x", " × ") + (s.unsolved.includes(z) ? " (unsolved)" : "");
    sizes.replaceChildren(...s.sizes.map((z) => new Option(label(z), z)));
  }
  sizes.value = s.size;
  const mt = $("movetime");
  if (![...mt.options].some((o) => o.value === String(s.movetime))) {
    mt.append(new Option(`${s.movetime / 1000} s`, String(s.movetime)));
  }
  mt.value = String(s.movetime);
  const lv = $("level");
  if (lv.options.length !== s.levels.length) {
    const full = s.levels.length;
    lv.replaceChildren(...s.levels.map(([n, elo]) => new Option(
      n === full ? `Full strength (${elo} Elo)` : `Level ${n} (${elo} Elo)`, String(n))).reverse());
  }
  lv.value = String(s.level);
  const shown = $("level-shown");
  const elo = (s.levels.find(([n]) => n === s.level) || [0, 0])[1];
  shown.dataset.level = String(s.level);
  shown.textContent = s.engine_side === "none" ? "" : s.level === s.levels.length
    ? `vier plays at full strength (${elo} Elo)`
    : `vier plays at level ${s.level} of ${s.levels.length - 1} (about ${elo} Elo)`;
  $("always").checked = s.analysis_always;
  $("analyse").disabled = s.status !== "playing";
  $("moves").value = s.moves || "-";
  $("fen").value = s.fen;
}

function renderAnalysis(s) {
  const row = $("analysis");
  const a = s.analysis;
  row.hidden = !a && !s.analysis_always;
  row.dataset.complete = a && a.complete ? "true" : "false";
  row.dataset.moves = a ? a.moves : "";
  for (const el of row.children) {
    const c = Number(el.dataset.analysisColumn);
    const v = a && a.columns.find((x) => x.column === c);
    el.className = "acell";
    if (!v) {
      el.textContent = a && !a.complete && s.legal.includes(c) ? "…" : "";
      el.removeAttribute("title");
      el.removeAttribute("aria-label");
      delete el.dataset.score;
      continue;
    }
    el.textContent = (v.best ? "★\n" : "\n") + v.short;
    el.title = v.long + (v.best ? " (best)" : "");
    el.setAttribute("aria-label", el.title);
    if (v.exact) el.dataset.score = String(v.score); else delete el.dataset.score;
    el.classList.toggle("best", v.best);
    el.classList.toggle("estimate", !v.exact);
    el.classList.toggle("win", v.short.includes("win"));
    el.classList.toggle("loss", v.short.includes("loss"));
  }
}

// A column as move strings write it: a digit up to 9 columns, a letter (a = 1) past them.
function colChar(c, width) {
  return width <= 9 ? String(c) : String.fromCharCode(96 + c);
}

function play(c) {
  if (!game) return;
  if (game.engine_side !== "none") {
    const moves = game.moves + colChar(c, game.width);
    pendingClick = { t0: performance.now(), moves, length: moves.length + 1 };
  }
  api("move", { column: c }).then((r) => { if (!r) pendingClick = null; });
}

$("new").addEventListener("click", () => api("new", { engine: $("side").value }));
$("undo").addEventListener("click", () => api("undo"));
$("redo").addEventListener("click", () => api("redo"));
$("analyse").addEventListener("click", () => api("analyse"));
$("side").addEventListener("change", (e) => api("settings", { engine: e.target.value }));
$("movetime").addEventListener("change", (e) => api("settings", { movetime: Number(e.target.value) }));
$("level").addEventListener("change", (e) => api("settings", { level: Number(e.target.value) }));
$("always").addEventListener("change", (e) => api("settings", { analysis_always: e.target.checked }));
$("size").addEventListener("change", (e) => api("new", { size: e.target.value }));
$("paste-form").addEventListener("submit", (e) => {
  e.preventDefault();
  api("position", { text: $("paste").value });
});

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t.closest && t.closest("input, select, textarea")) return;
  if (/^[1-9]$/.test(e.key) && game && Number(e.key) <= game.width) {
    e.preventDefault();
    play(Number(e.key));
  } else if (e.key === "u") api("undo");
  else if (e.key === "r") api("redo");
  else if (e.key === "n") api("new", { engine: $("side").value });
  else if (e.key === "a") api("analyse");
});

start(false);
