// The live table: the `ws/table/<id>/` socket (docs/PROTOCOL.md) drawn as a card table.
// Plain ES module, no build step. Words come translated from the page (#table-labels); text
// from users is only ever set with textContent. The server decides everything: the client
// asks it ({"type": "check"}) before it offers a bid, a bury or a play.

import {
  cardElement,
  cardName,
  cardRow,
  cardsName,
  formatCards,
  isRuff,
  isTrump,
  parseCards,
  points as cardPoints,
  sortCards,
  suitIcon,
} from "./cards.js";

const root = document.getElementById("table");
const L = JSON.parse(document.getElementById("table-labels").textContent);
const config = JSON.parse(document.getElementById("table-config").textContent);

const POSITIONS = ["bottom", "right", "top", "left"]; // seat + 0, +1 (下家), +2 (partner), +3
// Past four seats (RULES-SPEC.md §9.1) the others sit round the felt in play order: up the
// right side, across the top from right to left, down the left side. [right, top, left] counts.
const RING_SIDES = { 5: [1, 2, 1], 6: [2, 1, 2], 7: [2, 2, 2], 8: [2, 3, 2] };
const SOUND_KEY = "shengji.sound"; // localStorage: "1" when the turn tone is on
const CHECK_DEBOUNCE_MS = 150;
const CALLS_SEND_AT_S = 3; // the dealer's checked picks not sent yet go this long before time is up
const PING_EVERY_MS = 20000;
const LAG_GRACE_MS = 1500; // a pong says the hand is further on: the view has this long to come
const LEDGER_RETRY_MS = 500; // a hand just ended: its settlement (the wrap-up) is a moment behind
const LEDGER_TRIES = 40;
const REVEAL_GLOW_MS = 4000; // a friend just revealed: their seat glows this long
const RANKS_HIGH_FIRST = ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"];
const SUIT_SYMBOLS = { S: "♠", H: "♥", C: "♣", D: "♦" };
const RESULT_CLOSED_KEY = "shengji.resultClosed"; // sessionStorage: the hand whose result was closed
const READY_HELD_KEY = "shengji.readyHeld"; // sessionStorage: the hand after which auto-ready was held

// --- small helpers -------------------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function button(text, className, onClick, attributes = {}) {
  const node = el("button", className, text);
  node.type = "button";
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (onClick) node.addEventListener("click", onClick);
  return node;
}

function fmt(template, values) {
  return String(template || "").replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
}

/** `L[key]` with `{n}` filled in, or its one-form `L[key + "_one"]` when n is 1 ("1 card"). */
function countText(key, n) {
  const one = L[`${key}_one`];
  return fmt(n === 1 && one ? one : L[key], { n });
}

function byId(id) {
  return document.getElementById(id);
}

/** The translated message for an error code, else what the server said; a refusal that names
 * its particulars (`fields`: "you hold 1,000 …") in the page's words with them filled in. */
function errorText(code, message, fields) {
  const detailed = fields && L.error_details && L.error_details[code];
  if (detailed) return fmt(detailed, fields);
  return (L.errors && L.errors[code]) || message || code;
}

const rendered = new WeakMap();

/**
 * Put `holder`'s children into `box` unless `box` already shows exactly that: buttons are not
 * replaced under the pointer by a view that changed nothing they show (a click is not lost).
 */
function swap(box, holder) {
  const html = holder.innerHTML;
  if (rendered.get(box) === html) return false;
  rendered.set(box, html);
  box.replaceChildren(...holder.childNodes);
  return true;
}

function counts(cards) {
  const map = new Map();
  for (const card of cards) map.set(card, (map.get(card) || 0) + 1);
  return map;
}

// --- state ---------------------------------------------------------------------------------------

const game = {
  table: null,
  seats: [],
  you: { seat: null, watching: null },
  hand: null, // {id, seq, status, deadline, view}
  chat: [],
  deadlineAt: null, // ms since the epoch, or null
  connected: false,
};

const ui = {
  selected: [], // card codes picked, as a multiset
  pickedAt: [], // where in the hand they were clicked: of two copies, the one clicked rises
  focus: 0,
  shown: [], // the hand as drawn last (sorted codes), to animate arrivals
  showLast: false,
  note: null, // {text, kind}: the last refusal or notice
  check: { key: null, ok: false, code: null, message: null, pending: false },
  bids: new Map(), // candidate key → {cards, ok}
  waitingAction: 0, // ms: an action was sent; checks wait until it is answered
  ledger: new Map(), // hand id → ledger rows (or "loading")
  ledgerTries: new Map(), // hand id → times the ledger was asked for before it was settled
  lastThrows: 0,
  hintBid: null, // the bid the last hint suggested ("5H 5H"), marked among the bid buttons
  revealedAt: new Map(), // seat → when (ms) the view showed it revealed as a friend
  reveals: [], // local chat lines of this hand's reveals: {hand, line}
  calls: null, // 找朋友, the dealer's picks while burying: [{rank, suit, ordinal}]
  callsFor: null, // the hand id the picks are for
  callCheck: { key: null, ok: null, code: null, message: null },
  pendingBury: null, // {hand, cards}: a bury to send once the view shows the calls made
  callsSentAt: null, // the hand whose picks went as its calls step ran out
  burySentAt: null, // the hand whose checked bury went as its time ran out
  resultClosed: stored(RESULT_CLOSED_KEY), // the hand id whose result the player closed
  readyHeldFor: stored(READY_HELD_KEY), // the hand id after which the page took back auto-ready while its result was open
  foldedFor: null, // the hand id at whose start the invite was folded
  finishedSeen: new Map(), // hand id → when (ms) this page first saw it finished
};

/** A hand id kept in this tab's sessionStorage (a reload keeps what the player did), or null. */
function stored(key) {
  try {
    return Number(window.sessionStorage.getItem(key)) || null;
  } catch {
    return null;
  }
}

function store(key, handId) {
  try {
    window.sessionStorage.setItem(key, String(handId));
  } catch {
    // no storage (a private window): after a reload the page asks again, nothing worse
  }
}

function mySeat() {
  return game.you ? game.you.seat : null;
}

function view() {
  return game.hand ? game.hand.view : null;
}

/** The seat drawn at the bottom: yours, the seat you watch, or seat 0. */
function baseSeat() {
  if (mySeat() !== null && mySeat() !== undefined) return mySeat();
  if (game.you && game.you.watching !== null && game.you.watching !== undefined) return game.you.watching;
  return 0;
}

/** How many seats the table has: the view's `players`, else the seats listed, else four. */
function seatCount() {
  const v = view();
  if (v && v.players) return v.players;
  if (config.shape && config.shape.players) return config.shape.players;
  return game.seats.length > 4 ? game.seats.length : 4;
}

function isFriends(v) {
  return Boolean(v && v.mode === "friends");
}

/** The id suffix of the seat's box and play slot: bottom/right/top/left at four seats, else
 * r0 (bottom) … r<n-1>, counted from the bottom seat in play order. */
function positionOf(seat) {
  const n = seatCount();
  const relative = (seat - baseSeat() + n) % n;
  return n === 4 ? POSITIONS[relative] : `r${relative}`;
}

function positionIds() {
  const n = seatCount();
  return n === 4 ? POSITIONS : Array.from({ length: n }, (_, k) => `r${k}`);
}

let ringBuilt = 0; // the seat count the felt is laid out for (0: the page's four seats)

/** Past four seats: the felt's seat boxes and play slots rebuilt round the table, once. */
function layoutFelt() {
  const n = seatCount();
  if (n === 4 || ringBuilt === n) return;
  ringBuilt = n;
  const felt = root.querySelector(".felt");
  const [right, top] = RING_SIDES[n] || RING_SIDES[8];
  const groups = { right: [], top: [], left: [] };
  for (let k = 1; k < n; k += 1) {
    if (k <= right) groups.right.unshift(k); // drawn top to bottom: the first after you lowest
    else if (k <= right + top) groups.top.unshift(k); // drawn left to right: play goes leftwards
    else groups.left.push(k);
  }
  const column = (className, ks, make) => {
    const box = el("div", className);
    for (const k of ks) box.append(make(k));
    return box;
  };
  const seatBox = (k) => {
    const box = el("div", `seat-box pos-r${k}`);
    box.id = `seat-r${k}`;
    return box;
  };
  const slot = (k) => {
    const box = el("div", `play pos-r${k}`);
    box.id = `play-r${k}`;
    return box;
  };
  const trick = byId("trick");
  const center = byId("trick-center");
  trick.replaceChildren(
    column("plays plays-top", groups.top, slot),
    column("plays plays-left", groups.left, slot),
    center,
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
  felt.classList.add("ring", `ring-${n}`);
  rendered.delete(trick);
}

function seatInfo(seat) {
  return game.seats.find((s) => s.seat === seat) || { seat, user: null, bot: false, ready: false, connected: false };
}

/** The seat's compass name: seat 0 East, then South, West, North in play order; past four
 * seats, its number (1 …). */
function compass(seat) {
  if (seatCount() !== 4) return String(seat + 1);
  return (L.compass || [])[seat] || String(seat + 1);
}

/** The seat inside a sentence ("南家", "South"; "3 号位", "Seat 3" past four seats). */
function seatCalled(seat) {
  if (seatCount() !== 4) {
    const names = config.shape && config.shape.seat_names;
    return (names && names[seat]) || fmt(L.seat_n || "{n}", { n: seat + 1 });
  }
  return fmt(L.seat_called || "{compass}", { compass: compass(seat) });
}

/** 我 / 下家 / 对家 / 上家 for a seated viewer (past four seats: 我, 下家, 上家 only); null for a
 * spectator. */
function relativeName(seat) {
  const mine = mySeat();
  if (mine === null || mine === undefined) return null;
  const n = seatCount();
  const k = (seat - mine + n) % n;
  if (n === 4) return (L.relative || [])[k] || null;
  if (k === 0) return (L.relative || [])[0] || null;
  if (k === 1) return (L.relative || [])[1] || null;
  if (k === n - 1) return (L.relative || [])[3] || null;
  return null;
}

function seatName(seat) {
  const info = seatInfo(seat);
  if (info.user) return info.user;
  if (info.bot) return fmt(L.bot_at, { seat: seatCalled(seat) });
  return seatCalled(seat);
}

/** A level as players say it: "打5" / "level 5" (T is written 10). */
function levelText(rank) {
  return fmt(L.plays_level, { rank: rankWord(rank) });
}

/** A level's rank in words: T is 10, and NT (the level after A, RULES-SPEC.md §10.5) the
 * page's word for it. */
function rankWord(rank) {
  if (rank === "NT") return L.level_nt || "NT";
  return rank === "T" ? "10" : String(rank);
}

function handLive() {
  return Boolean(game.hand && game.hand.status === "playing");
}

/** An admin closed the table (or it was closed to make room): nobody sits, nothing starts. */
function tableClosed() {
  const status = game.table ? game.table.status : config.status;
  return status === "closed";
}

function trumpForSort(v) {
  if (!v) return null;
  if (v.trump) return v.trump;
  const bids = v.bids || [];
  const standing = bids.length ? bids[bids.length - 1] : null;
  return { level: v.level, suit: standing ? standing.suit : null };
}

function myCards() {
  const v = view();
  if (!v || !v.hand) return [];
  return sortCards(parseCards(v.hand), trumpForSort(v));
}

// --- the socket ----------------------------------------------------------------------------------

let socket = null;
let sessionEndNote = null; // the last frame before a 4401 or 4403 close: what to show after it
let sessionOver = false; // closed with 4401 or 4403: the page acts no more
let backoff = 1000;
let pingTimer = null;

const outbox = []; // seat messages made while the socket reopens, sent once it is open

function send(message) {
  if (sessionOver) {
    setNote(sessionEndNote, "error"); // no socket will open again for this page
    return false;
  }
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    if (["sit", "bot", "ready", "stand", "chat", "show_hand"].includes(message.type)) {
      outbox.push({ message, at: Date.now() });
      return true;
    }
    setNote(L.offline, "error");
    return false;
  }
  socket.send(JSON.stringify(message));
  return true;
}

function flushOutbox() {
  const fresh = outbox.splice(0).filter((item) => Date.now() - item.at < 5000);
  for (const item of fresh) socket.send(JSON.stringify(item.message));
}

