// The Play page of dice-env's web app.  It draws what the server sends and sends the clicks of
// whoever is to move: every rule, score, legality mask and advisor value comes from the server
// (JSON of /api/games); nothing here knows a rule of the games, nor which game it shows.  The
// view says how to draw it (agents/play/web/layout.py): the heading and the line under the
// dice, which dice to mark, whether dice may be picked, the buttons and the move each sends,
// and which board to draw (a score card, or a table of the players).  Several people may share
// the screen (pass and play): each person's turn is announced by name, and the advisor and the
// auto-score timer serve whoever is to move.  When the server must first prepare a solved
// table it answers 202 with a job; the page shows the job's progress and asks again when the
// job is done.  While the advisor's view carries a note (its win probabilities are still being
// prepared, say), the page asks for the view again every few seconds, until the note goes.
// Once a game is on, the new-game form folds away ("Game setup" opens it again), so that on a
// phone the dice and the score card are on the first screen.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
// pip centres of each face on a 100 x 100 die
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};
// how often a job's progress is asked for, in ms
const POLL_MS = 400;
// how often the view is asked for again while the advisor's note is on screen, in ms
const NOTE_POLL_MS = 3000;

const app = {
  config: null,
  id: null,
  state: null,
  selected: new Set(), // dice positions the person to move picked (to keep)
  busy: false,
  skip: false,
  timer: null,
  showAll: false,
  lastBody: null, // the request of the game on the table (for "New game" in its summary)
  turnKey: null, // whose turn the page last announced
  waiting: null, // the job the page waits for: {stop: bool}
  drawn: 0, // how many views the page has drawn from a move or a new game (a poll's check)
  notePoll: null, // the timeout of the next poll of the view while the advisor has a note
};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

function setBusy(busy) {
  app.busy = busy;
  document.body.dataset.busy = busy ? "1" : "0";
  for (const b of document.querySelectorAll("#actions button, #board button")) {
    if (busy) b.disabled = true;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// -- talking to the server ---------------------------------------------------------------
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const response = await fetch(path, opts);
  // an answer that is not JSON (a proxy's error page) is read as no data
  const data = response.status === 204 ? {} : await response.json().catch(() => ({}));
  if (!response.ok) {
    const legal = data.legal && data.legal.length ? ` Legal: ${data.legal.join(", ")}.` : "";
    throw new Error((data.error || `HTTP ${response.status}`) + legal);
  }
  return data;
}

function showPreparing(job) {
  const box = $("preparing");
  box.hidden = !job;
  if (!job) return;
  showError("");
  const pct = Math.round(100 * (job.progress || 0));
  const what = job.what || "what this game needs";
  $("preparing-text").textContent = job.state === "queued"
    ? `Waiting to prepare ${what}…`
    : `Preparing ${what}: ${pct} %`;
  $("preparing-bar").value = job.progress || 0;
  box.dataset.state = job.state;
}

// Wait for a job the server started (202 {"preparing": job}): its progress on screen until it
// is done; an error if it failed or was cancelled, or if the person stopped waiting.
async function waitForJob(job) {
  const waiting = { stop: false };
  app.waiting = waiting;
  try {
    for (;;) {
      showPreparing(job);
      if (job.state === "done") return;
      if (job.state === "failed" || job.state === "cancelled") {
        throw new Error(`Could not prepare ${job.what}: ${job.error || job.state}`);
      }
      await sleep(POLL_MS);
      if (waiting.stop) throw new Error("Stopped waiting: start the game again when you like.");
      job = await api("GET", `/api/jobs/${encodeURIComponent(job.job)}`);
    }
  } finally {
    if (app.waiting === waiting) app.waiting = null;
    showPreparing(null);
  }
}

// A request that may first need a prepared table: wait for each job, then send it again.
async function prepared(method, path, body) {
  for (;;) {
    const data = await api(method, path, body);
    if (!data.preparing) return data;
    await waitForJob(data.preparing);
  }
}

// An error on the table's error line; before the first game (no table yet), or with
// ``atForm`` while the form is open, under the form.
function showError(message, atForm = false) {
  for (const id of ["error", "setup-error"]) {
    $(id).textContent = "";
    $(id).hidden = true;
  }
  if (!message) return;
  const e = $("table").hidden || (atForm && !$("setup").hidden) ? $("setup-error") : $("error");
  e.textContent = message;
  e.hidden = false;
}

function log(text, kind) {
  if (!text) return;
  const list = $("log");
  list.append(el("li", { class: kind || "", text }));
  while (list.children.length > 300) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

// -- who plays -------------------------------------------------------------------------------
// One person whom nobody named: the page speaks to them as "you".
function unnamed(s) {
  return s.people.length === 1 && s.names[s.people[0]] === "you";
}

// The banner over the table when several people share the screen: whose turn it is.  It keeps
// its place all game (a bot's turn greys it), so nothing jumps when it changes.
function drawBanner(s) {
  const b = $("turn-banner");
  b.hidden = s.people.length < 2;
  if (b.hidden) return;
  if (s.over) {
    b.textContent = "Game over";
    b.className = "banner waiting";
  } else if (s.your_turn) {
    b.textContent = `${s.turn_of}'s turn`;
    b.className = "banner";
  } else {
    b.textContent = `${s.names[s.current]} is playing…`;
    b.className = "banner waiting";
  }
}

// Log a person's new turn, by name, once.
function announceTurn(s) {
  if (!s.your_turn || s.people.length < 2) return;
  const key = s.turn_key;
  if (key === app.turnKey) return;
  app.turnKey = key;
  log(`${s.turn_of}'s turn`, "turn");
}

// -- dice ------------------------------------------------------------------------------------
function dieSvg(face, classes, label) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "die " + classes);
  svg.setAttribute("data-face", String(face));
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const body = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 16 })) {
    body.setAttribute(k, v);
  }
  body.setAttribute("class", "face");
  svg.append(body);
  for (const [cx, cy] of PIPS[face] || []) {
    const pip = document.createElementNS(SVG, "circle");
    pip.setAttribute("cx", cx);
    pip.setAttribute("cy", cy);
    pip.setAttribute("r", 9);
    pip.setAttribute("class", "pip");
    svg.append(pip);
  }
  return svg;
}

