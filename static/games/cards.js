// Cards: notation (docs/NOTATION.md), the display order of docs/RULES-SPEC.md §2, and SVG card faces.
// Plain ES module, no build step, no dependency. Every face is drawn here (no image files):
// the suits are paths, so they look the same whatever fonts the device has.

const SVG = "http://www.w3.org/2000/svg";

export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
export const SUITS = ["S", "H", "C", "D"];
export const JOKERS = ["SJ", "BJ"];
const RED = new Set(["H", "D", "BJ"]);
const POINTS = { 5: 5, T: 10, K: 10 };

// --- notation ----------------------------------------------------------------------------------

/** "AS AS 5H" → ["AS", "AS", "5H"]; tolerant of glued cards ("4S4S6S6S") and lower case. */
export function parseCards(text) {
  if (!text) return [];
  const glued = String(text).toUpperCase().replace(/\s+/g, "");
  const cards = [];
  for (let i = 0; i + 1 < glued.length; i += 2) cards.push(glued.slice(i, i + 2));
  return cards;
}

export function formatCards(cards) {
  return cards.join(" ");
}

export function isJoker(card) {
  return card === "SJ" || card === "BJ";
}

export function rankOf(card) {
  return isJoker(card) ? card : card[0];
}

export function suitOf(card) {
  return isJoker(card) ? null : card[1];
}

export function isRed(card) {
  return RED.has(isJoker(card) ? card : card[1]);
}

export function points(card) {
  return isJoker(card) ? 0 : POINTS[card[0]] || 0;
}

/** The rank as printed on a face: T is written 10. */
export function rankText(card) {
  const rank = rankOf(card);
  return rank === "T" ? "10" : rank;
}

// --- trump and display order (RULES-SPEC.md §2) -----------------------------------------------

/** Is the card a trump (主牌) with this level rank and trump suit (null: no-trump, 无主)? */
export function isTrump(card, trump) {
  if (isJoker(card)) return true;
  if (!trump) return false;
  return card[0] === trump.level || (trump.suit !== null && trump.suit !== undefined && card[1] === trump.suit);
}

/** Did the winning play of a finished trick ruff (毙): all trump over a non-trump lead? */
export function isRuff(trick, trump) {
  if (!trick || trick.winner === null || trick.winner === undefined || !trick.plays.length) return false;
  const lead = parseCards(trick.plays[0].cards);
  const won = trick.plays.find((play) => play.seat === trick.winner);
  if (!won || won === trick.plays[0] || lead.some((card) => isTrump(card, trump))) return false;
  return parseCards(won.cards).every((card) => isTrump(card, trump));
}

/** "trump" or the card's suit letter: the suit group a play is judged by. */
export function suitGroup(card, trump) {
  return isTrump(card, trump) ? "trump" : card[1];
}

/**
 * A sort key, smaller first: trumps first (BJ, SJ, the trump suit's level card, the other level
 * cards, then the trump suit A…2 without the level rank), then the other suits S H C D, each
 * A…2. With no trump known yet (the deal), `trump` may carry only the level: jokers and level
 * cards then lead, as the server sorts.
 */
export function sortKey(card, trump) {
  const level = trump ? trump.level : null;
  const suit = trump ? trump.suit : null;
  if (card === "BJ") return [0, 0, 0];
  if (card === "SJ") return [0, 1, 0];
  const rank = card[0];
  const cardSuit = card[1];
  const suitIndex = SUITS.indexOf(cardSuit);
  const high = 12 - RANKS.indexOf(rank); // A → 0 … 2 → 12
  if (rank === level) return [0, cardSuit === suit ? 2 : 3, suitIndex];
  if (suit && cardSuit === suit) return [0, 4, high];
  return [1 + suitIndex, high, 0];
}

export function compareCards(a, b, trump) {
  const ka = sortKey(a, trump);
  const kb = sortKey(b, trump);
  for (let i = 0; i < ka.length; i += 1) if (ka[i] !== kb[i]) return ka[i] - kb[i];
  return 0;
}

