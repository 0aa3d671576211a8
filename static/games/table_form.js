// The create form's rules summary: the preset's description, and every rule in force (the
// preset's, or a house rule chosen over it), in the words of games/rules_words.py.
const data = JSON.parse(document.getElementById("rules-data").textContent);
const form = document.getElementById("table-form");

function chosenRules() {
  const preset = form.elements.preset.value;
  const options = { ...data.presets[preset].options };
  let house = false;
  for (const option of Object.keys(data.options)) {
    const field = form.elements[`rule_${option}`];
    if (field && field.value && field.value !== options[option]) {
      options[option] = field.value;
      house = true;
    }
  }
  return { preset, options, house };
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

function render() {
  const { preset, options, house } = chosenRules();
  const base = data.presets[preset];
  document.getElementById("preset-description").textContent = base.description;
  document.getElementById("rules-summary-name").textContent = house ? `${base.label} · ${data.house_label}` : base.label;
  const list = document.getElementById("rules-summary");
  list.replaceChildren(
    ...Object.entries(data.options).map(([option, { label, words }]) =>
      row(label, words[options[option]], options[option] !== base.options[option]),
    ),
  );
}

form.addEventListener("change", render);
render();
