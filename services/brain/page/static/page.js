// The assistant's page: live events from /page/events, actions as POSTs with the CSRF token.
// Plain DOM, no framework, nothing loaded from elsewhere (the CSP forbids it anyway).
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const $ = (id) => document.getElementById(id);
const turns = new Map();  // turn id -> the latest view of it (the tap's fold, and more)
const typed = new Map();  // turn id -> the chat entry of a question asked here, while it streams

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

function notice(text) { $("notice").textContent = text; }

async function post(path, body = {}) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const problem = await response.json().catch(() => ({ error: response.statusText }));
    throw new Error(problem.error || `HTTP ${response.status}`);
  }
  return response;
}

async function getJSON(path) {
  const response = await fetch(path, { headers: { "X-CSRF-Token": csrf } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

// Server-sent events out of a fetch body (EventSource cannot POST): yields [type, data].
async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) type = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) yield [type, JSON.parse(data)];
    }
  }
}

// --- Conversation ---------------------------------------------------------------------

function chatEntry(id) {
  let entry = document.querySelector(`#chat > li[data-turn="${CSS.escape(id)}"]`);
  if (!entry) {
    entry = el("li", { "data-turn": id },
      el("p", { class: "question" }), el("p", { class: "answer" }), el("p", { class: "meta" }));
    $("chat").append(entry);
  }
  return entry;
}

function showInChat(turn) {
  if (!turn.text && !turn.answer) return;
  const entry = chatEntry(turn.turn);
  const how = turn.voice ? "said" : "typed";
  entry.className = turn.voice ? "voice" : "text";
  entry.querySelector(".question").textContent = `You (${how}${turn.lang ? ", " + turn.lang : ""}): ${turn.text}`;
  if (!typed.has(turn.turn)) entry.querySelector(".answer").textContent = `Assistant: ${turn.answer}`;
  const tools = turn.tools.map((t) => t.name + (t.ok ? "" : " (failed)")).join(", ");
  const meta = [tools && `tools: ${tools}`, turn.error && `error: ${turn.error}`,
    turn.confirmation && `asks: ${turn.confirmation}`].filter(Boolean).join(" · ");
  entry.querySelector(".meta").textContent = meta;
}

async function ask(text) {
  const entry = el("li", { class: "text" },
    el("p", { class: "question" }, `You (typed): ${text}`),
    el("p", { class: "answer", "aria-busy": "true" }, "Assistant: "), el("p", { class: "meta" }));
  $("chat").append(entry);
  const answer = entry.querySelector(".answer");
  try {
    const response = await post("/page/ask", { text });
    for await (const [type, data] of events(response)) {
      if (type === "turn") {
        const known = document.querySelector(`#chat > li[data-turn="${CSS.escape(data.turn)}"]`);
        if (known) known.remove();  // its bus messages came first: this entry takes over
        entry.dataset.turn = data.turn;
        typed.set(data.turn, entry);
      } else if (type === "piece") {
        answer.textContent += data.text;
      } else if (type === "done") {
        answer.textContent = `Assistant: ${data.answer}`;
      } else if (type === "failed") {
        answer.textContent += ` [failed: ${data.error}]`;
      }
    }
  } catch (error) {
    answer.textContent += ` [refused: ${error.message}]`;
  } finally {
    answer.setAttribute("aria-busy", "false");
    typed.delete(entry.dataset.turn);
    const turn = turns.get(entry.dataset.turn);
    if (turn) showInChat(turn);
  }
}

$("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("ask-text").value.trim();
  if (!text) return;
  $("ask-text").value = "";
  ask(text);
});

// --- Turns ----------------------------------------------------------------------------

function renderTurns() {
  const list = [...turns.values()].reverse();
  const longest = Math.max(1, ...list.flatMap((t) => Object.values(t.stages)));
  const rows = list.map((turn) => {
    const stages = Object.entries(turn.stages).map(([stage, seconds]) =>
      el("li", {}, el("span", { class: "stage" }, `${stage} ${seconds.toFixed(2)}s`),
        el("meter", { min: "0", max: String(longest), value: String(Math.max(0, seconds)),
          "aria-label": `${stage} at ${seconds.toFixed(2)} seconds` })));
    for (const tool of turn.tools) {
      stages.push(el("li", {}, el("span", { class: "stage" },
        `tool ${tool.name} ${tool.start.toFixed(2)}s (${tool.duration.toFixed(2)}s)`)));
    }
    const label = `${turn.voice ? "voice" : "typed"} turn: ${turn.text || turn.turn}`;
    const open = el("button", { type: "button", class: "turn-open", "data-turn": turn.turn },
      label + (turn.complete ? "" : " (in progress)"));
    open.addEventListener("click", () => showMessages(turn.turn));
    return el("li", { "data-turn": turn.turn, class: "turn" }, open,
      el("ol", { class: "stages", "aria-label": `stages of the ${label}` }, ...stages));
  });
  // Keep a keyboard user's place: the focused turn's new button takes the focus.
  const focused = document.activeElement && document.activeElement.closest(".turn-open");
  $("turn-list").replaceChildren(...rows);
  if (focused) {
    const again = $("turn-list").querySelector(`.turn-open[data-turn="${CSS.escape(focused.dataset.turn)}"]`);
    if (again) again.focus();
  }
}