/** Send an action; checks wait until it is answered (a view, a state or an error). */
function act(message) {
  if (send(message)) ui.waitingAction = Date.now() + 1500;
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${window.location.host}${config.socket}`);
  socket.addEventListener("open", () => {
    backoff = 1000;
    game.connected = true;
    renderLive();
    clearInterval(pingTimer);
    pingTimer = setInterval(ping, PING_EVERY_MS);
    ping(); // the first pong sets the server's clock
    flushOutbox();
  });
  socket.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(frame);
  });
  socket.addEventListener("close", (event) => {
    game.connected = false;
    clearInterval(pingTimer);
    forgetPendingChecks();
    renderLive();
    if (event.code === 4404) {
      setNote(L.no_table, "error");
      return;
    }
    if (event.code === 4401 || event.code === 4403) {
      // The session ended (logged out, password changed) or the account is suspended: the
      // last frame said which, and why; this page must not reconnect (docs/PROTOCOL.md).
      sessionEndNote = sessionEndNote || errorText(event.code === 4403 ? "account_suspended" : "session_ended");
      sessionOver = true;
      setNote(sessionEndNote, "error");
      return;
    }
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, 15000);
  });
}

function receive(frame) {
  switch (frame.type) {
    case "state":
      onState(frame);
      break;
    case "view":
      onView(frame);
      break;
    case "chat":
      game.chat.push(frame.line);
      noteTimeout(frame.line);
      dropLocalReveals();
      if (game.chat.length > 100) game.chat.shift();
      renderChat();
      break;
    case "check":
      onCheck(frame);
      break;
    case "error":
      onError(frame);
      break;
    case "pong":
      onPong(frame);
      break;
    case "hint":
      onHint(frame);
      break;
    default:
      break;
  }
}

/** The server moved for this player when their time ran out: the status line says so. */
function noteTimeout(line) {
  const params = Array.isArray(line.params) ? line.params : [];
  if (mySeat() === null || Number(params[0]) !== mySeat()) return;
  if (line.code === "timeout_play") {
    setNote(fmt(L.timeout_me_play, { cards: cardsName(parseCards(String(params[1])), L) }), "warn");
  } else if (line.code === "timeout_bury") {
    setNote(L.timeout_me_bury, "warn");
  } else if (line.code === "timeout_call") {
    setNote(L.timeout_me_call, "warn");
  }
}

let lagTimer = null;
let pingSentAt = null;
let clockOffset = 0; // the server's clock minus this device's, in ms (from the pongs)

function ping() {
  if (send({ type: "ping" })) pingSentAt = Date.now();
}

/** Now by the server's clock: deadlines are the server's times, and a device's clock may be
 * off by minutes (a phone never set, a home server without time sync). */
function serverNow() {
  return Date.now() + clockOffset;
}

/** The pong's `now`, taken at the middle of the round trip (the answer's way back is about
 * its way there). */
function learnServerClock(frame) {
  if (typeof frame.now !== "number" || pingSentAt === null) return;
  const back = Date.now();
  clockOffset = frame.now - (pingSentAt + back) / 2;
  pingSentAt = null;
}

/** A pong carries the hand's position. A frame can be lost (the server's Redis restarting):
 * when no view brings us that far soon, ask for the whole state. */
function onPong(frame) {
  learnServerClock(frame);
  if (frame.hand === undefined || !behind(frame)) return;
  clearTimeout(lagTimer);
  lagTimer = setTimeout(() => {
    if (behind(frame)) send({ type: "state" });
  }, LAG_GRACE_MS);
}

function behind(position) {
  const hand = game.hand;
  if (!hand || position.hand > hand.id) return true;
  return position.hand === hand.id && position.seq > hand.seq;
}

function onState(frame) {
  const before = game.hand;
  game.table = frame.table;
  game.seats = frame.seats || [];
  game.you = frame.you || { seat: null, watching: null };
  game.chat = frame.chat || [];
  if (frame.hand && before && before.id === frame.hand.id && before.seq > frame.hand.seq) {
    // a view newer than this state already arrived: keep it, take the deadline only
    before.deadline = frame.hand.deadline;
  } else {
    if (!before || !frame.hand || before.id !== frame.hand.id) {
      resetHandUi();
      // throws made before this page saw the hand are not news
      ui.lastThrows = frame.hand && frame.hand.view ? (frame.hand.view.failed_throws || []).length : 0;
    }
    game.hand = frame.hand;
  }
  game.deadlineAt = game.hand && game.hand.deadline ? Date.parse(game.hand.deadline) : null;
  if (game.hand && game.hand.status !== "playing") game.deadlineAt = null;
  ui.waitingAction = 0;
  keepRevealLines();
  renderAll();
}

function onView(frame) {
  if (!game.hand || frame.hand !== game.hand.id) {
    send({ type: "state" }); // a new hand: its seats, status and deadline come with the state
    return;
  }
  if (frame.seq < game.hand.seq) return;
  const before = game.hand.view;
  game.hand.seq = frame.seq;
  game.hand.view = frame.view;
  if (frame.view.phase === "finished") game.hand.status = "finished";
  takeDeadline(frame.deadline, frame.view);
  afterViewChange(before, frame.view);
  renderAll();
}

function resetHandUi() {
  setPicked([]);
  ui.shown = [];
  ui.focus = 0;
  ui.showLast = false;
  ui.bids = new Map();
  ui.check = { key: null, ok: false, code: null, message: null, pending: false };
  ui.lastThrows = 0;
  ui.hintBid = null;
  ui.revealedAt = new Map();
  ui.calls = null;
  ui.callsFor = null;
  ui.callCheck = { key: null, ok: null, code: null, message: null };
  ui.pendingBury = null;
  ui.callsSentAt = null;
  ui.burySentAt = null;
  ui.note = null; // a note (a failed throw, a timeout) goes with its hand
}

/** What makes a new turn: the phase, who acts, and how far the tricks are. */
function turnKey(v) {
  if (!v) return "";
  return [v.phase, v.to_act, v.tricks_played, v.trick ? v.trick.plays.length : -1].join("/");
}

function afterViewChange(before, after) {
  ui.waitingAction = 0;
  const phaseChanged = !before || before.phase !== after.phase;
  const newTurn = turnKey(before) !== turnKey(after);
  const mine = mySeat();
  const myCount = (v) => (v && mine !== null && v.card_counts ? v.card_counts[mine] : 0);
  const iPlayed = before && myCount(after) < myCount(before) && after.phase !== "dealing";
  if (phaseChanged || iPlayed) setPicked([]);
  else ui.selected = stillHeld(ui.selected, parseCards(after.hand));
  if (newTurn) ui.showLast = false;
  if (phaseChanged && after.phase !== "dealing" && after.phase !== "bidding") ui.bids = new Map();
  const throws = after.failed_throws || [];
  if (throws.length > ui.lastThrows) {
    const failed = throws[throws.length - 1];
    const text = failed.result === "forced"
      ? fmt(L.throw_forced, { name: seatName(failed.seat), cards: cardsName(parseCards(failed.played), L) })
      : fmt(L.throw_rejected_by, { name: seatName(failed.seat) });
    setNote(withBlocker(text, failed), "warn");
  }
  ui.lastThrows = throws.length;
  noteReveals(before, after);
  sendPendingBury(after);
  const myTurnNow = mine !== null && after.to_act === mine && newTurn && ["burying", "playing"].includes(after.phase);
  if (myTurnNow && !seatInfo(mine).autopilot) turnTone();
}

/** 找朋友 (RULES-SPEC.md §9.3.4): a call filled since the last view is a visible moment: the
 * seat glows and is marked, a note and a chat line say who. */
function noteReveals(before, after) {
  if (!isFriends(after) || !after.calls || !before) return;
  const was = before.calls || [];
  after.calls.forEach((call, i) => {
    if (call.seat === null || call.seat === undefined) return;
    if (was[i] && was[i].seat !== null && was[i].seat !== undefined) return;
    const name = seatName(call.seat);
    const words = { name, nth: nthText(call.ordinal), card: cardName(call.card, L) };
    const joins = call.seat !== after.dealer && !(before.side || []).includes(call.seat);
    // A call filled by a seat already on the side is used up (join_policy unrestricted).
    const text = joins ? fmt(L.friend_revealed_line, words) : `${words.nth}${words.card} · ${fmt(L.call_used, { name })}`;
    const line = { user: null, system: true, code: "", params: [], text, local: true };
    if (serverSaysReveals()) return; // the server's line says it
    ui.reveals.push({ hand: game.hand.id, line });
    game.chat.push(line);
    if (joins) {
      ui.revealedAt.set(call.seat, Date.now());
      setTimeout(renderSeats, REVEAL_GLOW_MS + 50);
      setNote(fmt(L.friend_revealed, { name }), "reveal");
    }
  });
}

/** A state's chat replaces ours: this hand's reveal lines are kept unless the server has its
 * own lines for them. */
function keepRevealLines() {
  const hand = game.hand ? game.hand.id : null;
  ui.reveals = ui.reveals.filter((item) => item.hand === hand);
  if (serverSaysReveals()) {
    ui.reveals = [];
    return;
  }
  for (const item of ui.reveals) game.chat.push(item.line);
}

const REVEAL_CODES = ["friend_joins", "call_spent"];

/** The server writes its own reveal lines (docs/PROTOCOL.md, System lines): ours then go. */
function serverSaysReveals() {
  return game.chat.some((line) => REVEAL_CODES.includes(line.code));
}

function dropLocalReveals() {
  if (!ui.reveals.length || !serverSaysReveals()) return;
  game.chat = game.chat.filter((line) => !line.local);
  ui.reveals = [];
}

/** Calls as "2AS 1KH" in words: "第2张黑桃A, 第1张红桃K". */
function callsWords(text) {
  return text.split(" ").filter(Boolean).map((call) => fmt(L.nth_card || "{nth} {card}", { nth: nthText(Number(call[0])), card: cardName(call.slice(1), L) })).join(L.list_separator || ", ");
}

/** "第2张" / "2nd": which copy of the called card. */
function nthText(ordinal) {
  return (L.call_nth || [])[ordinal - 1] || String(ordinal);
}

/** A called card as players write it: the suit's mark and the rank ("♠A", "♥10"). */
function calledCard(card) {
  const box = el("span", "called-card");
  const suit = card.slice(-1);
  const rank = card.slice(0, -1) === "T" ? "10" : card.slice(0, -1);
  box.classList.add(suit === "H" || suit === "D" ? "red" : "black");
  box.append(suitIcon(suit, "suit-icon"), rank);
  box.setAttribute("aria-label", cardName(card, L));
  return box;
}

/** One call: "第2张♠A的人是朋友 · 已出1张", and who filled it once filled. */
function callLine(call, v) {
  const item = el("li", "call");
  const [before, after] = String(L.call_text || "{nth} {card}").split("{card}");
  item.append(fmt(before, { nth: nthText(call.ordinal) }), calledCard(call.card), fmt(after || "", { nth: nthText(call.ordinal) }));
  item.append(el("span", "call-seen", ` · ${fmt(L.call_seen, { n: call.seen || 0 })}`));
  if (call.seat !== null && call.seat !== undefined) {
    const used = call.seat === v.dealer || !isFriendOfDealerOnly(v, call);
    item.append(el("span", used ? "call-used" : "call-filled", ` · ${fmt(used ? L.call_used : L.call_filled, { name: seatName(call.seat) })}`));
    item.classList.add("filled");
  }
  return item;
}

/** Whether the call brought its seat onto the side (not a seat the side already had). */
function isFriendOfDealerOnly(v, call) {
  const calls = v.calls || [];
  const first = calls.findIndex((c) => c.seat === call.seat);
  return call.seat !== v.dealer && calls[first] === call;
}

function callsList(v, className) {
  const list = el("ul", `calls-list ${className || ""}`);
  for (const call of v.calls || []) list.append(callLine(call, v));
  return list;
}

/** The picked cards that are still in the hand (a multiset intersection). */
function stillHeld(picked, hand) {
  const left = counts(hand);
  return picked.filter((card) => {
    const n = left.get(card) || 0;
    if (n > 0) left.set(card, n - 1);
    return n > 0;
  });
}

/** The server's deadline, sent with every view (docs/PROTOCOL.md): none once the hand is over. */
function takeDeadline(deadline, view) {
  game.hand.deadline = deadline;
  game.deadlineAt = deadline && view.phase !== "finished" ? Date.parse(deadline) : null;
}

// --- checks: ask the server before offering an action ----------------------------------------------

const checkQueue = [];
// Checks a socket asks one after another stay under its 8 messages a second (docs/PROTOCOL.md,
// "Limits"): a run of them never spends the tokens a move needs.
const CHECK_SPACING_MS = 130;
let checkInFlight = null;

function requestCheck(action, cards, key, done) {
  if (checkQueue.some((item) => item.key === key) || (checkInFlight && checkInFlight.key === key)) return;
  checkQueue.push({ action, cards, key, done });
  pumpChecks();
}

function pumpChecks() {
  if (checkInFlight || !checkQueue.length) return;
  if (ui.waitingAction > Date.now()) {
    setTimeout(pumpChecks, 200);
    return;
  }
  checkInFlight = checkQueue.shift();
  checkInFlight.sentAt = Date.now();
  const field = checkInFlight.action === "call" ? "calls" : "cards"; // docs/PROTOCOL.md
  if (!send({ type: "check", action: checkInFlight.action, [field]: checkInFlight.cards })) {
    checkInFlight = null;
    return;
  }
  const sent = checkInFlight;
  setTimeout(() => {
    if (checkInFlight === sent) {
      checkInFlight = null; // never answered (a lost frame): let the next go
      pumpChecks();
    }
  }, 4000);
}

/** A closed socket answers nothing more: ask again once it is open. */
function forgetPendingChecks() {
  checkQueue.length = 0;
  checkInFlight = null;
  ui.waitingAction = 0;
  if (ui.check.pending) ui.check = { key: null, ok: false, code: null, message: null, pending: false };
  for (const [key, entry] of ui.bids) if (entry.ok === null) ui.bids.delete(key);
}

function onCheck(frame) {
  const item = checkInFlight;
  checkInFlight = null;
  if (item) item.done(frame.ok, frame.code || null, frame.message || null, frame);
  setTimeout(pumpChecks, CHECK_SPACING_MS);
}

function onError(frame) {
  if (frame.code === "account_suspended" || frame.code === "session_ended") {
    const text = errorText(frame.code, frame.message);
    sessionEndNote = frame.reason ? `${text}: ${frame.reason}` : text;
  }
  if (checkInFlight) {
    // the only message that was waiting for an answer
    const item = checkInFlight;
    checkInFlight = null;
    item.done(false, frame.code, frame.message);
    setTimeout(pumpChecks, CHECK_SPACING_MS);
    if (!["not_seated", "no_hand", "rate_limited"].includes(frame.code)) return;
  }
  ui.waitingAction = 0;
  ui.pendingBury = null;
  setNote(errorText(frame.code, frame.message, frame.fields), "error");
  if (frame.code === "stale_seq") send({ type: "state" });
  renderActions();
}

/** The key of what a check answered: the cards, and what the answer depends on. */
function selectionKey(action, cards) {
  const v = view();
  return `${action}|${formatCards(sortCards(cards, trumpForSort(v)))}|${game.hand ? game.hand.id : 0}|${game.hand ? game.hand.seq : 0}`;
}

let checkTimer = null;

/** How many cards the dealer buries: the view's kitty size (8 at a classic table). */
function kittySize(v) {
  return (v && v.kitty_size) || 8;
}

function scheduleSelectionCheck() {
  const action = selectionAction();
  if (!action || !ui.selected.length || (action === "bury" && ui.selected.length !== kittySize(view()))) {
    clearTimeout(checkTimer);
    ui.check = { key: null, ok: false, code: null, message: null, pending: false };
    return;
  }
  const key = selectionKey(action, ui.selected);
  if (ui.check.key === key) return; // asked already (or about to be)
  clearTimeout(checkTimer);
  ui.check = { key, ok: false, code: null, message: null, pending: true };
  const cards = formatCards(ui.selected);
  checkTimer = setTimeout(() => {
    requestCheck(action, cards, key, (ok, code, message) => {
      if (ui.check.key !== key) return;
      ui.check = { key, ok, code, message, pending: false };
      renderActions();
    });
  }, CHECK_DEBOUNCE_MS);
}

/** The seat burying now: the dealer, or under 炒地皮 a thief (RULES-SPEC.md §10.24); else null. */
function burier(v) {
  return v && v.phase === "burying" && v.to_act !== undefined ? v.to_act : null;
}

/** 炒地皮's bid window after a bury: bidding under a trump already set (RULES-SPEC.md §10.24). */
function inTheftWindow(v) {
  return Boolean(v && v.phase === "bidding" && v.trump);
}

/** What the selected cards are for now: "play", "bury" or nothing. */
function selectionAction() {
  const v = view();
  const mine = mySeat();
  if (!v || mine === null || !handLive()) return null;
  if (burier(v) === mine) return "bury";
  if (v.phase === "playing" && v.to_act === mine) return "play";
  return null;
}

// Bids: every showing the hand holds (1 to `decks` copies of a level card, 2 or more identical
// jokers; RULES-SPEC.md §9.2), each offered only once the server says it would stand now.

function bidCandidates(v) {
  if (v.level === "NT") return []; // nobody bids at NT (RULES-SPEC.md §10.5)
  const cards = parseCards(v.hand);
  const have = counts(cards);
  const found = [];
  for (const suit of ["S", "H", "C", "D"]) {
    const card = `${v.level}${suit}`;
    const n = have.get(card) || 0;
    for (let k = 1; k <= n; k += 1) found.push(Array(k).fill(card));
  }
  for (const joker of ["SJ", "BJ"]) {
    const n = have.get(joker) || 0;
    for (let k = 2; k <= n; k += 1) found.push(Array(k).fill(joker));
  }
  return found;
}

function refreshBids() {
  const v = view();
  const mine = mySeat();
  if (!v || mine === null || !handLive() || !["dealing", "bidding"].includes(v.phase)) {
    ui.bids = new Map();
    return;
  }
  const standing = (v.bids || []).length;
  const wanted = new Map();
  for (const cards of bidCandidates(v)) {
    const key = `bid|${formatCards(cards)}|${game.hand.id}|${standing}`;
    const known = ui.bids.get(key);
    wanted.set(key, known || { cards, ok: null });
    if (!known) {
      requestCheck("bid", formatCards(cards), key, (ok) => {
        const entry = ui.bids.get(key);
        if (entry) {
          entry.ok = ok;
          renderActions();
        }
      });
    }
  }
  ui.bids = wanted;
}

// --- actions -------------------------------------------------------------------------------------

function primaryAction() {
  const action = selectionAction();
  if (!action) return;
  if (!selectionReady(action)) {
    const k = kittySize(view());
    if (action === "bury" && ui.selected.length !== k) setNote(fmt(L.bury_pick_k, { n: ui.selected.length, k }), "warn");
    return;
  }
  if (action === "bury" && needsCall()) {
    // 找朋友: the calls go first (their own action), then this bury at the view that shows them.
    ui.pendingBury = { hand: game.hand.id, cards: formatCards(ui.selected) };
    act({ type: "call", seq: game.hand.seq, calls: callsText() });
  } else {
    act({ type: action, seq: game.hand.seq, cards: formatCards(ui.selected) });
  }
  ui.check = { key: null, ok: false, code: null, message: null, pending: false };
  renderActions();
}

/** The selection may be sent: the server said so (a bury in 找朋友 may still lack its calls,
 * which go first, once they are checked too). */
function selectionReady(action) {
  if (ui.check.key !== selectionKey(action, ui.selected)) return false;
  if (action !== "bury" || !isFriends(view())) return ui.check.ok;
  if (!ui.check.ok && ui.check.code !== "calls_missing") return false;
  return !needsCall() || ui.callCheck.ok === true;
}

// 找朋友: the dealer's calls while burying (RULES-SPEC.md §9.3.3), "2AS 1KH" (ordinal, card).

/** The dealer picks calls now: a 找朋友 hand, this seat the dealer burying (not while a thief
 * buries), or before the first lead when a thief's trump dropped a call (RULES-SPEC.md §10.24:
 * the dealer's view then holds `call_defaults`). */
function picksCalls() {
  const v = view();
  if (!isFriends(v) || !handLive() || mySeat() === null || v.dealer !== mySeat()) return false;
  return burier(v) === v.dealer || callsAgain(v);
}

/** 炒地皮 in 找朋友: the dealer calls again, a whole set, before the first lead. */
function callsAgain(v) {
  return Boolean(v && v.phase === "playing" && v.call_defaults !== undefined && !v.calls_made);
}

/** Picks to start from: the server's (the view's `call_defaults`, never a card of the dealer's
 * hand while another legal call exists: docs/ENGINE-PART2-DECISIONS.md F13); without them,
 * the A of each plain suit, first copy. The server checks either. */
function defaultCalls(v) {
  if (v.call_defaults) return parseCallsText(v.call_defaults);
  const trumpSuit = v.trump ? v.trump.suit : null;
  const suits = ["S", "H", "C", "D"].filter((suit) => suit !== trumpSuit);
  const rank = v.level === "A" ? "K" : "A";
  const calls = [];
  for (let i = 0; i < (v.friends || 1); i += 1) {
    const suit = suits[i % suits.length];
    calls.push({ rank: i < suits.length ? rank : "K", suit, ordinal: 1 });
  }
  return calls;
}

/** "2AS 1KH" → picks ({ordinal, rank, suit}). */
function parseCallsText(text) {
  return String(text).split(" ").filter(Boolean).map((call) => ({
    ordinal: Number(call[0]),
    rank: call.slice(1, -1),
    suit: call.slice(-1),
  }));
}

function callsText() {
  return (ui.calls || []).map((c) => `${c.ordinal}${c.rank}${c.suit}`).join(" ");
}

/** The calls alone, before the bury: the bury's own clock starts with them (docs/PROTOCOL.md,
 * "Time"). */
function sendCalls() {
  if (!needsCall() || ui.callCheck.ok !== true) return;
  act({ type: "call", seq: game.hand.seq, calls: callsText() });
}

/** The dealer's checked picks not sent yet go as their step runs out, so the dealer's own
 * choice is kept, not the server's: at 找朋友's calls step the calls alone (the bury then has
 * its own time), at the bury a whole checked bury (docs/PROTOCOL.md, "Time"). */
function sendPicksBeforeTimeUp(remaining) {
  const v = view();
  if (remaining > CALLS_SEND_AT_S || !v || burier(v) !== mySeat() || mySeat() === null) return;
  if (seatInfo(mySeat()).autopilot || ui.pendingBury) return;
  if (isFriends(v) && !v.calls_made) {
    if (ui.callsSentAt === game.hand.id || !needsCall() || ui.callCheck.ok !== true) return;
    ui.callsSentAt = game.hand.id;
    sendCalls();
  } else if (ui.burySentAt !== buryKey(v) && selectionAction() === "bury" && selectionReady("bury")) {
    ui.burySentAt = buryKey(v);
    primaryAction();
  }
}

/** One bury of the hand: under 炒地皮 each stolen kitty is buried again, after one more bid. */
function buryKey(v) {
  return `${game.hand.id}|${(v.bids || []).length}`;
}

/** The calls the view says were made (the dealer's own view), as "2AS 1KH". */
function madeCallsText(v) {
  return (v && v.calls ? v.calls : []).map((c) => `${c.ordinal}${c.card}`).join(" ");
}

function needsCall() {
  return picksCalls() && madeCallsText(view()) !== callsText();
}

function scheduleCallCheck() {
  if (!picksCalls() || !needsCall()) return;
  const text = callsText();
  const key = `call|${text}|${game.hand.id}|${game.hand.seq}`;
  if (ui.callCheck.key === key) return;
  ui.callCheck = { key, ok: null, code: null, message: null, warning: null };
  requestCheck("call", text, key, (ok, code, message, frame) => {
    if (ui.callCheck.key !== key) return;
    const warning = ok && frame && frame.warning ? { code: frame.warning, call: frame.call, held: frame.held } : null;
    ui.callCheck = { key, ok, code, message, warning };
    renderCallsPick();
    renderActions();
  });
}

/** The bury waiting for its calls: sent with the view that shows them made. */
function sendPendingBury(v) {
  const pending = ui.pendingBury;
  if (!pending || !game.hand || pending.hand !== game.hand.id) return;
  if (burier(v) !== mySeat() || mySeat() === null) {
    ui.pendingBury = null;
    return;
  }
  if (!v.calls || !v.calls.length) return;
  ui.pendingBury = null;
  act({ type: "bury", seq: game.hand.seq, cards: pending.cards });
}

/** The dealer's call pickers: for each friend a card (rank, suit) and which copy. Drawn once
 * per hand and kept (a view does not redraw a select under the pointer); the status is its own. */
function renderCallsPick() {
  const box = byId("calls-pick");
  const v = view();
  if (!picksCalls() || seatInfo(mySeat()).autopilot) {
    box.hidden = true;
    box.replaceChildren();
    box.dataset.hand = "";
    return;
  }
  box.hidden = false;
  const callsFor = callsAgain(v) ? `${game.hand.id}|again` : game.hand.id;
  if (ui.callsFor !== callsFor || !ui.calls) {
    ui.calls = v.calls && v.calls.length && !callsAgain(v)
      ? v.calls.map((c) => ({ rank: c.card.slice(0, -1), suit: c.card.slice(-1), ordinal: c.ordinal }))
      : defaultCalls(v);
    ui.callsFor = callsFor;
  }
  if (box.dataset.hand !== String(game.hand.id) || box.dataset.count !== String(ui.calls.length)) {
    box.dataset.hand = String(game.hand.id);
    box.dataset.count = String(ui.calls.length);
    box.replaceChildren(el("h3", "calls-pick-title", L.call_pick_title));
    ui.calls.forEach((call, i) => box.append(callPicker(call, i, v)));
    box.append(el("p", "calls-status", ""));
    box.append(button(L.call_send, "secondary call-send", sendCalls, { "data-action": "call" }));
  }
  const status = box.querySelector(".calls-status");
  status.className = "calls-status";
  const made = madeCallsText(v);
  const send = box.querySelector("[data-action=call]");
  send.hidden = Boolean(made && made === callsText());
  send.disabled = !needsCall() || ui.callCheck.ok !== true;
  send.textContent = made ? L.call_change : L.call_send;
  if (made && made === callsText()) {
    status.textContent = fmt(L.calls_sent, { calls: "" });
    status.append(callsList(v, "calls-mine"));
    status.classList.add("ok");
  } else if (ui.callCheck.ok === null) {
    status.textContent = L.call_checking;
  } else if (ui.callCheck.ok && ui.callCheck.warning) {
    status.textContent = callWarningText(ui.callCheck.warning);
    status.classList.add("ok", "warn");
  } else if (ui.callCheck.ok) {
    status.textContent = L.call_ok;
    status.classList.add("ok");
  } else {
    status.textContent = errorText(ui.callCheck.code, ui.callCheck.message);
    status.classList.add("error");
  }
}

/** What a call of a card in the dealer's hand means ("你手里有这张牌：…"). */
function callWarningText(warning) {
  const text = String(warning.call || "");
  const words = text ? fmt(L.nth_card || "{nth} {card}", { nth: nthText(Number(text[0])), card: cardName(text.slice(1), L) }) : "";
  const pattern = (L.call_warnings || {})[warning.code] || "";
  return fmt(pattern, { call: words, n: warning.held });
}

function callPicker(call, i, v) {
  const row = el("div", "call-picker");
  row.dataset.call = String(i);
  row.append(el("span", "call-picker-n", fmt(L.call_pick_n, { n: i + 1 })));
  const choose = (label, name, options, value) => {
    const select = el("select", `call-${name}`);
    select.setAttribute("aria-label", `${fmt(L.call_pick_n, { n: i + 1 })} · ${label}`);
    select.dataset.field = name;
    for (const [optionValue, text] of options) {
      const option = el("option", "", text);
      option.value = optionValue;
      if (optionValue === String(value)) option.selected = true;
      select.append(option);
    }
    select.addEventListener("change", () => {
      const picked = ui.calls[i];
      picked[name] = name === "ordinal" ? Number(select.value) : select.value;
      ui.note = null;
      scheduleCallCheck();
      renderCallsPick();
      renderActions();
    });
    return select;
  };
  const decks = v.decks || 2;
  row.append(choose(L.call_ordinal, "ordinal", Array.from({ length: decks }, (_, k) => [String(k + 1), nthText(k + 1)]), call.ordinal));
  row.append(choose(L.call_suit, "suit", ["S", "H", "C", "D"].map((suit) => [suit, `${SUIT_SYMBOLS[suit]} ${(L.suit_names || {})[suit] || suit}`]), call.suit));
  row.append(choose(L.call_rank, "rank", RANKS_HIGH_FIRST.map((rank) => [rank, rankWord(rank)]), call.rank));
  return row;
}

function bid(cards) {
  act({ type: "bid", seq: game.hand.seq, cards: formatCards(cards) });
}

/** A takeback house rule (docs/RULES-SPEC.md §10.22, §10.23): withdraw this seat's last bid or
 * play; the view's `can_take_back` says when the server would take it. */
function takeBack() {
  act({ type: "takeback", seq: game.hand.seq });
}

function toggle(index) {
  const cards = myCards();
  const card = cards[index];
  if (card === undefined) return;
  const picked = selectedIndexes(cards);
  if (picked.has(index)) {
    ui.selected.splice(ui.selected.lastIndexOf(card), 1);
    ui.pickedAt = [...picked].filter((i) => i !== index);
  } else {
    ui.selected.push(card);
    ui.pickedAt = [...picked, index];
  }
  ui.focus = index;
  ui.note = null;
  scheduleSelectionCheck();
  renderHand();
  renderActions();
}

/** Pick these cards (codes), each at its first copy in the hand. */
function setPicked(cards) {
  ui.selected = cards;
  ui.pickedAt = [];
}

/** Where the picked cards are in the hand: where they were clicked while that card is still
 * there, else the first copies not taken. */
function selectedIndexes(cards) {
  const want = counts(ui.selected);
  const picked = new Set();
  for (const index of ui.pickedAt) {
    const card = cards[index];
    const n = card === undefined ? 0 : want.get(card) || 0;
    if (n > 0 && !picked.has(index)) {
      picked.add(index);
      want.set(card, n - 1);
    }
  }
  cards.forEach((card, index) => {
    if (picked.has(index)) return;
    const n = want.get(card) || 0;
    if (n > 0) {
      picked.add(index);
      want.set(card, n - 1);
    }
  });
  return picked;
}

function setNote(text, kind) {
  ui.note = text ? { text, kind: kind || "info" } : null;
  renderStatus();
}

// --- drawing -------------------------------------------------------------------------------------

function renderAll() {
  layoutFelt();
  refreshBids();
  scheduleSelectionCheck();
  renderHeader();
  renderSeats();
  renderTrick();
  renderHand();
  renderCallsPick();
  scheduleCallCheck();
  renderActions();
  renderInfo();
  renderStrip();
  holdReadyWhileResultOpen();
  renderResult();
  renderChat();
  renderStatus();
  renderClock();
}

function renderLive() {
  const live = byId("table-live");
  live.textContent = game.connected ? `● ${L.live}` : L.offline;
  live.classList.toggle("offline", !game.connected);
}

function renderHeader() {
  renderLive();
  const t = game.table;
  if (!t) return;
  // A closed table says so at once, above everything, and its seating notice goes.
  byId("table-closed").hidden = !tableClosed();
  byId("table-notice").hidden = tableClosed();
  const invite = document.getElementById("invite");
  if (invite && tableClosed()) invite.hidden = true;
  foldForTheGame(invite);
  byId("table-name").textContent = t.ranked ? L.quick_match_name.replace("{name}", t.name) : t.name;
  const rules = config.rules && config.rules.name ? config.rules.name : t.preset;
  const parts = [t.ranked ? L.ranked : L.casual, rules, `${L.stake} ${t.stake}`, `${t.play_seconds} ${L.seconds}`];
  const shape = shapeText();
  if (shape) parts.splice(1, 0, shape);
  byId("table-meta").textContent = parts.join(" · ");
  const shapeLine = byId("table-shape");
  shapeLine.textContent = shape;
  shapeLine.hidden = !shape;
  byId("table-number").textContent = numberingText();
}

/** Once a hand is dealt the table is the page: the invite folds into its small button (once a
 * hand, so a player who opens it keeps it open), and the "table made" banner goes. */
function foldForTheGame(invite) {
  if (!game.hand) return;
  const banner = document.querySelector("main > .messages");
  if (banner) banner.hidden = true;
  if (!invite || ui.foldedFor === game.hand.id) return;
  ui.foldedFor = game.hand.id;
  invite.open = false;
}

/** The table's shape in words ("6人 · 3副 · 找朋友"); nothing at a classic table. */
function shapeText() {
  const v = view();
  const t = game.table || {};
  const players = (v && v.players) || t.players || seatCount();
  const decks = (v && v.decks) || t.decks || 2;
  const mode = (v && v.mode) || t.mode || "tractor";
  if (players === 4 && decks === 2 && mode === "tractor") return "";
  if (config.shape && config.shape.words) return config.shape.words;
  return fmt(L.shape, { players, decks, mode: (L.modes || {})[mode] || mode });
}

/** "第 1 盘 第 3 局": this table's match and the hand within it (not site-wide ids). */
function numberingText() {
  const t = game.table;
  const hand = game.hand;
  const match = hand && hand.match_number ? hand.match_number : t && t.match_number;
  if (!match) return "";
  if (hand && hand.number) return fmt(L.match_hand, { match, hand: hand.number });
  return fmt(L.match_only, { match });
}

function seatBadges(seat, v) {
  const badges = el("span", "badges");
  const info = seatInfo(seat);
  if (v && v.dealer === seat) badges.append(el("span", "badge dealer", L.dealer_short));
  if (isFriendOfDealer(v, seat)) badges.append(el("span", "badge friend", L.friend_badge));
  // A player on 托管 keeps their seat: one badge says so, not the bot's as well.
  if (info.autopilot) badges.append(el("span", "badge autopilot", L.autopilot_badge));
  else if (info.bot) badges.append(el("span", "badge bot", L.bot));
  if (info.user && info.away_until) {
    const away = el("span", "badge away", L.away_mark);
    const left = el("span", "away-left", awayText(info.away_until));
    left.dataset.awayUntil = info.away_until;
    away.append(" ", left);
    badges.append(away);
  } else if (info.user && !info.connected && !info.bot) {
    badges.append(el("span", "badge away", L.away));
  }
  if (!handLive() && info.ready) badges.append(el("span", "badge ready", `✓ ${L.ready}`));
  return badges;
}

/** "bot in 12s": the seconds left of an away player's grace. */
function awayText(until) {
  const at = Date.parse(until);
  if (Number.isNaN(at)) return "";
  // In a hand the bot takes the seat over when the grace ends; between hands the seat is freed.
  const words = handLive() ? L.away_countdown : L.away_countdown_free;
  return fmt(words, { n: Math.max(0, Math.ceil((at - serverNow()) / 1000)) });
}

/** 找朋友: a revealed friend (on the dealer's side, not the dealer; RULES-SPEC.md §9.3.4). */
function isFriendOfDealer(v, seat) {
  return isFriends(v) && v.dealer !== seat && (v.side || []).includes(seat);
}

/** What a seat's line says about its side: 庄家方 / 闲家 where the sides are known. In 找朋友
 * the attackers are known only at the hand's end (the friend badge marks the side before). */
function sideWord(v, seat) {
  if (!isFriends(v)) {
    if (v.defenders) return v.defenders.includes(seat) ? L.defenders_short : L.attackers_short;
    return null;
  }
  if (v.result && v.result.defenders) return v.result.defenders.includes(seat) ? L.defenders_short : L.attackers_short;
  return null;
}

function renderSeats() {
  const v = view();
  const mine = mySeat();
  const n = seatCount();
  // While a hand is on, a phone keeps each seat's box to its lines (table.css): the felt's
  // height never changes under a trick. Between hands the boxes wrap (names, sit buttons).
  root.querySelector(".felt").classList.toggle("hand-on", handLive());
  for (let seat = 0; seat < n; seat += 1) {
    const box = byId(`seat-${positionOf(seat)}`);
    const out = el("div");
    box.dataset.seat = String(seat);
    const info = seatInfo(seat);
    const acting = v && handLive() && v.to_act === seat;
    box.classList.toggle("acting", Boolean(acting));
    box.classList.toggle("mine", seat === mine);
    box.classList.toggle("empty", !info.user && !info.bot);
    box.classList.toggle("friend", isFriendOfDealer(v, seat));
    box.classList.toggle("revealed-now", Date.now() - (ui.revealedAt.get(seat) || 0) < REVEAL_GLOW_MS);
    const head = el("div", "seat-head");
    const wind = el("span", "wind", compass(seat));
    wind.title = seatCalled(seat);
    // Round a bigger table the number beside the name says which seat: a bot is just 电脑.
    const ringBot = n !== 4 && !info.user && info.bot;
    const name = el("span", "seat-name", ringBot ? L.bot : seatName(seat));
    name.title = seatName(seat);
    head.append(wind, name);
    const relative = relativeName(seat);
    if (relative) head.append(el("span", `relative${seat === mine ? " me" : ""}`, relative));
    const badges = seatBadges(seat, v);
    if (ringBot) badges.querySelector(".badge.bot")?.remove();
    head.append(badges);
    out.append(head);
    const line = el("div", "seat-line");
    if (v && handLive()) {
      line.append(el("span", "count", countText("cards_n", v.card_counts[seat])));
      const side = sideWord(v, seat);
      if (side) line.append(el("span", "side", side));
      else if (!isFriends(v)) line.append(el("span", "side muted", levelText(v.levels[seat % 2])));
    }
    if (v && v.seat_points && ["playing", "finished"].includes(v.phase)) {
      const taken = el("span", "seat-points", fmt(L.seat_points, { n: pointsShown(v.seat_points[seat]) }));
      taken.title = L.seat_points_title;
      line.append(taken);
    }
    if (v && isFriends(v) && v.levels && v.levels.length > 2) {
      line.append(el("span", "seat-level", levelText(v.levels[seat])));
    }
    if (acting) {
      const clock = el("span", "clock", "");
      clock.dataset.clock = "1";
      line.append(clock);
    }
    out.append(line);
    out.append(seatControls(seat, info));
    swap(box, out);
  }
}

function seatControls(seat, info) {
  const box = el("div", "seat-controls");
  const t = game.table;
  if (!t || handLive() || tableClosed()) return box;
  const mine = mySeat();
  const free = !info.user && !info.bot;
  if (free && mine === null && !t.ranked) { // ranked seats are given by quick match only
    if (config.me.logged_in) {
      box.append(button(L.sit, "small", () => {
        const message = { type: "sit", seat };
        if (game.seats.every((s) => !s.user)) message.stake = t.stake;
        act(message);
      }, { "data-action": "sit", "data-seat": String(seat) }));
    } else if (seat === (game.seats.find((s) => !s.user && !s.bot) || {}).seat) {
      // one link, on the first free seat (the creator holds seat 1 from the start)
      const link = el("a", "small-link", L.login_to_sit);
      link.href = config.urls.login;
      box.append(link);
    }
  }
  const mayBot = !t.ranked && (mine !== null || config.me.is_creator);
  if (free && mayBot) {
    box.append(button(L.add_bot, "small secondary", () => act({ type: "bot", seat }), { "data-action": "bot", "data-seat": String(seat) }));
  }
  return box;
}

function renderTrick() {
  const v = view();
  const area = byId("trick");
  for (const pos of positionIds()) byId(`play-${pos}`).replaceChildren();
  const center = byId("trick-center");
  center.replaceChildren();
  area.classList.remove("showing-last", "done");
  if (tableClosed()) {
    center.append(el("span", "phase-note closed-note", L.closed_title));
    return;
  }
  if (!v) {
    center.append(el("span", "muted", L.no_hand));
    return;
  }
  let trick = null;
  if (ui.showLast && v.last_trick) {
    trick = v.last_trick;
    area.classList.add("showing-last");
    center.append(el("span", "trick-label", L.last_trick));
  } else if (v.phase === "playing" && v.trick && v.trick.plays.length) {
    trick = v.trick;
  } else if ((v.phase === "playing" || v.phase === "finished") && v.last_trick) {
    trick = v.last_trick;
    area.classList.add("done");
  }
  if (trick) {
    for (const play of trick.plays) {
      const slot = byId(`play-${positionOf(play.seat)}`);
      const played = parseCards(play.cards);
      const row = cardRow(played, L, played.length > 4 ? "trick-cards long" : "trick-cards", "both");
      row.setAttribute("aria-label", `${seatName(play.seat)}: ${cardsName(played, L)}`);
      // The slot's size is fixed (table.css): its marks share one line above the cards, the
      // winner's is drawn over them, so the trick area keeps its height as plays arrive.
      const head = el("span", "play-head");
      if (seatCount() !== 4) head.append(el("span", "play-who", compass(play.seat)));
      if (play === trick.plays[0]) head.append(el("span", "lead-mark", L.leads));
      slot.append(head, row);
      if (trick.winner === play.seat) slot.append(el("span", "winner-mark", isRuff(trick, v.trump) ? L.ruffs : L.wins));
    }
    if (trick.winner !== null && trick.winner !== undefined && (trick.points || trick.points === null)) {
      center.append(el("span", "trick-points", fmt(L.trick_points, { n: pointsShown(trick.points) })));
    }
  }
  if (["dealing", "bidding"].includes(v.phase)) {
    const total = (v.card_counts || []).length && (v.players || v.kitty_size) ? dealtTotal(v) : 100;
    const dealing = total === 100 ? fmt(L.dealing_n, { n: v.drawn }) : fmt(L.dealing_nt, { n: v.drawn, total });
    const note = v.phase === "dealing" ? dealing : inTheftWindow(v) ? L.theft_window : L.bidding;
    center.append(el("span", "phase-note", note));
    const bids = v.bids || [];
    if (bids.length) {
      const standing = bids[bids.length - 1];
      const line = el("span", "standing-bid");
      line.append(el("span", "bid-who", `${seatName(standing.seat)}:`), cardRow(parseCards(standing.cards), L, "mini"));
      center.append(line);
    }
  } else if (v.phase === "burying") {
    center.append(el("span", "phase-note", fmt(L.burying_by, { name: seatName(burier(v)) })));
    if (isFriends(v) && burier(v) === v.dealer && v.dealer !== mySeat()) center.append(el("span", "muted calls-note", L.calls_waiting));
  } else if (v.phase === "finished" && !trick) {
    center.append(el("span", "phase-note", L.hand_over));
  }
  if (isFriends(v) && v.calls && v.calls.length && ["playing", "finished"].includes(v.phase) && seatCount() !== 4) {
    center.append(callsList(v, "calls-center"));
  }
}

/** The cards the deal hands out: 54 × decks less the kitty (100 at a classic table). */
function dealtTotal(v) {
  const decks = v.decks || 2;
  const kitty = v.kitty_size || 8;
  return deckCards(decks) - parseCards(v.removed || "").length - kitty;
}

function renderHand() {
  const target = byId("hand");
  const v = view();
  const cards = myCards();
  const picked = selectedIndexes(cards);
  const arriving = arrivals(ui.shown, cards);
  const kitty = v && burier(v) === mySeat() && v.kitty ? counts(parseCards(v.kitty)) : null;
  ui.shown = cards;
  const box = el("div");
  target.hidden = !cards.length;
  if (!cards.length) {
    swap(target, box);
    return;
  }
  const action = selectionAction();
  ui.focus = Math.min(ui.focus, cards.length - 1);
  const rows = layoutRows(target, cards.length);
  // Trumps (sorted first) are marked and set apart from the plain suits by a gap.
  const trump = trumpForSort(v);
  const trumps = trump ? cards.filter((card) => isTrump(card, trump)).length : 0;
  const hadFocus = target.contains(document.activeElement);
  let index = 0;
  for (const size of rows) {
    const row = el("div", "hand-row");
    for (let i = 0; i < size; i += 1, index += 1) {
      const card = cards[index];
      const node = cardElement(card, L, { tag: "button", className: "in-hand" });
      node.type = "button";
      node.dataset.index = String(index);
      node.setAttribute("aria-pressed", picked.has(index) ? "true" : "false");
      node.tabIndex = index === ui.focus ? 0 : -1;
      if (picked.has(index)) node.classList.add("selected");
      if (arriving.has(index)) node.classList.add("arrive");
      if (kitty && (kitty.get(card) || 0) > 0 && cards.slice(index + 1).filter((c) => c === card).length < kitty.get(card)) {
        node.classList.add("from-kitty");
      }
      if (!action) node.classList.add("idle");
      if (index < trumps) node.classList.add("trump");
      else if (index === trumps && trumps > 0 && i > 0) node.classList.add("after-trumps");
      row.append(node);
    }
    box.append(row);
  }
  if (swap(target, box) && hadFocus) focusCard();
}

/** Indexes of cards that were not in the hand drawn last (the deal, the kitty). */
function arrivals(before, after) {
  const had = counts(before);
  const fresh = new Set();
  if (!before.length) return fresh;
  after.forEach((card, index) => {
    const n = had.get(card) || 0;
    if (n > 0) had.set(card, n - 1);
    else fresh.add(index);
  });
  return fresh;
}

/** How many cards on each row: one row while the cards fit with their corners showing. */
function layoutRows(box, n) {
  const style = getComputedStyle(box);
  const gap = parseFloat(style.getPropertyValue("--trump-gap")) || 0; // room for the gap after the trumps
  const width = (box.clientWidth || root.clientWidth || 360) - gap;
  const cardWidth = parseFloat(style.getPropertyValue("--card-w")) || 64;
  const minStep = parseFloat(style.getPropertyValue("--min-step")) || 22;
  // The fewest rows whose longest row still gives each card min-step to tap.
  const perRow = Math.max(1, Math.floor((Math.max(width, cardWidth) - cardWidth) / minStep) + 1);
  const rowsNeeded = Math.max(1, Math.ceil(n / perRow));
  const rows = [];
  let left = n;
  for (let r = rowsNeeded; r > 0; r -= 1) {
    const size = Math.ceil(left / r);
    rows.push(size);
    left -= size;
  }
  const longest = rows[0];
  const step = longest > 1 ? Math.min(cardWidth * 0.62, (width - cardWidth) / (longest - 1)) : cardWidth;
  box.style.setProperty("--step", `${Math.max(12, Math.floor(step))}px`);
  return rows;
}

function renderActions() {
  const target = byId("actions");
  const box = el("div");
  const v = view();
  const mine = mySeat();
  const t = game.table;
  if (!t) {
    swap(target, box);
    return;
  }
  const live = handLive();
  if (tableClosed()) {
    // A ranked table that lost a player is closed for good: a new quick match, one click.
    if (t.quick_match_offer && config.me.logged_in && config.urls.quick_join) box.append(quickMatchForm());
    const lobby = el("a", "closed-lobby", `← ${L.closed_lobby}`);
    lobby.href = config.urls.lobby;
    box.append(lobby);
    swap(target, box);
    renderTools();
    renderStatus();
    return;
  }
  if (resultShown() && ui.resultClosed === game.hand.id) {
    box.append(button(L.result_show, "secondary", () => {
      ui.resultClosed = null;
      renderResult();
      renderActions();
    }, { "data-action": "show-result" }));
  }

  if (!live && mine !== null) {
    const me = seatInfo(mine);
    box.append(button(me.ready ? L.unready : L.press_ready, me.ready ? "secondary" : "primary", () => {
      if (!me.ready && resultShown() && ui.resultClosed !== game.hand.id) closeResult(true); // ready: read
      else act({ type: "ready", ready: !me.ready });
    }, { "data-action": "ready" }));
    box.append(button(L.leave_seat, "secondary", () => act({ type: "stand" }), { "data-action": "stand" }));
  }

  if (live && v && mine !== null) {
    if (["dealing", "bidding"].includes(v.phase)) {
      const offers = [...ui.bids.values()].filter((b) => b.ok === true);
      for (const offer of offers) {
        const label = fmt(L.bid_with, { cards: cardsName(offer.cards, L) });
        const hinted = ui.hintBid === formatCards(offer.cards) ? " hinted" : "";
        const node = button("", `bid-button${hinted}`, () => bid(offer.cards), { "aria-label": label, "data-action": "bid", "data-cards": formatCards(offer.cards) });
        node.append(el("span", "bid-word", L.bid), cardRow(offer.cards, L, "mini"));
        box.append(node);
      }
      if (!offers.length && v.level === "NT") box.append(el("span", "muted hint", L.no_bids_at_nt));
      else if (!offers.length) box.append(el("span", "muted hint", v.phase === "dealing" ? L.no_bid_yet : L.no_bid_now));
    }
    const action = selectionAction();
    if (action || ["dealing", "bidding"].includes(v.phase)) {
      box.append(button(L.hint, "secondary hint-button", askHint, { "data-action": "hint", title: L.hint_title }));
    }
    if (v.can_take_back === true) {
      const word = ["dealing", "bidding"].includes(v.phase) ? L.takeback_bid : L.takeback;
      box.append(button(word, "secondary takeback-button", takeBack, { "data-action": "takeback", title: L.takeback_title }));
    }
    if (action) {
      const ready = selectionReady(action);
      const k = kittySize(v);
      const buryWords = needsCall() ? L.bury_and_call : L.bury_nk;
      const label = action === "bury" ? (k === 8 && !isFriends(v) ? fmt(L.bury_n, { n: ui.selected.length }) : fmt(buryWords, { n: ui.selected.length, k })) : L.play;
      const node = button(label, "primary", primaryAction, { "data-action": action, id: "primary-action" });
      node.disabled = !ready;
      box.append(node);
      if (ui.selected.length) box.append(button(L.clear, "secondary", () => {
        setPicked([]);
        scheduleSelectionCheck();
        renderHand();
        renderActions();
      }, { "data-action": "clear" }));
    }
  }
  if (v && v.last_trick && ["playing", "finished"].includes(v.phase)) {
    const node = button(ui.showLast ? L.hide_last_trick : L.last_trick, "secondary", () => {
      ui.showLast = !ui.showLast;
      renderTrick();
      renderActions();
    }, { "data-action": "last-trick", "aria-pressed": ui.showLast ? "true" : "false" });
    box.append(node);
  }
  if (live && mine !== null) {
    box.append(button(L.escape, "danger", () => {
      if (window.confirm(escapeConfirmText())) act({ type: "leave" });
    }, { "data-action": "escape" }));
  }
  swap(target, box);
  renderTools();
  renderStatus();
}

/** 快速匹配 as the lobby's form posts it (the page's CSRF token): the queue, or a new table. */
function quickMatchForm() {
  const form = el("form", "quick-match-again");
  form.method = "post";
  form.action = config.urls.quick_join;
  const token = document.querySelector("[name=csrfmiddlewaretoken]");
  const input = el("input");
  input.type = "hidden";
  input.name = "csrfmiddlewaretoken";
  input.value = token ? token.value : "";
  const submit = el("button", "primary", L.quick_match_again);
  submit.type = "submit";
  submit.dataset.action = "quick-match";
  form.append(input, submit);
  return form;
}

/** What leaving a hand in progress costs here (the page's rules), never "you pay" for free. */
function escapeConfirmText() {
  const rules = config.rules;
  if (!rules || typeof rules.escape_cost !== "number") return L.escape_confirm;
  const practice = game.seats.some((s) => s.bot && !s.user); // a bot of its own: practice
  if (practice && rules.practice_text) return rules.practice_text;
  // This hand's own cost, from the state frame: the settlement's computation at its levels.
  const now = game.table && typeof game.table.escape_cost === "number" ? game.table.escape_cost : rules.escape_cost;
  const head = now > 0 ? fmt(L.escape_confirm_cost, { cost: now }) : L.escape_confirm_free;
  return rules.escape_text ? `${head}\n\n${rules.escape_text}` : head;
}

/** The seat's switches: auto-ready, autopilot (托管), the turn tone; show-hand; watch a seat. */
function renderTools() {
  const target = byId("tools");
  const box = el("div");
  const mine = mySeat();
  const t = game.table;
  if (!t || tableClosed()) {
    swap(target, box);
    return;
  }
  if (mine !== null) {
    const me = seatInfo(mine);
    if ("auto_ready" in me) {
      const label = checkbox(L.auto_ready, Boolean(me.auto_ready), (on) => send({ type: "auto_ready", on }));
      label.title = L.auto_ready_title;
      label.dataset.action = "auto-ready";
      box.append(label);
    }
    if ("autopilot" in me && handLive()) {
      const on = Boolean(me.autopilot);
      box.append(button(on ? L.autopilot_stop : L.autopilot, on ? "toggle on" : "toggle", () => send({ type: "autopilot", on: !on }), {
        "data-action": "autopilot",
        "aria-pressed": on ? "true" : "false",
        title: L.autopilot_title,
      }));
    }
    const sound = soundOn();
    const bell = button("", `toggle sound${sound ? " on" : ""}`, toggleSound, {
      "data-action": "sound",
      "aria-pressed": sound ? "true" : "false",
      "aria-label": L.sound,
      title: L.sound,
    });
    bell.append(bellIcon(sound));
    box.append(bell);
  }
  if (mine !== null && !t.ranked) {
    const me = seatInfo(mine);
    box.append(checkbox(L.show_hand, Boolean(me.shows_hand), (allow) => act({ type: "show_hand", allow })));
  }
  if (mine === null && !t.ranked) {
    const select = el("select", "watch-select");
    select.setAttribute("aria-label", L.watch_seat);
    const none = el("option", "", L.watch_public);
    none.value = "";
    select.append(none);
    for (let seat = 0; seat < seatCount(); seat += 1) {
      const option = el("option", "", fmt(L.watch_n, { name: `${compass(seat)} · ${seatName(seat)}` }));
      option.value = String(seat);
      if (game.you.watching === seat) option.defaultSelected = true;
      select.append(option);
    }
    select.addEventListener("change", () => send({ type: "watch", seat: select.value === "" ? null : Number(select.value) }));
    box.append(select);
  }
  swap(target, box);
}

function checkbox(text, checked, onChange) {
  const label = el("label", "check-label");
  const input = el("input");
  input.type = "checkbox";
  input.defaultChecked = checked;
  input.addEventListener("change", () => onChange(input.checked));
  label.append(input, ` ${text}`);
  return label;
}

// --- hint and sound -----------------------------------------------------------------------------

function askHint() {
  send({ type: "hint" });
}

/** The server's suggestion, for this socket only: picked in the hand (Enter plays it). */
function onHint(frame) {
  const cards = parseCards(frame.cards || "");
  const action = selectionAction();
  if ((frame.action === "play" || frame.action === "bury") && action === frame.action && cards.length) {
    setPicked(stillHeld(cards, myCards()));
    ui.note = null;
    scheduleSelectionCheck();
    renderHand();
    renderActions();
    return;
  }
  if (frame.action === "call" && picksCalls() && frame.calls) {
    ui.calls = parseCallsText(frame.calls);
    byId("calls-pick").dataset.hand = "";
    scheduleCallCheck();
    renderCallsPick();
    renderActions();
    return;
  }
  if (frame.action === "bid" && cards.length) {
    ui.hintBid = formatCards(cards);
    setNote(fmt(L.hint_bid, { cards: cardsName(cards, L) }), "info");
    renderActions();
    return;
  }
  setNote(L.hint_none, "info");
}

let audio = null;

/** A bell drawn in SVG (an emoji may be missing from the device's fonts); struck out when off. */
function bellIcon(on) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "bell");
  svg.setAttribute("aria-hidden", "true");
  const paths = ["M6 16V11a6 6 0 0 1 12 0v5l2 2H4z", "M10 20a2 2 0 0 0 4 0"];
  if (!on) paths.push("M4 4l16 16");
  for (const d of paths) {
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

function soundOn() {
  try {
    return window.localStorage.getItem(SOUND_KEY) === "1";
  } catch {
    return false;
  }
}

function toggleSound() {
  const on = !soundOn();
  try {
    window.localStorage.setItem(SOUND_KEY, on ? "1" : "0");
  } catch {
    // private mode: the switch lasts for this page only
  }
  if (on) {
    wakeAudio();
    turnTone();
  }
  renderTools();
}

/** Browsers start sound only after a gesture: the context is made (or resumed) on one. */
function wakeAudio() {
  if (!soundOn()) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  if (!audio) audio = new Context();
  if (audio.state === "suspended") audio.resume().catch(() => {});
}

/** A short two-note chime: it is your turn. */
function turnTone() {
  if (!soundOn() || !audio) return;
  const start = audio.currentTime + 0.01;
  [[660, 0], [880, 0.12]].forEach(([frequency, offset]) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start + offset);
    gain.gain.exponentialRampToValueAtTime(0.18, start + offset + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.2);
    osc.connect(gain).connect(audio.destination);
    osc.start(start + offset);
    osc.stop(start + offset + 0.22);
  });
}

document.addEventListener("pointerdown", wakeAudio);
document.addEventListener("keydown", wakeAudio);

function statusText() {
  const v = view();
  const mine = mySeat();
  const t = game.table;
  if (!t) return L.connecting;
  if (tableClosed() && t.quick_match_offer) return t.ended_by_escape ? L.dead_escape_text : L.dead_ranked_text;
  if (tableClosed()) return L.closed_text;
  if (!handLive()) {
    if (mine === null) return config.me.logged_in ? L.pick_a_seat : L.spectating;
    const me = seatInfo(mine);
    const seated = game.seats.filter((s) => s.user || s.bot).length;
    if (seated < seatCount()) return seatCount() === 4 ? L.waiting_players : fmt(L.waiting_players_n, { n: seatCount() });
    return me.ready ? L.waiting_ready : L.press_ready_hint;
  }
  if (!v) return "";
  if (mine === null) return fmt(L.to_act_is, { name: v.to_act === null ? "—" : seatName(v.to_act) });
  if (seatInfo(mine).autopilot) return L.autopilot_on_note;
  if (v.phase === "dealing") return v.level === "NT" ? L.no_bids_at_nt : L.dealing_hint;
  if (v.phase === "bidding") return inTheftWindow(v) ? L.theft_hint : L.bidding_hint;
  if (v.phase === "burying") {
    if (burier(v) !== mine) return fmt(L.burying_by, { name: seatName(burier(v)) });
    const k = kittySize(v);
    if (isFriends(v) && !v.calls_made) return fmt(L.bury_pick_call, { n: ui.selected.length, k });
    return k === 8 ? fmt(L.bury_pick, { n: ui.selected.length }) : fmt(L.bury_pick_k, { n: ui.selected.length, k });
  }
  if (v.phase === "playing") {
    if (v.to_act !== mine) return fmt(L.to_act_is, { name: seatName(v.to_act) });
    const lead = v.trick && v.trick.plays.length ? parseCards(v.trick.plays[0].cards) : null;
    return lead ? countText("your_turn_follow", lead.length) : L.your_turn_lead;
  }
  return "";
}

function renderStatus() {
  const status = byId("status");
  status.replaceChildren();
  status.append(el("span", "status-main", statusText()));
  const action = selectionAction();
  const callsFirst = ui.check.code === "calls_missing" && picksCalls(); // the picker says what is missing
  const k = kittySize(view());
  if (action === "bury" && ui.selected.length > k) {
    status.append(el("span", "reason", fmt(L.bury_too_many, { n: ui.selected.length, k, extra: ui.selected.length - k })));
  } else if (action && ui.selected.length && ui.check.key === selectionKey(action, ui.selected) && !ui.check.pending && !ui.check.ok && !callsFirst) {
    status.append(el("span", "reason", errorText(ui.check.code, ui.check.message)));
  } else if (ui.note) {
    status.append(el("span", `note ${ui.note.kind}`, ui.note.text));
  }
}

/** The hand's level in words: "打7", or "本局级牌 7" when it is not the dealer side's level
 * (a level drawn at random every hand, seed 003). */
function handLevelText(v) {
  return levelDiffers(v) ? fmt(L.hand_level, { rank: rankWord(v.level) }) : levelText(v.level);
}

function levelDiffers(v) {
  const source = document.querySelector("#rules-card [data-option='level_source']");
  if (source && source.dataset.value === "random") return true;
  const levels = v.levels || [];
  if (v.dealer !== null && v.dealer !== undefined) return v.level !== levels[levelIndex(v, v.dealer)];
  return !levels.includes(v.level);
}

function trumpText(v) {
  const box = el("span", "trump-value");
  if (!v.trump) {
    box.append(`${handLevelText(v)} · ${L.trump_unknown}`);
    return box;
  }
  if (v.trump.suit) {
    box.append(suitIcon(v.trump.suit, "suit-icon"), ` ${(L.suit_names || {})[v.trump.suit] || v.trump.suit}`);
  } else {
    box.append(L.no_trump);
  }
  box.append(` · ${handLevelText(v)}`);
  return box;
}

/** Where a seat's level is: its team's entry, or its own in 找朋友 (levels per player). */
function levelIndex(v, seat) {
  return (v.levels || []).length > 2 ? seat : seat % 2;
}

/** A team by its seats past four seats ("1·3·5"), by compass at four. */
function teamSeats(team) {
  if (seatCount() === 4) return team === 0 ? L.team_02 : L.team_13;
  const seats = [];
  for (let seat = team; seat < seatCount(); seat += 2) seats.push(compass(seat));
  return seats.join("·");
}

/** Each side's level: "我方 打5 · 对方 打2", or by seats for a spectator; in 找朋友 your own
 * level and the dealer's ("我 打3 · 庄家 打5"). */
function sidesText(v) {
  const mine = mySeat();
  const levels = v.levels || [];
  if (levels.length > 2) {
    const parts = [];
    if (mine !== null && mine !== undefined) parts.push(`${L.my_level} ${levelText(levels[mine])}`);
    if (v.dealer !== null && v.dealer !== undefined && v.dealer !== mine) parts.push(`${L.dealer_level} ${levelText(levels[v.dealer])}`);
    return parts.join(" · ");
  }
  const teamName = (team) => {
    if (mine !== null && mine !== undefined) return team === mine % 2 ? L.us : L.them;
    return teamSeats(team);
  };
  const order = mine !== null && mine !== undefined && mine % 2 === 1 ? [1, 0] : [0, 1];
  return order.map((team) => `${teamName(team)} ${levelText(levels[team])}`).join(" · ");
}

/** 找朋友: the calls above the hand, a line each from the start of play. Until the first lead
 * shows them (RULES-SPEC.md §9.3.3) each line is held by a placeholder, so the calls' coming
 * does not push the hand down while the first trick fills. */
function stripCalls(v) {
  const list = callsList(v, "strip-item strip-calls");
  const shown = (v.calls || []).length;
  for (let i = shown; i < (v.friends || 0); i += 1) {
    list.append(el("li", "call call-pending", i === 0 ? L.calls_at_lead : "\u00a0"));
  }
  return list;
}

/** Above the hand (on a phone, where the side panel is far below): trump and level, each
 * side's level, the attackers' points and the clock, on one line. */
function renderStrip() {
  const box = el("div");
  const v = view();
  if (v) {
    // One line that never wraps (the clock's coming and going, the points growing), then one
    // line a call: the strip's height holds while a trick fills, so the hand below stays put.
    const line = el("div", "strip-line");
    const trump = el("span", "strip-item strip-trump");
    trump.append(trumpText(v));
    line.append(trump);
    line.append(el("span", "strip-item strip-sides", sidesText(v)));
    if (v.phase === "playing" || v.phase === "finished") {
      line.append(el("span", "strip-item strip-points", `${L.attackers_points} ${v.points.attackers}`));
    }
    const clock = el("span", "strip-item strip-clock", "");
    clock.dataset.clock = "1";
    line.append(clock);
    box.append(line);
    if (isFriends(v) && (v.phase === "playing" || v.phase === "finished")) box.append(stripCalls(v));
  }
  const strip = byId("strip");
  strip.hidden = !v || tableClosed();
  swap(strip, box);
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

function renderInfo() {
  const box = byId("info");
  box.replaceChildren();
  const v = view();
  if (!v) {
    box.append(el("p", "muted", L.no_hand));
    return;
  }
  const list = el("dl", "info-list");
  list.append(infoRow(L.trump, trumpText(v)));
  list.append(infoRow(L.levels, sidesText(v)));
  list.append(infoRow(L.dealer, v.dealer === null || v.dealer === undefined ? "—" : seatName(v.dealer)));
  if (v.phase === "playing" || v.phase === "finished") {
    list.append(infoRow(L.attackers_points, String(v.points.attackers)));
    list.append(infoRow(L.tricks, String(v.tricks_played)));
  }
  box.append(list);
  renderShapeInfo(box, v);
  renderHouseInfo(box, v);
  const pointCards = parseCards(v.point_cards ? v.point_cards.attackers : "");
  if (pointCards.length) {
    box.append(el("p", "info-sub", L.point_cards));
    box.append(cardRow(pointCards, L, "mini points-row"));
  }
  // The server sends the kitty to the seat that buried it last only (RULES-SPEC.md §10.24).
  if (v.kitty && (v.phase === "playing" || inTheftWindow(v))) {
    box.append(el("p", "info-sub", L.your_kitty));
    box.append(cardRow(parseCards(v.kitty), L, "mini"));
  }
  const bids = v.bids || [];
  if (bids.length && ["dealing", "bidding", "burying"].includes(v.phase)) {
    box.append(el("p", "info-sub", L.bids));
    const list2 = el("ul", "bid-list");
    for (const b of bids) {
      const item = el("li");
      item.append(`${seatName(b.seat)} · ${(L.bid_kinds || {})[b.kind] || b.kind} `, cardRow(parseCards(b.cards), L, "mini"));
      list2.append(item);
    }
    box.append(list2);
  }
  if (v.flipped) {
    box.append(el("p", "info-sub", L.flipped));
    box.append(cardRow(parseCards(v.flipped), L, "mini"));
  }
}

// --- house options (RULES-SPEC.md §10; games/house_options.py) ------------------------------

/** Points a view may hide (hide_defender_points, §10.8: null while the hand is played): "?". */
function pointsShown(n) {
  return n === null || n === undefined ? "?" : n;
}

/** A failed throw's note, naming who stopped it under name_throw_blocker (§10.10). */
function withBlocker(text, failed) {
  if (failed.blocker === null || failed.blocker === undefined) return text;
  return `${text} ${fmt(L.throw_blocker, { name: seatName(failed.blocker) })}`;
}

/** A house option's value on this table's rules card (its row is there only when changed). */
function houseValue(option, otherwise) {
  const row = document.querySelector(`#rules-card [data-option='${option}']`);
  return row ? row.dataset.value : otherwise;
}

