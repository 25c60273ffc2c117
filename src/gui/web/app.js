// The page only draws the snapshots it is sent (one JSON snapshot per change) and sends what
// the person does; the rules, the values in words, the review and the link live in the engine
// (vier::gui). How it reaches the engine is the backend's business (`window.vierBackend`):
// `vier gui`'s server (server.js) or, on the page without a server, the engine compiled to
// WebAssembly in this browser. Both answer with the same snapshots.
"use strict";

const $ = (id) => document.getElementById(id);
const backend = window.vierBackend;
let game = null; // the latest snapshot
let built = ""; // the board size the board elements were made for
let detailColumn = null; // the column whose expert numbers are shown
// click-to-engine-disc times in ms, for the browser tests and anyone curious
window.vierTimings = [];
let pendingClick = null;

const name = { x: "Blue ✕", o: "Orange ◯" };
// the game of this tab, kept for a reload (the snapshot's `saved`)
const SAVED = "vier-game";

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

// The position the address names: `#7x6/4453`, or Pons' `?pos=4453`; "" for none. Any address
// is read: one that is not a position (a stray `%` included) is refused by the game with a reason.
function addressed() {
  const raw = location.hash.replace(/^#/, "");
  let hash = raw;
  try {
    hash = decodeURIComponent(raw);
  } catch (e) {
    // a malformed escape (`#%`, `#%E0%A4%A`): read as typed
  }
  if (hash) return hash;
  return new URLSearchParams(location.search).get("pos") || "";
}

// Opens the position `link` names as a new game; one that names none leaves the game as it is
// and says why.
async function openLink(link) {
  const res = await backend.post("link", { link });
  if (!res.ok) {
    // the address follows the game shown again
    if (game) render(game);
    say(`The address names no position (${res.error}); this is the game as it was.`);
    return null;
  }
  say("");
  render(res.snapshot);
  return res.snapshot;
}

// the address the page was opened with (the first snapshot drawn replaces it)
let opened = addressed();

async function start(fresh) {
  // read before the first snapshot drawn replaces it
  const saved = sessionStorage.getItem(SAVED);
  let snap = await backend.open(fresh);
  if (!snap) {
    say(backend.unreachable);
    return;
  }
  render(snap);
  // a reload (or a game the server forgot): the game as this tab left it
  if (snap.fresh && saved) {
    snap = (await api("restore", JSON.parse(saved))) || snap;
  }
  // a link to another position: a new game there
  const link = opened ?? addressed();
  opened = null;
  if (link && link !== snap.link) await openLink(link);
  backend.listen(render);
}

window.addEventListener("hashchange", () => {
  const link = addressed();
  if (game && link && link !== game.link) openLink(link);
});

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
    const a = document.createElement("button");
    a.type = "button";
    a.className = "acell";
    a.dataset.analysisColumn = String(c);
    a.addEventListener("click", () => {
      detailColumn = detailColumn === c ? null : c;
      renderAnalysis(game);
    });
    row.append(a);
  }
  const section = board.closest(".game");
  section.style.setProperty("--w", s.width);
  section.style.setProperty("--h", s.height);
  board.setAttribute("aria-label", `Board, ${s.width} columns by ${s.height} rows`);
  built = s.size;
  detailColumn = null;
}

function statusText(s) {
  if (s.status === "x-wins" || s.status === "o-wins") {
    const side = s.status[0];
    const winner = s.engine_side === side ? `The engine (${name[side]}) wins`
      : s.engine_side === "none" ? `${name[side]} wins` : `You (${name[side]}) win`;
    return `${winner}: four ${s.four}.`;
  }
  if (s.status === "draw") return "Draw: the board is full.";
  if (s.ply < s.line.length && s.engine_side === s.to_move) {
    return `Move ${s.ply} of ${s.line.length}: the engine (${name[s.to_move]}) would move here.`;
  }
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
        // another animation's name starts it again (removing and adding one class would need a
        // layout in between)
        const again = cell.classList.contains("drop");
        cell.classList.toggle("drop", !again);
        cell.classList.toggle("drop-again", again);
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
  } else if (s.engine_side === s.to_move && s.status === "playing" && s.ply === s.line.length) {
    th.textContent = "Thinking…";
  } else if (s.last_engine_ms !== null && s.engine_side !== "none") {
    th.textContent = `The engine's last move took ${s.last_engine_ms} ms.`;
  } else {
    th.textContent = "";
  }
  th.dataset.state = s.engine.state;
  th.dataset.problem = s.engine.message ? "true" : "false";

  renderAnalysis(s);
  renderRecord(s);
  renderReview(s);

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

  // the address follows the position (replaced, not pushed: the back button leaves the page)
  const hash = `#${s.link}`;
  if (location.hash !== hash || location.search) {
    history.replaceState(null, "", location.pathname + hash);
  }
  $("link").value = location.href;
  sessionStorage.setItem(SAVED, JSON.stringify(s.saved));
}

