// The create form's rules summary: the preset's description, and every rule in force (the
// preset's, or a house rule chosen over it), in the words of games/rules_words.py.
const data = JSON.parse(document.getElementById("rules-data").textContent);
const shapeNode = document.getElementById("shape-data");
const shapeData = shapeNode ? JSON.parse(shapeNode.textContent) : null;
const form = document.getElementById("table-form");
// The defaults of the 找朋友 and bigger-table options (RULES-SPEC.md §9.2–§3).
const SHAPE_DEFAULTS = { friend_cards: "unrestricted", join_policy: "unrestricted", small_side_bonus: "on", draw_policy: "no_protections" };

function fmt(template, values) {
  return String(template || "").replace(/\{(\w+)\}/g, (match, key) => (key in values ? String(values[key]) : match));
}

/** The shape chosen (players, mode, decks, friends), with the defaults by players filled in;
 * the mode follows the players where only one fits (tractor: even; 找朋友: 5–8). */
function chosenShape() {
  const field = (name) => form.elements[name];
  const players = Number(field("players") ? field("players").value : 4) || 4;
  const mode = field("mode");
  if (mode && mode.tagName === "SELECT") {
    for (const option of mode.options) {
      option.disabled = option.value === "tractor" ? players % 2 === 1 : players < 5;
    }
    if (mode.selectedOptions[0] && mode.selectedOptions[0].disabled) {
      mode.value = [...mode.options].find((o) => !o.disabled).value;
    }
  }
  const defaults = (shapeData && shapeData.defaults[players]) || { decks: 2, friends: 0 };
  const decksField = field("decks");
  const friendsField = field("friends");
  if (decksField) decksField.placeholder = String(defaults.decks);
  if (friendsField) friendsField.placeholder = String(defaults.friends || "");
  return {
    players,
    mode: mode ? mode.value || "tractor" : "tractor",
    decks: Number(decksField && decksField.value) || defaults.decks,
    friends: Number(friendsField && friendsField.value) || defaults.friends,
  };
}

/** "6人 · 3副 · 找朋友" in the server's words: one pattern, or its parts. */
function shapeWords(shape) {
  const mode = shapeData.modes[shape.mode] || shape.mode;
  if (shapeData.shape) return fmt(shapeData.shape, { players: shape.players, decks: shape.decks, mode });
  const part = (pattern, key, value) => String(pattern || "").replace(`%(${key})s`, String(value)).replace(`{${key}}`, String(value));
  return [part(shapeData.players_words, "players", shape.players), part(shapeData.decks_words, "decks", shape.decks), mode].join(" · ");
}

/** The shape in words ("6人 · 3副 · 找朋友") and its options, before the table is made. */
function shapeRows(shape) {
  if (!shapeData) return [];
  const summary = document.getElementById("shape-summary");
  const words = shapeWords(shape);
  if (summary) summary.textContent = words;
  for (const node of form.querySelectorAll(".friends-only")) node.hidden = shape.mode !== "friends";
  const rows = [];
  for (const [option, { label, words: values }] of Object.entries(shapeData.options)) {
    if (data.options[option]) continue; // a house rule: the rows below say it
    if (option !== "draw_policy" && shape.mode !== "friends") continue;
    if (option === "draw_policy" && shape.decks <= 2) continue; // tuples of 3+ need 3 decks
    const field = form.elements[option] || form.elements[`rule_${option}`];
    const value = field && field.value ? field.value : SHAPE_DEFAULTS[option];
    if (houseChanged(option)) continue; // a house value: the house rows say it
    rows.push(row(label, values[value] || value, Boolean(field && field.value && field.value !== SHAPE_DEFAULTS[option])));
  }
  if (shape.mode === "friends") {
    const label = form.querySelector("label[for$='friends']");
    rows.unshift(row(label ? label.textContent.replace(/[:：]\s*$/, "") : "friends", String(shape.friends), false));
  }
  return rows;
}

function chosenRules() {
  const preset = form.elements.preset.value;
  const options = { ...data.presets[preset].options };
  for (const option of Object.keys(data.options)) {
    const field = form.elements[`rule_${option}`];
    if (field && field.value && field.value !== options[option]) {
      options[option] = field.value;
    }
  }
  return { preset, options };
}

function row(label, text, changed) {
  const div = document.createElement("div");
  div.className = changed ? "rules-row changed" : "rules-row";
  const dt = document.createElement("dt");
  dt.textContent = label;
  const dd = document.createElement("dd");
  dd.textContent = text;
  div.append(dt, dd);
  return div;
}

