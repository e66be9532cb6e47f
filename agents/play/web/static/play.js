// The Play page of dice-env's web app.  It draws what the server sends and sends the user's
// clicks: every rule, score, legality mask and advisor value comes from the server (JSON of
// /api/games); nothing here knows a rule of the games.
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

const app = {
  config: null,
  id: null,
  state: null,
  selected: new Set(), // dice positions the user holds (scorecard games)
  busy: false,
  skip: false,
  timer: null,
  showAll: false,
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
  const data = response.status === 204 ? {} : await response.json();
  if (!response.ok) {
    const legal = data.legal && data.legal.length ? ` Legal: ${data.legal.join(", ")}.` : "";
    throw new Error((data.error || `HTTP ${response.status}`) + legal);
  }
  return data;
}

function showError(message) {
  const e = $("error");
  e.textContent = message || "";
  e.hidden = !message;
}

function log(text, kind) {
  if (!text) return;
  const list = $("log");
  list.append(el("li", { class: kind || "", text }));
  while (list.children.length > 300) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
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

function drawDice(state, highlight) {
  const box = $("dice");
  box.replaceChildren();
  const mine = state.your_turn && !app.busy;
  state.dice.forEach((face, i) => {
    const classes = [];
    let note = "";
    if (state.family === "scorecard") {
      const held = highlight ? highlight.includes(i) : app.selected.has(i);
      if (held) { classes.push("held"); note = "held"; }
      if (mine && state.can_hold) classes.push("clickable");
    } else if (state.scoring[i]) {
      classes.push("scoring");
      note = "scores";
    }
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
  if (app.busy || !app.state || !app.state.your_turn || !app.state.can_hold) return;
  if (app.selected.has(i)) app.selected.delete(i);
  else app.selected.add(i);
  render(app.state);
}

// -- the scorecard games -----------------------------------------------------------------
function scorecardStatus(s) {
  if (s.over) return `${s.title}: game over`;
  const who = s.your_turn ? "your turn" : `${s.names[s.current]}'s turn`;
  return `${s.title}: round ${s.round} of ${s.rounds}, ${who}, roll ${s.roll} of ${s.rolls}`;
}

function scorecardActions(s) {
  const box = $("actions");
  box.replaceChildren();
  if (!s.your_turn || !s.can_hold) return;
  const n = app.selected.size;
  const label = n === 0 ? "Reroll all" : n === 5 ? "Roll" : `Roll (keep ${n})`;
  box.append(el("button", {
    id: "roll", class: "primary", text: label, disabled: app.busy || n === 5,
    title: n === 5 ? "Holding all five is not a reroll: score them in a box" : null,
    onclick: () => sendMove({ kind: "hold", positions: [...app.selected].sort() }),
  }));
}

function scorecardBoard(s, highlightBox) {
  const table = el("table", { class: "card", id: "card" });
  const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "Box" }));
  s.names.forEach((name, i) => head.append(el("th", {
    text: name, class: i === s.current && !s.over ? "mover" : "", "data-seat": i })));
  if (!s.over) head.append(el("th", { text: s.your_turn ? "Your roll" : "Roll", class: "now" }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const mine = s.your_turn && !app.busy;
  const lastUpper = s.boxes.map((b) => b.upper).lastIndexOf(true);
  const sumRow = (label, key, note) => {
    const tr = el("tr", { class: "sum", "data-row": key }, el("td"),
      el("td", { class: "label", text: label }));
    s.totals.forEach((t, i) => tr.append(el("td", { text: String(t[key]), "data-seat": i })));
    if (!s.over) tr.append(el("td", { class: "now note", text: note || "" }));
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
            class: "score", text: `+${pts}`, "data-box": k, title: `score ${b.label}`,
            onclick: () => sendMove({ kind: "score", box: k }),
          }));
        } else {
          td.textContent = `+${pts}`;
          if (highlightBox === k) td.classList.add("just");
        }
      } else if (pts !== null) {
        td.textContent = "–";
        td.title = "not allowed here (the Joker rule)";
      }
      tr.append(td);
    }
    body.append(tr);
    if (k === lastUpper) {
      sumRow("Upper total", "upper");
      sumRow("Upper bonus", "upper_bonus", `at ${s.upper_bonus_threshold}`);
    }
  });
  if (s.five_kind_label) sumRow(s.five_kind_label, "penta_bonus");
  sumRow("TOTAL", "total");
  table.append(body);
  $("board").replaceChildren(table);
}