// Whether the person to move may pick dice now.
function canPick(s) {
  return !!(s && s.your_turn && s.controls && s.controls.pick);
}

function drawDice(state, highlight) {
  const box = $("dice");
  box.replaceChildren();
  const mine = state.your_turn && !app.busy;
  const marks = state.dice_marks || [];
  state.dice.forEach((face, i) => {
    const classes = [];
    let note = "";
    const held = highlight ? highlight.includes(i) : app.selected.has(i);
    if (held) {
      classes.push("held");
      note = "held";
    } else if (marks[i]) {
      classes.push(marks[i].class);
      note = marks[i].note;
    }
    if (mine && canPick(state)) classes.push("clickable");
    const svg = dieSvg(face, classes.join(" "), `die ${i + 1}: ${face}${note ? ", " + note : ""}`);
    const slot = el("div", { class: "slot", "data-pos": i });
    slot.append(svg, el("span", { class: "die-note", text: note }));
    if (classes.includes("clickable")) {
      svg.setAttribute("tabindex", "0");
      svg.addEventListener("click", () => toggleDie(i));
      svg.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggleDie(i);
        }
      });
    }
    box.append(slot);
  });
}

function toggleDie(i) {
  if (app.busy || !canPick(app.state) || i >= app.state.dice.length) return;
  if (app.selected.has(i)) app.selected.delete(i);
  else app.selected.add(i);
  render(app.state);
}

// -- the buttons -------------------------------------------------------------------------------
// A button as it stands now: its label, whether it can be pressed and its tooltip, by the
// number of dice picked where it sends them.
function buttonNow(b) {
  const base = { label: b.label, enabled: b.enabled, title: b.title };
  if (!b.picked || !b.by_picked) return base;
  return b.by_picked[Math.min(app.selected.size, b.by_picked.length - 1)] || base;
}

function press(b) {
  const move = { ...b.move };
  if (b.picked) move[b.picked] = [...app.selected].sort();
  sendMove(move);
}