/** Whether a table of `decks` decks reads the option: from three decks the kitty bonus has its
 * own rule (RULES-SPEC.md §9.2.10; games/rules_words.py _option_read). */
function optionRead(option, decks) {
  return !(option === "kitty_multiplier" && decks > 2);
}

/** A house option beyond RULES-SPEC.md §8 chosen over the preset (games/rules_words.py
 * house_form_data): its value as the form sends it, or null when it plays as the preset (an
 * empty field, the default, or one of draw_policy's shape values). */
function houseChanged(option) {
  const info = (data.house || {})[option];
  if (!info) return null;
  const field = form.elements[info.field];
  const value = field ? String(field.value) : "";
  if (value === "" || value === info.default || (info.shape_values || []).includes(value)) return null;
  return value;
}

/** A house option's value in words: a choice's words, or a number in its pattern. */
function houseWords(info, value) {
  if (info.words) return info.words[value] || value;
  if (Number(value) === 0 && info.zero) return info.zero;
  return fmt(info.number, { n: value });
}

/** The rows of the house options the form changes, only those (the rest play as the preset). */
function houseRows() {
  const rows = [];
  for (const [option, info] of Object.entries(data.house || {})) {
    const value = houseChanged(option);
    if (value !== null) rows.push({ option, label: info.label, text: houseWords(info, value) });
  }
  return rows;
}

function render() {
  const { preset, options } = chosenRules();
  const base = data.presets[preset];
  const shape = chosenShape();
  const house = houseRows();
  const changed = Object.keys(data.options).filter(
    (option) => options[option] !== base.options[option] && optionRead(option, shape.decks),
  );
  const changedLabels = [...changed.map((o) => data.options[o].label), ...house.map((h) => h.label)];
  const changedWords = changedLabels.length
    ? String(data.changes_label || "").replace("%(rules)s", changedLabels.join(data.list_separator || ", "))
    : "";
  document.getElementById("preset-description").textContent = changedWords ? `${base.description} ${changedWords}` : base.description;
  document.getElementById("rules-summary-name").textContent = changedLabels.length ? `${base.label} · ${data.house_label}` : base.label;
  const list = document.getElementById("rules-summary");
  const rows = Object.entries(data.options).map(([option, { label, words }]) =>
    optionRead(option, shape.decks)
      ? row(label, words[options[option]], changed.includes(option))
      : row(label, data.kitty_many_decks, false),
  );
  list.replaceChildren(...shapeRows(shape), ...rows, ...house.map((h) => row(h.label, h.text, true)));
}

// The table points a seat will need, as the server computes it when sitting and before every
// hand (games/views.py table_needed): asked again as the fields change.
const needed = document.getElementById("seat-needed");
let neededTimer = 0;
let neededAsked = 0;

function askNeeded() {
  if (!needed) return;
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (name !== "csrfmiddlewaretoken") query.append(name, String(value));
  const asked = ++neededAsked;
  fetch(`${needed.dataset.url}?${query}`, { headers: { Accept: "application/json" }, credentials: "same-origin" })
    .then((response) => response.json())
    .then((answer) => {
      if (asked !== neededAsked) return; // a later change has asked again
      needed.textContent = answer.ok ? answer.text : answer.message;
      needed.classList.toggle("short", !answer.ok || !answer.enough);
    })
    .catch(() => {});
}

/** The mode a number of players starts with: 找朋友 from five players (RULES-SPEC.md §9.1.2;
 * games/forms.py ShapeForm.clean_mode says the same for a form sent without a mode). The
 * player may then choose 拖拉机 at 6 or 8. */
function defaultMode(players) {
  return players >= 5 ? "friends" : "tractor";
}

function playersChosen() {
  const mode = form.elements.mode;
  const players = form.elements.players;
  if (mode && mode.tagName === "SELECT" && players) mode.value = defaultMode(Number(players.value) || 4);
}

/** A link may open the form at a shape (the home page's 找朋友: ?players=6&mode=friends). */
function shapeFromAddress() {
  const query = new URLSearchParams(window.location.search);
  const set = (name) => {
    const field = form.elements[name];
    const value = query.get(name);
    if (!field || value === null) return false;
    const offered = field.tagName !== "SELECT" || [...field.options].some((o) => o.value === value);
    if (offered) field.value = value;
    return offered;
  };
  if (set("players")) playersChosen();
  set("mode");
  set("decks");
}

function changed(event) {
  if (event && event.type === "change" && event.target && event.target.name === "players") playersChosen();
  render();
  clearTimeout(neededTimer);
  neededTimer = setTimeout(askNeeded, 200);
}

form.addEventListener("change", changed);
form.addEventListener("input", changed);
shapeFromAddress();
render();
askNeeded();
