// A finished hand, step by step, with all four hands shown (games/replay.py builds the steps:
// the engine's view_all after each action, the deal's draws folded into runs).
// Plain ES module, no build step. Words come translated from the page (#replay-labels).

import { cardName, cardRow, cardsName, isRuff, parseCards, suitIcon } from "./cards.js";

const root = document.getElementById("replay");
const L = JSON.parse(document.getElementById("replay-labels").textContent);
const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = data.steps;
const POSITIONS = ["bottom", "right", "top", "left"];
// Past four seats the others sit round the felt in play order, as on the table (table.js):
// up the right side, across the top from right to left, down the left side.
const RING_SIDES = { 5: [1, 2, 1], 6: [2, 1, 2], 7: [2, 2, 2], 8: [2, 3, 2] };
const SEATS = (data.rules && data.rules.options && data.rules.options.players) || (steps[0] && steps[0].view.players) || 4;
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
  // NT is the level after A under the top-level option (RULES-SPEC.md §10.5).
  const word = rank === "NT" ? L.level_nt : rank === "T" ? "10" : rank;
  return fmt(L.plays_level, { rank: word });
}

/** `L[key]` with `{n}` filled in, or its one-form `L[key + "_one"]` when n is 1 ("1 card"). */
function countText(key, n) {
  const one = L[`${key}_one`];
  return fmt(n === 1 && one ? one : L[key], { n });
}

function seatName(seat) {
  const player = data.players[seat];
  if (player && player.name) return player.name;
  return fmt(L.bot_n, { n: SEATS === 4 ? seat : seat + 1 });
}

/** The id suffix of a seat's box and play slot (seat 0 at the bottom). */
function positionOf(seat) {
  return SEATS === 4 ? POSITIONS[seat] : `r${seat}`;
}

/** The seat's short name: its compass at four seats, its number past four. */
function seatMark(seat) {
  if (SEATS !== 4) return String(seat + 1);
  return (L.compass || [])[seat] || String(seat + 1);
}

function isFriends(v) {
  return Boolean(v && v.mode === "friends");
}

/** Past four seats: the felt rebuilt with the seats round it (once, at setup). */
function layoutFelt() {
  if (SEATS === 4) return;
  const felt = root.querySelector(".felt");
  const [right, top] = RING_SIDES[SEATS] || RING_SIDES[8];
  const groups = { right: [], top: [], left: [] };
  for (let k = 1; k < SEATS; k += 1) {
    if (k <= right) groups.right.unshift(k);
    else if (k <= right + top) groups.top.unshift(k);
    else groups.left.push(k);
  }
  const column = (className, ks, make) => {
    const box = el("div", className);
    for (const k of ks) box.append(make(k));
    return box;
  };
  const seatBox = (k) => {
    const box = el("div", `seat-box hand-box pos-r${k}`);
    box.id = `seat-r${k}`;
    return box;
  };
  const slot = (k) => {
    const box = el("div", `play pos-r${k}`);
    box.id = `play-r${k}`;
    return box;
  };
  const trick = byId("trick");
  trick.replaceChildren(
    column("plays plays-top", groups.top, slot),
    column("plays plays-left", groups.left, slot),
    byId("trick-center"),
    column("plays plays-right", groups.right, slot),
    column("plays plays-bottom", [0], slot),
  );
  felt.replaceChildren(
    column("seats seats-top", groups.top, seatBox),
    column("seats seats-left", groups.left, seatBox),
    trick,
    column("seats seats-right", groups.right, seatBox),
    column("seats seats-bottom", [0], seatBox),
  );
  felt.classList.remove("four");
  felt.classList.add("ring", `ring-${SEATS}`);
}

/** "第2张" / "2nd": which copy of a called card. */
function nthText(ordinal) {
  return (L.call_nth || [])[ordinal - 1] || String(ordinal);
}