/** The cards of the table's decks: 13 ranks less those below deck_min_rank, jokers unless
 * deck_jokers is none (§10.12). */
function deckCards(decks) {
  const ranks = 13 - "23456789TJQKA".indexOf(houseValue("deck_min_rank", "2"));
  const jokers = houseValue("deck_jokers", "all") === "none" ? 0 : 2;
  return (ranks * 4 + jokers) * decks;
}

/** The cards taken out of the deal (§10.11) and, under play_history full (§10.9), every trick
 * of the hand: its plays in order, who took it and its points ("?" when hidden). */
function renderHouseInfo(box, v) {
  const removed = parseCards(v.removed || "");
  if (removed.length) {
    box.append(el("p", "info-sub", L.removed_cards));
    box.append(cardRow(removed, L, "mini"));
  }
  const tricks = v.tricks || [];
  if (!tricks.length) return;
  const history = el("details", "trick-history");
  history.id = "trick-history";
  history.open = ui.historyOpen === true;
  history.addEventListener("toggle", () => { ui.historyOpen = history.open; });
  history.append(el("summary", "info-sub", fmt(L.all_tricks, { n: tricks.length })));
  const list = el("ol", "trick-history-list");
  for (const trick of tricks) {
    const item = el("li", "trick-history-item");
    const head = fmt(L.trick_taken_by, { name: seatName(trick.winner) });
    item.append(el("span", "trick-history-head", `${head} · ${fmt(L.trick_points, { n: pointsShown(trick.points) })}`));
    for (const play of trick.plays) {
      const line = el("span", "trick-history-play");
      line.append(el("span", "play-who", `${seatName(play.seat)}:`), cardRow(parseCards(play.cards), L, "mini"));
      item.append(line);
    }
    list.append(item);
  }
  history.append(list);
  box.append(history);
}