export function sortCards(cards, trump) {
  return [...cards].sort((a, b) => compareCards(a, b, trump));
}

// --- words (translated labels come from the page) -----------------------------------------------

/** "黑桃A" / "A of spades": the accessible name of a card, from the page's labels. */
export function cardName(card, L) {
  if (card === "BJ") return L.big_joker || "BJ";
  if (card === "SJ") return L.small_joker || "SJ";
  const suitName = (L.suit_names || {})[card[1]] || card[1];
  const rank = (L.rank_names || {})[card[0]] || rankText(card);
  return (L.card_format || "{rank} of {suit}").replace("{rank}", rank).replace("{suit}", suitName);
}

export function cardsName(cards, L) {
  return cards.map((c) => cardName(c, L)).join(L.list_separator || ", ");
}

// --- SVG faces ----------------------------------------------------------------------------------

function node(name, attributes, parent) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes || {})) element.setAttribute(key, String(value));
  if (parent) parent.append(element);
  return element;
}

// Suit shapes drawn in a 10 × 10 box.
const SUIT_PATHS = {
  H: "M5 9.3C3.4 7.9 .5 5.7 .5 3.3.5 1.7 1.7.5 3.2.5 4 .5 4.7 1 5 1.8 5.3 1 6 .5 6.8.5 8.3.5 9.5 1.7 9.5 3.3 9.5 5.7 6.6 7.9 5 9.3Z",
  D: "M5 .2 9 5 5 9.8 1 5Z",
  S: "M5 .3C6.6 2 9.5 4 9.5 6.2 9.5 7.7 8.3 8.6 7 8.6 6.2 8.6 5.6 8.2 5.3 7.7 5.5 8.7 6 9.3 6.8 9.8H3.2C4 9.3 4.5 8.7 4.7 7.7 4.4 8.2 3.8 8.6 3 8.6 1.7 8.6.5 7.7.5 6.2.5 4 3.4 2 5 .3Z",
  C: "M5 .4A2.3 2.3 0 0 1 6.9 4 2.3 2.3 0 1 1 5.6 7.9C5.8 8.8 6.3 9.4 7 9.8H3C3.7 9.4 4.2 8.8 4.4 7.9A2.3 2.3 0 1 1 3.1 4 2.3 2.3 0 0 1 5 .4Z",
};

const INK_RED = "#c8102e";
const INK_BLACK = "#1b1b1f";

/** A suit shape as an SVG group at (x, y), `size` wide. */
export function suitShape(suit, x, y, size, color) {
  const group = node("g", { transform: `translate(${x} ${y}) scale(${size / 10})` });
  node("path", { d: SUIT_PATHS[suit], fill: color }, group);
  return group;
}

/** A small inline SVG of a suit, for text such as the trump indicator. */
export function suitIcon(suit, className) {
  const svg = node("svg", { viewBox: "0 0 10 10", class: className || "suit-icon", "aria-hidden": "true", focusable: "false" });
  svg.append(suitShape(suit, 0, 0, 10, RED.has(suit) ? INK_RED : INK_BLACK));
  return svg;
}

// Pip positions (in a 100 × 140 face) for the number cards; the classic layouts.
const PIPS = {
  2: [[50, 34], [50, 106, 1]],
  3: [[50, 34], [50, 70], [50, 106, 1]],
  4: [[32, 34], [68, 34], [32, 106, 1], [68, 106, 1]],
  5: [[32, 34], [68, 34], [50, 70], [32, 106, 1], [68, 106, 1]],
  6: [[32, 34], [68, 34], [32, 70], [68, 70], [32, 106, 1], [68, 106, 1]],
  7: [[32, 34], [68, 34], [50, 52], [32, 70], [68, 70], [32, 106, 1], [68, 106, 1]],
  8: [[32, 34], [68, 34], [50, 52], [32, 70], [68, 70], [50, 88, 1], [32, 106, 1], [68, 106, 1]],
  9: [[32, 32], [68, 32], [32, 57], [68, 57], [50, 70], [32, 83, 1], [68, 83, 1], [32, 108, 1], [68, 108, 1]],
  T: [[32, 32], [68, 32], [50, 45], [32, 57], [68, 57], [32, 83, 1], [68, 83, 1], [50, 95, 1], [32, 108, 1], [68, 108, 1]],
};