function drawActions(s) {
  const box = $("actions");
  box.replaceChildren();
  if (!s.your_turn) return;
  for (const b of s.controls.buttons) {
    const now = buttonNow(b);
    box.append(el("button", {
      id: b.id, class: b.primary ? "primary" : null, text: now.label,
      disabled: app.busy || !now.enabled, title: now.title, onclick: () => press(b),
    }));
  }
}

// -- the boards ------------------------------------------------------------------------------
// A score card: a row per box, a column per player, and the points each open box would score
// now (a button for the person to move); the sum rows after the box they follow.
function cardBoard(s, frame) {
  const highlightBox = frame ? frame.box : null;
  const table = el("table", { class: "card", id: "card" });
  const head = el("tr", {}, el("th", { class: "num", text: "#" }), el("th", { text: "Box" }));
  s.names.forEach((name, i) => {
    const cls = [i === s.current && !s.over ? "mover" : "", s.people.includes(i) ? "person" : ""];
    head.append(el("th", { text: name, class: cls.join(" ").trim(), "data-seat": i }));
  });
  if (!s.over) {
    const roll = !s.your_turn ? "Roll" : unnamed(s) ? "Your roll" : `${s.turn_of}'s roll`;
    head.append(el("th", { text: roll, class: "now" }));
  }
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const mine = s.your_turn && !app.busy;
  const sumRow = (row) => {
    const tr = el("tr", { class: "sum", "data-row": row.key }, el("td", { class: "num" }),
      el("td", { class: "label", text: row.label }));
    s.totals.forEach((t, i) => tr.append(el("td", { text: String(t[row.key]), "data-seat": i })));
    if (!s.over) tr.append(el("td", { class: "now note", text: row.note || "" }));
    body.append(tr);
  };
  s.boxes.forEach((b, k) => {
    const tr = el("tr", { "data-box": k },
      el("td", { class: "num", text: String(k + 1) }), el("td", { class: "label", text: b.label }));
    s.cards.forEach((card, i) => {
      const v = card[k];
      const cls = highlightBox === k && i === s.current ? "just" : "";
      tr.append(el("td", { text: v === null ? "" : String(v), "data-seat": i, "data-box": k,
                           class: cls }));
    });
    if (!s.over) {
      const pts = s.points[k];
      const td = el("td", { class: "now", "data-box": k });
      if (pts !== null && s.legal_boxes[k]) {
        if (mine) {
          td.append(el("button", {
            type: "button", class: "score", text: `+${pts}`, "data-box": k,
            title: `score ${b.label}`, onclick: () => sendMove({ kind: "score", box: k }),
          }));
        } else {
          td.textContent = `+${pts}`;
          if (highlightBox === k) td.classList.add("just");
        }
      } else if (pts !== null) {
        td.textContent = "–";
        td.title = s.box_refusal || "";
      }
      tr.append(td);
    }
    body.append(tr);
    for (const row of s.sum_rows) if (row.after === k) sumRow(row);
  });
  for (const row of s.sum_rows) if (row.after === null) sumRow(row);
  table.append(body);
  $("board").replaceChildren(table);
}

// A table of the players: a row per seat, its cells as the server wrote them.
function playersBoard(s) {
  const spec = s.board;
  const table = el("table", { class: "card", id: spec.id });
  table.append(el("thead", {}, el("tr", {},
    ...spec.columns.map((c) => el("th", { text: c.label })))));
  const body = el("tbody");
  for (const row of spec.rows) {
    body.append(el("tr", { class: row.class, "data-seat": row.seat },
      ...row.cells.map((text, j) => el("td", { class: spec.columns[j].class, text }))));
  }
  table.append(body);
  $("board").replaceChildren(table);
}

const BOARDS = { card: cardBoard, table: playersBoard };

// -- the advisor -----------------------------------------------------------------------------
function fmt(x, digits) { return Number(x).toFixed(digits); }

// The advisor's note above its advice (null: none), kept fresh by asking for the view again
// every few seconds while it is shown.
function drawAdviceNote(s) {
  const note = $("advice-note");
  const text = s.advisor && !s.over ? s.advice_note || "" : "";
  note.textContent = text;
  note.hidden = !text;
  if (text) pollNote();
  else stopNotePoll();
}