/** 找朋友 and bigger tables: the calls and how far each is, then every seat's points taken and
 * (找朋友) level, the dealer's side marked. */
function renderShapeInfo(box, v) {
  if (isFriends(v)) {
    box.append(el("p", "info-sub", L.calls_title));
    if (v.calls && v.calls.length) box.append(callsList(v, "calls-info"));
    else box.append(el("p", "muted calls-note", v.calls_made ? L.calls_at_lead : L.calls_waiting));
  }
  if (!v.seat_points || seatCount() === 4 && !isFriends(v)) return;
  if (!["playing", "finished"].includes(v.phase) && !isFriends(v)) return;
  box.append(el("p", "info-sub", isFriends(v) ? `${L.seat_points_title} · ${L.levels_each}` : L.seat_points_title));
  const list = el("ul", "seat-table");
  for (let seat = 0; seat < seatCount(); seat += 1) {
    const item = el("li", "seat-row");
    if (seat === v.dealer) item.classList.add("dealer");
    if (isFriendOfDealer(v, seat)) item.classList.add("friend");
    const who = el("span", "seat-row-name");
    who.append(el("span", "wind", compass(seat)), ` ${seatName(seat)}`);
    if (seat === v.dealer) who.append(" ", el("span", "badge dealer", L.dealer_short));
    if (isFriendOfDealer(v, seat)) who.append(" ", el("span", "badge friend", L.friend_badge));
    item.append(who);
    if (isFriends(v)) item.append(el("span", "seat-row-level", levelText(v.levels[seat])));
    item.append(el("span", "seat-row-points", fmt(L.seat_points, { n: pointsShown(v.seat_points[seat]) })));
    list.append(item);
  }
  box.append(list);
}