/** Calls as "2AS 1KH" in words: "第2张黑桃A, 第1张红桃K". */
function callsWords(texts) {
  return texts.map((call) => fmt(L.nth_card || "{nth} {card}", { nth: nthText(Number(call[0])), card: cardName(call.slice(1), L) })).join(L.list_separator || ", ");
}

/** A called card as players write it: the suit's mark and the rank ("♠A"). */
function calledCard(card) {
  const box = el("span", "called-card");
  const suit = card.slice(-1);
  const rank = card.slice(0, -1) === "T" ? "10" : card.slice(0, -1);
  box.classList.add(suit === "H" || suit === "D" ? "red" : "black");
  box.append(suitIcon(suit, "suit-icon"), rank);
  box.setAttribute("aria-label", cardName(card, L));
  return box;
}

/** One call: "第2张♠A的人是朋友 · 已出1张", and who filled it. */
function callLine(call, v) {
  const item = el("li", "call");
  const [before, after] = String(L.call_text || "{nth} {card}").split("{card}");
  item.append(fmt(before, { nth: nthText(call.ordinal) }), calledCard(call.card), fmt(after || "", { nth: nthText(call.ordinal) }));
  item.append(el("span", "call-seen", ` · ${fmt(L.call_seen, { n: call.seen || 0 })}`));
  if (call.seat !== null && call.seat !== undefined) {
    const calls = v.calls || [];
    const used = call.seat === v.dealer || calls[calls.findIndex((c) => c.seat === call.seat)] !== call;
    item.append(el("span", used ? "call-used" : "call-filled", ` · ${fmt(used ? L.call_used : L.call_filled, { name: seatName(call.seat) })}`));
    item.classList.add("filled");
  }
  return item;
}

/** The seats that joined the dealer's side at this step (a reveal: RULES-SPEC.md §9.3.4). */
function revealedAt(i) {
  const v = steps[i].view;
  if (!isFriends(v) || i === 0) return [];
  const was = steps[i - 1].view.side || [];
  return (v.side || []).filter((seat) => !was.includes(seat));
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
    case "draw": {
      const total = 54 * (v.decks || 2) - (v.kitty_size || 8);
      return total === 100 ? fmt(L.deal_n, { n: step.count, drawn: v.drawn }) : fmt(L.deal_nt, { n: step.count, drawn: v.drawn, total });
    }
    case "call":
      return fmt(L.call_by, { name: seatName(step.seat), calls: callsWords(cards) });
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
    case "takeback": {
      const taken = v.taken_back;
      const what = taken && taken.cards ? cardsName(taken.cards.split(" "), L) : "";
      return fmt(L.takeback_by, { name: seatName(step.seat), cards: what });
    }
    default:
      return step.text;
  }
}

// --- drawing -------------------------------------------------------------------------------------

function render() {
  const step = steps[index];
  const v = step.view;
  const revealed = revealedAt(index);
  renderSeats(step, v, revealed);
  renderTrick(step, v);
  renderInfo(v);
  renderControls(step, revealed);
}