function renderAnalysis(s) {
  const row = $("analysis");
  const a = s.analysis;
  row.hidden = !a && !s.analysis_always;
  row.dataset.complete = a && a.complete ? "true" : "false";
  row.dataset.moves = a ? a.moves : "";
  let detail = "";
  for (const el of row.children) {
    const c = Number(el.dataset.analysisColumn);
    const v = a && a.columns.find((x) => x.column === c);
    el.className = "acell";
    if (!v) {
      el.textContent = a && !a.complete && s.legal.includes(c) ? "…" : "";
      el.removeAttribute("title");
      el.removeAttribute("aria-label");
      el.style.removeProperty("--shade");
      delete el.dataset.score;
      delete el.dataset.outcome;
      continue;
    }
    el.textContent = v.short;
    el.title = `${v.long} · ${v.expert}`;
    el.setAttribute("aria-label", v.long + (v.best ? " (best)" : ""));
    if (v.exact) el.dataset.score = String(v.score); else delete el.dataset.score;
    el.dataset.outcome = v.outcome;
    el.style.setProperty("--shade", String(v.shade));
    el.classList.toggle("best", v.best);
    el.classList.toggle("estimate", !v.exact);
    if (c === detailColumn) detail = `${v.long}. ${v.expert}`;
  }
  $("summary").textContent = a ? a.summary : "";
  $("detail").textContent = detail;
}

// What the move list and the review last drew, to redraw only what changed.
let recordDrawn = "";
let reviewDrawn = "";

function renderRecord(s) {
  const list = $("movelist");
  const moves = [...s.line];
  const notes = s.review ? s.review.notes : [];
  $("first").disabled = s.ply === 0;
  $("back").disabled = s.ply === 0;
  $("forward").disabled = s.ply >= s.line.length;
  $("last").disabled = s.ply >= s.line.length;
  $("resume").hidden = !(s.ply < s.line.length && s.status === "playing" && s.engine_side !== "none");
  $("review-button").disabled = s.line.length === 0;
  const key = `${s.line} ${s.ply} ${notes.map((n) => n.mark).join()}`;
  if (key === recordDrawn && list.children.length === moves.length + 1) return;
  recordDrawn = key;
  if (list.children.length !== moves.length + 1 || list.dataset.line !== s.line) {
    const items = [];
    const startItem = document.createElement("li");
    startItem.className = "start";
    const startButton = document.createElement("button");
    startButton.type = "button";
    startButton.dataset.ply = "0";
    startButton.textContent = "start";
    startButton.addEventListener("click", () => api("goto", { ply: 0 }));
    startItem.append(startButton);
    items.push(startItem);
    moves.forEach((m, i) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.ply = String(i + 1);
      b.dataset.disc = i % 2 === 0 ? "x" : "o";
      b.addEventListener("click", () => api("goto", { ply: i + 1 }));
      li.append(b);
      items.push(li);
    });
    list.replaceChildren(...items);
    list.dataset.line = s.line;
  }
  for (const b of list.querySelectorAll("button[data-ply]")) {
    const ply = Number(b.dataset.ply);
    b.classList.toggle("current", ply === s.ply);
    b.classList.toggle("ahead", ply > s.ply);
    if (ply === 0) continue;
    const note = notes[ply - 1];
    const mark = note ? note.mark : "";
    b.dataset.mark = mark;
    const sign = { blunder: "??", mistake: "?" }[mark] || "";
    b.textContent = `${ply}. ${moves[ply - 1]}${sign}`;
    b.title = `${name[b.dataset.disc]} in column ${moves[ply - 1]}` + (note ? `: ${note.words}` : "");
  }
  // the current move in sight within the list (the page itself does not scroll), once the
  // browser lays the page out anyway
  requestAnimationFrame(() => {
    const current = list.querySelector("button.current");
    if (!current || list.scrollHeight <= list.clientHeight) return;
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top + current.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
  });
}

function renderReview(s) {
  const r = s.review;
  const box = $("review");
  box.hidden = !r;
  if (!r) return;
  box.dataset.complete = r.complete ? "true" : "false";
  box.dataset.moves = r.moves;
  $("review-progress").textContent = r.complete
    ? `Reviewed: ${r.proven} of ${r.positions} positions proven.`
    : `Reviewing… ${r.proven} of ${r.positions} positions proven.`;
  $("review-summary").textContent = r.complete || r.notes.some((n) => n.mark === "blunder" || n.mark === "mistake")
    ? r.summary : "";
  const note = s.ply > 0 ? r.notes[s.ply - 1] : null;
  $("review-note").textContent = note && note.mark !== "open"
    ? `Move ${s.ply} (${s.line[s.ply - 1]}): ${note.words}.` : "";
  const key = `${s.ply} ${JSON.stringify(r.points)} ${r.notes.map((n) => n.mark).join()}`;
  if (key !== reviewDrawn) {
    reviewDrawn = key;
    drawGraph(r, s.ply);
  }
}