/** The last hand's result is on show: the hand is over (not void) and the table open. */
function resultShown() {
  const v = view();
  return Boolean(v && v.phase === "finished" && v.result && !tableClosed());
}

/** When the next hand starts, as the server times it (docs/PROTOCOL.md, "The pause after a
 * hand"): the pause after the hand's end, once every seat is ready; null while some are not. */
function nextHandText() {
  const hand = game.hand;
  if (!hand || handLive()) return "";
  const seated = game.seats.length >= seatCount() && game.seats.every((s) => s.user || s.bot);
  if (!seated || !game.seats.every((s) => s.ready)) return L.next_hand_waiting;
  const ended = hand.finished_at ? Date.parse(hand.finished_at) : ui.finishedSeen.get(hand.id) || serverNow();
  const left = Math.ceil((ended + (config.next_hand_pause_s || 0) * 1000 - serverNow()) / 1000);
  return left > 0 ? fmt(L.next_hand_in, { n: left }) : L.next_hand_soon;
}

function renderResult() {
  const box = byId("result");
  const v = view();
  if (!resultShown()) {
    box.hidden = true;
    box.classList.remove("sheet");
    box.replaceChildren();
    return;
  }
  if (!ui.finishedSeen.has(game.hand.id)) ui.finishedSeen.set(game.hand.id, serverNow());
  // The result stays until its reader closes it (or presses ready). On a phone it is a sheet
  // over the table, but never over a free seat's buttons: then it sits below, in the page.
  box.hidden = ui.resultClosed === game.hand.id;
  box.classList.add("sheet");
  box.classList.toggle("in-page", seatFree());
  box.replaceChildren();
  const r = v.result;
  const head = el("div", "result-head");
  head.append(el("h2", "", L.result_title));
  const buttons = el("span", "result-buttons");
  const mine = mySeat();
  if (mine !== null && !seatInfo(mine).ready) {
    buttons.append(button(L.press_ready, "primary result-ready", () => closeResult(true), { "data-action": "result-ready" }));
  }
  buttons.append(button(L.result_close, "secondary result-close", () => closeResult(), { "data-action": "close-result" }));
  head.append(buttons);
  box.append(head);
  const next = el("p", "next-hand", nextHandText());
  next.dataset.nextHand = "1";
  box.append(next);
  if (ui.readyHeldFor === game.hand.id) box.append(el("p", "result-line ready-held", L.auto_ready_waits));
  if (r.escaper !== null && r.escaper !== undefined) {
    box.append(el("p", "result-line", fmt(L.result_escape, { name: escaperName(r.escaper) })));
  } else {
    const side = r.winner === "attackers" ? L.attackers : L.defenders;
    const headline = r.levels_gained > 0 ? fmt(L.result_winner, { side, n: r.levels_gained }) : L.result_take_deal;
    box.append(el("p", "result-headline", headline));
    const list = el("dl", "info-list");
    list.append(infoRow(L.attackers_points, String(r.attacker_points)));
    list.append(infoRow(L.trick_points_label, String(r.trick_points)));
    const bonus = r.kitty_multiplier ? fmt(L.kitty_bonus_value, { points: r.kitty_points, times: r.kitty_multiplier, bonus: r.kitty_bonus }) : "0";
    list.append(infoRow(L.kitty_bonus, bonus));
    if (r.penalty_points) list.append(infoRow(L.penalty_points, String(r.penalty_points)));
    if (r.small_side_bonus) list.append(infoRow(L.side_final, fmt(L.small_side_bonus, { n: r.small_side_bonus })));
    if (r.levels_at_start.length > 2) {
      r.levels_at_start.forEach((level, seat) => {
        const after = r.levels_after[seat];
        const side = r.defenders.includes(seat) ? L.defenders_short : L.attackers_short;
        list.append(infoRow(`${compass(seat)} ${seatName(seat)} · ${side}`, level === after ? levelText(level) : `${levelText(level)} → ${levelText(after)}`));
      });
    } else {
      list.append(infoRow(teamSeats(0), `${levelText(r.levels_at_start[0])} → ${levelText(r.levels_after[0])}`));
      list.append(infoRow(teamSeats(1), `${levelText(r.levels_at_start[1])} → ${levelText(r.levels_after[1])}`));
    }
    if (r.next_dealer !== null && r.next_dealer !== undefined) list.append(infoRow(L.next_dealer, seatName(r.next_dealer)));
    box.append(list);
    if (r.match_over) box.append(el("p", "result-line", L.match_over));
    if (v.kitty) {
      box.append(el("p", "info-sub", L.kitty));
      box.append(cardRow(parseCards(v.kitty), L, "mini"));
    }
  }
  const ledgerBox = el("div", "ledger");
  box.append(ledgerBox);
  renderLedger(ledgerBox, game.hand.id);
  const links = el("p", "result-links");
  const replay = el("a", "replay-link", L.watch_replay);
  replay.href = config.urls.replay.replace("/0/", `/${game.hand.id}/`);
  links.append(replay);
  box.append(links);
  requestAnimationFrame(fitSheet);
}

