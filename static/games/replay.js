// A finished hand, step by step, with all four hands shown (games/replay.py builds the steps:
// the engine's view_all after each action, the deal's draws folded into runs).
// Plain ES module, no build step. Words come translated from the page (#replay-labels).

import { cardRow, cardsName, isRuff, parseCards, suitIcon } from "./cards.js";

const root = document.getElementById("replay");
const L = JSON.parse(document.getElementById("replay-labels").textContent);
const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = data.steps;
const POSITIONS = ["bottom", "right", "top", "left"];
const SPEEDS = { slow: 1600, normal: 800, fast: 300 };

let index = 0;
let timer = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function byId(id) {
  return document.getElementById(id);
}

function fmt(template, values) {
  return String(template || "").replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
}

/** A level as players say it: "打5" / "level 5" (T is written 10). */
function levelText(rank) {
  return fmt(L.plays_level, { rank: rank === "T" ? "10" : rank });
}

/** `L[key]` with `{n}` filled in, or its one-form `L[key + "_one"]` when n is 1 ("1 card"). */
function countText(key, n) {
  const one = L[`${key}_one`];
  return fmt(n === 1 && one ? one : L[key], { n });
}

function seatName(seat) {
  const player = data.players[seat];
  if (player && player.name) return player.name;
  return fmt(L.bot_n, { n: seat });
}

/** The step that holds action `move` (moves count the actions of the log, from 1). */
function stepOfMove(move) {
  for (let i = 0; i < steps.length; i += 1) if (steps[i].first <= move && move <= steps[i].move) return i;
  return move <= 0 ? 0 : steps.length - 1;
}

function firstStepOfTrick(n) {
  return steps.findIndex((s) => s.trick === n);
}

function trickCount() {
  return steps.reduce((most, s) => Math.max(most, s.trick || 0), 0);
}

// --- describing a step ---------------------------------------------------------------------------

function describe(step) {
  const v = step.view;
  const cards = step.text.split(" ").slice(2);
  const named = cards.length ? cardsName(cards, L) : "";
  switch (step.kind) {
    case "start":
      return L.start;
    case "draw":
      return fmt(L.deal_n, { n: step.count, drawn: v.drawn });
    case "bid":
      return fmt(L.bid_by, { name: seatName(step.seat), cards: named });
    case "close":
      return L.close;
    case "bury":
      return fmt(L.bury_by, { name: seatName(step.seat), cards: named });
    case "play":
      return fmt(L.play_by, { name: seatName(step.seat), cards: named });
    case "leave":
      return fmt(L.leave_by, { name: seatName(step.seat) });
    default:
      return step.text;
  }
}

// --- drawing -------------------------------------------------------------------------------------

function render() {
  const step = steps[index];
  const v = step.view;
  renderSeats(step, v);
  renderTrick(step, v);
  renderInfo(v);
  renderControls(step);
}

function renderSeats(step, v) {
  for (let seat = 0; seat < 4; seat += 1) {
    const box = byId(`seat-${POSITIONS[seat]}`);
    box.replaceChildren();
    box.classList.toggle("acting", step.seat === seat && step.kind !== "draw");
    const head = el("div", "seat-head");
    head.append(el("span", "wind", (L.compass || [])[seat] || String(seat + 1)));
    head.append(el("span", "seat-name", seatName(seat)));
    const badges = el("span", "badges");
    if (v.dealer === seat) badges.append(el("span", "badge dealer", L.dealer_short));
    if (!data.players[seat] || data.players[seat].bot) badges.append(el("span", "badge bot", L.bot));
    head.append(badges);
    head.append(el("span", "seat-line", countText("cards_n", parseCards(v.hands[seat]).length)));
    box.append(head);
    for (const row of fitRows(parseCards(v.hands[seat]), box)) box.append(row);
  }
}

/**
 * A hand as rows of overlapping cards that fit the box: each row is a grid whose columns share
 * the width, so cards overlap as much as needed and never spill out; a row holds as many cards
 * as keep their corners readable.
 */