// -- 5000 --------------------------------------------------------------------------------------
function fiveStatus(s) {
  if (s.over) return `${s.title}: game over`;
  const who = s.your_turn ? "your turn" : `${s.names[s.current]}'s turn`;
  return `${s.title} (target ${s.target}, entry ${s.entry}): ${who}`;
}

function fiveActions(s) {
  const box = $("actions");
  box.replaceChildren();
  if (!s.your_turn) return;
  box.append(
    el("button", { id: "roll-on", class: "primary", text: "Roll on",
                   disabled: app.busy || !s.legal.roll, onclick: () => sendMove({ kind: "roll" }) }),
    el("button", { id: "bank", text: "Bank", disabled: app.busy || !s.legal.bank,
                   title: s.bank_refusal, onclick: () => sendMove({ kind: "bank" }) }));
}

function fiveInfo(s) {
  if (s.over) return "";
  let text = `Roll: ${s.roll_points} points. Turn total ${s.turn_total} (set aside before ` +
    `this roll: ${s.turn_total_before}); ${s.dice_left} ${s.dice_left === 1 ? "die" : "dice"} ` +
    "to roll on. ";
  if (s.bank_refusal) text += `Bank: not allowed (${s.bank_refusal}).`;
  else if (s.overshoot) text += `Bank: allowed (overshoots by ${s.overshoot}: the points ` +
    "would be gifted).";
  else text += "Bank: allowed.";
  return text;
}

function fiveBoard(s) {
  const table = el("table", { class: "card", id: "scores" });
  table.append(el("thead", {}, el("tr", {}, el("th", { text: "Player" }),
    el("th", { text: "Score" }), el("th", { text: "Turns" }))));
  const body = el("tbody");
  s.names.forEach((name, i) => {
    const cls = (i === s.current && !s.over ? "mover" : "") + (s.winner === name ? " winner" : "");
    const note = s.scores[i] > 0 ? "" : " (not entered)";
    body.append(el("tr", { class: cls, "data-seat": i },
      el("td", { text: name + note }),
      el("td", { class: "score", text: String(s.scores[i]) }),
      el("td", { class: "turns", text: String(s.turns[i]) })));
  });
  table.append(body);
  $("board").replaceChildren(table);
}

// -- the advisor -----------------------------------------------------------------------------
function fmt(x, digits) { return Number(x).toFixed(digits); }