function corner(svg, card, color) {
  const group = node("g", {}, svg);
  const wide = rankText(card).length > 1;
  const text = node("text", {
    x: 12.5,
    y: 27,
    "text-anchor": "middle",
    "font-size": wide ? 24 : 27,
    "font-weight": 700,
    "font-family": "Georgia, 'DejaVu Serif', 'Times New Roman', serif",
    fill: color,
    // "10" squeezed into the corner's width: it shows whole however far the next card overlaps
    ...(wide ? { textLength: 21, lengthAdjust: "spacingAndGlyphs" } : {}),
  }, group);
  text.textContent = rankText(card);
  group.append(suitShape(card[1], 4.5, 32, 16, color));
  return group;
}

function jokerCorner(svg, color) {
  const group = node("g", {}, svg);
  "JOKER".split("").forEach((letter, i) => {
    const text = node("text", {
      x: 12,
      y: 19 + i * 13,
      "text-anchor": "middle",
      "font-size": 13,
      "font-weight": 700,
      "font-family": "system-ui, 'DejaVu Sans', sans-serif",
      fill: color,
    }, group);
    text.textContent = letter;
  });
  return group;
}

function star(cx, cy, outer, inner) {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const radius = i % 2 === 0 ? outer : inner;
    const angle = (Math.PI / 5) * i - Math.PI / 2;
    points.push(`${(cx + radius * Math.cos(angle)).toFixed(2)},${(cy + radius * Math.sin(angle)).toFixed(2)}`);
  }
  return points.join(" ");
}

function drawCenter(svg, card, color) {
  const rank = card[0];
  const suit = card[1];
  if (rank === "A") {
    svg.append(suitShape(suit, 30, 50, 40, color));
    return;
  }
  if (rank === "J" || rank === "Q" || rank === "K") {
    node("rect", { x: 22, y: 24, width: 56, height: 92, rx: 4, fill: RED.has(suit) ? "#fdf0f1" : "#f1f2f6", stroke: color, "stroke-width": 1.2 }, svg);
    const letter = node("text", {
      x: 50,
      y: 82,
      "text-anchor": "middle",
      "font-size": 40,
      "font-weight": 700,
      "font-family": "Georgia, 'DejaVu Serif', 'Times New Roman', serif",
      fill: color,
    }, svg);
    letter.textContent = rank;
    svg.append(suitShape(suit, 43, 30, 14, color));
    const low = suitShape(suit, 43, 96, 14, color);
    low.setAttribute("transform", `rotate(180 50 103) ${low.getAttribute("transform")}`);
    svg.append(low);
    return;
  }
  for (const [x, y, flipped] of PIPS[rank] || []) {
    const pip = suitShape(suit, x - 8, y - 8, 16, color);
    if (flipped) pip.setAttribute("transform", `rotate(180 ${x} ${y}) ${pip.getAttribute("transform")}`);
    svg.append(pip);
  }
}

/**
 * A compact face for small cards (tricks on a phone, point cards, bids): a big index and a big
 * suit, readable at 26 px wide. Small rows overlap, so only the card's left part may show: the
 * index sits in the left 45 % (10 is drawn narrower to fit there), a large suit fills the rest.
 */