function fitRows(cards, box) {
  const width = Math.max(120, box.clientWidth - 16);
  const cardWidth = parseFloat(getComputedStyle(box).getPropertyValue("--hand-w")) || 40;
  const perRow = Math.max(6, Math.floor((width - cardWidth) / 19) + 1);
  const rowCount = Math.max(1, Math.ceil(cards.length / perRow));
  const size = Math.ceil(cards.length / rowCount);
  const rows = [];
  for (let start = 0; start < cards.length; start += size) {
    const part = cards.slice(start, start + size);
    const row = cardRow(part, L, "hand-cards fit", "full");
    row.style.gridTemplateColumns = part.length > 1 ? `repeat(${part.length - 1}, minmax(0, 1fr)) ${cardWidth}px` : `${cardWidth}px`;
    row.style.maxWidth = `${(part.length - 1) * cardWidth * 0.6 + cardWidth}px`;
    rows.push(row);
  }
  if (!rows.length) rows.push(el("div", "hand-cards empty"));
  return rows;
}

function renderTrick(step, v) {
  for (const pos of POSITIONS) byId(`play-${pos}`).replaceChildren();
  const center = byId("trick-center");
  center.replaceChildren();
  let trick = v.trick && v.trick.plays.length ? v.trick : null;
  if (!trick && v.last_trick && (step.kind === "play" || v.phase === "finished")) trick = v.last_trick;
  if (trick) {
    for (const play of trick.plays) {
      const slot = byId(`play-${POSITIONS[play.seat]}`);
      const row = cardRow(parseCards(play.cards), L, "trick-cards", "both");
      row.setAttribute("aria-label", `${seatName(play.seat)}: ${cardsName(parseCards(play.cards), L)}`);
      slot.append(row);
      if (trick.winner === play.seat) slot.append(el("span", "winner-mark", isRuff(trick, v.trump) ? L.ruffs : L.wins));
    }
  }
  if (step.trick) center.append(el("span", "trick-label", fmt(L.trick_n, { n: step.trick })));
  else if (v.phase === "dealing" || v.phase === "bidding" || step.kind === "start") center.append(el("span", "phase-note", L.deal));
  if (v.phase === "finished" && v.result) center.append(resultBox(v.result));
  if (data.hand.status === "void" && index === steps.length - 1) center.append(el("p", "phase-note", L.void));
}

function resultBox(r) {
  const box = el("div", "replay-result");
  if (r.escaper !== null && r.escaper !== undefined) {
    box.append(el("p", "phase-note", fmt(L.result_escape, { name: seatName(r.escaper) })));
    return box;
  }
  const side = r.winner === "attackers" ? L.attackers : L.defenders;
  box.append(el("p", "phase-note", r.levels_gained > 0 ? fmt(L.result_winner, { side, n: r.levels_gained }) : L.result_take_deal));
  box.append(el("p", "", `${L.attackers_points}: ${r.attacker_points}`));
  box.append(el("p", "", fmt(L.kitty_bonus_line, { points: r.kitty_points, times: r.kitty_multiplier, bonus: r.kitty_bonus })));
  box.append(el("p", "", fmt(L.levels_after, { a: r.levels_after[0], b: r.levels_after[1] })));
  return box;
}

function infoRow(term, value) {
  const row = el("div", "info-row");
  row.append(el("dt", "", term));
  const dd = el("dd");
  if (value instanceof Node) dd.append(value);
  else dd.textContent = String(value);
  row.append(dd);
  return row;
}

function renderInfo(v) {
  const box = byId("replay-info");
  box.replaceChildren();
  const list = el("dl", "info-list");
  const trump = el("span");
  if (!v.trump) trump.append(`${levelText(v.level)} · ${L.trump_unknown}`);
  else {
    if (v.trump.suit) trump.append(suitIcon(v.trump.suit), ` ${(L.suit_names || {})[v.trump.suit]}`);
    else trump.append(L.no_trump);
    trump.append(` · ${levelText(v.trump.level)}`);
  }
  list.append(infoRow(L.trump, trump));
  list.append(infoRow(L.dealer, v.dealer === null || v.dealer === undefined ? "—" : seatName(v.dealer)));
  list.append(infoRow(L.attackers_points, String(v.points.attackers)));
  box.append(list);
  const points = parseCards(v.point_cards.attackers);
  if (points.length) {
    box.append(el("p", "info-sub", L.point_cards));
    box.append(cardRow(points, L, "mini points-row"));
  }
  if (v.kitty_dealt) {
    box.append(el("p", "info-sub", L.kitty_dealt));
    box.append(cardRow(parseCards(v.kitty_dealt), L, "mini"));
  }
  if (v.buried) {
    box.append(el("p", "info-sub", L.buried));
    box.append(cardRow(parseCards(v.buried), L, "mini"));
  }
}

