/* inspect.js -- the inspect view of dice-env, in plain JavaScript (no build step, no library).
 *
 * It draws what agents.evaluation.inspect.games computes (the payload format is described
 * there): the replay of a game decision by decision with every legal option and its exact
 * value, the charts, the habits tables, two agents side by side.  It computes no value of
 * its own.  The data comes inline (a JSON script element with the id replay-data, in the
 * replay file of scripts/replay.py) or from the server's /api/inspect routes.  It never asks
 * which game it shows: the payload says how to draw a decision's position ("position": a
 * score card, or the decision's facts), which dice a choice keeps ("kept") and how many games
 * a seed plays ("games_per_seed").
 *
 * Keys: Left / Right step, Home / End, n / p the next / previous costly decision.
 *
 * A server that must first prepare something (a solved table, a long inspection) answers 202
 * with a job: the status line shows the job's progress, and the request is sent again when
 * the job is done.
 */
(function () {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = ["#2563eb", "#c2410c"];
  var REF_COLOR = "#6b7280";
  var SHOWN_OPTIONS = 10;
  var SHOWN_CELLS = 10;
  var POLL_MS = 700;  // how often a job's progress is asked for
  var PIPS = {1: [[50, 50]], 2: [[27, 27], [73, 73]], 3: [[27, 27], [50, 50], [73, 73]],
    4: [[27, 27], [73, 27], [27, 73], [73, 73]],
    5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
    6: [[27, 25], [73, 25], [27, 50], [73, 50], [27, 75], [73, 75]]};

  var S = {data: null, origin: null, view: 0, cursor: 0, keys: [], server: false,
    allOptions: false, picked: {}, allCells: {}, loading: 0};

  // -- small DOM helpers ---------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function svg(tag, attrs, children) {
    var node = document.createElementNS(SVGNS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "style") node.style.cssText = v;  // CSSOM: allowed by a strict policy
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    });
  }

  function append(node, children) {
    (Array.isArray(children) ? children : [children]).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      if (Array.isArray(c)) { append(node, c); return; }
      node.appendChild(typeof c === "string" || typeof c === "number"
        ? document.createTextNode(String(c)) : c);
    });
  }

  function status(text, isError) {
    var s = document.getElementById("ins-status");
    if (!s) return;
    s.textContent = text || "";
    s.className = "ins-status" + (isError ? " ins-error" : "");
  }

  // -- numbers -------------------------------------------------------------------------------
  function isWin() { return S.data && S.data.unit === "win probability"; }

  function fmtValue(v) {
    if (v === null || v === undefined) return "—";
    return isWin() ? (100 * v).toFixed(2) + " %" : v.toFixed(2);
  }

  function fmtLoss(v) {
    if (v === null || v === undefined) return "—";
    return isWin() ? (100 * v).toFixed(2) + " pp" : v.toFixed(2) + " pts";
  }

  function lossClass(r) {
    if (r >= S.data.costly) return "costly";
    return r > 0 ? "loss" : "ok";
  }

  // -- data ----------------------------------------------------------------------------------
  function currentView() { return S.data.games[S.view]; }

  function keyOf(d) { return d.turn * 1000 + d.step; }

  function buildKeys() {
    var seen = {};
    if (!S.data.games.length) { S.keys = []; return; }
    currentView().players.forEach(function (p) {
      p.decisions.forEach(function (d) { seen[keyOf(d)] = true; });
    });
    S.keys = Object.keys(seen).map(Number).sort(function (a, b) { return a - b; });
  }

  function decisionAt(player, key) {
    var ds = player.decisions;
    for (var i = 0; i < ds.length; i++) if (keyOf(ds[i]) === key) return ds[i];
    return null;
  }

  function keyRegret(key) {
    var worst = 0;
    currentView().players.forEach(function (p) {
      var d = decisionAt(p, key);
      if (d && d.regret > worst) worst = d.regret;
    });
    return worst;
  }

  function setData(data, view, cursor) {
    S.data = data;
    S.view = Math.min(view || 0, data.games.length - 1);
    buildKeys();
    S.cursor = Math.max(0, Math.min(cursor || 0, S.keys.length - 1));
    render();
  }

  // Show decision ``i`` of the replay: a note of the last move (``no costly decision after
  // this one``) goes, a load's progress stays.
  function goTo(i) {
    S.cursor = Math.max(0, Math.min(S.keys.length - 1, i));
    if (!S.loading) status("");
    render();
  }

  function goToDecision(player, index) {
    var p = currentView().players[player];
    if (!p) return;
    var d = p.decisions[index];
    if (!d) return;
    goTo(S.keys.indexOf(keyOf(d)));
  }

  function step(delta) { goTo(S.cursor + delta); }

  function nextCostly(direction) {
    for (var i = S.cursor + direction; i >= 0 && i < S.keys.length; i += direction) {
      if (keyRegret(S.keys[i]) >= S.data.costly) { goTo(i); return; }
    }
    if (!S.loading) status("no costly decision " + (direction > 0 ? "after" : "before") + " this one");
  }

  // -- rendering -----------------------------------------------------------------------------
  function render() {
    var root = document.getElementById("ins-root");
    if (!root || !S.data) return;
    var title = document.getElementById("ins-title");
    if (title) title.textContent = S.data.title + " · " + S.data.agents.join(" vs ");
    root.textContent = "";
    if (!S.data.games.length) {
      append(root, habitsSections());
      return;
    }
    append(root, [summary(), charts(), replay(), habitsSections()]);
  }

  function summary() {
    var view = currentView();
    var box = el("section", {"class": "ins-summary", "aria-label": "summary"});
    append(box, el("h2", {text: view.label}));
    if (S.data.games.length > 1) {
      var tabs = el("div", {"class": "ins-tabs", role: "tablist"});
      S.data.games.forEach(function (g, i) {
        append(tabs, el("button", {type: "button", role: "tab", "aria-selected": String(i === S.view),
          "class": i === S.view ? "active" : "", text: "game " + (i + 1),
          onclick: function () { setData(S.data, i, 0); }}));
      });
      append(box, tabs);
    }
    if (S.data !== S.origin && S.origin) {
      append(box, el("button", {type: "button", "class": "ins-back",
        text: S.origin.games.length ? "back to seed " + S.origin.seed : "back to the habits",
        onclick: function () { setData(S.origin, 0, 0); }}));
    }
    var cards = el("div", {"class": "ins-cards"});
    view.players.forEach(function (p, i) {
      var lines = [el("h3", {text: p.agent, style: "color:" + COLORS[i]})];
      if (p.score !== undefined) {
        lines.push(el("p", {text: "final score " + p.score + " · optimum expects " +
          p.optimal_value.toFixed(2) + " from the start"}));
        if (p.luck !== null && p.luck !== undefined) {
          lines.push(el("p", {text: "luck of the dice " + (p.luck >= 0 ? "+" : "") +
            p.luck.toFixed(2) + " points"}));
        }
      } else {
        lines.push(el("p", {text: (p.won ? "won" : "lost") + " against the optimal player · " +
          (p.opens ? "opened" : "played second") + " · optimal play wins " +
          fmtValue(p.optimal_value)}));
      }
      lines.push(el("p", {"class": "ins-regret " + lossClass(p.regret),
        text: "regret " + fmtLoss(p.regret) + " over " + p.decisions.length + " decisions" +
          (isWin() ? " (pp: percentage points of win probability)" : "")}));
      append(cards, el("div", {"class": "ins-card"}, lines));
    });
    append(box, cards);
    return box;
  }

  // -- charts --------------------------------------------------------------------------------
  function niceTicks(lo, hi, n) {
    if (hi <= lo) { hi = lo + 1; }
    var raw = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var stepSize = [1, 2, 5, 10].map(function (m) { return m * mag; })
      .filter(function (s) { return s >= raw; })[0];
    var ticks = [];
    for (var t = Math.ceil(lo / stepSize) * stepSize; t <= hi + 1e-9; t += stepSize) {
      ticks.push(Math.abs(t) < 1e-12 ? 0 : t);
    }
    return ticks;
  }

  function chart(spec) {
    var W = 520, H = 230, L = 56, R = 12, T = 10, B = 34;
    var xs = [], ys = [];
    spec.series.forEach(function (s) {
      s.points.forEach(function (pt) {
        if (pt[1] !== null) { xs.push(pt[0]); ys.push(pt[1]); }
      });
    });
    if (!xs.length) return null;
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) x1 = x0 + 1;
    if (y1 - y0 < 1e-9) { y1 = y0 + (isWin() ? 0.01 : 1); }
    var pad = (y1 - y0) * 0.05;
    y0 -= pad; y1 += pad;
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return T + (1 - (v - y0) / (y1 - y0)) * (H - T - B); }
    var root = svg("svg", {viewBox: "0 0 " + W + " " + H, "class": "ins-chart-svg",
      role: "img", "aria-label": spec.title});
    var yTicks = niceTicks(y0, y1, 5);
    var pct = spec.y_label.indexOf("win probability") === 0;
    yTicks.forEach(function (t) {
      append(root, svg("line", {x1: L, x2: W - R, y1: Y(t), y2: Y(t), "class": "ins-grid"}));
      append(root, svg("text", {x: L - 6, y: Y(t) + 4, "text-anchor": "end", "class": "ins-tick",
        text: pct ? (100 * t).toFixed(Math.abs(y1 - y0) < 0.05 ? 1 : 0) + "%" : String(+t.toFixed(3))}));
    });
    niceTicks(x0, x1, 8).forEach(function (t) {
      append(root, svg("text", {x: X(t), y: H - B + 16, "text-anchor": "middle",
        "class": "ins-tick", text: String(t)}));
    });
    append(root, svg("text", {x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle",
      "class": "ins-axis-label", text: spec.x_label}));
    append(root, svg("line", {x1: L, x2: L, y1: T, y2: H - B, "class": "ins-axis"}));
    append(root, svg("line", {x1: L, x2: W - R, y1: H - B, y2: H - B, "class": "ins-axis"}));
    // the current decision of the first player
    var d = decisionAt(currentView().players[0], S.keys[S.cursor]);
    if (d) {
      var cx = spec.x_label === "turn" ? d.turn : d.index + 1;
      append(root, svg("line", {x1: X(cx), x2: X(cx), y1: T, y2: H - B, "class": "ins-now"}));
    }
    spec.series.forEach(function (s) {
      var color = s.player >= 0 ? COLORS[s.player] : REF_COLOR;
      var pts = s.points.filter(function (pt) { return pt[1] !== null; });
      append(root, svg("polyline", {fill: "none", stroke: color, "stroke-width": 2,
        "stroke-dasharray": s.style === "dashed" ? "6 4" : (s.style === "dotted" ? "2 3" : null),
        points: pts.map(function (pt) { return X(pt[0]).toFixed(1) + "," + Y(pt[1]).toFixed(1); })
          .join(" ")}));
      if (s.player < 0) return;
      pts.forEach(function (pt) {
        var dot = svg("circle", {cx: X(pt[0]), cy: Y(pt[1]), r: 3.5, fill: color,
          "class": "ins-dot", onclick: function () { goToDecision(s.player, pt[2]); }});
        append(dot, svg("title", {text: s.name + ": " + spec.x_label + " " + pt[0] + ", " +
          (pct ? fmtValue(pt[1]) : (+pt[1]).toFixed(3))}));
        append(root, dot);
      });
    });
    var legend = el("ul", {"class": "ins-legend"});
    spec.series.forEach(function (s) {
      var color = s.player >= 0 ? COLORS[s.player] : REF_COLOR;
      append(legend, el("li", {}, [el("span", {"class": "ins-swatch ins-" + s.style,
        style: "border-color:" + color}), s.name]));
    });
    return el("figure", {"class": "ins-chart"}, [el("figcaption", {text: spec.title}), root, legend]);
  }

  function charts() {
    return el("section", {"class": "ins-charts", "aria-label": "charts"},
      currentView().charts.map(chart));
  }

  // -- the replay ----------------------------------------------------------------------------
  function die(face, kept) {
    var node = svg("svg", {viewBox: "0 0 100 100", "class": "ins-die" + (kept ? " kept" : ""),
      role: "img", "aria-label": String(face)});
    append(node, svg("rect", {x: 4, y: 4, width: 92, height: 92, rx: 16, "class": "ins-die-face"}));
    (PIPS[face] || []).forEach(function (p) {
      append(node, svg("circle", {cx: p[0], cy: p[1], r: 9, "class": "ins-pip"}));
    });
    return node;
  }

  function diceRow(d) {
    var kept = d.kept || [];
    return el("div", {"class": "ins-dice", title: d.dice.join(" ")},
      d.dice.map(function (f, i) { return die(f, kept.indexOf(i) >= 0); }));
  }

  function nav() {
    var bar = el("div", {"class": "ins-nav"});
    append(bar, [
      el("button", {type: "button", text: "« first", title: "Home", onclick: function () { goTo(0); }}),
      el("button", {type: "button", text: "‹ previous", title: "Left arrow", onclick: function () { step(-1); }}),
      el("span", {"class": "ins-pos", text: "decision " + (S.cursor + 1) + " / " + S.keys.length}),
      el("button", {type: "button", text: "next ›", title: "Right arrow", onclick: function () { step(1); }}),
      el("button", {type: "button", text: "last »", title: "End", onclick: function () { goTo(S.keys.length - 1); }}),
      el("button", {type: "button", text: "previous costly", title: "p", onclick: function () { nextCostly(-1); }}),
      el("button", {type: "button", text: "next costly", title: "n", onclick: function () { nextCostly(1); }})]);
    var strip = el("div", {"class": "ins-strip", role: "list"});
    S.keys.forEach(function (k, i) {
      var r = keyRegret(k);
      append(strip, el("button", {type: "button", role: "listitem",
        "class": "ins-cell " + lossClass(r) + (i === S.cursor ? " current" : ""),
        title: "turn " + Math.floor(k / 1000) + ": regret " + fmtLoss(r),
        onclick: function () { goTo(i); }}));
    });
    return [bar, strip];
  }

  // A score card: each box's points (an open box: what it would score now, in brackets), the
  // agent's choice and the optimum's marked.
  function cardTable(d) {
    var rows = [];
    var chosenBox = d.chosen >= 32 ? d.chosen - 32 : -1, bestBox = d.best >= 32 ? d.best - 32 : -1;
    S.data.box_labels.forEach(function (label, k) {
      var v = d.card[k], now = d.box_points[k];
      var cls = (k === chosenBox ? " chosen" : "") + (k === bestBox ? " best" : "");
      rows.push(el("tr", {"class": cls.trim() || null}, [
        el("th", {scope: "row", text: label}),
        el("td", {"class": v === null ? "open" : "filled",
          text: v === null ? (now === null ? "" : "(" + now + ")") : String(v)}),
        el("td", {"class": "mark", text: (k === chosenBox ? "✔" : "") + (k === bestBox ? "★" : "")})]));
      if (k === S.data.upper_boxes - 1) {
        rows.push(el("tr", {"class": "subtotal"}, [el("th", {scope: "row", text: "upper total"}),
          el("td", {text: d.upper_total + " / " + S.data.upper_bonus_threshold}), el("td")]));
      }
    });
    if (d.five_bonus) {
      rows.push(el("tr", {"class": "subtotal"}, [el("th", {scope: "row", text: "bonus"}),
        el("td", {text: String(d.five_bonus)}), el("td")]));
    }
    rows.push(el("tr", {"class": "total"}, [el("th", {scope: "row", text: "on the card"}),
      el("td", {text: String(d.total)}), el("td")]));
    return el("table", {"class": "ins-card-table"}, [el("tbody", {}, rows)]);
  }

  // The facts of a position, label and value, as the payload wrote them.
  function factsList(d) {
    return el("dl", {"class": "ins-state"}, (d.facts || []).map(function (f) {
      return [el("dt", {text: f[0]}), el("dd", {text: f[1]})];
    }));
  }

  var POSITIONS = {card: cardTable, facts: factsList};

  function optionsTable(d) {
    var best = d.options.length ? d.options[0].value : null;
    var shown = d.options.filter(function (o, i) {
      return S.allOptions || i < SHOWN_OPTIONS || o.action === d.chosen || o.action === d.best;
    });
    var rows = shown.map(function (o) {
      var cls = (o.action === d.chosen ? "chosen " : "") + (o.action === d.best ? "best" : "");
      var diff = o.value === null || best === null ? null : best - o.value;
      return el("tr", {"class": cls.trim() || null}, [
        el("td", {"class": "mark", text: (o.action === d.chosen ? "✔" : "") + (o.action === d.best ? "★" : "")}),
        el("td", {"class": "label", text: o.label}),
        el("td", {"class": "num", text: fmtValue(o.value)}),
        el("td", {"class": "num", text: diff === null ? "—" : (diff > 0 ? "−" + fmtLoss(diff) : "")})]);
    });
    var table = el("table", {"class": "ins-options"}, [
      el("colgroup", {}, [el("col", {"class": "c-mark"}), el("col", {"class": "c-label"}),
        el("col", {"class": "c-value"}), el("col", {"class": "c-diff"})]),
      el("thead", {}, el("tr", {}, [el("th", {text: ""}), el("th", {text: "option"}),
        el("th", {"class": "num", text: S.data.value_label}), el("th", {"class": "num", text: "vs best"})])),
      el("tbody", {}, rows)]);
    var parts = [table];
    if (d.options.length > SHOWN_OPTIONS) {
      parts.push(el("button", {type: "button", "class": "ins-more",
        text: S.allOptions ? "show fewer options" : "show all " + d.options.length + " options",
        onclick: function () { S.allOptions = !S.allOptions; render(); }}));
    }
    return parts;
  }

  function labelOf(d, action) {
    for (var i = 0; i < d.options.length; i++) if (d.options[i].action === action) return d.options[i].label;
    return String(action);
  }

  function panel(player, i) {
    var d = decisionAt(player, S.keys[S.cursor]);
    var box = el("article", {"class": "ins-panel", style: "border-top-color:" + COLORS[i]});
    append(box, el("h3", {text: player.agent, style: "color:" + COLORS[i]}));
    if (!d) {
      append(box, el("p", {"class": "ins-none", text: "no decision here: this agent's turn had " +
        "ended (it scored earlier, or banked or busted)"}));
      return box;
    }
    append(box, el("p", {"class": "ins-where", text: "turn " + d.turn + " · " + d.kind +
      (d.rolls_left !== undefined ? " · rerolls left " + d.rolls_left : "") +
      " · decision " + (d.index + 1) + " of " + player.decisions.length}));
    append(box, diceRow(d));
    append(box, el("p", {"class": "ins-verdict " + lossClass(d.regret)}, [
      el("strong", {text: "chose " + labelOf(d, d.chosen)}),
      d.best !== d.chosen ? " · best " + labelOf(d, d.best) : " · the best option",
      " · regret " + fmtLoss(d.regret)]));
    append(box, el("p", {"class": "ins-values", text: S.data.value_label + " before " +
      fmtValue(d.value) + ", after this choice " + fmtValue(d.after)}));
    var body = el("div", {"class": "ins-panel-body"});
    append(body, (POSITIONS[S.data.position] || factsList)(d));
    append(body, el("div", {"class": "ins-options-box"}, optionsTable(d)));
    append(box, body);
    return box;
  }

  function replay() {
    var view = currentView();
    var sec = el("section", {"class": "ins-replay", "aria-label": "replay"});
    append(sec, nav());
    append(sec, el("div", {"class": "ins-panels ins-cols-" + view.players.length},
      view.players.map(panel)));
    return sec;
  }

  // -- habits --------------------------------------------------------------------------------
  function exampleLinks(h, examples) {
    return examples.map(function (e) {
      return el("button", {type: "button", "class": "ins-link",
        text: "seed " + e.seed + (pairs() ? " g" + (e.game + 1) : "") + " t" + e.turn +
          " (" + fmtLoss(e.regret) + ")",
        onclick: function () { openPosition(h, e.seed, e.game, e.decision); }});
    });
  }

  // Several games per seed: a link names the game too.
  function pairs() { return (S.data.games_per_seed || 1) > 1; }

  function matrix(h, idx) {
    var n = h.labels.length, maxLoss = 0;
    h.loss.forEach(function (row, i) {
      row.forEach(function (v, j) { if (i !== j && v > maxLoss) maxLoss = v; });
    });
    var head = el("tr", {}, [el("th", {text: "agent ↓ / optimum →"})].concat(
      h.labels.map(function (l) { return el("th", {scope: "col", text: l}); })));
    var rows = [];
    for (var i = 0; i < n; i++) {
      var cells = [el("th", {scope: "row", text: h.labels[i]})];
      for (var j = 0; j < n; j++) {
        var count = h.counts[i][j], loss = h.loss[i][j];
        var cell = (function (i, j) {
          return h.cells.filter(function (c) { return c.row === i && c.col === j; })[0];
        })(i, j);
        var alpha = i !== j && maxLoss > 0 ? Math.min(1, loss / maxLoss) : 0;
        var attrs = {"class": (i === j ? "diag" : "") + (cell ? " costly-cell" : ""),
          text: count ? String(count) : "",
          title: h.labels[i] + " chosen, " + h.labels[j] + " optimal: " + count +
            " decisions, " + fmtLoss(loss / h.games) + " per game",
          style: alpha > 0 ? "background: rgba(220, 38, 38, " + (0.1 + 0.7 * alpha).toFixed(2) + ")" : null};
        if (cell) {
          attrs.tabindex = 0;
          attrs.onclick = (function (c) { return function () { S.picked[idx] = c; render(); }; })(cell);
        }
        cells.push(el("td", attrs));
      }
      rows.push(el("tr", {}, cells));
    }
    return el("div", {"class": "ins-matrix-box"}, el("table", {"class": "ins-matrix"},
      [el("thead", {}, head), el("tbody", {}, rows)]));
  }

  function habitsSection(h, idx) {
    var sec = el("section", {"class": "ins-habits", "aria-label": "habits of " + h.agent});
    append(sec, el("h2", {text: "Habits of " + h.agent + ": seeds " + h.seeds[0] + "–" +
      h.seeds[1] + " (" + h.games + " games), regret " + fmtLoss(h.gap) + " per game"}));
    var shownCells = S.allCells[idx] ? h.cells : h.cells.slice(0, SHOWN_CELLS);
    var rows = shownCells.map(function (c) {
      return el("tr", {"class": S.picked[idx] === c ? "picked" : null}, [
        el("td", {text: c.chosen + " → " + c.optimal}), el("td", {"class": "num", text: String(c.count)}),
        el("td", {"class": "num", text: fmtLoss(c.per_game)}),
        el("td", {}, exampleLinks(h, c.examples))]);
    });
    append(sec, el("h3", {text: "Costliest choices (the agent's → the optimum's)"}));
    append(sec, el("table", {"class": "ins-habit-table"}, [
      el("thead", {}, el("tr", {}, [el("th", {text: "choice"}), el("th", {"class": "num", text: "decisions"}),
        el("th", {"class": "num", text: "loss per game"}), el("th", {text: "costliest examples"})])),
      el("tbody", {}, rows.length ? rows : [el("tr", {}, el("td", {colspan: 4, text: "no costly choice"}))])]));
    if (h.cells.length > SHOWN_CELLS) {
      append(sec, el("button", {type: "button", "class": "ins-more",
        text: S.allCells[idx] ? "show the costliest " + SHOWN_CELLS : "show all " + h.cells.length + " choices",
        onclick: function () { S.allCells[idx] = !S.allCells[idx]; render(); }}));
    }
    append(sec, matrix(h, idx));
    var picked = S.picked[idx];
    if (picked) {
      append(sec, el("p", {"class": "ins-picked"}, [picked.chosen + " → " + picked.optimal + ": "]
        .concat(exampleLinks(h, picked.examples))));
    }
    append(sec, el("h3", {text: "By decision kind"}));
    append(sec, el("table", {"class": "ins-habit-table"}, [
      el("thead", {}, el("tr", {}, [el("th", {text: "kind"}), el("th", {"class": "num", text: "decisions"}),
        el("th", {"class": "num", text: "mistakes"}), el("th", {"class": "num", text: "loss per game"}),
        el("th", {text: "costliest examples"})])),
      el("tbody", {}, h.kinds.map(function (k) {
        return el("tr", {}, [el("td", {text: k.kind}), el("td", {"class": "num", text: String(k.decisions)}),
          el("td", {"class": "num", text: String(k.mistakes)}), el("td", {"class": "num", text: fmtLoss(k.per_game)}),
          el("td", {}, exampleLinks(h, k.examples))]);
      }))]));
    var worst = h.per_game.slice().sort(function (a, b) { return b.regret - a.regret; }).slice(0, 10);
    append(sec, el("h3", {text: "Costliest games"}));
    append(sec, el("p", {"class": "ins-games"}, worst.map(function (g) {
      return el("button", {type: "button", "class": "ins-link",
        text: "seed " + g.seed + (pairs() ? " g" + (g.game + 1) : "") + ": " + fmtLoss(g.regret),
        onclick: function () { openPosition(h, g.seed, g.game, 0); }});
    })));
    return sec;
  }

  function habitsSections() {
    return (S.data.habits || []).map(habitsSection);
  }

  function openPosition(h, seed, game, decision) {
    var origin = S.origin || S.data;
    var player = origin.agents.indexOf(h.agent);
    if (origin.games.length && origin.seed === seed && player >= 0) {
      S.data = origin;
      setData(origin, game, 0);
      goToDecision(player, decision);
      return;
    }
    var inline = h.example_games && h.example_games[String(seed)];
    if (inline) {
      showPosition(origin, h, seed, inline, game, decision);
    } else if (S.server) {
      status("loading seed " + seed + "…");
      getJSON("/api/inspect?" + query({agent: h.agent, game: origin.game, seed: seed}))
        .then(function (data) { status(""); showPosition(origin, h, seed, data.games, game, decision); })
        .catch(function (err) { status(err.message, true); });
    } else {
      status("seed " + seed + " is not in this file: replay it with scripts/replay.py --seed " + seed, true);
    }
  }

  function showPosition(origin, h, seed, games, game, decision) {
    var data = {};
    Object.keys(origin).forEach(function (k) { data[k] = origin[k]; });
    data.seed = seed;
    data.agents = [h.agent];
    data.games = games;
    setData(data, game, 0);
    goToDecision(0, decision);
    window.scrollTo(0, 0);
  }

  // -- the server --------------------------------------------------------------------------------
  function query(params) {
    return Object.keys(params).filter(function (k) { return params[k] !== "" && params[k] !== undefined; })
      .map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
  }

  function fetchJSON(url) {
    return fetch(url, {headers: {Accept: "application/json"}}).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
        return {status: r.status, body: body};
      });
    });
  }

  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  // Follow a job the server started (202 {"preparing": job}) until it is done, its progress
  // on the status line; a failed or cancelled job is an error with its reason.
  function waitForJob(job) {
    var what = job.what || "the data";
    if (job.state === "done") return Promise.resolve();
    if (job.state === "failed" || job.state === "cancelled") {
      return Promise.reject(new Error("could not prepare " + what + ": " + (job.error || job.state)));
    }
    status(job.state === "queued" ? "waiting to prepare " + what + "…"
      : "preparing " + what + ": " + Math.round(100 * (job.progress || 0)) + " %");
    return sleep(POLL_MS)
      .then(function () { return fetchJSON("/api/jobs/" + encodeURIComponent(job.job)); })
      .then(function (res) { return waitForJob(res.body); });
  }

  // The JSON of ``url``, asked again after each job the server has to run first.
  function getJSON(url) {
    S.loading += 1;
    return fetchJSON(url).then(function (res) {
      if (res.status === 202 && res.body.preparing) {
        return waitForJob(res.body.preparing).then(function () { return getJSON(url); });
      }
      return res.body;
    }).then(function (body) { S.loading -= 1; return body; },
      function (err) { S.loading -= 1; throw err; });
  }

  function formValues(form) {
    return {agent: form.agent.value, agent2: form.agent2.value, game: form.game.value,
      seed: form.seed.value, seeds: form.seeds.value};
  }

  function loadInspect(p) {
    status("replaying seed " + p.seed + "…");
    return getJSON("/api/inspect?" + query({agent: p.agent, game: p.game, seed: p.seed, agent2: p.agent2}))
      .then(function (data) {
        if (S.origin && S.origin.habits && S.origin.game === data.game) data.habits = S.origin.habits;
        S.origin = data;
        status("");
        setData(data, 0, 0);
      });
  }

  function loadHabits(p) {
    status("playing seeds " + p.seeds + "…");
    return getJSON("/api/inspect/habits?" + query({agent: p.agent, game: p.game, seeds: p.seeds}))
      .then(function (found) {
        var base = S.origin && S.origin.game === found.game ? S.origin
          : {games: [], agents: found.agents, seed: null};
        Object.keys(found).forEach(function (k) { if (k !== "agents") base[k] = found[k]; });
        S.origin = base;
        S.picked = {};
        status("");
        setData(base, S.data === base ? S.view : 0, S.data === base ? S.cursor : 0);
      });
  }

  function startServer() {
    S.server = true;
    // the server's icon (a replay file, which fetches nothing, has none)
    append(document.head, el("link", {rel: "icon", type: "image/svg+xml", href: "/static/favicon.svg"}));
    var form = document.getElementById("ins-form");
    if (!form) return;
    form.hidden = false;
    getJSON("/api/inspect/options").then(function (opts) {
      opts.agents.forEach(function (a) {
        append(form.agent, el("option", {value: a, text: a}));
        append(form.agent2, el("option", {value: a, text: a}));
      });
      opts.games.forEach(function (g) { append(form.game, el("option", {value: g, text: g})); });
      function onlyPlayers() {  // the agents that play the chosen game
        [form.agent, form.agent2].forEach(function (select) {
          Array.prototype.forEach.call(select.options, function (o) {
            o.disabled = o.value !== "" && (opts.plays[o.value] || []).indexOf(form.game.value) < 0;
          });
        });
      }
      form.game.addEventListener("change", onlyPlayers);
      var params = new URLSearchParams(window.location.search);
      ["agent", "agent2", "game", "seed", "seeds"].forEach(function (k) {
        if (params.get(k) !== null && form[k]) form[k].value = params.get(k);
      });
      onlyPlayers();
      var p = formValues(form);
      ["agent", "agent2", "game"].forEach(function (k) {  // as asked: the server says what is wrong
        if (params.get(k) !== null) p[k] = params.get(k);
      });
      var jobs = Promise.resolve();
      if (params.get("seed") !== null && p.agent && p.game) jobs = jobs.then(function () { return loadInspect(p); });
      if (params.get("seeds") !== null && p.agent && p.game) jobs = jobs.then(function () { return loadHabits(p); });
      return jobs;
    }).catch(function (err) { status(err.message, true); });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var p = formValues(form);
      history.replaceState(null, "", "?" + query({agent: p.agent, agent2: p.agent2, game: p.game, seed: p.seed}));
      loadInspect(p).catch(function (err) { status(err.message, true); });
    });
    document.getElementById("ins-habits-button").addEventListener("click", function () {
      var p = formValues(form);
      loadHabits(p).catch(function (err) { status(err.message, true); });
    });
  }

  // -- start -----------------------------------------------------------------------------------
  document.addEventListener("keydown", function (ev) {
    if (!S.data || !S.keys.length || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var acts = {ArrowRight: function () { step(1); }, ArrowLeft: function () { step(-1); },
      Home: function () { goTo(0); },
      End: function () { goTo(S.keys.length - 1); },
      n: function () { nextCostly(1); }, p: function () { nextCostly(-1); }};
    if (acts[ev.key]) { ev.preventDefault(); acts[ev.key](); }
  });

  function start() {
    var inline = document.getElementById("replay-data");
    if (inline) {
      var data = JSON.parse(inline.textContent);
      S.origin = data;
      setData(data, 0, 0);
    } else {
      startServer();
    }
  }

  window.diceInspect = {state: S, render: setData};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