function drawAdvice(s) {
  const panel = $("advice-panel");
  const verdict = $("verdict");
  panel.hidden = !s.advisor;
  $("advisor").checked = !!s.advisor;
  verdict.hidden = !(s.advisor && s.verdict);
  verdict.textContent = s.verdict ? s.verdict.line : "";
  const table = $("advice");
  table.replaceChildren();
  const more = $("advice-more");
  more.hidden = true;
  const a = s.advice;
  if (!a) {
    $("advice-head").textContent = s.advisor && !s.over && !s.your_turn ? "Waiting for your turn." : "";
    return;
  }
  let head;
  let cols;
  if (a.kind === "score") {
    head = a.with_win ? "Expected final score and chance of winning of each option, best score first:"
      : "Expected final score of each option, best first:";
    cols = a.with_win ? ["Expected", "P(win)", "Option"] : ["Expected", "Option"];
  } else if (a.kind === "win") {
    head = "Your win probability after each option:";
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
function stopTimer(note) {
  if (!app.timer) return;
  clearInterval(app.timer.tick);
  app.timer = null;
  const t = $("timer");
  t.textContent = note || "";
  t.hidden = !note;
  t.dataset.state = "stopped";
}

function startTimer(auto) {
  stopTimer();
  const t = $("timer");
  const end = performance.now() + auto.seconds * 1000;
  t.hidden = false;
  t.dataset.state = "running";
  const show = () => {
    const left = Math.max(0, (end - performance.now()) / 1000);
    t.textContent = `The computer scores ${auto.label} in ${left.toFixed(1)} s: click or press ` +
      "a key to choose yourself.";
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
  document.addEventListener(kind, () => stopTimer("Auto-score stopped: your choice."), true);
}

// -- drawing the whole state -------------------------------------------------------------------
function render(s, frame) {
  app.state = s;
  const scorecard = s.family === "scorecard";
  $("status").textContent = scorecard ? scorecardStatus(s) : fiveStatus(s);
  $("status").dataset.current = String(s.current);
  if (scorecard) $("status").dataset.rollsLeft = String(s.rolls_left);
  drawDice(s, frame ? frame.held : undefined);
  $("dice").hidden = s.over;
  $("turn-info").textContent = scorecard ? (s.over ? "" : `Rerolls left: ${s.rolls_left}`) : fiveInfo(s);
  if (scorecard) {
    scorecardActions(s);
    scorecardBoard(s, frame ? frame.box : null);
  } else {
    fiveActions(s);
    fiveBoard(s);
  }
  const w = $("warning");
  w.textContent = s.warning || "";
  w.hidden = !s.warning || !s.your_turn;
  drawAdvice(frame ? { ...s, advice: null } : s);
  const sum = $("summary");
  sum.hidden = !s.summary;
  if (s.summary) {
    sum.replaceChildren(el("h3", { text: "Game over" }),
      ...s.summary.lines.map((line) => el("p", { text: line })),
      el("button", { class: "primary", text: "New game", onclick: () => window.scrollTo(0, 0) }));
  }
}

async function playFrames(frames) {
  if (!frames || !frames.length) return;
  $("skip").hidden = false;
  for (const f of frames) {
    if (!app.skip) render(f.view, f);
    log(f.text, "bot");
    for (const e of f.events || []) log(e, "event");
    const ms = Number($("speed").value);
    if (!app.skip && ms > 0) await sleep(ms);
  }
  $("skip").hidden = true;
  app.skip = false;
}

async function receive(data) {
  for (const m of data.messages || []) log(m, "you");
  if (data.verdict) log("Advisor: " + data.verdict.line, "advice");
  await playFrames(data.frames);
  app.selected = new Set(data.state.held || []);
  setBusy(false);
  render(data.state);
  if (data.state.your_turn && data.state.auto) startTimer(data.state.auto);
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
function botChoices() {
  const game = $("game").value;
  return app.config.bots[game] || [];
}

function addBot(name) {
  const list = $("bot-list");
  if (list.children.length >= app.config.max_opponents) return;
  const select = el("select", { class: "bot" });
  for (const b of botChoices()) select.append(el("option", { value: b, text: b }));
  if (name && botChoices().includes(name)) select.value = name;
  const row = el("div", { class: "bot-row" }, select,
    el("button", { type: "button", class: "remove", text: "×", title: "remove this bot",
                   onclick: () => { row.remove(); $("add-bot").disabled = false; } }));
  list.append(row);
  $("add-bot").disabled = list.children.length >= app.config.max_opponents;
}

function refreshBots() {
  const names = [...document.querySelectorAll("#bot-list select")].map((s) => s.value);
  $("bot-list").replaceChildren();
  for (const n of names) addBot(n);
}

async function startGame(event) {
  event.preventDefault();
  if (app.busy) return;
  stopTimer();
  showError("");
  const body = {
    game: $("game").value,
    opponents: [...document.querySelectorAll("#bot-list select")].map((s) => s.value),
    advisor: $("advisor").checked,
  };
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  setBusy(true);
  try {
    const data = await api("POST", "/api/games", body);
    if (app.id) api("DELETE", `/api/games/${app.id}`).catch(() => {});
    app.id = data.id;
    app.showAll = false;
    $("table").hidden = false;
    $("log").replaceChildren();
    document.body.dataset.game = data.id;
    await receive(data);
  } catch (err) {
    showError(err.message);
    $("table").hidden = app.id === null;
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
  setBusy(true);
  try {
    const data = await api("POST", `/api/games/${app.id}/advisor`, { on });
    setBusy(false);
    render(data.state);
  } catch (err) {
    showError(err.message);
    setBusy(false);
  }
}

function onKey(event) {
  const s = app.state;
  if (!s || app.busy || !s.your_turn || event.target.closest("input, select, textarea")) return;
  if (s.family === "scorecard" && /^[1-5]$/.test(event.key) && s.can_hold) {
    toggleDie(Number(event.key) - 1);
  } else if (event.key === "r") {
    if (s.family === "scorecard" && s.can_hold && app.selected.size < 5) {
      sendMove({ kind: "hold", positions: [...app.selected].sort() });
    } else if (s.family !== "scorecard" && s.legal.roll) sendMove({ kind: "roll" });
  } else if (event.key === "b" && s.family !== "scorecard" && s.legal.bank) {
    sendMove({ kind: "bank" });
  }
}

async function init() {
  app.config = await api("GET", "/api/config");
  $("max-bots").textContent = String(app.config.max_opponents);
  for (const g of app.config.games) $("game").append(el("option", { value: g.id, text: g.title }));
  $("game").addEventListener("change", refreshBots);
  $("add-bot").addEventListener("click", () => addBot("heuristic"));
  $("new-game").addEventListener("submit", startGame);
  $("advisor").addEventListener("change", setAdvisor);
  $("skip").addEventListener("click", () => { app.skip = true; });
  $("advice-more").addEventListener("click", () => { app.showAll = !app.showAll; drawAdvice(app.state); });
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
