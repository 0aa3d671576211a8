// The lobby: the table list live from the `ws/lobby/` socket, the quick-match queue from
// /tables/status/, and the lobby's forms sent without leaving the page.
// Plain ES module, no build step. Text from users is only ever set with textContent.

const root = document.getElementById("lobby");
const labelsNode = document.getElementById("lobby-labels");
const L = labelsNode ? JSON.parse(labelsNode.textContent) : {};

// --- the create form: rules only matter at casual tables -------------------------------------

function wireTableForm(form) {
  const mode = form.querySelector("[name=mode]");
  const preset = form.querySelector("[name=preset]");
  if (!mode || !preset) return;
  const sync = () => {
    preset.disabled = mode.value === "ranked";
  };
  mode.addEventListener("change", sync);
  form.addEventListener("submit", () => {
    preset.disabled = false; // a disabled field is not sent; the service ignores it when ranked
  });
  sync();
}

document.querySelectorAll(".table-form").forEach(wireTableForm);

// --- small DOM helpers -----------------------------------------------------------------------

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function csrfToken() {
  const input = document.querySelector("[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function postForm(action, fields, buttonText, buttonClass) {
  const form = el("form", "js-post");
  form.method = "post";
  form.action = action;
  const token = el("input");
  token.type = "hidden";
  token.name = "csrfmiddlewaretoken";
  token.value = csrfToken();
  form.append(token);
  for (const [name, value] of Object.entries(fields)) {
    const input = el("input");
    input.type = "hidden";
    input.name = name;
    input.value = String(value);
    form.append(input);
  }
  const button = el("button", buttonClass || "", buttonText);
  button.type = "submit";
  form.append(button);
  return form;
}

function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

if (root) startLobby();

function startLobby() {
  const base = root.dataset.lobbyUrl; // "/tables/"
  const statusUrl = root.dataset.statusUrl;
  const loggedIn = root.dataset.loggedIn === "1";
  const list = document.getElementById("tables");
  const live = document.getElementById("lobby-live");
  const errorBox = document.getElementById("lobby-error");
  const controls = document.getElementById("quick-controls");
  let tables = null; // the newest `lobby` frame's tables
  let viewer = { seats: {}, created: [] };
  let queue = null;
  let queueAt = 0; // when `queue` arrived (ms), to count the wait on
  let wasQueued = false;

  // --- errors and actions ------------------------------------------------------------------

  function showError(code, message, body) {
    // A refusal that says in full what to do comes without its code, with the page it names.
    const plain = body && body.plain;
    errorBox.textContent = code && !plain ? `${message} (${code})` : message;
    if (plain && body.link_url) {
      const link = el("a", "", body.link_text);
      link.href = body.link_url;
      errorBox.append(" ", link);
    }
    errorBox.hidden = false;
  }

  root.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("js-post")) return;
    event.preventDefault();
    errorBox.hidden = true;
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      });
      const body = await response.json().catch(() => ({ ok: false, code: "bad_response", message: response.statusText }));
      if (!body.ok) showError(body.code, body.message, body);
      if (body.ok && form.action.includes("/quick/join/")) wasQueued = true;
    } catch (error) {
      showError("network", String(error));
    } finally {
      if (button) button.disabled = false;
      refreshStatus();
    }
  });

  // --- the tables --------------------------------------------------------------------------

  function seatItem(table, seat, mine, mayBot) {
    const item = el("li", "seat");
    const isMine = mine && mine.seat === seat.seat;
    const free = seat.user === null && !seat.bot;
    item.classList.toggle("mine", Boolean(isMine));
    item.classList.toggle("is-ready", seat.ready);
    item.classList.toggle("is-bot", seat.bot);
    item.classList.toggle("free", free);
    item.append(el("span", "seat-no", L.compass[seat.seat]));
    let who = L.empty;
    if (seat.user !== null && seat.autopilot) who = `${seat.user} (${L.autopilot})`;
    else if (seat.user !== null) who = seat.bot ? `${seat.user} (${L.bot})` : seat.user;
    else if (seat.bot) who = L.bot;
    item.append(el("span", "seat-who", who));
    if (seat.ready) item.append(el("span", "seat-ready", `✓ ${L.ready}`));
    const playing = table.status === "playing";
    if (free && !playing && loggedIn && !mine && !table.ranked) { // ranked: quick match seats
      const form = postForm(`${base}${table.id}/sit/`, { seat: seat.seat }, L.sit);
      form.classList.add("seat-form");
      if (table.seats.every((s) => s.user === null)) {
        const stake = el("input", "stake");
        stake.type = "number";
        stake.name = "stake";
        stake.min = "1";
        stake.max = "100000";
        stake.value = String(table.stake);
        stake.setAttribute("aria-label", L.stake_first);
        form.insertBefore(stake, form.querySelector("button"));
      }
      item.append(form);
    }
    if (free && mayBot) {
      const form = postForm(`${base}${table.id}/bot/`, { seat: seat.seat }, L.add_bot, "secondary");
      form.classList.add("seat-form");
      item.append(form);
    }
    return item;
  }

  function tableCard(table) {
    const mine = viewer.seats[String(table.id)] || null;
    const playing = table.status === "playing";
    const mayBot = !table.ranked && !playing && (mine !== null || viewer.created.includes(table.id));
    const card = el("li", "table-card");
    card.id = `table-${table.id}`;
    card.dataset.id = String(table.id);
    card.classList.toggle("playing", playing);
    card.classList.toggle("mine", mine !== null);

    const head = el("div", "table-head");
    const name = el("a", "table-name", table.ranked ? L.quick_match_name.replace("{name}", table.name) : table.name);
    name.href = `${base}${table.id}/`;
    head.append(name);
    head.append(el("span", `badge ${table.ranked ? "ranked" : "casual"}`, table.ranked ? L.ranked : L.casual));
    head.append(el("span", `badge status-${table.status}`, playing ? L.playing : L.open));
    card.append(head);

    // "· house rules" only when a rule of the preset is changed, not for a shape alone (games/lobby.py).
    const rulesName = (L.presets[table.preset] || table.preset) + (table.rules_changed ? ` · ${L.house_rules}` : "");
    const meta = [rulesName, `${L.stake} ${table.stake}`, `${L.min_balance} ${table.min_balance}`, `${table.play_seconds} ${L.seconds}`];
    card.append(el("p", "table-meta", meta.join(" · ")));

    const seats = el("ol", "seats");
    for (const seat of table.seats) seats.append(seatItem(table, seat, mine, mayBot));
    card.append(seats);

    if (mine && !playing) {
      const actions = el("div", "table-actions");
      actions.append(postForm(`${base}${table.id}/ready/`, { ready: mine.ready ? "0" : "1" }, mine.ready ? L.unready : L.press_ready));
      actions.append(postForm(`${base}${table.id}/leave/`, {}, L.leave, "secondary"));
      card.append(actions);
    }
    return card;
  }

  function renderTables() {
    if (tables === null) return;
    const focused = document.activeElement && document.activeElement.closest(".table-card");
    if (focused && document.activeElement.matches("input")) return; // do not eat a stake being typed
    const items = tables.map(tableCard);
    if (items.length === 0) items.push(el("li", "none", L.no_tables));
    // A card that did not change keeps its node: a tap that lands while a frame or the status
    // re-renders the list still reaches its link (a replaced node loses a tap half made on it).
    const before = new Map([...list.children].map((child) => [child.id, child]));
    const kept = items.map((item) => {
      const old = item.id ? before.get(item.id) : undefined;
      return old && old.isEqualNode(item) ? old : item;
    });
    if (kept.length === list.children.length && kept.every((node, i) => node === list.children[i])) return;
    list.replaceChildren(...kept);
  }

  // --- the queue ---------------------------------------------------------------------------

  function renderQueue() {
    if (queue === null) return;
    document.getElementById("queue-expected").textContent =
      queue.expected_wait_s === null ? L.no_estimate : duration(queue.expected_wait_s);
    if (!loggedIn) return;
    const parts = [];
    if (queue.queued) {
      const waited = queue.waited_s + (Date.now() - queueAt) / 1000;
      parts.push(el("p", "", `${L.waiting_for} ${duration(waited)} · ${L.gap}`));
      parts.push(postForm(`${base}quick/leave/`, {}, L.leave_queue, "secondary"));
    } else if (queue.matched_table !== null) {
      const p = el("p", "", `${L.matched} `);
      const link = el("a", "", `#${queue.matched_table}`);
      link.href = `${base}${queue.matched_table}/`;
      p.append(link);
      parts.push(p);
    } else {
      parts.push(postForm(`${base}quick/join/`, {}, L.join));
    }
    controls.replaceChildren(...parts);
  }

  let statusTimer = null;
  let statusBusy = false;

  async function refreshStatus() {
    if (statusBusy) return;
    statusBusy = true;
    clearTimeout(statusTimer);
    try {
      const response = await fetch(statusUrl, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (response.ok) {
        const body = await response.json();
        queue = body.queue;
        queueAt = Date.now();
        viewer = body.viewer;
        if (wasQueued && !queue.queued && queue.matched_table !== null) {
          window.location.assign(`${base}${queue.matched_table}/`);
          return;
        }
        wasQueued = queue.queued;
        renderQueue();
        renderTables();
      }
    } catch {
      // the next round tries again
    } finally {
      statusBusy = false;
      // While waiting, ask often: it keeps the place (a place not asked for in a minute is given up).
      statusTimer = setTimeout(refreshStatus, queue && queue.queued ? 4000 : 15000);
    }
  }

  setInterval(() => {
    if (queue && queue.queued) renderQueue();
  }, 1000);

  // --- the socket --------------------------------------------------------------------------

  let backoff = 1000;
  let frameTimer = null;

  function connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${window.location.host}${root.dataset.socket}`);
    socket.addEventListener("open", () => {
      backoff = 1000;
      live.textContent = `● ${L.live}`;
      live.classList.remove("offline");
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type !== "lobby") return;
      tables = frame.tables;
      renderTables();
      list.dataset.live = "1"; // the list is the socket's from here on (tests wait for it)
      // A change may be ours (a seat, a quick match): ask for our side of it, once per burst.
      clearTimeout(frameTimer);
      frameTimer = setTimeout(refreshStatus, 300);
    });
    socket.addEventListener("close", () => {
      live.textContent = L.offline;
      live.classList.add("offline");
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 15000);
    });
  }

  wasQueued = Boolean(controls && controls.querySelector("form[action$='/quick/leave/']"));
  connect();
  refreshStatus();
}