/** Over the table on a phone, the result reaches down to the table's buttons, not over them
 * (ready, the last trick); past that it scrolls under its own head. */
function fitSheet() {
  const box = byId("result");
  if (box.hidden || getComputedStyle(box).position !== "absolute") {
    box.style.removeProperty("--sheet-max");
    return;
  }
  const room = byId("actions").getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
  box.style.setProperty("--sheet-max", `${Math.max(240, Math.floor(room))}px`);
}

function seatFree() {
  const t = game.table;
  if (!t || tableClosed()) return false;
  const taken = game.seats.filter((s) => s.user || s.bot).length;
  return taken < seatCount();
}

/** The reader closes the result: with auto-ready on (or by the ready button, `readyNow`), that
 * is their ready for the next hand. */
function closeResult(readyNow = false) {
  const hand = game.hand;
  if (!hand) return;
  ui.resultClosed = hand.id;
  store(RESULT_CLOSED_KEY, hand.id);
  const mine = mySeat();
  if (mine !== null && !seatInfo(mine).ready && (readyNow || ui.readyHeldFor === hand.id)) act({ type: "ready", ready: true });
  renderResult();
  renderActions();
}

/** Auto-ready waits for the result (docs/PROTOCOL.md, "The pause after a hand"): while this
 * player's result is open, the page takes back the ready the hand's end gave them, once a hand;
 * closing the result (or pressing ready) gives it again. The next hand starts when the last
 * reader does, so it never starts under an open result. */