function stopNotePoll() {
  if (app.notePoll) clearTimeout(app.notePoll);
  app.notePoll = null;
}

// Ask for the view of the game on the table in a few seconds; draw its advice if nothing was
// drawn since the question (a move's answer is newer), and ask again while the note stays.
function pollNote() {
  if (app.notePoll) return;
  app.notePoll = setTimeout(async () => {
    app.notePoll = null;
    const id = app.id;
    const drawn = app.drawn;
    if (!id) return;
    if (app.busy) {
      pollNote();
      return;
    }
    let data;
    try {
      data = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    } catch (err) {
      return; // the game expired, or the server went: the next move says so
    }
    if (id !== app.id || drawn !== app.drawn || app.busy) {
      if (app.state && app.state.advice_note) pollNote();
      return;
    }
    app.state = data.state;
    drawAdvice(data.state);
  }, NOTE_POLL_MS);
}

function drawAdvice(s) {
  const panel = $("advice-panel");
  const verdict = $("verdict");
  panel.hidden = !s.advisor;
  drawAdviceNote(s);
  $("advisor").checked = !!s.advisor;
  $("advice-title").textContent = s.your_turn && !unnamed(s) && s.people.length > 1
    ? `Advisor for ${s.turn_of}` : "Advisor";
  verdict.hidden = !(s.advisor && s.verdict);
  verdict.textContent = s.verdict ? s.verdict.line : "";
  const table = $("advice");
  table.replaceChildren();
  const more = $("advice-more");
  more.hidden = true;
  const a = s.advice;
  if (!a) {
    const wait = s.people.length > 1 ? "Waiting for a person's turn." : "Waiting for your turn.";
    $("advice-head").textContent = s.advisor && !s.over && !s.your_turn ? wait : "";
    return;
  }
  let head;
  let cols;
  const whose = unnamed(s) ? "Your" : `${s.turn_of}'s`;
  if (a.kind === "score") {
    head = a.with_win ? "Expected final score and chance of winning of each option, best score first:"
      : "Expected final score of each option, best first:";
    cols = a.with_win ? ["Expected", "P(win)", "Option"] : ["Expected", "Option"];
  } else if (a.kind === "win") {
    head = `${whose} win probability after each option:`;
    cols = ["P(win)", "Option"];
  } else {
    head = "Expected turns still to play, fewest first:";
    cols = ["Turns", "Option"];
  }
  if (s.advisor_note) head += " " + s.advisor_note;
  $("advice-head").textContent = head;
  table.append(el("thead", {}, el("tr", {}, ...cols.map((c) => el("th", { text: c })))));
  const body = el("tbody");
  const options = a.kind === "score" && !app.showAll ? a.options.filter((o) => o.shown) : a.options;
  for (const o of options) {
    const value = a.kind === "win" ? `${fmt(100 * o.value, 2)}%` : fmt(o.value, 2);
    const tr = el("tr", { "data-action": o.action }, el("td", { class: "value", text: value }));
    if (a.kind === "score" && a.with_win) {
      tr.append(el("td", { class: "win", text: o.win === null ? "?" : `${fmt(100 * o.win, 1)}%` }));
    }
    tr.append(el("td", { class: "option", text: o.text }));
    if (o.positions && o.positions.length) {
      tr.addEventListener("mouseenter", () => drawDice(s, o.positions));
      tr.addEventListener("mouseleave", () => drawDice(s));
    }
    body.append(tr);
  }
  table.append(body);
  const hidden = a.options.length - a.options.filter((o) => o.shown).length;
  if (a.kind === "score" && hidden > 0) {
    more.hidden = false;
    more.textContent = app.showAll ? "Show the best options only" : `Show all ${a.options.length} options`;
  }
}

// -- the auto-score timer ----------------------------------------------------------------------
// Stop the countdown.  With a note (a press stopped it) the note takes its place at the same
// height, so that what lies below -- the score button under the finger -- does not move before
// the finger lifts; without one the line goes (after a move, when nothing is being pressed).
function stopTimer(note) {
  const t = $("timer");
  if (app.timer) clearInterval(app.timer.tick);
  app.timer = null;
  if (note) {
    t.style.minHeight = `${t.offsetHeight}px`;
    t.textContent = note;
    t.hidden = false;
    t.dataset.state = "stopped";
  } else {
    t.style.minHeight = "";
    t.textContent = "";
    t.hidden = true;
    t.dataset.state = "off";
  }
}