function renderSeats(step, v, revealed) {
  for (let seat = 0; seat < SEATS; seat += 1) {
    const box = byId(`seat-${positionOf(seat)}`);
    box.replaceChildren();
    box.classList.toggle("acting", step.seat === seat && step.kind !== "draw");
    const friend = isFriends(v) && seat !== v.dealer && (v.side || []).includes(seat);
    box.classList.toggle("friend", friend);
    box.classList.toggle("revealed-now", revealed.includes(seat));
    const head = el("div", "seat-head");
    head.append(el("span", "wind", seatMark(seat)));
    head.append(el("span", "seat-name", seatName(seat)));
    const badges = el("span", "badges");
    if (v.dealer === seat) badges.append(el("span", "badge dealer", L.dealer_short));
    if (friend) badges.append(el("span", "badge friend", L.friend_badge));
    if (!data.players[seat] || data.players[seat].bot) badges.append(el("span", "badge bot", L.bot));
    head.append(badges);
    head.append(el("span", "seat-line", countText("cards_n", parseCards(v.hands[seat]).length)));
    if (v.seat_points && (SEATS !== 4 || isFriends(v))) head.append(el("span", "seat-points", fmt(L.seat_points, { n: v.seat_points[seat] })));
    if (isFriends(v) && (v.levels || []).length > 2) head.append(el("span", "seat-level", levelText(v.levels[seat])));
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
  for (let seat = 0; seat < SEATS; seat += 1) byId(`play-${positionOf(seat)}`).replaceChildren();
  const center = byId("trick-center");
  center.replaceChildren();
  let trick = v.trick && v.trick.plays.length ? v.trick : null;
  if (!trick && v.last_trick && (step.kind === "play" || v.phase === "finished")) trick = v.last_trick;
  if (trick) {
    for (const play of trick.plays) {
      const slot = byId(`play-${positionOf(play.seat)}`);
      const played = parseCards(play.cards);
      const row = cardRow(played, L, played.length > 4 ? "trick-cards long" : "trick-cards", "both");
      if (SEATS !== 4) slot.append(el("span", "play-who", seatMark(play.seat)));
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
  if (SEATS === 4 && r.levels_after.length === 2) {
    box.append(el("p", "", fmt(L.levels_after, { a: r.levels_after[0], b: r.levels_after[1] })));
  } else {
    // Per player in 找朋友, per team (seats of one parity) at a bigger tractor table.
    const each = r.levels_after.length > 2
      ? r.levels_after.map((level, seat) => `${seatMark(seat)} ${levelText(level)}`)
      : r.levels_after.map((level, team) => `${Array.from({ length: SEATS }, (_, s) => s).filter((s) => s % 2 === team).map(seatMark).join("·")} ${levelText(level)}`);
    box.append(el("p", "", fmt(L.levels_after_each, { levels: each.join(" · ") })));
  }
  if (r.defenders && (SEATS !== 4 || r.mode === "friends")) {
    box.append(el("p", "", `${L.side_final}: ${r.defenders.map((seat) => seatMark(seat)).join("·")}`));
  }
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
  if (isFriends(v) && v.calls && v.calls.length) {
    box.append(el("p", "info-sub", L.calls_title));
    const calls = el("ul", "calls-list calls-info");
    for (const call of v.calls) calls.append(callLine(call, v));
    box.append(calls);
  }
  if (v.seat_points && (SEATS !== 4 || isFriends(v))) {
    box.append(el("p", "info-sub", isFriends(v) ? `${L.seat_points_title} · ${L.levels_each}` : L.seat_points_title));
    const list2 = el("ul", "seat-table");
    for (let seat = 0; seat < SEATS; seat += 1) {
      const item = el("li", "seat-row");
      const friend = isFriends(v) && seat !== v.dealer && (v.side || []).includes(seat);
      if (friend) item.classList.add("friend");
      const who = el("span", "seat-row-name");
      who.append(el("span", "wind", seatMark(seat)), ` ${seatName(seat)}`);
      if (seat === v.dealer) who.append(" ", el("span", "badge dealer", L.dealer_short));
      if (friend) who.append(" ", el("span", "badge friend", L.friend_badge));
      item.append(who);
      if (isFriends(v) && (v.levels || []).length > 2) item.append(el("span", "seat-row-level", levelText(v.levels[seat])));
      item.append(el("span", "seat-row-points", fmt(L.seat_points, { n: v.seat_points[seat] })));
      list2.append(item);
    }
    box.append(list2);
  }
}

function renderControls(step, revealed) {
  const total = steps[steps.length - 1].move;
  const line = byId("replay-step");
  line.replaceChildren();
  line.append(el("span", "", `${fmt(L.move_n, { n: step.move, total })} · ${describe(step)}`));
  for (const seat of revealed) line.append(" ", el("span", "reveal-note", fmt(L.friend_revealed, { name: seatName(seat) })));
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
  layoutFelt();
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