async function showMessages(id) {
  try {
    const data = await getJSON(`/page/turns/${encodeURIComponent(id)}`);
    $("messages-text").textContent = data.messages.map((m) => `+${m.at.toFixed(3)}s ${m.line}`).join("\n");
    $("turn-messages").hidden = false;
    $("messages-text").focus();
  } catch (error) { notice(error.message); }
}

// --- Confirmations --------------------------------------------------------------------

// The questions that wait for a yes, as the brain follows them (it drops one once it is
// answered or lapses): [{session, turn, question, answered_by}].
let waiting = [];

function renderConfirmations(list) {
  waiting = list;
  // A live region: re-rendered only when what waits changed, so it is announced once.
  const key = JSON.stringify(list.map((q) => [q.turn, q.question]));
  if (key === renderConfirmations.shown) return;
  renderConfirmations.shown = key;
  const items = list.map((q) => {
    const item = el("li", { "data-turn": q.turn, "data-session": q.session },
      el("span", {}, q.question + " "));
    if (q.answered_by) {
      for (const word of ["Yes", "No"]) {
        const button = el("button", { type: "button", class: "confirm" }, word);
        button.addEventListener("click", () => answerQuestion(q, word, item));
        item.append(button, " ");
      }
      if (q.answered_by === "voice") item.append(el("em", {}, "(asked by voice)"));
    } else {
      item.append(el("em", {}, `(session ${q.session}: answer it there)`));
    }
    return item;
  });
  $("confirmations").replaceChildren(...(items.length ? items : [el("li", { class: "hint" }, "Nothing waits.")]));
}

async function answerQuestion(q, word, item) {
  for (const button of item.querySelectorAll("button")) button.disabled = true;  // one answer
  if (q.answered_by === "page") {  // the page's own conversation: its next typed turn
    ask(word);
    return;
  }
  try {  // the voice session's: the brain sends it as that session's next turn
    await post("/page/confirm", { answer: word.toLowerCase(), turn: q.turn });
  } catch (error) {
    notice(`${word}: ${error.message}`);
    renderConfirmations.shown = null;  // the buttons back, if it still waits
    renderConfirmations(waiting);
  }
}

// --- Status ---------------------------------------------------------------------------

let micUp = null;

function renderServices(services) {
  // A mic that (re)started has the config's mode again: ask it which is on.
  const up = Boolean(services.mic && ["ready", "degraded"].includes(services.mic.state));
  if (up && micUp === false) loadListenMode();
  micUp = up;
  $("services").replaceChildren(...Object.entries(services).map(([name, s]) =>
    el("li", { class: `state-${s.state}`, "data-service": name },
      el("strong", {}, name), ` ${s.state}`, s.detail ? ` (${s.detail})` : "")));
}

function renderDoctor(doctor) {
  const count = (status) => doctor.checks.filter((c) => c.status === status).length;
  $("doctor-state").textContent = doctor.error ||
    `${count("ok")} ok, ${count("WARN")} WARN, ${count("FAIL")} FAIL`;
  $("doctor").tBodies[0].replaceChildren(...doctor.checks.map((c) =>
    el("tr", { class: `check-${c.status}` }, el("th", { scope: "row" }, c.name),
      el("td", {}, c.status), el("td", {}, c.detail, c.fix && c.status !== "ok" ? el("br") : null,
        c.fix && c.status !== "ok" ? `fix: ${c.fix}` : null))));
}

async function runDoctor() {
  $("doctor-state").textContent = "running…";
  try { renderDoctor(await (await post("/page/doctor")).json()); }
  catch (error) { $("doctor-state").textContent = error.message; }
}
$("doctor-run").addEventListener("click", runDoctor);

// --- Controls -------------------------------------------------------------------------