function startTimer(auto, s) {
  stopTimer();
  const t = $("timer");
  const end = performance.now() + auto.seconds * 1000;
  const who = unnamed(s) ? "you" : s.turn_of;
  t.hidden = false;
  t.dataset.state = "running";
  const show = () => {
    const left = Math.max(0, (end - performance.now()) / 1000);
    t.textContent = `The computer scores ${auto.label} for ${who} in ${left.toFixed(1)} s: ` +
      "click or press a key to choose.";
    if (left <= 0) {
      clearInterval(app.timer.tick);
      app.timer = null;
      t.dataset.state = "fired";
      sendMove({ kind: "auto" });
    }
  };
  app.timer = { tick: setInterval(show, 100) };
  show();
}

for (const kind of ["pointerdown", "keydown"]) {
  document.addEventListener(kind, () => {
    if (app.timer) stopTimer("Auto-score stopped: your choice.");
  }, true);
}

// -- drawing the whole state -------------------------------------------------------------------
function standingsTable(sm) {
  const body = el("tbody");
  for (const st of sm.standings) {
    const place = st.shared ? `${st.place} (shared)` : String(st.place);
    body.append(el("tr", { class: st.place === 1 ? "first-place" : null, "data-seat": st.seat },
      el("td", { text: place }), el("td", { text: st.name + (st.person ? "" : " (bot)") }),
      el("td", { class: "total", text: String(st.total) })));
  }
  return el("table", { class: "standings" },
    el("thead", {}, el("tr", {}, el("th", { text: "Place" }), el("th", { text: "Player" }),
                        el("th", { text: "Total" }))), body);
}

function drawSummary(s) {
  const sum = $("summary");
  sum.hidden = !s.summary;
  if (!s.summary) return;
  const parts = [el("h3", { text: "Game over" })];
  if (s.summary.standings && s.summary.standings.length > 1) parts.push(standingsTable(s.summary));
  parts.push(...s.summary.lines.map((line) => el("p", { text: line })));
  parts.push(el("div", { class: "buttons" },
    el("button", { type: "button", id: "again", class: "primary", text: "New game",
                   title: "the same game, players and advisor, new dice",
                   onclick: () => startGame(null, { again: true }) }),
    el("button", { type: "button", id: "change", text: "Change the players",
                   onclick: openSetup })));
  sum.replaceChildren(...parts);
}

function render(s, frame) {
  app.state = s;
  drawBanner(s);
  $("status").textContent = s.status;
  $("status").dataset.current = String(s.current);
  for (const [k, v] of Object.entries(s.status_data || {})) $("status").dataset[k] = String(v);
  drawDice(s, frame ? frame.held : undefined);
  $("dice").hidden = s.over;
  $("turn-area").dataset.over = s.over ? "1" : "0";
  $("turn-info").textContent = s.info || "";
  drawActions(s);
  BOARDS[s.board.kind](s, frame);
  const w = $("warning");
  w.textContent = s.warning || "";
  w.hidden = !s.warning || !s.your_turn;
  drawAdvice(frame ? { ...s, advice: null } : s);
  drawSummary(s);
}

async function playFrames(frames) {
  if (!frames || !frames.length) return;
  const several = app.state && app.state.people.length > 1;
  $("skip").textContent = several ? "Skip the bots' moves" : "Skip to my turn";
  $("skip").dataset.off = "0";
  for (const f of frames) {
    if (!app.skip) render(f.view, f);
    log(f.text, "bot");
    for (const e of f.events || []) log(e, "event");
    const ms = Number($("speed").value);
    if (!app.skip && ms > 0) await sleep(ms);
  }
  $("skip").dataset.off = "1";
  app.skip = false;
}