function holdReadyWhileResultOpen() {
  const mine = mySeat();
  const hand = game.hand;
  if (mine === null || !hand || !resultShown() || ui.resultClosed === hand.id) return;
  if (ui.readyHeldFor === hand.id) return;
  if (document.visibilityState !== "visible") return; // nobody is reading a page put away
  const me = seatInfo(mine);
  // On 托管 the player asked the table to go on without them: their auto-ready stands.
  if (!me.auto_ready || !me.ready || me.autopilot) return;
  ui.readyHeldFor = hand.id;
  store(READY_HELD_KEY, hand.id);
  act({ type: "ready", ready: false });
}

/** A page put away (another tab, a locked phone) holds nobody up: the ready it took back is
 * given again once it has stayed hidden a moment, and not taken back again for that hand. A
 * page being closed, left or reloaded is hidden too on its way out: its hold stands (a reload
 * keeps it), and it sends nothing, since it is gone before the moment is over. */
const HIDDEN_RELEASE_MS = 2000;
let leavingPage = false;
let releaseTimer = null;
window.addEventListener("pagehide", () => { leavingPage = true; });
window.addEventListener("pageshow", () => { leavingPage = false; });

function releaseHeldReadyWhenHidden() {
  clearTimeout(releaseTimer);
  if (document.visibilityState !== "visible") releaseTimer = setTimeout(releaseHeldReady, HIDDEN_RELEASE_MS);
}