function showVolume(volume) {
  if (volume === null || volume === undefined) return;
  $("volume").value = String(volume);
  $("volume-value").textContent = Number(volume).toFixed(1);
}

async function volume(body) {
  try { showVolume((await (await post("/page/volume", body)).json()).volume); }
  catch (error) {
    $("volume-value").textContent = "?";
    if (body.action !== "get") notice(`volume: ${error.message}`);  // no speaker yet: no alarm
  }
}
$("volume").addEventListener("change", () => volume({ action: "set", value: Number($("volume").value) }));
$("volume-up").addEventListener("click", () => volume({ action: "up" }));
$("volume-down").addEventListener("click", () => volume({ action: "down" }));

let listenMode = "";

function showListenMode(mode, error) {
  listenMode = mode;
  $("listen-mode").textContent = mode;
  for (const radio of document.querySelectorAll('input[name="listen-mode"]')) radio.checked = radio.value === mode;
  if (error !== undefined) $("listen-mode-state").textContent = error ? `listen mode: ${error}` : "";
}

async function loadListenMode() {
  try {
    const data = await getJSON("/page/listen-mode");
    showListenMode(data.mode, data.mic ? data.error : "the mic is not running: the mode it starts with");
  } catch (error) { $("listen-mode-state").textContent = `listen mode: ${error.message}`; }
}

for (const radio of document.querySelectorAll('input[name="listen-mode"]')) {
  radio.addEventListener("change", async () => {
    if (!radio.checked) return;
    try {
      const data = await (await post("/page/listen-mode", { mode: radio.value })).json();
      showListenMode(data.mode, data.error);
    } catch (error) {
      showListenMode(listenMode, `${error.message}`);  // unchanged: the radios say so again
    }
  });
}

$("listen").addEventListener("click", async () => {
  try {
    const data = await (await post("/page/listen")).json();
    $("listen-state").textContent = data.listening ? "Listening: ask now." : "The mic is always listening.";
  } catch (error) { $("listen-state").textContent = `listen: ${error.message}`; }
});

// --- Settings -------------------------------------------------------------------------

function flatten(value, prefix, out) {
  if (value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length && !prefix.endsWith("blend")) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else out.push([prefix, value]);
  return out;
}

async function loadSettings() {
  const data = await getJSON("/page/settings");
  $("settings-folder").textContent = data.folder;
  const rows = flatten(data.settings, "", []).map(([key, value]) =>
    el("tr", { "data-key": key }, el("th", { scope: "row" }, key),
      el("td", {}, JSON.stringify(value)), el("td", {}, data.sources[key] || "default")));
  $("settings-table").tBodies[0].replaceChildren(...rows);
}
$("settings-filter").addEventListener("input", () => {
  const wanted = $("settings-filter").value.toLowerCase();
  for (const row of $("settings-table").tBodies[0].rows) row.hidden = !row.dataset.key.toLowerCase().includes(wanted);
});

// --- Live -----------------------------------------------------------------------------

function turnSeen(turn) {
  turns.set(turn.turn, turn);
  showInChat(turn);
}

function connect() {
  const source = new EventSource(`/page/events?csrf=${encodeURIComponent(csrf)}`);
  source.addEventListener("open", () => { $("connection").textContent = "live"; });
  source.addEventListener("error", () => { $("connection").textContent = "reconnecting…"; });
  source.addEventListener("snapshot", (event) => {
    const data = JSON.parse(event.data);
    turns.clear();
    data.turns.forEach(turnSeen);
    renderTurns(); renderConfirmations(data.confirmations); renderServices(data.services);
    showVolume(data.volume);
    showListenMode(data.listen_mode);
  });
  source.addEventListener("turn", (event) => {
    turnSeen(JSON.parse(event.data));
    renderTurns();
  });
  source.addEventListener("confirmations", (event) => renderConfirmations(JSON.parse(event.data).confirmations));
  source.addEventListener("listen_mode", (event) => {
    const data = JSON.parse(event.data);
    showListenMode(data.mode, data.error);
  });
  source.addEventListener("volume", (event) => showVolume(JSON.parse(event.data).volume));
  source.addEventListener("services", (event) => renderServices(JSON.parse(event.data).services));
}

async function start() {
  connect();
  try {
    const status = await getJSON("/page/status");
    $("llm").textContent = status.llm;
    $("stt").textContent = status.stt;
    showListenMode(status.listen_mode);
  } catch (error) { notice(error.message); }
  loadListenMode();
  loadSettings().catch((error) => notice(error.message));
  volume({ action: "get" });
  runDoctor();
}
start();