async function receive(data) {
  for (const m of data.messages || []) log(m, "you");
  if (data.verdict) log("Advisor: " + data.verdict.line, "advice");
  await playFrames(data.frames);
  app.selected = new Set(data.state.held || []);
  setBusy(false);
  app.drawn += 1;
  render(data.state);
  announceTurn(data.state);
  if (data.state.your_turn && data.state.auto) startTimer(data.state.auto, data.state);
  else stopTimer();
}

async function sendMove(move) {
  if (app.busy || !app.id) return;
  stopTimer();
  showError("");
  setBusy(true);
  try {
    const data = await api("POST", `/api/games/${app.id}/move`, move);
    await receive(data);
  } catch (err) {
    showError(err.message);
    setBusy(false);
    render(app.state);
  }
}

// -- the setup form ----------------------------------------------------------------------------
function maxSeats() {
  return app.config.max_seats || app.config.max_opponents + 1;
}

function seatCount() {
  return $("people-list").children.length + $("bot-list").children.length;
}

// The add buttons and the line under the form follow the seats taken.
function refreshSeats() {
  const full = seatCount() >= maxSeats();
  $("add-bot").disabled = full || $("bot-list").children.length >= app.config.max_opponents;
  $("add-person").disabled = full;
  const people = $("people-list").children.length;
  const bots = $("bot-list").children.length;
  for (const b of document.querySelectorAll("#people-list button.remove")) b.disabled = people < 2;
  $("seats").textContent = `${people} ${people === 1 ? "person" : "people"} and ${bots} ` +
    `${bots === 1 ? "bot" : "bots"}: ${people + bots} of at most ${maxSeats()} seats. ` +
    (people > 1 ? "You take turns at this screen; each turn is announced by name." :
      "Add a person to play against each other at this screen.");
}

function botChoices() {
  const game = $("game").value;
  return app.config.bots[game] || [];
}

function addBot(name) {
  const list = $("bot-list");
  if (list.children.length >= app.config.max_opponents || seatCount() >= maxSeats()) return;
  const select = el("select", { class: "bot", "aria-label": `bot ${list.children.length + 1}` });
  for (const b of botChoices()) select.append(el("option", { value: b, text: b }));
  if (name && botChoices().includes(name)) select.value = name;
  const row = el("div", { class: "row bot-row" }, select,
    el("button", { type: "button", class: "remove", text: "×", title: "remove this bot",
                   onclick: () => { row.remove(); refreshSeats(); } }));
  list.append(row);
  refreshSeats();
}

function addPerson(name) {
  const list = $("people-list");
  if (seatCount() >= maxSeats()) return null;
  const n = list.children.length + 1;
  const input = el("input", { class: "person", type: "text", maxlength: 24,
                              placeholder: n === 1 ? "you" : `Player ${n}`,
                              "aria-label": `person ${n}'s name` });
  if (name) input.value = name;
  const row = el("div", { class: "row person-row" }, input,
    el("button", { type: "button", class: "remove", text: "×", title: "remove this person",
                   onclick: () => { row.remove(); refreshSeats(); } }));
  list.append(row);
  refreshSeats();
  return input;
}

function refreshBots() {
  const names = [...document.querySelectorAll("#bot-list select")].map((s) => s.value);
  $("bot-list").replaceChildren();
  for (const n of names) addBot(n);
}

// The people's names as the server gets them: none for one person who gave no name ("you");
// an empty name of several people is "Player N".
function peopleNames() {
  const inputs = [...document.querySelectorAll("#people-list input")];
  const names = inputs.map((x, i) => x.value.trim() || (inputs.length > 1 ? `Player ${i + 1}` : ""));
  return names.length === 1 && names[0] === "" ? null : names;
}

// Open or fold the new-game form (folded while a game is on: "Game setup" opens it).
function showSetup(open) {
  $("setup").hidden = !open;
  $("setup-open").hidden = app.id === null;
  $("setup-open").setAttribute("aria-expanded", open ? "true" : "false");
}

function openSetup() {
  showSetup(true);
  $("setup").scrollIntoView({ block: "start" });
  $("game").focus();
}