function compactFace(svg, card, color) {
  if (isJoker(card)) {
    "JKR".split("").forEach((letter, i) => {
      const text = node("text", {
        x: 24,
        y: 36 + i * 30,
        "text-anchor": "middle",
        "font-size": 30,
        "font-weight": 800,
        "font-family": "system-ui, 'DejaVu Sans', sans-serif",
        fill: color,
      }, svg);
      text.textContent = letter;
    });
    node("polygon", { points: star(66, 104, 24, 10), fill: card === "BJ" ? INK_RED : "none", stroke: color, "stroke-width": 4, "stroke-linejoin": "round" }, svg);
    return;
  }
  const rank = rankText(card);
  const attributes = {
    x: 24,
    y: 56,
    "text-anchor": "middle",
    "font-size": 56,
    "font-weight": 700,
    "font-family": "Georgia, 'DejaVu Serif', 'Times New Roman', serif",
    fill: color,
  };
  if (rank.length > 1) {
    // two digits in the width of one: squeezed to 40 units, so "10" never shows as "1("
    Object.assign(attributes, { "font-size": 50, textLength: 40, lengthAdjust: "spacingAndGlyphs" });
  }
  const text = node("text", attributes, svg);
  text.textContent = rank;
  svg.append(suitShape(card[1], 6, 66, 36, color));
  svg.append(suitShape(card[1], 48, 82, 44, color));
}

/** The SVG face of one card (100 × 140 units; the element scales to its box). */
export function cardFace(card, options = {}) {
  const svg = node("svg", { viewBox: "0 0 100 140", class: `face${options.compact ? " compact" : ""}`, "aria-hidden": "true", focusable: "false" });
  const joker = isJoker(card);
  const color = isRed(card) ? INK_RED : INK_BLACK;
  node("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fffefb", stroke: "#8a8f98", "stroke-width": 1.5 }, svg);
  if (options.compact) {
    compactFace(svg, card, color);
    return svg;
  }
  if (joker) {
    jokerCorner(svg, color);
    const low = jokerCorner(svg, color);
    low.setAttribute("transform", "rotate(180 50 70)");
    node("polygon", { points: star(56, 72, 28, 11.5), fill: card === "BJ" ? INK_RED : "none", stroke: color, "stroke-width": 3, "stroke-linejoin": "round" }, svg);
    return svg;
  }
  corner(svg, card, color);
  const low = corner(svg, card, color);
  low.setAttribute("transform", "rotate(180 50 70)");
  drawCenter(svg, card, color);
  return svg;
}

/** The back of a card, for hands that are not shown. */
export function cardBack() {
  const svg = node("svg", { viewBox: "0 0 100 140", class: "face back", "aria-hidden": "true", focusable: "false" });
  node("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#7a1020", stroke: "#4d0a14", "stroke-width": 1.5 }, svg);
  node("rect", { x: 8, y: 8, width: 84, height: 124, rx: 5, fill: "none", stroke: "#e9c46a", "stroke-width": 2 }, svg);
  node("polygon", { points: star(50, 70, 22, 9), fill: "#e9c46a" }, svg);
  return svg;
}

/**
 * A card as an element of the page: a <span> (or the tag given) holding the face, with the
 * card's notation in data-card and its spoken name in aria-label.
 */
export function cardElement(card, L, options = {}) {
  const element = document.createElement(options.tag || "span");
  element.className = `card${options.className ? ` ${options.className}` : ""}${isRed(card) ? " red" : ""}`;
  element.dataset.card = card;
  if (options.tag !== "button") element.setAttribute("role", "img");
  element.setAttribute("aria-label", cardName(card, L));
  if (options.face !== "compact") element.append(cardFace(card));
  if (options.face === "compact" || options.face === "both") element.append(cardFace(card, { compact: true }));
  return element;
}

/**
 * A row of small cards (a trick, a kitty, point cards), with one accessible name for all.
 * `face`: "full", "compact" (small rows) or "both" (CSS shows one by the screen's width).
 */
export function cardRow(cards, L, className, face) {
  const row = document.createElement("span");
  row.className = `card-row${className ? ` ${className}` : ""}`;
  row.setAttribute("role", "img");
  row.setAttribute("aria-label", cards.length ? cardsName(cards, L) : L.none || "—");
  for (const card of cards) {
    const element = cardElement(card, L, { face: face || (className && className.includes("mini") ? "compact" : "full") });
    element.removeAttribute("role");
    element.removeAttribute("aria-label");
    row.append(element);
  }
  return row;
}