// The value over the game: ✕'s wins up, draws in the middle, ◯'s wins down; a gap where a
// position is not proven yet. Each point is a button for the keyboard-less: a click goes there.
function drawGraph(r, ply) {
  const svg = $("graph");
  const n = r.points.length - 1;
  const W = 300;
  const H = 100;
  const x = (k) => (n === 0 ? W / 2 : (k * W) / n);
  const y = (v) => H / 2 - (v * (H / 2 - 6));
  const ns = "http://www.w3.org/2000/svg";
  const parts = [];
  const mid = document.createElementNS(ns, "line");
  mid.setAttribute("x1", "0"); mid.setAttribute("x2", String(W));
  mid.setAttribute("y1", String(H / 2)); mid.setAttribute("y2", String(H / 2));
  mid.setAttribute("class", "axis");
  parts.push(mid);
  let run = [];
  const flush = () => {
    if (run.length > 1) {
      const line = document.createElementNS(ns, "polyline");
      line.setAttribute("points", run.join(" "));
      line.setAttribute("class", "value");
      parts.push(line);
    }
    run = [];
  };
  r.points.forEach((v, k) => {
    if (v === null) { flush(); return; }
    run.push(`${x(k).toFixed(1)},${y(v).toFixed(1)}`);
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x(k).toFixed(1));
    dot.setAttribute("cy", y(v).toFixed(1));
    dot.setAttribute("r", k === ply ? "3.5" : "2");
    const mark = k > 0 && r.notes[k - 1] ? r.notes[k - 1].mark : "";
    dot.setAttribute("class", `point ${mark}${k === ply ? " current" : ""}`);
    dot.dataset.ply = String(k);
    parts.push(dot);
  });
  flush();
  const cursor = document.createElementNS(ns, "line");
  cursor.setAttribute("x1", x(ply).toFixed(1)); cursor.setAttribute("x2", x(ply).toFixed(1));
  cursor.setAttribute("y1", "0"); cursor.setAttribute("y2", String(H));
  cursor.setAttribute("class", "cursor");
  parts.push(cursor);
  svg.replaceChildren(...parts);
  $("graph-end").textContent = n > 0 ? `move ${n}` : "";
}

$("graph").addEventListener("click", (e) => {
  if (!game || !game.review) return;
  const box = $("graph").getBoundingClientRect();
  const n = game.review.points.length - 1;
  const ply = Math.round(((e.clientX - box.left) / box.width) * n);
  api("goto", { ply: Math.max(0, Math.min(n, ply)) });
});

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

function step(to) {
  if (!game) return;
  const ply = Math.max(0, Math.min(game.line.length, to));
  if (ply !== game.ply) api("goto", { ply });
}

async function copy(text, button) {
  const was = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch (e) {
    // no clipboard here (an insecure page, or no permission): select it to copy by hand
    const field = button.previousElementSibling;
    field.focus();
    field.select();
    button.textContent = "Select, then copy";
  }
  setTimeout(() => { button.textContent = was; }, 1500);
}

$("new").addEventListener("click", () => api("new", { engine: $("side").value }));
$("undo").addEventListener("click", () => api("undo"));
$("redo").addEventListener("click", () => api("redo"));
$("analyse").addEventListener("click", () => api("analyse"));
$("first").addEventListener("click", () => step(0));
$("back").addEventListener("click", () => game && step(game.ply - 1));
$("forward").addEventListener("click", () => game && step(game.ply + 1));
$("last").addEventListener("click", () => game && step(game.line.length));
$("resume").addEventListener("click", () => api("resume"));
$("review-button").addEventListener("click", () => api("review"));
$("copy-link").addEventListener("click", (e) => copy(location.href, e.target));
$("copy-moves").addEventListener("click", (e) => copy($("moves").value, e.target));
$("copy-fen").addEventListener("click", (e) => copy($("fen").value, e.target));
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
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  const t = e.target;
  if (t.closest && t.closest("input, select, textarea")) return;
  const to = game && {
    ArrowLeft: game.ply - 1, ArrowRight: game.ply + 1, Home: 0, End: game.line.length,
  }[e.key];
  if (to !== undefined && to !== null) {
    e.preventDefault();
    step(to);
  } else if (/^[1-9]$/.test(e.key) && game && Number(e.key) <= game.width) {
    e.preventDefault();
    play(Number(e.key));
  } else if (e.key === "u") api("undo");
  else if (e.key === "r") api("redo");
  else if (e.key === "n") api("new", { engine: $("side").value });
  else if (e.key === "a") api("analyse");
  else if (e.key === "v") api("review");
});

start(false);