// Start a game: from the form, or ({again: true}) the game just played again with new dice.
async function startGame(event, opts = {}) {
  if (event) event.preventDefault();
  if (app.busy) return;
  stopTimer();
  showError("");
  let body;
  if (opts.again && app.lastBody) {
    body = { ...app.lastBody, advisor: $("advisor").checked };
    delete body.seed;
  } else {
    body = {
      game: $("game").value,
      opponents: [...document.querySelectorAll("#bot-list select")].map((s) => s.value),
      advisor: $("advisor").checked,
    };
    const people = peopleNames();
    if (people) body.people = people;
    const seed = $("seed").value.trim();
    if (seed !== "") body.seed = Number(seed);
  }
  setBusy(true);
  try {
    const data = await prepared("POST", "/api/games", body);
    if (app.id) api("DELETE", `/api/games/${app.id}`).catch(() => {});
    app.id = data.id;
    app.lastBody = body;
    app.showAll = false;
    app.turnKey = null;
    app.selected = new Set();
    stopNotePoll();
    $("table").hidden = false;
    $("log").replaceChildren();
    document.body.dataset.game = data.id;
    showSetup(false);
    await receive(data);
    // the game from its heading on: on a phone, the first screen holds the dice and the card
    if (opts.again || window.matchMedia("(max-width: 900px)").matches) {
      $("table").scrollIntoView({ block: "start" });
    }
  } catch (err) {
    $("table").hidden = app.id === null;
    showError(err.message, !opts.again);
    setBusy(false);
  }
}

async function setAdvisor() {
  if (!app.id) return; // before a game: the choice for the next one
  if (app.busy) {
    $("advisor").checked = !!app.state.advisor;
    return;
  }
  const on = $("advisor").checked;
  stopTimer();
  setBusy(true);
  try {
    const data = await prepared("POST", `/api/games/${app.id}/advisor`, { on });
    setBusy(false);
    app.drawn += 1;
    render(data.state);
    if (data.state.your_turn && data.state.auto) startTimer(data.state.auto, data.state);
  } catch (err) {
    showError(err.message);
    setBusy(false);
    render(app.state);
  }
}

// Keys: a die's number picks it (or lets it go) where dice may be picked; a button's key
// presses it when it can be pressed.
function onKey(event) {
  const s = app.state;
  if (!s || app.busy || !s.your_turn || event.target.closest("input, select, textarea")) return;
  if (canPick(s) && /^[1-9]$/.test(event.key) && Number(event.key) <= s.dice.length) {
    toggleDie(Number(event.key) - 1);
    return;
  }
  const b = s.controls.buttons.find((x) => x.key && x.key === event.key);
  if (b && buttonNow(b).enabled) press(b);
}

async function init() {
  app.config = await api("GET", "/api/config");
  for (const g of app.config.games) $("game").append(el("option", { value: g.id, text: g.title }));
  $("game").addEventListener("change", refreshBots);
  $("add-bot").addEventListener("click", () => addBot("heuristic"));
  $("add-person").addEventListener("click", () => { const x = addPerson(); if (x) x.focus(); });
  $("new-game").addEventListener("submit", startGame);
  $("advisor").addEventListener("change", setAdvisor);
  $("skip").addEventListener("click", () => { app.skip = true; });
  $("preparing-stop").addEventListener("click", () => { if (app.waiting) app.waiting.stop = true; });
  $("setup-open").addEventListener("click", () => {
    if ($("setup").hidden) openSetup();
    else showSetup(false);
  });
  document.body.dataset.auto = app.config.auto_seconds > 0 ? "1" : "0";
  $("advice-more").addEventListener("click", () => { app.showAll = !app.showAll; drawAdvice(app.state); });
  addPerson();
  const speed = $("speed");
  const saved = localStorage.getItem("dice-web-speed");
  if (saved !== null) speed.value = saved;
  const showSpeed = () => {
    $("speed-out").textContent = speed.value === "0" ? "instant" : `${speed.value} ms a step`;
    localStorage.setItem("dice-web-speed", speed.value);
  };
  speed.addEventListener("input", showSpeed);
  showSpeed();
  document.addEventListener("keydown", onKey);
  document.body.dataset.ready = "1";
}

init().catch((err) => showError(`Cannot reach the server: ${err.message}`));