function releaseHeldReady() {
  if (leavingPage || document.visibilityState === "visible") return;
  const mine = mySeat();
  const hand = game.hand;
  if (mine === null || !hand || ui.readyHeldFor !== hand.id || ui.resultClosed === hand.id) return;
  if (!seatInfo(mine).ready) act({ type: "ready", ready: true });
}
document.addEventListener("visibilitychange", releaseHeldReadyWhenHidden);

function askLedgerAgain(handId) {
  const tries = ui.ledgerTries.get(handId) || 0;
  if (tries >= LEDGER_TRIES) return false;
  ui.ledgerTries.set(handId, tries + 1);
  setTimeout(() => {
    ui.ledger.delete(handId);
    renderResult();
  }, LEDGER_RETRY_MS);
  return true;
}

function renderLedger(box, handId) {
  const known = ui.ledger.get(handId);
  if (known === undefined) {
    ui.ledger.set(handId, "loading");
    fetch(config.urls.ledger.replace("/0/", `/${handId}/`), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : null))
      .then((body) => {
        // The settlement (the hand's wrap-up) is a moment behind the hand's end, and a busy
        // server can miss an answer: ask again a while before showing nothing.
        if ((!body || body.settled === false) && askLedgerAgain(handId)) return;
        ui.ledger.set(handId, body ? (body.practice ? "practice" : body.players) : []);
        renderResult();
      })
      .catch(() => {
        if (!askLedgerAgain(handId)) ui.ledger.set(handId, []);
      });
    box.append(el("p", "muted", L.loading));
    return;
  }
  if (known === "loading") {
    box.append(el("p", "muted", L.loading));
    return;
  }
  if (known === "practice") {
    box.append(el("p", "info-sub ledger-practice", L.practice_hand));
    return;
  }
  if (!known.length) return;
  const tableNode = el("table", "ledger-table");
  const head = el("tr");
  for (const text of [L.player, L.table_points, L.title_points]) head.append(el("th", "", text));
  const thead = el("thead");
  thead.append(head);
  tableNode.append(thead);
  const body = el("tbody");
  for (const row of known) {
    const tr = el("tr");
    tr.append(el("td", "", row.name || seatName(row.seat)));
    const tp = el("td", `num ${row.table_points > 0 ? "up" : row.table_points < 0 ? "down" : ""}`, signed(row.table_points));
    tp.title = row.entries.map((e) => `${e.kind}: ${signed(e.amount)}`).join("\n");
    const parts = row.entries.filter((e) => e.account !== "title");
    if (parts.length > 1) tp.append(el("div", "ledger-breakdown", parts.map((e) => `${e.kind} ${signed(e.amount)}`).join(" · ")));
    tr.append(tp);
    tr.append(el("td", "num", signed(row.title_points)));
    body.append(tr);
  }
  tableNode.append(body);
  box.append(el("p", "info-sub", L.ledger_title), tableNode);
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

// System lines carry a code and their parts (docs/PROTOCOL.md); each is shown in the page's
// words. Which parts of each code are a seat (named: "南家") and which are cards (in words).
const SYSTEM_PARTS = {
  sits: { seats: [1] },
  leaves: { seats: [1] },
  bot_sits: { seats: [0] },
  bids: { seats: [0], cards: [1] },
  throw_forced: { seats: [0], cards: [1, 2] },
  throw_back: { seats: [0] },
  escaped: { seats: [1] },
  bot_plays: { seats: [0] },
  autopilot_on: { seats: [0] },
  autopilot_off: { seats: [0] },
  back: { seats: [1] },
  removed: { seats: [0] },
  away_freed: { seats: [1] },
  friends_called: { seats: [0], calls: [1] },
  friend_joins: { seats: [0], cards: [1], nth: [2] },
  call_spent: { seats: [0], cards: [1], nth: [2] },
  timeout_play: { seats: [0], cards: [1] },
  timeout_bury: { seats: [0] },
  timeout_call: { seats: [0] },
  takeback_bid: { seats: [0], cards: [1] },
  takeback_play: { seats: [0], cards: [1] },
};

// Old lines (written before lines had a code) are read from their English text.
const SYSTEM_LINES = [
  ["bot_sits", /^a bot sits at seat (\d)$/],
  ["hand_starts", /^hand (\d+) of match (\d+) starts$/],
  ["bids", /^seat (\d) bids (.+)$/],
  ["throw_forced", /^seat (\d)'s throw (.+) fails: (.+) is played instead$/],
  ["throw_back", /^seat (\d)'s throw fails and is taken back$/],
  ["result", /^hand (\d+): attackers (-?\d+) points, (attackers|defenders) \+(\d+)$/],
  ["escaped", /^hand (\d+): seat (\d) escaped$/],
  ["bot_plays", /^the bot plays seat (\d) for (.+)$/],
  ["closed", /^the table was closed by an admin$/],
  ["removed", /^an admin removed the player at seat (\d)$/],
  ["practice", /^a practice hand: a bot is seated, no points or ratings move$/],
  ["away_freed", /^(.+) is away: seat (\d) is free$/],
  ["stands_short", /^(.+) stands up: this table needs (\d+) table points$/],
  ["sits", /^(.+) sits at seat (\d)$/],
  ["leaves", /^(.+) leaves seat (\d)$/],
  ["back", /^(.+) is back at seat (\d)$/],
];

/** A result line reads by who won and how far: 庄家升 N 级, 闲家上台, 闲家上台并升 N 级. */
function resultKey(params) {
  if (params[2] === "defenders") return "result_defenders";
  return Number(params[3]) > 0 ? "result_attackers" : "result_take_deal";
}

/** The seat a line names, as its player: the name the line stores for the seat (a bot's seat:
 * "电脑（3号位）"); a line stored before lines named players: the seat ("3号位"). */
function lineSeat(code, params, i) {
  const seat = Number(params[i]);
  const where = (L.system_names || {})[code];
  if (!where || where[0] !== i || params.length <= where[1]) return seatCalled(seat);
  const name = String(params[where[1]]);
  return name || fmt(L.bot_at, { seat: seatCalled(seat) });
}

/** Who escaped the hand shown: the name its `escaped` line stores (their seat is free once the
 * hand is wrapped up), else whoever sits there. */
function escaperName(seat) {
  const number = game.hand && game.hand.number;
  const line = game.chat.slice().reverse().find((l) => l.system && l.code === "escaped" && Array.isArray(l.params)
    && Number(l.params[0]) === number && Number(l.params[1]) === seat);
  return line ? lineSeat("escaped", line.params, 1) : seatName(seat);
}

/** The line's words from its code and parts; null when the page has no words for the code. */
function systemWords(code, params) {
  const words = L.system || {};
  const key = code === "result" ? resultKey(params) : code;
  if (!words[key]) return null;
  const parts = SYSTEM_PARTS[code] || {};
  const values = {};
  params.forEach((part, i) => {
    if ((parts.seats || []).includes(i) && /^\d$/.test(String(part))) values[i] = lineSeat(code, params, i);
    else if ((parts.cards || []).includes(i)) values[i] = cardsName(parseCards(String(part)), L);
    else if ((parts.calls || []).includes(i)) values[i] = callsWords(String(part));
    else if ((parts.nth || []).includes(i) && /^\d$/.test(String(part))) values[i] = Number(part);
    else values[i] = part;
  });
  return fmt(words[key], values);
}

function systemText(line) {
  if (line.code) {
    const text = systemWords(line.code, Array.isArray(line.params) ? line.params : []);
    if (text !== null) return text;
    return line.text;
  }
  for (const [kind, pattern] of SYSTEM_LINES) {
    const match = pattern.exec(line.text || "");
    if (!match) continue;
    const text = systemWords(kind, match.slice(1));
    if (text !== null) return text;
  }
  return line.text;
}

function renderChat() {
  const list = byId("chat-lines");
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
  list.replaceChildren();
  for (const line of game.chat) {
    const item = el("li", line.system ? "system" : "");
    if (!line.system && line.user) item.append(el("b", "", `${line.user}: `));
    item.append(document.createTextNode(line.system ? systemText(line) : line.text));
    list.append(item);
  }
  if (atBottom) list.scrollTop = list.scrollHeight;
  const form = byId("chat-form");
  form.hidden = !config.me.logged_in;
}

/** Whose time the deadline is: a player's bury or play, or everyone's bid window. Not the
 * deal's next cards, nor a bot's (or 托管's) short delay. */
function clockKind() {
  const v = view();
  if (!handLive() || !v || game.deadlineAt === null) return null;
  if (v.phase === "bidding") return "bidding";
  if (!["burying", "playing"].includes(v.phase) || v.to_act === null || v.to_act === undefined) return null;
  return seatInfo(v.to_act).bot ? null : "turn";
}

/** The dealer's step the clock counts in 找朋友: the calls, then the bury (each its own time). */
function clockStep(kind) {
  const v = view();
  if (kind !== "turn" || !v || v.phase !== "burying" || !isFriends(v)) return "";
  return v.calls_made ? L.clock_bury : L.clock_calls;
}

function renderClock() {
  const kind = clockKind();
  const remaining = kind === null ? null : Math.max(0, Math.ceil((game.deadlineAt - serverNow()) / 1000));
  const text = remaining === null ? "" : `${remaining}s`;
  const clock = byId("clock");
  const step = clockStep(kind);
  const shown = kind === "bidding" ? `${L.clock_bidding} ${text}` : step ? `${step} ${text}` : text;
  if (remaining !== null) sendPicksBeforeTimeUp(remaining);
  clock.textContent = shown;
  clock.classList.toggle("urgent", kind === "turn" && remaining <= 5);
  for (const node of root.querySelectorAll("[data-next-hand]")) node.textContent = nextHandText();
  for (const node of root.querySelectorAll("[data-clock]")) node.textContent = shown;
  for (const node of root.querySelectorAll("[data-away-until]")) node.textContent = awayText(node.dataset.awayUntil);
}

// --- input ---------------------------------------------------------------------------------------

byId("hand").addEventListener("click", (event) => {
  const node = event.target.closest("button.card");
  if (!node) return;
  toggle(Number(node.dataset.index));
});

byId("hand").addEventListener("keydown", (event) => {
  const cards = myCards();
  if (!cards.length) return;
  let next = null;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") next = Math.min(cards.length - 1, ui.focus + 1);
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = Math.max(0, ui.focus - 1);
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = cards.length - 1;
  else if (event.key === " " || event.key === "Spacebar") {
    event.preventDefault();
    toggle(ui.focus);
    focusCard();
    return;
  } else if (event.key === "Enter") {
    event.preventDefault();
    primaryAction();
    return;
  } else if (event.key === "Escape") {
    setPicked([]);
    scheduleSelectionCheck();
    renderHand();
    renderActions();
    focusCard();
    return;
  }
  if (next === null) return;
  event.preventDefault();
  ui.focus = next;
  renderHand();
  focusCard();
});

function focusCard() {
  const node = byId("hand").querySelector(`[data-index="${ui.focus}"]`);
  if (node) node.focus();
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLElement && event.target.closest("input, textarea, select, #hand")) return;
  if (event.key === "Enter" && selectionAction() && ui.selected.length) {
    event.preventDefault();
    primaryAction();
  } else if (event.key === "l" || event.key === "L") {
    const v = view();
    if (v && v.last_trick) {
      ui.showLast = !ui.showLast;
      renderTrick();
      renderActions();
    }
  }
});

byId("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = byId("chat-input");
  const text = input.value.trim();
  if (!text) return;
  if (text.length > 200) {
    setNote(errorText("chat_too_long"), "error");
    return;
  }
  if (send({ type: "chat", text })) input.value = "";
});

let resizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    renderHand();
    fitSheet();
  }, 120);
});

setInterval(renderClock, 250);

// The table's notice is open on a wide screen; on a phone it starts folded, the table first.
if (window.matchMedia("(min-width: 601px)").matches) byId("table-notice").open = true;

// For the browser tests and for people reading along: the newest state, read-only.
window.shengjiTable = {
  get state() {
    return JSON.parse(JSON.stringify({ table: game.table, seats: game.seats, you: game.you, hand: game.hand }));
  },
  cardName: (card) => cardName(card, L),
  points: cardPoints,
};

connect();