function renderControls(step) {
  const total = steps[steps.length - 1].move;
  const line = byId("replay-step");
  line.replaceChildren();
  line.append(el("span", "", `${fmt(L.move_n, { n: step.move, total })} · ${describe(step)}`));
  const seatPlayer = step.seat === null || step.seat === undefined ? null : data.players[step.seat];
  if (step.auto && seatPlayer && !seatPlayer.bot) line.append(" ", el("span", "auto", L.auto));
  const slider = byId("replay-slider");
  slider.value = String(index);
  slider.setAttribute("aria-valuetext", describe(step));
  const select = byId("replay-trick");
  select.value = step.trick ? String(step.trick) : "";
  const link = byId("replay-link");
  const url = new URL(window.location.href);
  url.searchParams.set("move", String(step.move));
  link.href = `${url.pathname}${url.search}`;
  window.history.replaceState(null, "", link.href);
  byId("replay-play").textContent = timer ? "❚❚" : "▶";
  byId("replay-play").setAttribute("aria-label", timer ? L.pause : L.autoplay);
  byId("replay-prev").disabled = index === 0;
  byId("replay-first").disabled = index === 0;
  byId("replay-next").disabled = index === steps.length - 1;
  byId("replay-last").disabled = index === steps.length - 1;
}

// --- moving --------------------------------------------------------------------------------------

function go(i) {
  index = Math.max(0, Math.min(steps.length - 1, i));
  render();
}

function trickStep(direction) {
  const current = steps[index].trick || 0;
  if (direction > 0) {
    const next = steps.findIndex((s, i) => i > index && s.trick && s.trick > current);
    go(next === -1 ? steps.length - 1 : next);
    return;
  }
  const start = current ? firstStepOfTrick(current) : -1;
  if (start !== -1 && start < index) {
    go(start);
    return;
  }
  const before = current > 1 ? firstStepOfTrick(current - 1) : -1;
  go(before === -1 ? 0 : before);
}

function stop() {
  clearInterval(timer);
  timer = null;
}

function toggleAutoplay() {
  if (timer) {
    stop();
  } else {
    if (index === steps.length - 1) index = 0;
    const speed = SPEEDS[byId("replay-speed").value] || SPEEDS.normal;
    timer = setInterval(() => {
      if (index >= steps.length - 1) {
        stop();
        render();
        return;
      }
      go(index + 1);
    }, speed);
  }
  render();
}

function setup() {
  const select = byId("replay-trick");
  const none = el("option", "", "—");
  none.value = "";
  select.append(none);
  for (let n = 1; n <= trickCount(); n += 1) {
    const option = el("option", "", fmt(L.trick_n, { n }));
    option.value = String(n);
    select.append(option);
  }
  select.addEventListener("change", () => {
    if (select.value) go(firstStepOfTrick(Number(select.value)));
  });
  const slider = byId("replay-slider");
  slider.max = String(steps.length - 1);
  slider.addEventListener("input", () => {
    stop();
    go(Number(slider.value));
  });
  byId("replay-first").addEventListener("click", () => { stop(); go(0); });
  byId("replay-prev-trick").addEventListener("click", () => { stop(); trickStep(-1); });
  byId("replay-prev").addEventListener("click", () => { stop(); go(index - 1); });
  byId("replay-play").addEventListener("click", toggleAutoplay);
  byId("replay-next").addEventListener("click", () => { stop(); go(index + 1); });
  byId("replay-next-trick").addEventListener("click", () => { stop(); trickStep(1); });
  byId("replay-last").addEventListener("click", () => { stop(); go(steps.length - 1); });
  byId("replay-speed").addEventListener("change", () => {
    if (timer) {
      stop();
      toggleAutoplay();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLElement && event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") go(index + 1);
    else if (event.key === "ArrowLeft") go(index - 1);
    else if (event.key === "PageDown" || event.key === "]") trickStep(1);
    else if (event.key === "PageUp" || event.key === "[") trickStep(-1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(steps.length - 1);
    else if (event.key === " " && !(event.target instanceof HTMLButtonElement)) toggleAutoplay();
    else return;
    event.preventDefault();
  });
  const move = Number(new URL(window.location.href).searchParams.get("move"));
  index = Number.isFinite(move) && move > 0 ? stepOfMove(move) : 0;
  render();
}

window.shengjiReplay = {
  get index() {
    return index;
  },
  get step() {
    return steps[index];
  },
  count: steps.length,
};

if (root) setup();
